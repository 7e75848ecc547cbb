// @ts-check
// The operator console (/operator): the tables with their players and round in play (open, close,
// limits, stand a player up, a live monitor), reports with the actual and theoretical win drawn as an inline SVG chart,
// player lookup with statements, credits, debits and game recall, the audit trail with its chain check, and the
// staff's accounts.  Every answer comes from /api/operator/*; each member of staff sees what their role may do (the
// actions GET /api/me lists: the server's matrix, never restated here); every word from the catalogues (i18n.js's t).
import { api, ApiError, keepToken, newKey, secondsUntil, syncClock, token } from "./api.js";
import { cardFace, cardLabel, h, refill, text, toast } from "./dom.js";
import { CATALOGUES, drawWinName, eventName, gameName, has, isLuckyDraw, lang, money, parseAmount, rememberGames, setLanguage, t, tableName, wagerName } from "./i18n.js";
import { blockedText, showHelpFooter } from "./protect.js";

let me = null;
let leaveView = () => {};
/** Each tab and the action that opens it to a role. */
const TAB_ACTIONS = { tables: "console", reports: "reports", players: "players", audit: "audit", staff: "staff" };
/** Whether the signed-in member of staff may take ``action``. */
function may(action) { return Boolean(me && me.actions.includes(action)); }
function tabs() { return Object.keys(TAB_ACTIONS).filter((tab) => may(TAB_ACTIONS[tab])); }
/** The registry's games (GET /api/games), Lucky Draw once per DrawWin pay table. */
let registry = [];

function show(...nodes) { refill(document.getElementById("view"), ...nodes); }

function percent(value) {
  return value == null ? "–" : `${(value * 100).toLocaleString(lang === "en" ? "en-US" : lang,
                                                         { minimumFractionDigits: 2, maximumFractionDigits: 2 }).replace("-", "−")} %`;
}

function stamp(iso) {
  return iso ? new Date(iso).toLocaleString(lang === "en" ? "en-GB" : lang, { dateStyle: "short", timeStyle: "medium" }) : "";
}

function isoDay(date) { return date.toISOString().slice(0, 10); }

function cell(value, extra) { return h("td", { class: `num ${extra || ""}` }, value); }

function signed(minor) { return h("span", { class: minor < 0 ? "minus" : minor > 0 ? "plus" : "" }, money(minor)); }

/** Download ``path`` (which needs the token, so not a plain link) as the file the server names. */
async function download(path) {
  try {
    const response = await fetch(path, { headers: { Authorization: `Bearer ${token}` } });
    if (!response.ok) throw new ApiError(response.status, await response.json().catch(() => null));
    const name = /filename="([^"]+)"/.exec(response.headers.get("content-disposition") || "");
    const link = h("a", { href: URL.createObjectURL(await response.blob()), download: name ? name[1] : "report.csv" });
    document.body.append(link);
    link.click();
    link.remove();
    toast(t("op.downloaded", { name: name ? name[1] : "report.csv" }));
  } catch (error) { toast(error.message); }
}

/** A Lucky Draw table's DrawWin pay table as players name it ("Draw: Lucky 7 (3-card 7) pays 2:1"), from the
 *  registry's game for that pay table; its number only where the registry has no such game. */
function drawWinWords(code, paytable) {
  const game = registry.find((g) => g.code === code && g.paytable === paytable);
  return (game && drawWinName(game.wagers)) || t("paytable.drawwin", { n: paytable });
}

/** Lucky Draw's names as the registry gives them (in the console's language where the catalogue has them),
 *  for the sentences that speak of its Enter and Draw wagers: never typed into a catalogue. */
function luckyWords() {
  const game = registry.find((g) => g.kind === "lucky_draw");
  return { game: game ? gameName(game.code) : "", enter: wagerName("enter"), draw: wagerName("draw") };
}

/** One seated player as the table card and the live monitor both list them: "Seat 2 ann (away)". */
function seatWords(seat) {
  return `${t("op.seat", { n: seat.seat })} ${seat.username}${seat.away ? ` ${t("op.away")}` : ""}`;
}

function csvButton(path, id) {
  return h("button", { type: "button", class: "quiet", id, onclick: () => download(path) }, t("op.csv"));
}

// ---------------------------------------------------------------- chrome and login

function applyChrome() {
  document.documentElement.lang = lang;
  document.title = t("op.title");
  text(document.getElementById("home"), t("op.title"));
  text(document.getElementById("logout"), t("header.logout"));
  text(document.getElementById("lang-label"), t("header.language"));
  const select = /** @type {HTMLSelectElement} */ (document.getElementById("lang"));
  if (!select.options.length) {
    for (const [code, catalogue] of Object.entries(CATALOGUES)) select.append(h("option", { value: code, lang: code }, catalogue._name || code));
  }
  select.value = lang;
  const nav = document.getElementById("tabs");
  nav.setAttribute("aria-label", t("op.tabs"));
  const current = currentTab();
  nav.replaceChildren(...tabs().map((tab) => h("a", { href: `#/${tab}`, id: `tab-${tab}`,
    "aria-current": tab === current ? "page" : false }, t(`op.tab.${tab}`))));
  showHelpFooter();
}

function currentTab() {
  const match = /^#\/(\w+)/.exec(location.hash);
  const open = tabs();
  return match && open.includes(match[1]) ? match[1] : open[0];
}

function logOut() {
  keepToken(null);
  me = null;
  text(document.getElementById("who"), "");
  document.getElementById("logout").hidden = true;
  document.getElementById("tabs").hidden = true;
  route();
}

