// The browser table: log in, pick a table in the lobby, bet with chips, watch the cards, read the
// roads.  Plain JavaScript, no build step.  Everything comes from the REST API and the table's
// WebSocket; the page never sees a card before the server reveals it, and never builds HTML from
// data (DOM nodes and text only).
"use strict";

const CHIPS = [1, 5, 25, 100, 500];                       // in currency units; amounts travel in cents
const SUITS = { s: "♠", h: "♥", d: "♦", c: "♣" };
const POINTS = { A: 1, T: 0, J: 0, Q: 0, K: 0 };
const GAME_NAMES = { mini: "Mini-Baccarat", ez: "EZ Baccarat", "lucky-draw": "Lucky Draw Baccarat" };
const LAYOUTS = {
  ez: [["panda_8", "PANDA 8", "25:1", "player-side"], ["player", "PLAYER", "1:1", "player-side"],
       ["tie", "TIE", "8:1", ""], ["banker", "BANKER", "1:1 (3-card 7 pushes)", "banker-side"],
       ["dragon_7", "DRAGON 7", "40:1", "banker-side"]],
  mini: [["dragon_bonus_player", "PLAYER DRAGON BONUS", "up to 30:1", "player-side"],
         ["player", "PLAYER", "1:1", "player-side"], ["tie", "TIE", "8:1", ""],
         ["banker", "BANKER", "0.95:1", "banker-side"],
         ["dragon_bonus_banker", "BANKER DRAGON BONUS", "up to 30:1", "banker-side"]],
  "lucky-draw": [["enter", "ENTER", "DrawWin pay table", ""], ["draw", "DRAW", "equal to Enter, when you draw", ""],
                 ["block_bonus", "BLOCK BONUS", "first deal", ""]],
};

let token = sessionStorage.getItem("token");
let me = null;
let leaveView = () => {};

// ---------------------------------------------------------------- helpers

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (name === "class") el.className = value;
    else if (name.startsWith("on")) el.addEventListener(name.slice(2), value);
    else if (name === "style") Object.assign(el.style, value);
    else if (value === true) el.setAttribute(name, "");
    else if (value !== false && value != null) el.setAttribute(name, value);
  }
  for (const child of children.flat()) {
    if (child != null && child !== false) el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

function money(minor) {
  const sign = minor < 0 ? "-" : "";
  return sign + (Math.abs(minor) / 100).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
}

function newKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function toast(text) {
  const box = document.getElementById("toast");
  box.textContent = text;
  box.classList.add("show");
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => box.classList.remove("show"), 3000);
}

class ApiError extends Error {
  constructor(status, detail) { super(detail); this.status = status; }
}

function detailText(data) {
  if (!data) return "the request failed";
  if (typeof data.detail === "string") return data.detail;
  if (Array.isArray(data.detail)) return data.detail.map((d) => `${d.field}: ${d.problem}`).join("; ");
  return "the request failed";
}

