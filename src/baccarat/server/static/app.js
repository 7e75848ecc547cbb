// @ts-check
// The browser table's entry module (index.html loads it, and it the rest): the header (language switch,
// balance, log out), the login screen, the lobby and the routes between them.  The table itself is table/,
// the roads roads.js, the shell every view shares shell.js, the words i18n.js and i18n/*.js.  Everything
// comes from the REST API and the table's WebSocket; no HTML is ever built from data (DOM nodes and text).
import { api, gamesKnown, keepToken, secondsUntil, serverNow, syncClock, token } from "./api.js";
import { h, text, toast } from "./dom.js";
import { CATALOGUES, defaultTable, drawWinName, gameName, isLuckyDraw, lang, money, rememberGames, rememberWagers, setLanguage, t, tableName } from "./i18n.js";
import { blockedText, forgetProtection, loadProtection, protectionView, showHelpFooter } from "./protect.js";
import { lobbyRoad } from "./roads.js";
import { connection, session, setBalance, show } from "./shell.js";
import { Sound } from "./sound.js";
import { tableView } from "./table/index.js";

/** What closes the view on show (a table's socket and timers). */
let leaveView = () => {};

async function refreshMe() {
  session.me = await api("GET", "/api/me");
  text(document.getElementById("who"), session.me.username);
  setBalance(session.me.balance);
  document.getElementById("balance-box").hidden = false;
  document.getElementById("logout").hidden = false;
  document.getElementById("protect-link").hidden = false;
  loadProtection().catch(() => {});  // the reality check runs from the login on
}

function logOut() {
  keepToken(null);
  session.me = null;
  text(document.getElementById("who"), "");
  document.getElementById("balance-box").hidden = true;
  document.getElementById("logout").hidden = true;
  document.getElementById("protect-link").hidden = true;
  forgetProtection();
  if (location.hash && location.hash !== "#/") location.hash = "#/";
  route();
}

/** The header and the page's own words in the language in use. */
function applyChrome() {
  document.documentElement.lang = lang;
  document.title = t("app.title");
  text(document.getElementById("home"), t("app.brand"));
  text(document.getElementById("balance-label"), t("header.balance"));
  text(document.getElementById("logout"), t("header.logout"));
  text(document.getElementById("lang-label"), t("header.language"));
  text(document.getElementById("protect-link"), t("header.protection"));
  Sound.label();  // the sound toggle: off unless this browser turned it on
  showHelpFooter();
  document.getElementById("top").setAttribute("aria-label", t("header.label"));
  const select = /** @type {HTMLSelectElement} */ (document.getElementById("lang"));
  if (!select.options.length) {
    for (const [code, catalogue] of Object.entries(CATALOGUES)) select.append(h("option", { value: code, lang: code }, catalogue._name || code));
  }
  select.value = lang;
  if (!document.getElementById("connection").hidden) connection(true);
}

// ---------------------------------------------------------------- login

function loginView() {
  const message = h("p", { class: "error", role: "alert", id: "login-error" });
  const username = h("input", { name: "username", id: "username", autocomplete: "username", maxlength: 32,
                                "aria-describedby": "username-rule" });
  const password = h("input", { name: "password", id: "password", type: "password", autocomplete: "current-password",
                                maxlength: 128, "aria-describedby": "password-rule" });
  async function go(register) {
    message.textContent = "";
    const body = { username: username.value.trim(), password: password.value };
    // the rules the server applies, checked here first so that the words are the player's
    if (!/^[A-Za-z0-9_.-]{3,32}$/.test(body.username)) { message.textContent = t("login.name_rule"); username.focus(); return; }
    if (body.password.length < 8) { message.textContent = t("login.password_rule"); password.focus(); return; }
    try {
      if (register) await api("POST", "/api/accounts", body);
      keepToken((await api("POST", "/api/sessions", body)).token);
      await refreshMe();
      route();
    } catch (error) { message.textContent = error.message; }
  }
  const form = h("form", { class: "login", novalidate: true, onsubmit: (e) => { e.preventDefault(); go(false); } },
    h("h1", { tabindex: "-1" }, t("login.title")),
    h("p", {}, t("login.intro")),
    h("label", { for: "username" }, t("login.username")), username,
    h("p", { class: "rule", id: "username-rule" }, t("login.name_rule")),
    h("label", { for: "password" }, t("login.password")), password,
    h("p", { class: "rule", id: "password-rule" }, t("login.password_hint")),
    message,
    h("div", { class: "actions" },
      h("button", { type: "submit", class: "primary", id: "login" }, t("login.login")),
      h("button", { type: "button", id: "register", onclick: () => go(true) }, t("login.register"))));
  show(form);
  username.focus();
}

// ---------------------------------------------------------------- lobby