function loginView() {
  const message = h("p", { class: "error", role: "alert", id: "login-error" });
  const username = h("input", { id: "username", autocomplete: "username", maxlength: 32 });
  const password = h("input", { id: "password", type: "password", autocomplete: "current-password", maxlength: 128 });
  const form = h("form", { class: "login", novalidate: true, onsubmit: async (event) => {
    event.preventDefault();
    message.textContent = "";
    try {
      keepToken((await api("POST", "/api/sessions", { username: username.value.trim(), password: password.value })).token);
      route();
    } catch (error) { message.textContent = error.message; }
  } },
    h("h1", { tabindex: "-1" }, t("op.title")),
    h("p", {}, t("op.login_intro")),
    h("label", { for: "username" }, t("login.username")), username,
    h("label", { for: "password" }, t("login.password")), password,
    message,
    h("div", { class: "actions" }, h("button", { type: "submit", class: "primary", id: "login" }, t("login.login"))));
  show(form);
  username.focus();
}

// ---------------------------------------------------------------- tables

function limitsText(limits) {
  if (!limits) return "";
  const max = Object.entries(limits.maximums || {}).map(([code, amount]) => `${wagerName(code)} ${money(amount)}`).join(" · ");
  return t("op.limits_text", { min: money(limits.minimum), max });
}