async function api(method, path, body, idempotent) {
  const headers = { "Content-Type": "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (idempotent) headers["Idempotency-Key"] = newKey();
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = response.status === 204 ? null : await response.json().catch(() => null);
  if (response.status === 401 && token) { logOut(); }
  if (!response.ok) throw new ApiError(response.status, detailText(data));
  return data;
}

function cardFace(code, extra) {
  const rank = code[0] === "T" ? "10" : code[0];
  const suit = code[1];
  return h("span", { class: `card ${suit === "h" || suit === "d" ? "red" : ""} ${extra || ""}`, "data-card": code },
           rank + SUITS[suit]);
}

function cardBack() { return h("span", { class: "card back", "aria-label": "face-down card" }); }

function total(cards) {
  return cards.reduce((sum, code) => sum + (code[0] in POINTS ? POINTS[code[0]] : Number(code[0])), 0) % 10;
}

async function refreshMe() {
  me = await api("GET", "/api/me");
  document.getElementById("who").textContent = me.username;
  document.getElementById("balance").textContent = money(me.balance);
  document.getElementById("balance-box").hidden = false;
  document.getElementById("logout").hidden = false;
}

function setBalance(minor) {
  if (me) me.balance = minor;
  document.getElementById("balance").textContent = money(minor);
}

function logOut() {
  token = null;
  me = null;
  sessionStorage.removeItem("token");
  document.getElementById("who").textContent = "";
  document.getElementById("balance-box").hidden = true;
  document.getElementById("logout").hidden = true;
  route();
}

// ---------------------------------------------------------------- views

function show(...nodes) {
  const view = document.getElementById("view");
  view.replaceChildren(...nodes);
}

function loginView() {
  const message = h("p", { class: "error", role: "alert" });
  const username = h("input", { name: "username", autocomplete: "username", required: true, minlength: 3, maxlength: 32 });
  const password = h("input", { name: "password", type: "password", autocomplete: "current-password", required: true,
                                minlength: 8, maxlength: 128 });
  async function go(register) {
    message.textContent = "";
    const body = { username: username.value.trim(), password: password.value };
    try {
      if (register) await api("POST", "/api/accounts", body);
      token = (await api("POST", "/api/sessions", body)).token;
      sessionStorage.setItem("token", token);
      await refreshMe();
      route();
    } catch (error) { message.textContent = error.message; }
  }
  const form = h("form", { class: "login", onsubmit: (e) => { e.preventDefault(); go(false); } },
    h("h1", {}, "Baccarat"),
    h("p", {}, "Mini-Baccarat, EZ Baccarat and Lucky Draw Baccarat, dealt from provably fair shoes."),
    h("label", {}, "Username", username),
    h("label", {}, "Password (8 characters or more)", password),
    message,
    h("div", { class: "actions" },
      h("button", { type: "submit", class: "primary", id: "login" }, "Log in"),
      h("button", { type: "button", id: "register", onclick: () => go(true) }, "Register")));
  show(form);
  username.focus();
}

async function lobbyView() {
  const tables = await api("GET", "/api/tables");
  const cards = tables.map((table) => {
    const road = h("div", { class: "road" });
    const seats = Object.keys(table.seats).length;
    const maxBet = Math.max(...Object.values(table.limits.maximums));
    const card = h("section", { class: "table-card", "data-table": table.id },
      h("h2", {}, table.name),
      h("div", { class: "meta" }, `${GAME_NAMES[table.game] || table.game} · bets ${money(table.limits.minimum)}`
        + ` to ${money(maxBet)} · ${seats} / 7 seated · ${table.status}`),
      road,
      h("button", { class: "primary", onclick: () => join(table.id), disabled: table.status !== "open" },
        table.status === "open" ? "Sit down" : "Closed"));
    if (table.game !== "lucky-draw") {
      api("GET", `/api/tables/${table.id}/roads`).then((roads) => {
        road.replaceChildren(h("h4", {}, `Big Road · shoe ${roads.shoe}`), bigRoad(roads.big_road),
                             statsLine(roads.stats));
      }).catch(() => {});
    }
    return card;
  });
  show(h("h1", {}, "Tables"), h("div", { class: "lobby" }, cards));
}

async function join(tableId) {
  try {
    await api("POST", `/api/tables/${tableId}/seats`, {});
    location.hash = `#/table/${tableId}`;
  } catch (error) { toast(error.message); }
}

// ---------------------------------------------------------------- roads

function gridOf(cells, small) {
  const columns = Math.max(small ? 20 : 14, ...cells.map((c) => c.col + 1));
  const grid = h("div", { class: `grid ${small ? "small" : ""}`, style: { gridTemplateColumns: `repeat(${columns}, ${small ? ".7em" : "1.15em"})` } });
  for (const cell of cells) grid.append(cell.node);
  return grid;
}

function placed(node, col, row) {
  node.style.gridColumn = col + 1;
  node.style.gridRow = row + 1;
  return { node, col, row };
}

function pairClasses(cell) { return `${cell.banker_pair ? "pair-b" : ""} ${cell.player_pair ? "pair-p" : ""}`; }

function beadPlate(cells) {
  return gridOf(cells.map((c) => placed(h("span", { class: `cell bead ${c.outcome} ${pairClasses(c)}`, title: c.outcome },
                                           c.outcome), c.col, c.row)));
}

function bigRoad(cells) {
  return gridOf(cells.map((c) => placed(h("span", { class: `cell big ${c.side || ""} ${pairClasses(c)}`,
                                                    title: `${c.side || "tie"}${c.ties ? `, ${c.ties} tie(s)` : ""}` },
                                          c.ties ? h("span", { class: "tie" }) : null,
                                          c.ties > 1 ? h("span", { class: "ties" }, c.ties) : null), c.col, c.row)));
}

function derivedRoad(marks, kind) {
  return gridOf(marks.map((m) => placed(h("span", { class: `cell mark ${kind} ${m.colour}`, title: m.colour }), m.col, m.row)),
                true);
}

function statsLine(stats) {
  const parts = [`Hands ${stats.hands}`, `Banker ${stats.banker} (${stats.banker_pct}%)`,
                 `Player ${stats.player} (${stats.player_pct}%)`, `Tie ${stats.tie} (${stats.tie_pct}%)`,
                 `B pairs ${stats.banker_pairs}`, `P pairs ${stats.player_pairs}`, `Naturals ${stats.naturals}`];
  return h("div", { class: "stats" }, parts.map((p) => h("span", {}, p)));
}

function roadsPanel(roads, game) {
  const answer = h("span", { class: "answer", "aria-live": "polite" });
  function ask(side) {
    const marks = roads.ask[side];
    const kinds = { big_eye_boy: "eye", small_road: "small", cockroach_pig: "roach" };
    answer.replaceChildren(`${side === "banker" ? "Banker" : "Player"} next: `,
      ...Object.entries(marks).map(([road, colour]) => colour
        ? h("span", { class: `cell mark ${kinds[road]} ${colour} asked`, style: { display: "inline-block", width: "1em", height: "1em" },
                      title: `${road.replaceAll("_", " ")}: ${colour}` })
        : h("span", { title: `${road.replaceAll("_", " ")}: no mark yet` }, "–")));
  }
  const stats = statsLine(roads.stats);
  if (game === "ez") stats.append(h("span", {}, `Dragon 7 ${roads.stats.dragon_7}`), h("span", {}, `Panda 8 ${roads.stats.panda_8}`));
  return h("section", { class: "panel roads", id: "roads" },
    h("div", { class: "road" }, h("h4", {}, "Bead Plate"), beadPlate(roads.bead_plate)),
    h("div", { class: "road" }, h("h4", {}, "Big Road"), bigRoad(roads.big_road)),
    h("div", { class: "road" }, h("h4", {}, "Big Eye Boy"), derivedRoad(roads.big_eye_boy, "eye")),
    h("div", { class: "road" }, h("h4", {}, "Small Road"), derivedRoad(roads.small_road, "small")),
    h("div", { class: "road" }, h("h4", {}, "Cockroach Pig"), derivedRoad(roads.cockroach_pig, "roach")),
    stats,
    h("div", { class: "asks" },
      h("button", { type: "button", id: "ask-banker", onclick: () => ask("banker") }, "Banker ask"),
      h("button", { type: "button", id: "ask-player", onclick: () => ask("player") }, "Player ask"), answer));
}

// ---------------------------------------------------------------- the table

function tableView(tableId) {
  const state = { table: null, you: null, staged: {}, order: [], last: {}, chip: 100 * CHIPS[0], pending: false,
                  resultRound: null, shoe: null, history: [] };
  const refusal = h("p", { class: "refusal", role: "alert", id: "refusal" });
  const phase = h("span", { class: "phase", id: "phase" });
  const countdown = h("span", { class: "countdown", id: "countdown" });
  const shoeLine = h("div", { class: "shoe", id: "shoe" });
  const fairBox = Fair.shoePanel(tableId, () => token);  // provably fair: the commitment and your seed (fair.js)
  const hands = h("div", { class: "hands", id: "hands" });
  const banner = h("div", { class: "banner", id: "banner" });
  const callouts = h("div", { class: "callouts", id: "callouts" });
  const decision = h("div", { class: "decision", id: "decision" });
  const layout = h("div", { class: "layout", id: "layout" });
  const totals = h("span", { class: "totals", id: "totals" });
  const roadsBox = h("div", { id: "roads-box" });
  const historyBox = h("section", { class: "panel", id: "history" }, h("h3", {}, "History"));
  const title = h("h2", { style: { margin: 0 } });
  let socket = null;
  let closed = false;
  let timer = null;

  const chips = h("div", { class: "chips", role: "group", "aria-label": "chips" },
    CHIPS.map((value) => h("button", { type: "button", class: `chip c${value}`, "data-chip": value,
      "aria-pressed": String(value * 100 === state.chip),
      onclick: (event) => {
        state.chip = value * 100;
        for (const chip of chips.children) chip.setAttribute("aria-pressed", String(chip === event.currentTarget));
      } }, value)));

  const buttons = {
    undo: h("button", { type: "button", id: "undo", onclick: () => { const last = state.order.pop(); if (last) { state.staged[last[0]] -= last[1]; if (!state.staged[last[0]]) delete state.staged[last[0]]; } draw(); } }, "Undo"),
    clear: h("button", { type: "button", id: "clear", onclick: () => { state.staged = {}; state.order = []; draw(); } }, "Clear"),
    double: h("button", { type: "button", id: "double", onclick: () => { for (const [code, amount] of Object.entries(state.staged)) { state.staged[code] = 2 * amount; state.order.push([code, amount]); } draw(); } }, "Double"),
    rebet: h("button", { type: "button", id: "rebet", onclick: () => { state.staged = { ...state.last }; state.order = Object.entries(state.last); draw(); } }, "Rebet"),
    place: h("button", { type: "button", class: "primary", id: "place", onclick: place }, "Place bets"),
    leave: h("button", { type: "button", id: "leave", onclick: leave }, "Leave table"),
  };

  function game() { return state.table ? state.table.game : null; }
  function betting() {
    const round = state.table && state.table.round;
    return round && new Date(round.closes_at).getTime() > Date.now();
  }

  function send(command) {
    if (!socket || socket.readyState !== WebSocket.OPEN) { refusal.textContent = "not connected to the table; reconnecting"; return false; }
    state.pending = true;
    socket.send(JSON.stringify({ ...command, key: newKey() }));
    draw();
    return true;
  }

  function place() {
    refusal.textContent = "";
    if (!Object.keys(state.staged).length) { refusal.textContent = "put chips on a spot first"; return; }
    if (!betting()) { refusal.textContent = "no more bets: wait for the next round"; return; }
    // the bets name their round: one that arrives after its window closed is refused, never moved on
    send({ type: "bet", bets: state.staged, round: state.table.round.number });
  }

  function stake(code) {
    refusal.textContent = "";
    if (code === "draw") { refusal.textContent = "the Draw wager is placed by choosing DRAW after the first deal"; return; }
    if (!betting()) { refusal.textContent = "no more bets: wait for the next round"; return; }
    state.staged[code] = (state.staged[code] || 0) + state.chip;
    state.order.push([code, state.chip]);
    draw();
  }

  async function leave() {
    try { await api("DELETE", `/api/tables/${tableId}/seats`); location.hash = "#/"; }
    catch (error) { refusal.textContent = error.message; }
  }

  function drawSpots() {
    const table = state.table;
    const mine = (state.you && state.you.bets) || {};
    layout.className = `layout ${game() === "lucky-draw" ? "lucky" : ""}`;
    layout.replaceChildren(...(LAYOUTS[game()] || []).map(([code, name, pays, side]) => {
      const max = table.limits.maximums[code];
      const staged = state.staged[code] || 0;
      const onLayout = mine[code] || 0;
      const settled = state.settled && state.settled[code];
      return h("button", { type: "button", class: `spot ${side} ${settled ? (settled.net > 0 ? "won" : settled.net < 0 ? "lost" : "push") : ""}`,
                           "data-spot": code, onclick: () => stake(code) },
        h("span", { class: "name" }, name), h("span", { class: "pays" }, pays),
        h("span", { class: "pays" }, code === "draw" ? "" : `${money(table.limits.minimum)}–${max ? money(max) : "∞"}`),
        h("span", { class: "amount" }, onLayout ? money(onLayout) : "", staged ? ` +${money(staged)}` : ""),
        h("span", { class: `net ${settled ? (settled.net >= 0 ? "plus" : "minus") : ""}` },
          settled ? `${settled.net > 0 ? "won +" : settled.net < 0 ? "lost " : "push "}${money(settled.net)}` : ""));
    }));
  }

  function drawStatus() {
    const table = state.table;
    title.textContent = `${table.name} · ${GAME_NAMES[table.game] || table.game}`;
    const round = table.round;
    if (table.status !== "open" && !round) { phase.textContent = "TABLE CLOSED"; countdown.textContent = ""; }
    else if (table.decision) {
      phase.textContent = "DECISIONS";
      countdown.textContent = `${Math.max(0, Math.ceil((new Date(table.decision.decides_at) - Date.now()) / 1000))} s`;
    } else if (betting()) {
      phase.textContent = `BETTING · round ${round.number}`;
      countdown.textContent = `${Math.max(0, Math.ceil((new Date(round.closes_at) - Date.now()) / 1000))} s`;
    } else { phase.textContent = "NO MORE BETS · DEALING"; countdown.textContent = ""; }
    const shoe = table.shoe;
    if (shoe) {
      const hand = state.roads ? state.roads.stats.hands + 1 : null;
      shoeLine.replaceChildren(
        `Shoe ${shoe.number}${hand && game() !== "lucky-draw" ? ` · hand ${hand}` : ""} · ${shoe.cards_dealt} of ${shoe.cards} cards dealt`,
        shoe.last_hand ? h("span", { class: "announce" }, " · LAST HAND") : "",
        h("div", { class: "shoe-bar", title: "cards dealt; the red mark is the cut card" },
          h("div", { class: "used", style: { width: `${(100 * shoe.cards_dealt) / shoe.cards}%` } }),
          h("div", { class: "cut", style: { left: `${(100 * (shoe.cards - shoe.cut_card)) / shoe.cards}%` } })));
    }
    const staged = Object.values(state.staged).reduce((a, b) => a + b, 0);
    const placedTotal = Object.values((state.you && state.you.bets) || {}).reduce((a, b) => a + b, 0);
    totals.textContent = `On the layout ${money(placedTotal)}${staged ? ` · to place ${money(staged)}` : ""}`;
    const open = betting() && !state.pending;
    buttons.place.disabled = !open;
    for (const name of ["undo", "clear", "double"]) buttons[name].disabled = !Object.keys(state.staged).length;
    buttons.rebet.disabled = !Object.keys(state.last).length || !open;
  }

  function drawDecision() {
    const table = state.table;
    const you = state.you || {};
    decision.replaceChildren();
    if (game() !== "lucky-draw" || !table.decision) return;
    const shown = table.decision.first_deal;
    const mySeat = you.seat ? `seat:${you.seat}` : null;
    const dealer = shown.dealer || [];
    const seats = Object.entries(shown).filter(([who]) => who !== "dealer");
    const dealt = JSON.stringify([table.decision.round, shown]);
    if (state.decisionShown !== dealt) {  // deal the cards once, not at every redraw
      state.decisionShown = dealt;
      hands.replaceChildren(
      h("div", { class: "hand", id: "dealer-hand" }, h("h3", {}, "Dealer"), h("div", { class: "cards" }, dealer.map((c) => cardFace(c)), cardBack())),
      ...seats.map(([who, cards]) => h("div", { class: "hand", "data-seat": who },
        h("h3", {}, who === mySeat ? "You" : `Seat ${who.split(":")[1]} ${table.seats[who.split(":")[1]] || ""}`),
        h("div", { class: "cards" }, cards.map((c) => cardFace(c))), h("div", { class: "total" }, total(cards)))));
      banner.className = "banner";
      banner.textContent = "";
      callouts.textContent = "";
    }
    if (mySeat && shown[mySeat] && (you.bets || {}).enter && !(you.bets || {}).draw && !state.decided) {
      const enter = you.bets.enter;
      const up = dealer[0] ? total([dealer[0]]) : null;
      const mine = total(shown[mySeat]);
      const hintBox = h("label", { class: "hint" },
        h("input", { type: "checkbox", id: "show-hint", checked: localStorage.getItem("hint") === "on",
                     onchange: (e) => { localStorage.setItem("hint", e.target.checked ? "on" : "off"); drawDecision(); } }),
        " hint");
      const advice = state.strategy && localStorage.getItem("hint") === "on" && up !== null
        ? h("span", { id: "hint", title: state.strategy.basis },
            `Optimal: ${state.strategy.draw[String(mine)].includes(up) ? "DRAW" : "STAND"}`)
        : null;
      decision.append(
        h("span", {}, `Your total ${total(shown[mySeat])}: `),
        h("button", { type: "button", id: "stand", onclick: () => { state.decided = "stand"; send({ type: "decision", action: "stand" }); } }, "STAND"),
        h("button", { type: "button", id: "draw", class: "primary", disabled: (you.balance || 0) < enter,
                      title: (you.balance || 0) < enter ? "your balance is below your Enter wager" : "",
                      onclick: () => { state.decided = "draw"; send({ type: "decision", action: "draw" }); } },
          `DRAW (${money(enter)})`), hintBox, advice);
    } else if (state.decided) {
      decision.append(h("span", {}, `You chose to ${state.decided}; waiting for the other seats`));
    }
  }

  function drawResult(result) {
    state.decided = null;
    if (result.player_cards) {
      const order = [];
      const player = result.player_cards;
      const banker = result.banker_cards;
      order.push(["player", player[0], false], ["banker", banker[0], false], ["player", player[1], false], ["banker", banker[1], false]);
      if (player[2]) order.push(["player", player[2], true]);
      if (banker[2]) order.push(["banker", banker[2], true]);
      const boxes = { player: h("div", { class: "cards" }), banker: h("div", { class: "cards" }) };
      order.forEach(([side, card, third], i) => {
        const face = cardFace(card, third ? "third" : "");
        face.style.animationDelay = `${i * 0.35}s`;
        boxes[side].append(face);
      });
      hands.replaceChildren(
        h("div", { class: "hand", id: "player-hand" }, h("h3", {}, "PLAYER"), boxes.player, h("div", { class: "total" }, result.player_total)),
        h("div", { class: "hand", id: "banker-hand" }, h("h3", {}, "BANKER"), boxes.banker, h("div", { class: "total" }, result.banker_total)));
      const winner = result.winner;
      const score = winner === "player" ? `${result.player_total} : ${result.banker_total}` : `${result.banker_total} : ${result.player_total}`;
      banner.className = `banner ${winner}`;
      banner.textContent = winner === "tie" ? `TIE ${score}` : `${winner.toUpperCase()} WINS ${score}`;
      const flags = result.hand || {};
      callouts.textContent = [flags.natural && "Natural", game() === "ez" && flags.dragon_7 && "Dragon 7",
                              game() === "ez" && flags.panda_8 && "Panda 8"].filter(Boolean).join(" · ");
    } else if (result.hands) {
      const mySeat = state.you && state.you.seat ? `seat:${state.you.seat}` : null;
      hands.replaceChildren(...Object.entries(result.hands).map(([who, cards]) => h("div", { class: "hand", "data-seat": who },
        h("h3", {}, who === "dealer" ? "Dealer" : who === mySeat ? "You" : `Seat ${who.split(":")[1]}`),
        h("div", { class: "cards" }, cards.map((c, i) => cardFace(c, i === 2 ? "third" : ""))),
        h("div", { class: "total" }, total(cards)))));
      const mine = mySeat && result.hands[mySeat];
      banner.className = "banner";
      banner.textContent = mine ? `YOU ${total(mine)} : DEALER ${total(result.hands.dealer)}` : `DEALER ${total(result.hands.dealer)}`;
      callouts.textContent = "";
    }
  }

  async function loadHistory(round) {
    try {
      const rounds = (await api("GET", "/api/history")).filter((r) => r.table_id === tableId);
      state.history = rounds;
      const settled = rounds.find((r) => r.round === round);
      state.settled = settled ? settled.bets : null;  // wager -> {amount, event, net}
      drawHistory();
      drawSpots();
    } catch (error) { /* shown on the next attempt */ }
  }

  function drawHistory() {
    const rows = state.history.slice(0, 12).flatMap((r) => {
      const net = Object.values(r.bets).reduce((sum, bet) => sum + bet.net, 0);
      const detail = h("tr", { class: "detail", hidden: true }, h("td", { colspan: 7 }, describe(r)));
      const row = h("tr", { class: "row", "data-round": r.round, onclick: () => { detail.hidden = !detail.hidden; } },
        h("td", {}, new Date(r.time).toLocaleTimeString()), h("td", {}, r.round),
        h("td", {}, Object.entries(r.bets).map(([code, bet]) => `${code} ${money(bet.amount)}`).join(", ")),
        h("td", {}, r.status === "refunded" ? "refunded" : r.winner || (net > 0 ? "won" : net < 0 ? "lost" : "push")),
        h("td", { class: net >= 0 ? "plus" : "minus" }, money(net)),
        h("td", {}, r.balance_after == null ? "" : money(r.balance_after)),
        h("td", {}, Fair.verifyButton(r)));  // recomputes the round from its revealed shoe (fair.js)
      return [row, detail];
    });
    historyBox.replaceChildren(h("h3", {}, "History"),
      h("table", { class: "history" }, h("thead", {}, h("tr", {}, ["Time", "Round", "Bets", "Result", "Net", "Balance", "Fair"].map((t) => h("th", {}, t)))),
        h("tbody", {}, rows.length ? rows : h("tr", {}, h("td", { colspan: 7 }, "No rounds yet")))));
  }

  function describe(r) {
    const d = r.detail || {};
    const parts = [`Cards in deal order: ${r.cards.join(" ")}`];
    if (d.player_cards) {
      parts.push(`Player ${d.player_cards.join(" ")} = ${d.player_total}; Banker ${d.banker_cards.join(" ")} = ${d.banker_total}`);
      if (d.reasons) parts.push(`Player: ${d.reasons.player}. Banker: ${d.reasons.banker}.`);
    }
    if (d.hands) parts.push(Object.entries(d.hands).map(([who, cards]) => `${who} ${cards.join(" ")}`).join("; "));
    parts.push(Object.entries(r.bets).map(([code, bet]) => `${code}: ${bet.event} (${money(bet.net)})`).join("; "));
    return h("div", {}, parts.map((p) => h("div", {}, p)));
  }

  async function loadRoads() {
    if (game() === "lucky-draw") {
      roadsBox.replaceChildren();
      if (!state.strategy) api("GET", `/api/tables/${tableId}/strategy`).then((card) => { state.strategy = card; }).catch(() => {});
      return;
    }
    try {
      state.roads = await api("GET", `/api/tables/${tableId}/roads`);
      roadsBox.replaceChildren(roadsPanel(state.roads, game()));
    } catch (error) { /* the next result tries again */ }
  }

  function draw() {
    if (!state.table) return;
    drawStatus();
    drawSpots();
    drawDecision();
  }

  function onState(message) {
    const before = state.table;
    state.table = message.table;
    state.you = message.you;
    if (message.you && message.you.balance != null) setBalance(message.you.balance);
    const result = message.table.last_result;
    Fair.showShoe(fairBox, message.table);
    if (before && before.shoe && message.table.shoe && before.shoe.number !== message.table.shoe.number) toast(`New shoe ${message.table.shoe.number}: the roads start again`);
    if (result && result.round !== state.resultRound) {
      const first = state.resultRound === null;
      state.resultRound = result.round;
      if (!first) { state.staged = {}; state.order = []; }
      if (!message.table.decision) drawResult(result);
      loadRoads();
      loadHistory(result.round);
    } else if (!before) {
      banner.textContent = "PLACE YOUR BETS";
      loadRoads();
      loadHistory(null);
    }
    draw();
  }

  function connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    socket = new WebSocket(`${scheme}://${location.host}/ws/tables/${tableId}`);
    socket.onopen = () => socket.send(JSON.stringify({ type: "auth", token }));
    socket.onmessage = (event) => {
      const message = JSON.parse(event.data);
      if (message.type === "state") onState(message);
      else if (message.type === "ok") {
        state.pending = false;
        if (message.result && message.result.bets) {
          state.last = { ...message.result.bets };
          delete state.last.draw;
          state.staged = {};
          state.order = [];
          state.settled = null;
        }
        if (message.result && message.result.balance != null) setBalance(message.result.balance);
        draw();
      } else if (message.type === "error") {
        state.pending = false;
        state.decided = null;
        refusal.textContent = message.detail;
        draw();
      }
    };
    socket.onclose = (event) => {
      if (closed) return;
      if (event.code === 4401) { logOut(); return; }  // signed out (elsewhere, or the session expired)
      if (event.code === 1008) { refusal.textContent = `the table refused the connection: ${event.reason}`; return; }
      setTimeout(() => { if (!closed) connect(); }, 1000);
    };
  }

  show(h("div", { class: "table" },
    h("section", { class: "panel", id: "felt" },
      h("div", { class: "status-row" }, title, h("span", {}, phase, " ", countdown)), shoeLine, fairBox,
      hands, banner, callouts, decision, layout, refusal,
      h("div", { class: "status-row" }, chips, totals),
      h("div", { class: "controls" }, buttons.undo, buttons.clear, buttons.double, buttons.rebet, buttons.place, buttons.leave)),
    h("div", {}, roadsBox, historyBox)));
  connect();
  timer = setInterval(() => { if (state.table) drawStatus(); }, 250);
  return () => { closed = true; clearInterval(timer); if (socket) socket.close(); };
}

// ---------------------------------------------------------------- routing

async function route() {
  leaveView();
  leaveView = () => {};
  if (!token) { loginView(); return; }
  try {
    if (!me) await refreshMe();
    const match = location.hash.match(/^#\/table\/(\d+)$/);
    if (match) leaveView = tableView(Number(match[1]));
    else await lobbyView();
  } catch (error) {
    if (token) show(h("p", { class: "error", role: "alert" }, error.message));
  }
}

document.getElementById("logout").addEventListener("click", async () => {
  try { await api("DELETE", "/api/sessions"); } catch (error) { /* logged out either way */ }
  logOut();
});
window.addEventListener("hashchange", route);
route();