function lobbyView() {
  const list = h("div", { class: "lobby", id: "lobby" });
  const heading = h("h1", { tabindex: "-1" }, t("lobby.title"));
  const blocked = h("p", { class: "refusal info blocked", id: "lobby-blocked", role: "status", hidden: true });
  show(heading, h("p", { class: "lead" }, t("lobby.intro")), blocked, list);
  // on a break the Sit down buttons go: the sentence above the tables says why and until when
  let onBreak = false;
  loadProtection().then((state) => {
    const words = blockedText(state);
    if (words && !closed) { text(blocked, words); blocked.hidden = false; onBreak = true; tick(); }
  }).catch(() => {});
  let closed = false;
  const cards = {};
  const latest = {};  // table id -> its view as last read
  let fetching = false, lastFetch = 0, retryAt = 0;
  const seatsOf = {};  // game code -> seats at its tables, from the game records
  const gamesRead = api("GET", "/api/games").then((games) => {
    rememberGames(games);
    for (const g of games) seatsOf[g.code] = g.max_seats;
  }).catch(() => {});
  function loadRoad(table) {
    const card = cards[table.id];
    if (isLuckyDraw(table.game)) {
      if (drawWinName(table.wagers)) {  // named by what it pays (the registry's headline), not its number
        card.road.replaceChildren(h("p", { class: "meta paytable-name" }, drawWinName(table.wagers)));
      }
      return;
    }
    api("GET", `/api/tables/${table.id}/roads`).then((roads) => {
      if (closed) return;
      const box = lobbyRoad(roads, table.game);
      card.road.replaceChildren(box);
      requestAnimationFrame(() => box.fit());
    }).catch(() => {});
  }
  // The phase and its countdown are worked out here, every quarter second, from the server's end of the
  // phase and the clock offset (lib.js's serverNow): no request while a countdown runs.  The tables are
  // read again when a phase ends (to learn the next one) and every 15 s (players sitting down, limits).
  function tick() {
    if (closed) return;
    let due = lastFetch + 15000;
    for (const [id, table] of Object.entries(latest)) {
      const card = cards[id];
      const open = table.status === "open";
      const left = open ? secondsUntil(table.phase_ends_at) : null;
      const words = !open ? t("lobby.closed")
        : t(`phase.${table.phase || "betting"}`) + (left != null && left > 0 ? ` · ${t("phase.seconds", { n: left })}` : "");
      if (card.phase.textContent !== words) text(card.phase, words);
      card.phase.dataset.phase = open ? table.phase || "betting" : "closed";
      if (open && table.phase_ends_at) due = Math.min(due, Date.parse(table.phase_ends_at) + 300);
      card.button.hidden = onBreak;
    }
    if (!fetching && serverNow() >= Math.max(due, retryAt)) refresh();
  }
  async function refresh() {
    let tables;
    fetching = true;
    await gamesRead;  // the registry names the games, and says which are default tables
    try { tables = await api("GET", "/api/tables"); } catch (error) {
      fetching = false; retryAt = serverNow() + 5000;
      if (!closed) toast(error.message);
      return;
    }
    fetching = false;
    if (closed) return;
    for (const table of tables) if (table.server_time) syncClock(table.server_time);
    lastFetch = serverNow();
    retryAt = lastFetch + 1000;  // a phase the server has not moved on yet: ask again in a second, not at once
    for (const table of tables) {
      rememberWagers(table.wagers);
      if (!cards[table.id]) {
        const meta = h("div", { class: "meta" });
        const phase = h("div", { class: "meta phase-line" });
        const road = h("div", { class: "road-slot" });
        const button = h("button", { type: "button", class: "primary sit", onclick: () => join(table.id) });
        cards[table.id] = { meta, phase, button, road,
          node: h("section", { class: "table-card", "data-table": table.id, "aria-labelledby": `table-${table.id}-name` },
            h("h2", { id: `table-${table.id}-name` }, tableName(table.name, table.game)),
            // a default table's name already says its game ("EZ Baccarat table 1")
            defaultTable(table.name) ? null : h("div", { class: "game-name" }, gameName(table.game)),
            meta, phase, road, button) };
        list.append(cards[table.id].node);
      }
      const card = cards[table.id];
      const shown = table.last_result ? table.last_result.round : null;
      if (!("shown" in card) || card.shown !== shown) { card.shown = shown; loadRoad(table); }  // a new result: the road moves
      latest[table.id] = table;
      const seated = Object.keys(table.players || table.seats || {}).length;
      const maxBet = Math.max(...Object.values(table.limits.maximums));
      text(card.meta, t("lobby.meta", { min: money(table.limits.minimum), max: money(maxBet), seated, seats: seatsOf[table.game] || 7 }));
      text(card.button, table.status === "open" ? t("lobby.sit") : t("lobby.closed"));
      card.button.setAttribute("aria-label", t("lobby.sit_at", { table: tableName(table.name, table.game) }));
      card.button.disabled = table.status !== "open";
    }
    tick();
  }
  refresh();
  const timer = setInterval(tick, 250);
  heading.focus();
  return () => { closed = true; clearInterval(timer); };
}

async function join(tableId) {
  try {
    await api("POST", `/api/tables/${tableId}/seats`, {});
    location.hash = `#/table/${tableId}`;
  } catch (error) { toast(error.message); }
}

// ---------------------------------------------------------------- routing

async function route() {
  leaveView();
  leaveView = () => {};
  connection(false);
  applyChrome();
  if (!token) { loginView(); return; }
  try {
    if (!session.me) await refreshMe();
    await gamesKnown();  // the games' names, in every language, are the registry's
    const match = location.hash.match(/^#\/table\/(\d+)$/);
    if (location.hash === "#/protection") {
      leaveView = protectionView();
    } else if (match) {
      leaveView = tableView(Number(match[1]));
      document.getElementById("table-title").focus();
    } else {
      leaveView = lobbyView();
    }
  } catch (error) {
    if (token) show(h("p", { class: "error", role: "alert" }, error.message));
  }
}

document.getElementById("logout").addEventListener("click", async () => {
  try { await api("DELETE", "/api/sessions"); } catch { /* logged out either way */ }
  logOut();
});
document.getElementById("lang").addEventListener("change", (event) => {
  setLanguage(/** @type {HTMLSelectElement} */ (event.target).value);
  route();
});
window.addEventListener("signed-out", logOut);
window.addEventListener("signed-in", () => { session.me = null; route(); });  // in another tab
window.addEventListener("hashchange", route);
setLanguage(lang);
route();