function tablesView() {
  const grid = h("div", { class: "console-grid", id: "console-tables" });
  const monitor = h("section", { class: "panel monitor", id: "monitor", hidden: true, "aria-live": "off" });
  const heading = h("h1", { tabindex: "-1" }, t("op.tab.tables"));
  let closed = false;
  let watching = null;
  const editing = new Set();

  async function act(work, done) {
    try { await work(); toast(done); refresh(); } catch (error) { toast(error.message); }
  }

  function limitsForm(table) {
    const minimum = h("input", { id: `min-${table.id}`, inputmode: "decimal", value: (table.limits.minimum / 100).toFixed(2) });
    const inputs = {};
    const rows = Object.entries(table.limits.maximums).map(([code, amount]) => {
      inputs[code] = h("input", { id: `max-${table.id}-${code}`, inputmode: "decimal", value: (amount / 100).toFixed(2) });
      return h("label", { class: "stack", for: `max-${table.id}-${code}` }, wagerName(code), inputs[code]);
    });
    return h("form", { class: "limits-form", novalidate: true, onsubmit: (event) => {
      event.preventDefault();
      const maximums = {};
      for (const [code, input] of Object.entries(inputs)) maximums[code] = parseAmount(input.value);
      const body = { minimum: parseAmount(minimum.value), maximums };
      if (![body.minimum, ...Object.values(maximums)].every((v) => Number.isInteger(v) && v > 0)) { toast(t("op.amount_rule")); return; }
      editing.delete(table.id);
      act(() => api("PUT", `/api/operator/tables/${table.id}/limits`, body), t("op.limits_saved"));
    } },
      h("label", { class: "stack", for: `min-${table.id}` }, t("op.minimum"), minimum), ...rows,
      h("div", { class: "actions" }, h("button", { type: "submit", class: "primary" }, t("op.save_limits")),
        h("button", { type: "button", class: "quiet", onclick: () => { editing.delete(table.id); refresh(true); } }, t("op.cancel"))));
  }

  function card(table) {
    const status = h("span", { class: `badge ${table.status}` }, t(`op.status.${table.status}`));
    const seats = table.seats.length
      ? h("ul", { class: "seats" }, ...table.seats.map((seat) => h("li", { "data-seated": seatWords(seat) },
        t("op.seat", { n: seat.seat }), " ", h("button", { type: "button", class: "link", onclick: () => { location.hash = `#/players/${seat.account_id}`; } }, seat.username),
        seat.away ? h("span", { class: "muted" }, " ", t("op.away")) : null, " ",
        may("stand_players") && h("button", { type: "button", class: "quiet", id: `stand-${table.id}-${seat.seat}`,
                      "aria-label": t("op.stand_label", { name: seat.username, n: seat.seat }),
                      onclick: () => act(() => api("POST", `/api/operator/tables/${table.id}/seats/${seat.seat}/stand`),
                                         t("op.stood_done", { name: seat.username, n: seat.seat })) }, t("op.stand")))))
      : h("p", { class: "muted" }, t("op.no_players"));
    const round = table.round
      ? h("p", { class: "round-line" }, t("op.round_line", { n: table.round.round, phase: t(`phase.${table.round.phase}`),  // the monitor's words
                                                             bets: table.round.bets, players: table.round.players, staked: money(table.round.staked) }))
      : h("p", { class: "muted" }, t("op.no_round"));
    const toggle = !may("close_tables") ? null : table.status === "open"
      ? h("button", { type: "button", id: `close-${table.id}`, onclick: () => act(() => api("POST", `/api/operator/tables/${table.id}/close`), t("op.closed_done")) }, t("op.close"))
      : h("button", { type: "button", id: `open-${table.id}`, onclick: () => act(() => api("POST", `/api/operator/tables/${table.id}/open`), t("op.opened_done")) },
        table.status === "closing" ? t("op.keep_open") : t("op.open"));
    return h("section", { class: "table-card console-card", "data-table": table.id, "aria-labelledby": `t-${table.id}` },
      h("div", { class: "card-head" }, h("h2", { id: `t-${table.id}` }, tableName(table.name, table.game)), status),
      h("div", { class: "muted" }, gameName(table.game), table.paytable ? ` · ${drawWinWords(table.game, table.paytable)}` : "",
        ` · ${t("op.decks", { n: table.decks })}`),
      h("p", { class: "limits-line" }, limitsText(table.limits)),
      table.pending_limits ? h("p", { class: "pending" }, t("op.pending_limits", { limits: limitsText(table.pending_limits) })) : null,
      h("p", { class: "today-line", id: `today-${table.id}` }, t("op.today", { handle: money(table.today.handle), win: money(table.today.win) })),
      round, seats,
      editing.has(table.id) ? limitsForm(table) : null,
      h("div", { class: "actions" }, toggle,
        may("change_limits") && h("button", { type: "button", class: "quiet", id: `limits-${table.id}`, onclick: () => { editing.add(table.id); refresh(true); } }, t("op.change_limits")),
        h("button", { type: "button", class: "primary", id: `watch-${table.id}`, onclick: () => watch(table.id) }, t("op.watch"))));
  }

  let seatedOnCards = {};  // table id -> the seated list the cards show, for the monitor to agree with
  async function refresh(force) {
    if (editing.size && force !== true) return;  // a limits form is open: what is typed stays
    let tables;
    try { tables = await api("GET", "/api/operator/console"); } catch (error) { if (!closed) toast(error.message); return; }
    if (closed) return;
    seatedOnCards = Object.fromEntries(tables.map((table) => [table.id, table.seats.map(seatWords).join(", ")]));
    const focused = document.activeElement && document.activeElement.id;
    grid.replaceChildren(...tables.map(card));
    if (focused && document.getElementById(focused)) document.getElementById(focused).focus();
  }

  // ---- the live monitor: the table as players see it, refreshed every second
  async function paint() {
    if (watching == null || closed) return;
    let view;
    try { view = await api("GET", `/api/tables/${watching}`); } catch { return; }
    if (view.server_time) syncClock(view.server_time);
    const left = secondsUntil(view.phase_ends_at);
    const hands = Object.entries(view.hands || {}).map(([who, hand]) => h("div", { class: "monitor-hand" },
      h("b", {}, who.startsWith("seat:") ? t("op.seat", { n: who.slice(5) }) : t(`op.hand.${who}`)), " ",
      ...(hand.cards || []).map((c) => cardFace(c)), hand.total != null ? h("span", { class: "total" }, ` = ${hand.total}`) : null));
    const spots = Object.entries(view.spots || {}).filter(([, spot]) => spot.total > 0)
      .map(([code, spot]) => h("li", {}, `${wagerName(code)}: ${money(spot.total)} (${t("op.players_n", { n: spot.players })})`));
    const seated = Object.entries(view.players || {}).sort(([a], [b]) => Number(a) - Number(b))
      .map(([seat, p]) => seatWords({ seat, username: p.name, away: p.away })).join(", ");
    const last = view.last_result;
    const lastLine = last && last.player_cards
      ? h("div", { class: "monitor-hands", id: "monitor-last" }, h("b", {}, t("op.last_result", { n: last.round })),
        h("span", { class: "monitor-hand" }, t("op.hand.player"), " ", ...last.player_cards.map((c) => cardFace(c)), h("span", { class: "total" }, ` = ${last.player_total}`)),
        h("span", { class: "monitor-hand" }, t("op.hand.banker"), " ", ...last.banker_cards.map((c) => cardFace(c)), h("span", { class: "total" }, ` = ${last.banker_total}`)),
        h("span", { class: "badge open" }, t(`op.hand.${last.winner}`)))
      : null;
    monitor.replaceChildren(...[
      h("div", { class: "card-head" }, h("h2", { id: "monitor-title" }, t("op.monitor", { table: tableName(view.name, view.game) })),
        h("button", { type: "button", class: "quiet", onclick: () => { watching = null; monitor.hidden = true; } }, t("op.stop_watching"))),
      h("p", { class: "round-line", id: "monitor-phase" }, t("op.monitor_phase", { n: view.round_number || "–", phase: t(`phase.${view.phase || "betting"}`) }),
        left != null && view.status === "open" ? ` · ${t("op.seconds_left", { s: left })}` : ""),
      hands.length ? h("div", { class: "monitor-hands" }, ...hands) : h("p", { class: "muted" }, t("op.no_cards")),
      view.result ? h("p", { class: "result" }, t("op.result", { winner: view.result.winner ? t(`op.hand.${view.result.winner}`) : "" })) : null,
      h("h3", {}, t("op.bets_on_layout")),
      spots.length ? h("ul", {}, ...spots) : h("p", { class: "muted" }, t("op.no_bets")),
      lastLine,
      h("p", { class: "muted", id: "monitor-seated" }, t("op.seated", { names: seated || "–" }))]
      .filter(Boolean));
    // the same seats, in the same words, as the table's card: when a player sat down or stood up since the
    // cards were read, they are read again now rather than at their next refresh
    if (watching != null && seatedOnCards[watching] !== undefined && seatedOnCards[watching] !== seated && !editing.size) refresh();
  }

  function watch(tableId) {
    watching = tableId;
    monitor.hidden = false;
    paint();
    monitor.scrollIntoView({ block: "nearest" });
  }

  // ---- a new table
  const name = h("input", { id: "new-name", maxlength: 32, placeholder: "mini-2" });
  const codes = [...new Set(registry.map((g) => g.code))];
  const paytables = [...new Set(registry.filter((g) => g.paytable != null).map((g) => g.paytable))];
  const game = h("select", { id: "new-game" }, ...codes.map((g) => h("option", { value: g }, gameName(g))));
  const paytable = h("select", { id: "new-paytable" }, ...paytables.map((n) => h("option", { value: String(n) },
    drawWinWords(registry.find((g) => g.paytable === n).code, n))));
  const decks = h("input", { id: "new-decks", inputmode: "numeric", value: "8" });
  const betting = h("input", { id: "new-betting", inputmode: "numeric", value: "15" });
  // a squeeze table: each side's squeezer's seconds a card (0: the dealer turns every card)
  const squeezeSeconds = h("input", { id: "new-squeeze", inputmode: "numeric", value: "0" });
  const newForm = h("form", { class: "row-form panel", novalidate: true, onsubmit: (event) => {
    event.preventDefault();
    const body = { name: name.value.trim(), game: game.value, decks: Number(decks.value), betting_seconds: Number(betting.value),
      squeeze_seconds: Number(squeezeSeconds.value) };
    if (isLuckyDraw(game.value)) body.paytable = Number(paytable.value);
    if (!/^[A-Za-z0-9][A-Za-z0-9 _.-]{0,31}$/.test(body.name)) { toast(t("op.name_rule")); name.focus(); return; }
    act(() => api("POST", "/api/operator/tables", body), t("op.table_opened", { name: body.name }));
  } },
    h("h2", { class: "full" }, t("op.new_table")),
    h("label", { for: "new-name" }, t("op.name")), name, h("label", { for: "new-game" }, t("op.game")), game,
    h("label", { for: "new-paytable" }, t("op.paytable", luckyWords())), paytable, h("label", { for: "new-decks" }, t("op.decks_label")), decks,
    h("label", { for: "new-betting" }, t("op.betting_seconds")), betting,
    h("label", { for: "new-squeeze" }, t("op.squeeze_seconds")), squeezeSeconds,
    h("button", { type: "submit", class: "primary", id: "new-open" }, t("op.open_table")));

  show(heading, h("p", { class: "lead" }, t("op.tables_intro")), monitor, grid, may("open_tables") ? newForm : null);
  refresh();
  const timers = [setInterval(refresh, 3000), setInterval(paint, 1000)];
  heading.focus();
  return () => { closed = true; timers.forEach(clearInterval); };
}

// ---------------------------------------------------------------- reports

/** Actual and theoretical win, cumulated day by day, as an inline SVG (no library, no CDN). */
function winChart(series, width) {
  const W = Math.max(480, Math.round(width || 760)), H = 300, L = 84, R = 24, T = 40, B = 40;
  const ns = "http://www.w3.org/2000/svg";
  const el = (tag, attrs, ...children) => {
    const node = document.createElementNS(ns, tag);
    for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
    for (const child of children) node.append(child);
    return node;
  };
  let actual = 0, theo = 0;
  const points = series.map((day) => { actual += day.win; theo += day.theoretical; return { day: day.day, actual, theo }; });
  const values = points.flatMap((p) => [p.actual, p.theo]).concat([0]);
  let low = Math.min(...values), high = Math.max(...values);
  if (high === low) { high += 100; low -= 100; }
  const pad = (high - low) * 0.08;
  low -= pad; high += pad;
  const x = (i) => L + (points.length > 1 ? (i * (W - L - R)) / (points.length - 1) : (W - L - R) / 2);
  const y = (v) => T + ((high - v) * (H - T - B)) / (high - low);
  const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img", id: "win-chart",
                          "aria-labelledby": "chart-title chart-desc" });
  svg.append(el("title", { id: "chart-title" }, t("op.chart_title")),
             el("desc", { id: "chart-desc" }, t("op.chart_desc", { actual: money(actual), theo: money(Math.round(theo)) })));
  // the value grid on round numbers (1, 2 or 5 times a power of ten, in minor units)
  const raw = (high - low) / 4;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw);
  for (let v = Math.ceil(low / step) * step; v <= high; v += step) {
    svg.append(el("line", { x1: L, x2: W - R, y1: y(v), y2: y(v), class: "grid-line" }),
               el("text", { x: L - 8, y: y(v) + 4, class: "axis", "text-anchor": "end" }, money(Math.round(v))));
  }
  svg.append(el("line", { x1: L, x2: W - R, y1: y(0), y2: y(0), class: "zero-line" }));
  const every = Math.max(1, Math.ceil(points.length / 8));
  points.forEach((p, i) => {
    const last = i === points.length - 1;
    if ((i % every === 0 && (last || points.length - 1 - i >= every / 2)) || last) {  // the last day always, never crowded
      svg.append(el("text", { x: x(i), y: H - B + 20, class: "axis", "text-anchor": last ? "end" : "middle" }, p.day.slice(5)));
    }
  });
  const path = (key) => points.map((p, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(p[key]).toFixed(1)}`).join(" ");
  svg.append(el("path", { d: path("theo"), class: "line theo" }), el("path", { d: path("actual"), class: "line actual" }));
  svg.append(...points.map((p, i) => el("circle", { cx: x(i), cy: y(p.actual), r: 3, class: "dot actual" },
    el("title", {}, `${p.day}: ${t("op.actual")} ${money(p.actual)}, ${t("op.theoretical")} ${money(Math.round(p.theo))}`))));
  const legend = el("g", { class: "legend" },
    el("line", { x1: L, x2: L + 24, y1: 16, y2: 16, class: "line actual" }),
    el("text", { x: L + 30, y: 20, class: "axis" }, t("op.actual_cumulative")),
    el("line", { x1: L + 240, x2: L + 264, y1: 16, y2: 16, class: "line theo" }),
    el("text", { x: L + 270, y: 20, class: "axis" }, t("op.theo_cumulative")));
  svg.append(legend);
  return svg;
}

function reportsView() {
  const heading = h("h1", { tabindex: "-1" }, t("op.tab.reports"));
  const today = new Date();
  const from = h("input", { id: "report-from", type: "date", value: isoDay(new Date(today.getTime() - 29 * 86400000)) });
  const to = h("input", { id: "report-to", type: "date", value: isoDay(today) });
  const table = h("select", { id: "report-table" }, h("option", { value: "" }, t("op.all_tables")));
  const out = h("div", { id: "report-out" });
  let closed = false;
  api("GET", "/api/tables").then((tables) => {
    for (const item of tables) table.append(h("option", { value: String(item.id) }, tableName(item.name, item.game)));
  }).catch(() => {});

  function query(format) {
    const params = new URLSearchParams({ from: from.value, to: to.value });
    if (table.value) params.set("table", table.value);
    if (format) params.set("format", format);
    return params.toString();
  }

  function tile(label, value, id) { return h("div", { class: "tile", id }, h("div", { class: "tile-label" }, label), h("div", { class: "tile-value" }, value)); }

  async function load() {
    let byTable, byWager;
    try {
      [byTable, byWager] = await Promise.all([api("GET", `/api/operator/reports/tables?${query()}`),
                                              api("GET", `/api/operator/reports/wagers?${query()}`)]);
    } catch (error) { toast(error.message); return; }
    if (closed) return;
    const total = byTable.total;
    const head = (...names) => h("thead", {}, h("tr", {}, ...names.map(([key, num]) => h("th", { scope: "col", class: num ? "num" : "" }, t(key)))));
    const figures = (row) => [cell(row.rounds), cell(money(row.handle)), cell(signed(row.win)), cell(percent(row.hold)),
                              cell(money(row.theoretical)), cell(percent(row.theoretical_hold))];
    const columns = [["op.rounds", 1], ["op.handle", 1], ["op.win", 1], ["op.hold", 1], ["op.theoretical", 1], ["op.theo_hold", 1]];
    out.replaceChildren(
      h("div", { class: "tiles" }, tile(t("op.rounds"), total.rounds, "tile-rounds"), tile(t("op.handle"), money(total.handle), "tile-handle"),
        tile(t("op.win"), signed(total.win), "tile-win"), tile(t("op.hold"), percent(total.hold), "tile-hold"),
        tile(t("op.theoretical"), money(total.theoretical), "tile-theo"), tile(t("op.theo_hold"), percent(total.theoretical_hold), "tile-theo-hold")),
      h("section", { class: "panel" }, h("h2", {}, t("op.chart_title")), winChart(byTable.series, out.clientWidth - 40),
        h("p", { class: "muted" }, t("op.theo_rule", luckyWords()))),
      h("section", { class: "panel" },
        h("div", { class: "card-head" }, h("h2", {}, t("op.by_table_day")), csvButton(`/api/operator/reports/tables?${query("csv")}`, "csv-tables")),
        h("div", { class: "scroll" }, h("table", { class: "ledger", id: "report-rows" },
          head(["op.day", 0], ["op.table", 0], ...columns),
          h("tbody", {}, ...(byTable.rows.length ? byTable.rows.map((row) => h("tr", {}, h("td", {}, row.day),
            h("td", {}, tableName(row.table, row.game)), ...figures(row)))
            : [h("tr", {}, h("td", { colspan: "8", class: "muted" }, t("op.nothing")))]))))),
      h("section", { class: "panel" },
        h("div", { class: "card-head" }, h("h2", {}, t("op.by_wager")), csvButton(`/api/operator/reports/wagers?${query("csv")}`, "csv-wagers")),
        h("div", { class: "scroll" }, h("table", { class: "ledger", id: "wager-rows" },
          head(["op.table", 0], ["op.wager", 0], ["op.edge", 1], ["op.bets", 1], ...columns.slice(1)),
          h("tbody", {}, ...(byWager.rows.length ? byWager.rows.map((row) => h("tr", {}, h("td", {}, tableName(row.table, row.game)),
            h("td", {}, wagerName(row.wager, row.wager_name)), cell(percent(row.edge)), cell(row.bets),
            cell(money(row.handle)), cell(signed(row.win)), cell(percent(row.hold)), cell(money(row.theoretical)), cell(percent(row.theoretical_hold))))
            : [h("tr", {}, h("td", { colspan: "9", class: "muted" }, t("op.nothing")))]))))));
  }

  const form = h("form", { class: "row-form", novalidate: true, onsubmit: (event) => { event.preventDefault(); load(); } },
    h("label", { for: "report-from" }, t("op.from")), from, h("label", { for: "report-to" }, t("op.to")), to,
    h("label", { for: "report-table" }, t("op.table")), table,
    h("button", { type: "submit", class: "primary", id: "report-show" }, t("op.show")));
  show(heading, h("p", { class: "lead" }, t("op.reports_intro")), form, out);
  load();
  heading.focus();
  return () => { closed = true; };
}

// ---------------------------------------------------------------- players and recall

function recallPanel(round) {
  const cards = round.deal.map((c, i) => h("li", {}, h("span", { class: "muted" }, `${i + 1}. `),
    cardFace(c.card), " ", c.to && c.to.startsWith("seat:") ? t("op.seat", { n: c.to.slice(5) }) : t(`op.hand.${c.to}`)));
  const hands = round.player_cards
    ? h("p", {}, t("op.hands_line", { player: round.player_cards.map(cardLabel).join(" "), pt: round.player_total,
                                       banker: round.banker_cards.map(cardLabel).join(" "), bt: round.banker_total,
                                       winner: t(`op.hand.${round.winner}`) }))
    : null;
  return h("section", { class: "panel recall", id: "recall", "aria-labelledby": "recall-title" },
    h("h2", { id: "recall-title", tabindex: "-1" }, t("op.recall_title", { table: tableName(round.table, round.game), n: round.round })),
    h("p", { class: "muted" }, t("op.recall_meta", { status: t(`op.round.${round.status}`), shoe: round.shoe, at: stamp(round.dealt_at || round.closes_at) })),
    round.void ? h("p", { class: "refusal info" }, t("op.void_reason", { reason: round.void })) : null,
    h("h3", {}, t("op.deal_order")),
    cards.length ? h("ol", { class: "deal-order" }, ...cards) : h("p", { class: "muted" }, t("op.no_cards")),
    hands,
    h("h3", {}, t("op.bets")),
    h("table", { class: "ledger" }, h("thead", {}, h("tr", {}, ...["op.player", "op.seat_col", "op.wager", "op.amount", "op.outcome", "op.net"]
      .map((key, i) => h("th", { scope: "col", class: i >= 3 && i !== 4 ? "num" : "" }, t(key))))),
    h("tbody", {}, ...round.bets.map((bet) => h("tr", {}, h("td", {}, bet.player), h("td", {}, bet.seat), h("td", {}, wagerName(bet.wager)),
      cell(money(bet.amount)), h("td", {}, bet.event ? eventName(bet.event, bet.wager) : t("op.unsettled")),
      cell(bet.net == null ? "–" : signed(bet.net)))))),
    round.decisions.length ? h("p", { id: "recall-decisions" }, t("op.decisions", { list: round.decisions.map((d) => `${t("op.seat", { n: d.seat })} ${t(`op.action.${d.action}`)}`
      + (d.timed_out ? ` (${t("op.timed_out")})` : "")).join(", ") })) : null,
    round.withheld ? h("p", { class: "refusal info", id: "recall-withheld" }, t("op.withheld"))
      : h("p", {}, t("op.round_totals", { handle: money(round.handle), net: money(round.house_net) })));
}

/** The cashier's form on a player's page: credit or debit, each once (an idempotency key per amount typed). */
function moneyForm(player, reload) {
  const amount = h("input", { id: "money-amount", inputmode: "decimal", placeholder: "100.00" });
  const memo = h("input", { id: "money-memo", maxlength: 200 });
  let key = null, keyFor = "";
  async function move(direction) {
    const minor = parseAmount(amount.value);
    if (!Number.isInteger(minor) || minor <= 0) { toast(t("op.credit_rule")); amount.focus(); return; }
    const typed = `${direction}:${minor}:${memo.value}`;
    if (typed !== keyFor) { key = newKey(); keyFor = typed; }  // a retry of the same movement is the same request
    try {
      const answer = await api("POST", `/api/operator/wallets/${player.id}/${direction}`, { amount: minor, memo: memo.value }, key);
      toast(answer.awaiting_approval != null ? t("op.awaiting_approval", { amount: money(minor), n: answer.awaiting_approval })
                                             : t(`op.${direction}ed`, { amount: money(minor), balance: money(answer.balance) }));
      amount.value = ""; memo.value = ""; keyFor = "";
      reload();
    } catch (error) { toast(error.message); }
  }
  return h("form", { class: "row-form", id: "money-form", novalidate: true, onsubmit: (event) => { event.preventDefault(); move("credit"); } },
    h("label", { for: "money-amount" }, t("op.amount")), amount, h("label", { for: "money-memo" }, t("op.memo")), memo,
    h("button", { type: "submit", class: "primary", id: "money-credit" }, t("op.credit")),
    h("button", { type: "button", id: "money-debit", onclick: () => move("debit") }, t("op.debit")));
}

/** The credits above the house's threshold waiting for a second member of staff (approvers). */
function creditsWaiting(changed) {
  const box = h("section", { class: "panel", id: "credits-waiting", "aria-labelledby": "credits-title" });
  async function load() {
    let waiting;
    try { waiting = await api("GET", "/api/operator/credits"); } catch (error) { toast(error.message); return; }
    const decide = (credit, verdict) => async () => {
      try {
        await api("POST", `/api/operator/credits/${credit.id}/${verdict}`);
        toast(t(`op.credit_${verdict}d`, { amount: money(credit.amount), name: credit.player }));
        load(); changed();
      } catch (error) { toast(error.message); }
    };
    box.replaceChildren(h("h2", { id: "credits-title" }, t("op.credits_waiting")),
      waiting.length ? h("ul", { class: "found" }, ...waiting.map((credit) => h("li", { "data-credit": credit.id },
        t("op.credit_line", { amount: money(credit.amount), name: credit.player, by: credit.requested_by, at: stamp(credit.requested_at) }),
        credit.memo ? h("span", { class: "muted" }, ` · ${credit.memo}`) : null, " ",
        credit.requested_by === me.username ? h("span", { class: "muted" }, t("op.credit_yours"))
          : [h("button", { type: "button", class: "primary", id: `approve-${credit.id}`, onclick: decide(credit, "approve") }, t("op.approve")),
             h("button", { type: "button", class: "quiet", id: `reject-${credit.id}`, onclick: decide(credit, "reject") }, t("op.reject"))])))
        : h("p", { class: "muted" }, t("op.no_credits")));
  }
  box.reload = load;
  load();
  return box;
}

function playersView(accountId) {
  const heading = h("h1", { tabindex: "-1" }, t("op.tab.players"));
  const search = h("input", { id: "player-search", type: "search", maxlength: 32, placeholder: t("op.search_hint") });
  const results = h("ul", { class: "found", id: "player-results" });
  const detail = h("div", { id: "player-detail" });
  const recall = h("div", { id: "recall-box" });
  let closed = false;

  async function find() {
    let found;
    try { found = await api("GET", `/api/operator/players?q=${encodeURIComponent(search.value)}`); } catch (error) { toast(error.message); return; }
    results.replaceChildren(...(found.length ? found.map((p) => h("li", {}, h("button", { type: "button", class: "link",
      onclick: () => { location.hash = `#/players/${p.id}`; } }, p.username), " ", h("span", { class: "muted" },
      `#${p.id} · ${t(`word.roles.${p.role}`)} · ${money(p.balance)}`))) : [h("li", { class: "muted" }, t("op.nobody"))]));
  }

  async function openRound(tableId, number) {
    try {
      const round = await api("GET", `/api/operator/tables/${tableId}/rounds/${number}`);
      if (closed) return;
      recall.replaceChildren(recallPanel(round));
      document.getElementById("recall-title").focus();
    } catch (error) { toast(error.message); }
  }

  async function load(id) {
    let player;
    try { player = await api("GET", `/api/operator/players/${id}?lines=500`); } catch (error) { toast(error.message); return; }
    if (closed) return;
    const protection = player.protection;
    const blocked = blockedText(protection);
    const limits = protection.limits.map((l) => `${t(`protect.kind.${l.kind}`)} ${t(`protect.period.${l.period}`)}: ${l.amount == null ? t("protect.none") : money(l.amount)}`);
    detail.replaceChildren(h("section", { class: "panel", "aria-labelledby": "player-title" },
      h("div", { class: "card-head" }, h("h2", { id: "player-title" }, `${player.username} #${player.id}`),
        csvButton(`/api/operator/players/${player.id}?format=csv&lines=10000`, "csv-statement")),
      h("div", { class: "tiles" }, h("div", { class: "tile", id: "player-balance" }, h("div", { class: "tile-label" }, t("header.balance")),
        h("div", { class: "tile-value" }, money(player.balance)))),
      player.role === "player" && may("move_money") ? moneyForm(player, () => { load(id); if (waiting) waiting.reload(); }) : null,
      h("p", { class: blocked ? "refusal info blocked" : "muted" }, blocked || t("op.no_break")),
      h("p", { class: "muted" }, limits.length ? t("op.player_limits", { list: limits.join(" · ") }) : t("protect.no_limits")),
      h("h3", {}, t("op.statement")),
      h("div", { class: "scroll tall" }, h("table", { class: "ledger", id: "statement" },
        h("thead", {}, h("tr", {}, ...[["op.when", 0], ["op.movement", 0], ["op.amount", 1], ["op.balance_after", 1], ["op.round_col", 0], ["op.bets", 0]]
          .map(([key, num]) => h("th", { scope: "col", class: num ? "num" : "" }, t(key))))),
        h("tbody", {}, ...player.statement.map((line) => h("tr", {},
          h("td", {}, stamp(line.at)), h("td", {}, t(`op.kind.${line.kind}`)), cell(signed(line.amount)), cell(money(line.balance)),
          h("td", {}, line.round ? h("button", { type: "button", class: "link", onclick: () => openRound(line.table_id, line.round) },
            t("op.round_ref", { table: tableName(line.table, ""), n: line.round }))
            : line.kind === "credit" || line.kind === "debit" ? line.memo : ""),  // the cashier's own words; the house's are the kind
          h("td", {}, (line.bets || []).map((b) => `${wagerName(b.wager)} ${money(b.amount)}${b.event ? ` → ${eventName(b.event, b.wager)}` : ""}`).join("; ")))))))));
  }

  const waiting = may("approve_credits") ? creditsWaiting(() => { if (accountId) load(accountId); }) : null;
  show(heading, h("p", { class: "lead" }, t("op.players_intro")), waiting,
    h("form", { class: "row-form", role: "search", novalidate: true, onsubmit: (event) => { event.preventDefault(); find(); } },
      h("label", { for: "player-search" }, t("op.find_player")), search,
      h("button", { type: "submit", class: "primary", id: "player-find" }, t("op.find"))),
    results, recall, detail);
  if (accountId) load(accountId); else find();
  heading.focus();
  return () => { closed = true; };
}

// ---------------------------------------------------------------- staff

function staffView() {
  const heading = h("h1", { tabindex: "-1" }, t("op.tab.staff"));
  const rows = h("tbody", { id: "staff-rows" });
  let closed = false;
  let staffRoles = [];  // the server's (GET /api/operator/staff), in its order
  const roleSelect = (id, value, withPlayer) => h("select", { id }, ...[...(withPlayer ? ["player"] : []), ...staffRoles]
    .map((role) => h("option", { value: role, selected: role === value }, t(`word.roles.${role}`))));

  async function load() {
    let listed;
    try { listed = await api("GET", "/api/operator/staff"); } catch (error) { toast(error.message); return; }
    if (closed) return;
    staffRoles = listed.roles;
    const chosen = role.value || staffRoles[0];
    role.replaceChildren(...roleSelect("staff-role", chosen, false).children);
    role.value = chosen;
    rows.replaceChildren(...listed.staff.map((member) => {
      const select = roleSelect(`role-${member.account_id}`, member.role, true);
      return h("tr", { "data-staff": member.username }, h("td", {}, member.username), h("td", {}, t(`word.roles.${member.role}`)),
        h("td", {}, member.username === me.username ? h("span", { class: "muted" }, t("op.you")) : h("span", {},
          h("label", { class: "visually-hidden", for: `role-${member.account_id}` }, t("op.role_of", { name: member.username })), select, " ",
          h("button", { type: "button", id: `set-role-${member.account_id}`, onclick: () => setRole(member.account_id, select.value, member.username) }, t("op.set_role")))));
    }));
  }

  async function setRole(accountId, role, name) {
    try {
      await api("PUT", `/api/operator/accounts/${accountId}/role`, { role });
      toast(t("op.role_saved", { name, role: t(`word.roles.${role}`) }));
      load();
    } catch (error) { toast(error.message); }
  }

  const username = h("input", { id: "staff-username", maxlength: 32, autocomplete: "off" });
  const password = h("input", { id: "staff-password", type: "password", maxlength: 128, autocomplete: "new-password" });
  const role = roleSelect("staff-role", "cashier", false);
  const form = h("form", { class: "row-form panel", novalidate: true, onsubmit: async (event) => {
    event.preventDefault();
    try {
      const made = await api("POST", "/api/operator/staff", { username: username.value.trim(), password: password.value, role: role.value });
      toast(t("op.staff_added", { name: made.username, role: t(`word.roles.${made.role}`) }));
      username.value = ""; password.value = "";
      load();
    } catch (error) { toast(error.message); }
  } },
    h("h2", { class: "full" }, t("op.new_staff")),
    h("label", { for: "staff-username" }, t("login.username")), username, h("label", { for: "staff-password" }, t("login.password")), password,
    h("label", { for: "staff-role" }, t("op.role")), role,
    h("button", { type: "submit", class: "primary", id: "staff-add" }, t("op.add_staff")));

  show(heading, h("p", { class: "lead" }, t("op.staff_intro")),
    h("table", { class: "ledger", id: "staff" }, h("thead", {}, h("tr", {}, ...["op.username", "op.role", "op.change_role"]
      .map((key) => h("th", { scope: "col" }, t(key))))), rows), form);
  load();
  heading.focus();
  return () => { closed = true; };
}

// ---------------------------------------------------------------- audit

/** An audit entry's target ("table 3 round 12", "account 7") in the console's language. */
function auditTarget(target) {
  const round = /^table (\d+) round (\d+)$/.exec(target);
  if (round) return t("op.target.round", { table: round[1], round: round[2] });
  const seat = /^table (\d+) seat (\d+)$/.exec(target);
  if (seat) return t("op.target.seat", { table: seat[1], seat: seat[2] });
  const table = /^table (\d+)$/.exec(target);
  if (table) return t("op.target.table", { table: table[1] });
  const account = /^account (\d+)$/.exec(target);
  if (account) return t("op.target.account", { account: account[1] });
  return target;
}

const MONEY_FIELDS = new Set(["balance", "amount", "refunded"]);

/** A value of an audit entry's field in the console's language: money as money, a game, role or status by its
 *  name, limits as the table card says them; free text (a memo, a reason, a name) as it was typed. */
function auditValue(key, value) {
  if (value == null) return key === "limits" || key === "pending_limits" ? t(`op.value.${key}_none`) : t("op.value.none");
  if (key === "paytable") {  // as players name it, by what the Draw wager pays
    const game = registry.find((g) => g.paytable === value);
    return game ? drawWinWords(game.code, value) : String(value);
  }
  if (MONEY_FIELDS.has(key) && typeof value === "number") return money(value);
  if (key === "game") return gameName(value);
  if (key === "role" && has(`word.roles.${value}`)) return t(`word.roles.${value}`);
  if (key === "status") return has(`op.status.${value}`) ? t(`op.status.${value}`) : has(`word.status.${value}`) ? t(`word.status.${value}`) : value;
  if ((key === "limits" || key === "pending_limits") && typeof value === "object") return limitsText(value);
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

function auditView() {
  const heading = h("h1", { tabindex: "-1" }, t("op.tab.audit"));
  const verdict = h("p", { id: "audit-verdict", role: "status" });
  const rows = h("tbody", { id: "audit-rows" });
  let closed = false;
  const shown = (key, v) => auditValue(key, v);
  /** Only what changed: ``field: before → after`` (a field new on the after side: ``field: value``). */
  function changes(before, after) {
    const lines = [];
    for (const key of new Set([...Object.keys(before || {}), ...Object.keys(after || {})])) {
      const old = (before || {})[key], now = (after || {})[key];
      if (JSON.stringify(old) === JSON.stringify(now)) continue;
      lines.push(h("div", {}, h("b", {}, has(`op.field.${key}`) ? t(`op.field.${key}`) : key), ": ",
        old === undefined ? "" : h("span", { class: "muted" }, shown(key, old), " → "), shown(key, now)));
    }
    return lines.length ? lines : ["–"];
  }

  async function verify() {
    try {
      const check = await api("GET", "/api/operator/audit/verify");
      verdict.className = check.ok ? "refusal info" : "error";
      text(verdict, check.ok ? t("op.chain_ok", { n: check.entries, head: (check.head || "").slice(0, 16) })
                             : t("op.chain_broken", { id: check.broken.id, problem: check.broken.problem }));
    } catch (error) { toast(error.message); }
  }

  async function load() {
    let entries;
    try { entries = await api("GET", "/api/operator/audit?limit=1000"); } catch (error) { toast(error.message); return; }
    if (closed) return;
    rows.replaceChildren(...(entries.length ? entries.reverse().map((e) => h("tr", {},
      cell(e.id), h("td", {}, stamp(e.at)), h("td", {}, e.actor === "dealer" ? t("op.actor.dealer") : e.actor),
      h("td", {}, t(`op.action.${e.action}`)), h("td", {}, auditTarget(e.target)),
      h("td", { class: "change" }, ...changes(e.before, e.after)),
      h("td", { class: "digest", title: e.digest }, e.digest.slice(0, 12))))
      : [h("tr", {}, h("td", { colspan: "7", class: "muted" }, t("op.no_entries")))]));
  }

  show(heading, h("p", { class: "lead" }, t("op.audit_intro")),
    h("div", { class: "actions" }, h("button", { type: "button", class: "primary", id: "audit-verify", onclick: verify }, t("op.verify_chain")),
      csvButton("/api/operator/audit?format=csv&limit=1000", "csv-audit")),
    verdict,
    h("div", { class: "scroll" }, h("table", { class: "ledger", id: "audit" }, h("thead", {}, h("tr", {},
      ...["op.entry", "op.when", "op.who", "op.what", "op.target", "op.change", "op.digest"].map((key, i) =>
        h("th", { scope: "col", class: i === 0 ? "num" : "" }, t(key))))), rows)));
  load();
  verify();
  heading.focus();
  return () => { closed = true; };
}

// ---------------------------------------------------------------- routing

async function route() {
  leaveView();
  leaveView = () => {};
  applyChrome();
  if (!token) { loginView(); return; }
  try {
    if (!me) {
      me = await api("GET", "/api/me");
      if (!me.actions.length) {
        show(h("section", { class: "login" }, h("h1", {}, t("op.title")), h("p", { class: "error", role: "alert", id: "not-operator" }, t("op.not_operator")),
          h("p", {}, h("a", { href: "/" }, t("op.to_table")))));
        me = null;
        return;
      }
      text(document.getElementById("who"), me.username);
      document.getElementById("logout").hidden = false;
      document.getElementById("tabs").hidden = false;
      const games = await api("GET", "/api/games");
      rememberGames(games);
      registry = games;
      applyChrome();
    }
    const tab = currentTab();
    if (tab === "reports") leaveView = reportsView();
    else if (tab === "players") leaveView = playersView((/^#\/players\/(\d+)$/.exec(location.hash) || [])[1]);
    else if (tab === "audit") leaveView = auditView();
    else if (tab === "staff") leaveView = staffView();
    else if (tab === "tables") leaveView = tablesView();
    else show(h("p", { class: "muted" }, t("op.nothing_to_show")));
  } catch (error) {
    if (token) show(h("p", { class: "error", role: "alert" }, error.message));
  }
}

document.getElementById("logout").addEventListener("click", async () => {
  try { await api("DELETE", "/api/sessions"); } catch { /* logged out either way */ }
  logOut();
});
document.getElementById("lang").addEventListener("change", (event) => { setLanguage(/** @type {HTMLSelectElement} */ (event.target).value); route(); });
window.addEventListener("signed-out", logOut);
window.addEventListener("signed-in", () => { me = null; route(); });  // in another tab
window.addEventListener("hashchange", route);
setLanguage(lang);
route();
