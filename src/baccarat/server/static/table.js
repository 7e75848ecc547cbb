// A table: the server's timeline as its views give it (phase, countdown on the server's clock, the
// cards one by one as the state frames reveal them, the result only once it is shown), chips that add
// up on a spot within its limits, the whole table (seats, names, everyone's chips, spot totals), Lucky
// Draw's decisions, the roads and the player's history.  The page never computes ahead of a view.
"use strict";

const CHIPS = [1, 5, 25, 100, 500];  // chip values in currency units; amounts travel in cents
const RECONNECT_MS = [300, 700, 1000, 1500, 2000];

function tableView(tableId) {
  const S = {
    view: null, you: null, max_seats: 7,
    staged: {}, steps: [], chip: 100, last: {},
    inflight: null,          // {key, frame, kind}: a command sent and not yet answered (resent with its key)
    shownRound: null, cardsShown: new Set(), resultShown: null, bettingRound: null, phase: null,
    message: "", messageKind: "",
    roads: null, strategy: null, history: [], historyMore: false, openRows: new Set(),
    connected: false, everConnected: false, attempts: 0, lastFrame: 0,
    seen: new Set(), news: [],
    built: null, decisionKey: null, hint: localStorage.getItem("hint") === "on",
    // each chip placed as it is put down, as at a live table (remembered in this browser); putDown: the chips
    // placed that way this round, newest last, which Undo takes back one by one while betting is open
    atOnce: localStorage.getItem("chips-at-once") === "on", putDown: [],
  };
  let socket = null;
  let closed = false;
  const timers = [];

  // ------------------------------------------------------------ skeleton (built once)
  const el = {
    title: h("h1", { id: "table-title", tabindex: "-1" }),
    phase: h("span", { class: "phase", id: "phase", "data-phase": "" }),
    round: h("span", { class: "round-no", id: "round-no" }),
    countdown: h("span", { class: "countdown", id: "countdown", role: "timer", "aria-live": "off" }),
    bar: h("span", { class: "used" }),
    lastResult: h("div", { class: "last-result", id: "last-result" }),
    pending: h("div", { class: "pending-limits", id: "pending-limits" }),
    shoe: h("div", { class: "shoe", id: "shoe" }),
    news: h("ul", { class: "news", id: "news", "aria-label": t("news.title") }),
    seats: h("ol", { class: "seats", id: "seats", "aria-label": t("seats.title") }),
    hands: h("div", { class: "hands", id: "hands" }),
    // a game with multipliers: the coup's struck cards, from the close of betting (before the first card)
    strike: h("p", { class: "strike", id: "strike", hidden: "" }),
    banner: h("div", { class: "banner", id: "banner" }),
    // the player's own round in one line ("You win 47.50"), beside the banner: the round's net from the
    // settlement the server showed (S.you.settlement), never computed here
    yours: h("div", { class: "your-result", id: "your-result" }),
    callouts: h("div", { class: "callouts", id: "callouts" }),
    decision: h("div", { class: "decision", id: "decision" }),
    // a player without a seat: at punto banco they bet from the rail (the one coup is everyone's); at Lucky
    // Draw every hand is a seat's, so the spots stay inert until they sit down
    rail: h("p", { class: "rail", id: "rail", hidden: true }),
    layout: h("div", { class: "layout", id: "layout", role: "group", "aria-label": t("layout.title") }),
    paytables: h("div", { id: "paytables" }),
    refusal: h("p", { class: "refusal", id: "refusal", role: "alert" }),
    chips: h("div", { class: "chips", id: "chips", role: "group", "aria-label": t("chips.title") }),
    totals: h("div", { class: "totals", id: "totals" }),
    roads: h("div", { id: "roads-box" }),
    // a phone's Big Road strip on the main screen (style.css shows it under 600 px only)
    strip: h("div", { class: "road-strip", id: "road-strip" }),
    history: h("section", { class: "panel", id: "history", "aria-labelledby": "history-title" }),
  };
  const chipButtons = CHIPS.map((value) => h("button", {
    type: "button", class: `chip c${value}`, "data-chip": value, "aria-pressed": "false",
    "aria-label": t("chips.chip", { amount: money(value * 100) }),
    onclick: () => { if (chipButton(value).getAttribute("aria-disabled") !== "true") { S.chip = value * 100; render(); } },
  }, String(value)));
  function chipButton(value) { return chipButtons[CHIPS.indexOf(value)]; }
  el.chips.append(...chipButtons);

  // ---- provably fair: fair.js, a module of its own (it shares no code with this file), owns these
  // three hooks: its panel (the shoe's commitment, your client seed) on the felt under the shoe line,
  // Fair.showShoe on every view (onView), and a Verify cell in each history row (drawHistory).
  const fair = window.Fair ? Fair.shoePanel(tableId, () => token) : null;

  const buttons = {
    undo: h("button", { type: "button", id: "undo", onclick: undo }, t("controls.undo")),
    clear: h("button", { type: "button", id: "clear", onclick: clearStaged }, t("controls.clear")),
    double: h("button", { type: "button", id: "double", onclick: double }, t("controls.double")),
    rebet: h("button", { type: "button", id: "rebet", onclick: rebet }, t("controls.rebet")),
    place: h("button", { type: "button", class: "primary", id: "place", onclick: place }, t("controls.place")),
    leave: h("button", { type: "button", id: "leave", class: "quiet", onclick: leave }, t("controls.leave")),
    sit: h("button", { type: "button", id: "sit", class: "primary", hidden: true, onclick: sitDown }, t("controls.sit")),
  };

  // put-down mode: each chip goes on the layout as it is put down (Undo and Clear take chips back while betting is open)
  const atOnceInput = h("input", { type: "checkbox", id: "at-once", onchange: () => {
    S.atOnce = atOnceInput.checked;
    localStorage.setItem("chips-at-once", S.atOnce ? "on" : "off");
    if (S.atOnce && Object.keys(S.staged).length) putDownNow(); else render();
  } });
  atOnceInput.checked = S.atOnce;
  const atOnceBox = h("label", { class: "at-once", for: "at-once" }, atOnceInput, " ", t("controls.at_once"));

  show(h("div", { class: "table" },
    h("section", { class: "panel felt", id: "felt", "aria-labelledby": "table-title" },
      h("div", { class: "status-row" }, el.title,
        h("div", { class: "phase-box" }, el.phase, el.round, el.countdown)),
      h("div", { class: "phase-bar", "aria-hidden": "true" }, el.bar),
      h("div", { class: "felt-info" }, el.lastResult, el.shoe), el.pending, el.news, el.seats, el.strike, el.hands, el.strip,
      h("div", { class: "result-row" }, el.banner, el.yours), el.callouts, el.decision,
      el.rail, el.layout, el.refusal,
      h("div", { class: "tray", id: "tray" },
        h("div", { class: "tray-row" }, el.chips, el.totals),
        h("div", { class: "controls" }, buttons.undo, buttons.clear, buttons.double, buttons.rebet, buttons.place, buttons.sit, buttons.leave,
          atOnceBox))),
    // what may scroll lives in its own column (below the felt on a phone): the fairness panel, the pay
    // tables, the roads and the history; the felt keeps what a player bets and watches on one screen
    h("div", { class: "side" }, fair, el.paytables, el.roads, el.history)));

  // ------------------------------------------------------------ helpers on the view
  const view = () => S.view;
  const game = () => (S.view ? S.view.game : null);
  const lucky = () => isLuckyDraw(game());
  const mySeat = () => (S.you && S.you.seat ? String(S.you.seat) : null);
  /** A watcher at Lucky Draw: no seat, so no hand to bet on (punto banco takes bets from the rail). */
  const railOnly = () => lucky() && !mySeat();
  const myBets = () => (S.you && S.you.bets) || {};
  const wagers = () => (S.view && S.view.wagers) || [];
  const wager = (code) => wagers().find((w) => w.code === code);
  const sum = (amounts) => Object.values(amounts || {}).reduce((a, b) => a + b, 0);

  function bettingOpen() {
    const v = view();
    if (!v || v.phase !== "betting" || !v.round) return false;
    const now = serverNow();
    return (!v.round.opens_at || Date.parse(v.round.opens_at) <= now) && Date.parse(v.round.closes_at) > now;
  }

  function maximum(code) {
    const w = wager(code);
    const limits = view().limits || {};
    return (limits.maximums && limits.maximums[code]) || (w && w.maximum) || Infinity;
  }

  function room(code) { return maximum(code) - (myBets()[code] || 0) - (S.staged[code] || 0); }

  function available() {
    const balance = S.you && S.you.balance != null ? S.you.balance : 0;
    return balance - sum(S.staged);
  }

  /** What is left of the player's own loss and stake limits (the smallest), less what is staged; null: none set. */
  function ownLimitLeft() {
    const limits = ((S.protection && S.protection.limits) || []).filter((l) => l.left != null);
    if (!limits.length) return null;
    return Math.min(...limits.map((l) => l.left)) - sum(S.staged);
  }

  function ownLimitWords(left) {
    return left > 0 ? t("chips.own_limit_left", { amount: money(left) }) : t("chips.own_limit_used");
  }

  /** Words for a stake the balance cannot cover: what it leaves, or that it is used up (never "leaves 0.00"). */
  function balanceWords(amount, left) {
    return left > 0 ? t("bet.balance_left", { amount: money(left) }) : codeText("bet.balance_used_up", { amount });
  }

  /** Whether anything staged is over a limit: a spot's maximum (limits can change, a refusal can tell) or the balance. */
  function overLimit() {
    if (Object.keys(S.staged).some((code) => S.staged[code] > 0 && room(code) < 0)) return true;
    return S.you && S.you.balance != null && sum(S.staged) > S.you.balance;
  }

  function say(message, kind) {
    S.message = message || "";
    S.messageKind = kind || "refusal";
    text(el.refusal, S.message);
    el.refusal.className = `refusal ${S.message ? S.messageKind : ""}`;
  }

  // ------------------------------------------------------------ bets
  function stake(code) {
    say("");
    const w = wager(code);
    if (railOnly()) return say(t("bet.sit_first"));  // punto banco: bettors need no seat
    if (w && w.placed !== "betting") return say(codeText("bet.draw_at_decision", { wager: code }));
    if (!bettingOpen()) return say(t("bet.wait_next_round"));
    if (S.inflight) return say(t("bet.sending"), "info");
    if (S.chip > room(code)) {
      const left = room(code);
      return say(left > 0 ? codeText("bet.room_left", { wager: code, amount: left, maximum: maximum(code) })
                          : codeText("bet.at_maximum", { wager: code, maximum: maximum(code) }));
    }
    if (S.chip > available()) return say(balanceWords(S.chip, available()));
    const own = ownLimitLeft();
    if (own != null && S.chip > own) return say(ownLimitWords(own));
    S.staged[code] = (S.staged[code] || 0) + S.chip;
    S.steps.push({ [code]: S.chip });
    Sound.play("chip");
    if (S.atOnce) return putDownNow();
    render();
  }

  /** Put-down mode: the chips staged go on the layout now, or wait (said, not refused) until they make a bet the
   *  table takes (a spot's minimum, a side wager's base). */
  function putDownNow() {
    const why = whyNotPlace();
    if (why) { say(why, "info"); render(); return; }
    place();
  }

  function addAll(amounts, what) {
    // every spot checked before anything is staged: a Double or Rebet over a maximum changes nothing
    for (const [code, amount] of Object.entries(amounts)) {
      if (room(code) < amount) {
        // a spot with no room left is named as full: "add up to 0.00 by hand" is no advice
        if (room(code) <= 0) return say(codeText("bet.at_maximum", { wager: code, maximum: maximum(code) }));
        return say(t(`bet.${what}_over`, { wager: wagerName(code, (wager(code) || {}).name),
                                            amount: money((myBets()[code] || 0) + (S.staged[code] || 0) + amount),
                                            maximum: money(maximum(code)), room: money(Math.max(0, room(code))) }));
      }
    }
    if (sum(amounts) > available()) {
      if (available() <= 0) return say(balanceWords(sum(amounts), available()));
      return say(t(`bet.${what}_balance`, { amount: money(sum(amounts)), balance: money(Math.max(0, available())) }));
    }
    const own = ownLimitLeft();  // the player's own loss or stake limit, as a chip put down by hand
    if (own != null && sum(amounts) > own) return say(ownLimitWords(own));
    for (const [code, amount] of Object.entries(amounts)) S.staged[code] = (S.staged[code] || 0) + amount;
    S.steps.push({ ...amounts });
    if (S.atOnce) return putDownNow();
    render();
  }

  function double() {
    say("");
    if (railOnly()) return say(t("bet.sit_first"));
    if (!bettingOpen()) return say(t("bet.wait_next_round"));
    if (S.inflight) return say(t("bet.sending"), "info");
    const base = Object.keys(S.staged).length ? { ...S.staged } : { ...myBets() };
    delete base.draw;
    if (!Object.keys(base).length) return say(t("bet.nothing_to_double"));
    addAll(base, "double");
  }

  function rebet() {
    say("");
    if (railOnly()) return say(t("bet.sit_first"));
    if (!bettingOpen()) return say(t("bet.wait_next_round"));
    if (S.inflight) return say(t("bet.sending"), "info");
    if (!Object.keys(S.last).length) return say(t("bet.nothing_to_rebet"));
    addAll({ ...S.last }, "rebet");
  }

  function undo() {
    say("");
    if (!S.steps.length && S.atOnce) return takeBack(S.putDown[S.putDown.length - 1]);
    const step = S.steps.pop();
    if (!step) return;
    for (const [code, amount] of Object.entries(step)) {
      S.staged[code] -= amount;
      if (S.staged[code] <= 0) delete S.staged[code];
    }
    render();
  }

  /** A bet the server refused: the chips it could not take come off the layout, newest first (over a spot's
   * maximum: that spot's, until it fits; over the balance or the player's own limit: until the rest fits). */
  function takeOffRefused(message) {
    const params = message.params || {};
    const mine = myBets();
    let fits;
    if (params.wager && params.maximum != null && S.staged[params.wager]) {
      fits = () => (S.staged[params.wager] || 0) + (mine[params.wager] || 0) <= params.maximum;
    } else if (params.wager && S.staged[params.wager] && /^bet\.(at_maximum|room_left|above_maximum)$/.test(message.code || "")) {
      fits = () => !S.staged[params.wager];
    } else if (params.left != null) {
      fits = () => sum(S.staged) <= params.left;
    } else if (params.balance != null && /^(wallet\.short|bet\.balance)$/.test(message.code || "")) {
      fits = () => sum(S.staged) <= params.balance;
    } else if (message.code === "bet.balance_used_up") {
      fits = () => !Object.keys(S.staged).length;
    } else {
      return;
    }
    while (S.steps.length && !fits()) {
      const step = S.steps.pop();
      for (const [code, amount] of Object.entries(step)) {
        S.staged[code] -= amount;
        if (S.staged[code] <= 0) delete S.staged[code];
      }
    }
  }

  async function loadOwnLimits() {
    if (!token) return;
    // through protect.js's loadProtection: one read gives the limits here and the break the page shows
    try { S.protection = await loadProtection(); if (S.view) renderTray(); } catch (error) { /* no limits shown then */ }
  }

  function clearStaged() {
    say("");
    const staged = Object.keys(S.staged).length;
    S.staged = {};
    S.steps = [];
    if (!staged && S.atOnce) {  // put-down mode: every chip on the layout comes back
      const all = { ...myBets() };
      delete all.draw;
      return takeBack(Object.keys(all).length ? all : null);
    }
    render();
  }

  /** Chips back off the layout while betting is open (put-down mode's Undo and Clear): the server returns them. */
  function takeBack(bets) {
    if (!bets) return;
    if (S.inflight) return say(t("bet.sending"), "info");
    if (!bettingOpen()) return say(t("bet.wait_next_round"));
    send({ type: "take_back", bets: { ...bets }, round: view().round.number }, "take_back");
  }

  /** Why the chips staged cannot be placed as they are (a spot under the minimum, a side wager without its base):
   *  the words, or null. */
  function whyNotPlace() {
    const minimum = view().limits.minimum;
    const after = { ...myBets() };
    for (const [code, amount] of Object.entries(S.staged)) after[code] = (after[code] || 0) + amount;
    for (const code of Object.keys(S.staged)) {
      if (after[code] < minimum) return codeText("bet.below_minimum", { wager: code, amount: after[code], minimum });
      const needs = (wager(code) || {}).requires;
      if (needs && !after[needs]) return codeText("bet.needs_base", { wager: code, base: needs });
    }
    return null;
  }

  function place() {
    say("");
    if (S.inflight) return say(t("bet.sending"), "info");
    if (!Object.keys(S.staged).length) return say(t("bet.stage_first"));
    if (!bettingOpen()) return say(t("bet.wait_next_round"));
    const why = whyNotPlace();
    if (why) return say(why);
    if (sum(S.staged) > S.you.balance) return say(balanceWords(sum(S.staged), S.you.balance));
    if (overLimit()) return say(t("bet.over_limit"));
    // the bets name their round: one that arrives after its window closed is refused, never moved on
    send({ type: "bet", bets: { ...S.staged }, round: view().round.number }, "bet");
  }

  /** Why DRAW is refused: the balance is below the Enter wager the Draw wager must equal (the server's words). */
  function drawBalanceWords() {
    return codeText("decision.draw_balance", { balance: Math.max(0, (S.you && S.you.balance) || 0), enter: myBets().enter || 0 });
  }

  function decide(action) {
    say("");
    if (S.inflight) return;
    if (action === "draw" && (S.you.balance || 0) < (myBets().enter || 0)) return say(drawBalanceWords());
    // the decision names its round: resent after that round's decisions ended, it is refused
    const decision = view().decision;
    send({ type: "decision", action, ...(decision ? { round: decision.round } : {}) }, "decision");
  }

  function send(command, kind) {
    S.inflight = { key: newKey(), frame: command, kind };
    transmit();
    render();
  }

  function transmit() {
    if (!S.inflight) return;
    if (socket && socket.readyState === WebSocket.OPEN && S.connected) {
      socket.send(JSON.stringify({ ...S.inflight.frame, key: S.inflight.key }));
    } else {
      say(t("bet.held_until_connected"), "info");  // sent with the same key once the table is back
    }
  }

  async function sitDown() {
    say("");
    try { await api("POST", `/api/tables/${tableId}/seats`, {}); } catch (error) { say(error.message); }
  }

  async function leave() {
    say("");
    try {
      await api("DELETE", `/api/tables/${tableId}/seats`);
      location.hash = "#/";
    } catch (error) { say(error.message); }
  }

  // ------------------------------------------------------------ the game's parts (built once)
  function build() {
    const v = view();
    S.built = v.game;
    rememberWagers(v.wagers);
    // where each spot sits is the game's data (its felt: side, row, place in the row), built-in games' and rules
    // files' alike
    const felt = (w) => w.felt || { side: "centre", row: 0, order: 0 };
    const order = [...wagers()].sort((a, b) => felt(a).row - felt(b).row || felt(a).order - felt(b).order)
      .map((w) => w.code);
    const rows = new Set(wagers().map((w) => felt(w).row)).size;
    el.layout.className = `layout n${order.length} ${lucky() ? "lucky" : ""}`;
    el.layout.replaceChildren(...order.map((code) => {
      const w = wager(code);
      const side = { player: "player-side", banker: "banker-side" }[felt(w).side] || "";
      return h("button", { type: "button", class: `spot ${side}`, "data-spot": code, onclick: () => stake(code),
        style: rows > 1 ? { gridRow: String(felt(w).row + 1) } : null },
        h("span", { class: "name" }, wagerName(code, w.name)),
        h("span", { class: "pays" }, w.placed === "decision" ? t("spot.draw_pays", { pays: paysLabel(w.summary) }) : paysLabel(w.summary),
          w.multiplied ? t("spot.multiplied") : "",
          // a fee paid with each stake (a fraction of it, "1/5"), shown as a percentage
          w.fee ? t("spot.fee", { percent: Math.round(10000 * Number(w.fee.split("/")[0]) / Number(w.fee.split("/")[1])) / 100 }) : ""),
        h("span", { class: "note" }, (w.pays || []).filter((p) => p.label === "push" && !/tie/i.test(p.event))
          .map((p) => eventName(p.event, code)).join(" · ")),
        h("span", { class: "limits" }),
        h("span", { class: "crowd" }),
        // the seats on the spot, and your own chips drawn as a stack beside them (drawStack)
        h("span", { class: "markers", "aria-hidden": "true" }, h("span", { class: "stack" })),
        h("span", { class: "amount" }),
        h("span", { class: "net" }));
    }));
    buildPaytables();
    if (lucky()) {
      el.hands.className = "hands lucky";
      el.hands.replaceChildren(
        handBox("dealer-hand", t("hand.dealer"), "dealer"),
        handBox("your-hand", t("hand.you"), "you"),
        h("div", { class: "others", id: "other-hands" }));
    } else {
      el.hands.className = "hands";
      el.hands.replaceChildren(handBox("player-hand", t("hand.player"), "player"), handBox("banker-hand", t("hand.banker"), "banker"));
    }
    S.shownRound = null;
  }

  function handBox(id, title, side) {
    return h("div", { class: `hand ${side}`, id },
      h("h3", {}, title),
      h("div", { class: "cards", role: "group", "aria-label": title }),
      h("div", { class: "total", "aria-live": "off" }),
      h("div", { class: "hand-result" }));
  }

  // The rules panel: how the game is played and every pay table, all from the registry (the games
  // catalogue: the wagers' pays, what each Block result means, on which totals the dealer draws); a pay
  // table is named by what it pays ("Draw: Lucky 7 (3-card 7) pays 2:1"), never by its number.
  function buildPaytables() {
    const rows = (w) => (w.pays || []).filter((p) => p.label !== "loses" || p.rule).map((p) =>
      h("tr", {}, h("th", { scope: "row" }, eventName(p.event, w.code)), h("td", {}, paysLabel(p.label)),
        p.rule ? h("td", { class: "rule" }, has(`rule.${p.event}`) ? t(`rule.${p.event}`) : p.rule) : null));
    const tables = wagers().map((w) => h("table", { class: "paytable", "data-wager": w.code },
      h("caption", {}, w.placed === "decision" && w.headline ? paytableName(w) : wagerName(w.code, w.name)),
      h("tbody", {}, rows(w))));
    const info = S.games && S.games.find((g) => g.code === game() && (g.paytable == null || g.paytable === view().paytable));
    const draws = (info && info.dealer_draws) || [];
    const drawing = info && info.drawing;
    const how = lucky()
      ? [t("rules.lucky_hand"), t("rules.lucky_draw"), draws.length ? t("rules.lucky_dealer", { totals: totalsWords(draws) }) : null, t("rules.lucky_block")]
      : [t("rules.punto_banco"), drawing ? t("rules.natural") : null,
         drawing ? t("rules.player_draws", { draws: totalsWords(drawing.player_draws), stands: totalsWords(standsOn(drawing.player_draws)) }) : null,
         drawing ? t("rules.banker_stood", { draws: totalsWords(drawing.banker_draws_player_stood), stands: totalsWords(standsOn(drawing.banker_draws_player_stood)) }) : null];
    const body = [h("ul", { class: "rules-how" }, how.filter(Boolean).map((line) => h("li", {}, line))),
                  drawing ? bankerChart(drawing.banker_draws) : null,
                  h("div", { class: "paytable-grid" }, tables)].filter(Boolean);
    el.paytables.className = `paytables rules ${lucky() ? "open" : ""}`;
    // Lucky Draw's open (a seat decides with them in view); punto banco's fold away under their title
    el.paytables.replaceChildren(h("details", { id: "rules-panel", open: lucky() }, h("summary", {}, `${t("rules.title")} · ${t("paytable.title")}`), ...body));
  }

  // totals as a player reads them: a run as "0–5", otherwise listed ("3, 5")
  function totalsWords(totals) {
    const run = totals.length > 1 && totals[totals.length - 1] - totals[0] === totals.length - 1;
    return run ? `${totals[0]}–${totals[totals.length - 1]}` : totals.join(t("list.comma"));
  }

  // the two-card totals without a natural (0-7) that stand, given those that draw
  function standsOn(drawsOn) {
    return [0, 1, 2, 3, 4, 5, 6, 7].filter((total) => !drawsOn.includes(total));
  }

  // the Banker's chart as casino layouts print it: a row per Banker total, a column per Player third card
  function bankerChart(chart) {
    const thirds = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
    return h("table", { class: "drawing-chart", id: "drawing-chart" },
      h("caption", {}, t("rules.banker_chart")),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("rules.banker_total")),
        ...thirds.map((third) => h("th", { scope: "col", title: t("rules.player_third") }, String(third))))),
      h("tbody", {}, Object.keys(chart).sort((a, b) => a - b).map((total) => h("tr", {},
        h("th", { scope: "row" }, total),
        ...thirds.map((third) => {
          const drawsHere = chart[total].includes(third);
          return h("td", { class: drawsHere ? "draws" : "stands" }, t(drawsHere ? "rules.draws" : "rules.stands"));
        })))),
      h("tfoot", {}, h("tr", {}, h("td", { colspan: "11" }, t("rules.chart_note")))));
  }

  // ------------------------------------------------------------ rendering
  function render() {
    if (!S.view) return;
    if (S.built !== S.view.game) build();
    renderStatus();
    renderSeats();
    renderHands();
    renderResult();
    renderSpots();
    renderDecision();
    renderTray();
  }

  function phaseEnds() {
    const v = view();
    if (v.phase === "betting" && v.round) return v.round.closes_at;
    if (v.phase === "decisions" && v.decision) return v.decision.decides_at;
    if (v.phase === "result" && v.next_round && v.next_round.opens_at) return v.next_round.opens_at;
    return v.phase_ends_at;
  }

  // The bar is touched only when its step (half a percent) or its colour changes: ten ticks a second that each
  // set a width (with a transition) kept every open table repainting without end (a seventh of a core a page).
  function drawBar(scale, hurry) {
    if (S.barScale !== scale) { S.barScale = scale; el.bar.style.transform = `scaleX(${scale})`; }
    if (S.barHurry !== hurry) { S.barHurry = hurry; el.bar.classList.toggle("hurry", hurry); }
  }

  function renderCountdown() {
    const v = view();
    if (!v) return;
    const ends = phaseEnds();
    const left = secondsUntil(ends);
    if (v.phase === "betting" || v.phase === "decisions") text(el.countdown, left == null ? "" : t("phase.seconds", { n: left }));
    else if (v.phase === "result" && left != null) text(el.countdown, t("phase.next_in", { n: left }));
    else text(el.countdown, "");
    const started = v.phase === "betting" && v.round && v.round.opens_at ? v.round.opens_at : v.phase_started_at;
    if (ends && started && (v.phase === "betting" || v.phase === "decisions" || v.phase === "result")) {
      const span = Date.parse(ends) - Date.parse(started);
      const fraction = span > 0 ? Math.min(1, Math.max(0, (Date.parse(ends) - serverNow()) / span)) : 0;
      drawBar((Math.round(200 * fraction) / 200).toFixed(3), left != null && left <= 3);
    } else {
      drawBar("0", false);
    }
    // the window closes on the server's clock, between two frames: the buttons follow it
    const open = bettingOpen();
    if (open !== S.wasOpen) { S.wasOpen = open; renderTray(); renderSpots(); }
  }

  function renderStatus() {
    const v = view();
    text(el.title, defaultTable(v.name) ? tableName(v.name, v.game) : `${v.name} · ${gameName(v.game)}`);
    if (v.phase !== S.phase) {
      const before = S.phase;
      S.phase = v.phase;
      if (before !== null) {
        if (v.phase === "betting") announce(t("announce.betting", { n: secondsUntil(phaseEnds()) || 0 }));
        else if (v.phase === "no_more_bets") announce(t("phase.no_more_bets"));
        else if (v.phase === "decisions" && S.you && myBets().enter) announce(t("announce.decisions"));
      }
    }
    el.phase.setAttribute("data-phase", v.phase || "");
    el.phase.className = `phase ${v.phase || ""}`;
    text(el.phase, v.status === "closed" && v.phase === "closed" ? t("phase.closed") : t(`phase.${v.phase || "closed"}`));
    text(el.round, v.round_number ? t("phase.round", { n: v.round_number }) : "");
    renderCountdown();
    const last = v.last_result;
    const lastWords = last && last.round !== v.round_number ? resultLine(last, seatIn(last.round)) : "";
    text(el.lastResult, lastWords ? t("result.last", { round: last.round, result: lastWords }) : "");
    const pending = v.pending_limits;
    text(el.pending, pending ? t("limits.pending", { min: money(pending.minimum),
      max: money(Math.max(pending.minimum, ...Object.values(pending.maximums || {}))) }) : "");
    const shoe = v.shoe;
    if (shoe) {
      const parts = [t("shoe.number", { n: shoe.number })];
      if (!lucky() && S.roads && S.roads.shoe === shoe.number) parts.push(t("shoe.hand", { n: S.roads.stats.hands + (v.phase === "result" ? 0 : 1) }));
      parts.push(t("shoe.dealt", { dealt: shoe.cards_dealt, cards: shoe.cards }));
      el.shoe.replaceChildren(parts.join(" · "),
        shoe.last_hand ? h("span", { class: "announce" }, ` · ${t("shoe.last_hand")}`) : "",
        h("div", { class: "shoe-bar", title: t("shoe.bar"), "aria-hidden": "true" },
          h("div", { class: "used", style: { width: `${(100 * shoe.cards_dealt) / shoe.cards}%` } }),
          h("div", { class: "cut", style: { left: `${(100 * (shoe.cards - shoe.cut_card)) / shoe.cards}%` } })));
    }
    renderNews();
  }

  /** A past result in one line (the view's last_result: old keys); in Lucky Draw with the hand of ``seat``
   *  ("seat:N", the seat the player played that round from), or the dealer's total alone. */
  function resultLine(r, seat) {
    if (r.void) return t("result.void_short");
    if (r.winner) {
      return r.winner === "tie" ? t("result.tie", { a: r.player_total, b: r.banker_total })
        : t(`result.${r.winner}`, { a: r.winner === "banker" ? r.banker_total : r.player_total,
                                    b: r.winner === "banker" ? r.player_total : r.banker_total });
    }
    if (r.hands && r.hands.dealer) {
      // both totals, the dealer's first as the dealer says it: "Dealer 6 : You 5"
      const yours = seat && r.hands[seat];
      return yours ? t("result.dealer_you", { dealer: handTotal(r.hands.dealer), you: handTotal(yours) })
        : t("result.dealer_had", { n: handTotal(r.hands.dealer) });
    }
    return "";
  }

  function handTotal(cards) {
    return cards.reduce((total, code) => total + ("TJQK".includes(code[0]) ? 0 : code[0] === "A" ? 1 : Number(code[0])), 0) % 10;
  }

  function renderNews() {
    const v = view();
    const items = v.announcements || [];
    const first = S.seen.size === 0 && !S.newsStarted;
    S.newsStarted = true;
    for (const a of items) {
      const id = `${a.at}|${a.kind}|${a.seat}|${a.name}`;
      if (S.seen.has(id)) continue;
      S.seen.add(id);
      const said = lang === "en" ? a.text : t("news.other");  // news stored before it had params: news.other
      const words = a.code === "news.other" ? said : codeText(a.code, a.params, said);
      S.news.push(words);
      // said, and shown in the news line of its own: never a toast over the countdown, the cards or the spots
      if (!first) { announce(words); S.newsFresh = performance.now(); }
    }
    S.news = S.news.slice(-3);
    const wanted = S.news.join("\n");
    if (el.news.dataset.words !== wanted) {
      el.news.dataset.words = wanted;
      el.news.replaceChildren(...S.news.map((words) => h("li", {}, words)));
    }
    el.news.classList.toggle("fresh", S.newsFresh != null && performance.now() - S.newsFresh < 4000);
  }

  function renderSeats() {
    const v = view();
    const players = v.players || {};
    if (el.seats.children.length !== S.max_seats) {
      el.seats.replaceChildren(...Array.from({ length: S.max_seats }, (_, i) => h("li", { class: "seat", "data-seat": i + 1 },
        h("span", { class: "seat-no" }, String(i + 1)), h("span", { class: "seat-name" }), h("span", { class: "seat-bet" }))));
    }
    Array.from(el.seats.children).forEach((li, i) => {
      const number = String(i + 1);
      const p = players[number] || (v.seats && v.seats[number] ? { name: v.seats[number], bets: {} } : null);
      const mine = number === mySeat();
      li.className = `seat ${p ? "taken" : "empty"} ${mine ? "mine" : ""} ${p && p.away ? "away" : ""}`;
      const name = li.children[1];
      const bet = li.children[2];
      text(li.children[0], mine ? t("seats.number_you", { seat: number }) : number);
      if (!p) {
        text(name, t("seats.empty"));
        text(bet, "");
        li.setAttribute("aria-label", t("seats.empty_label", { seat: number }));
        return;
      }
      text(name, p.name);
      const staked = sum(p.bets);
      // the round's result only once every bet is settled: a Block Bonus lost at the first deal is not the
      // round's result while Enter is still live
      const settledAll = p.results && Object.keys(p.bets || {}).every((code) => p.results[code]);
      const net = settledAll ? Object.values(p.results).reduce((a, r) => a + r.net, 0) : null;
      text(bet, net != null && staked ? (net > 0 ? `+${money(net)}` : net < 0 ? money(net) : t("seats.push"))
        : staked ? money(staked) : p.away ? t("seats.away") : "");
      bet.className = `seat-bet ${net == null ? "" : net > 0 ? "plus" : net < 0 ? "minus" : ""}`;
      li.setAttribute("aria-label", t("seats.label", { seat: number, name: mine ? t("seats.you", { name: p.name }) : p.name,
        bets: staked ? money(staked) : t("seats.no_bet") }) + (p.away ? ` (${t("seats.away")})` : ""));
    });
  }

  function handFor(to) {
    if (!lucky()) return el.hands.querySelector(`#${to}-hand`);
    if (to === "dealer") return el.hands.querySelector("#dealer-hand");
    const seat = to.split(":")[1];
    if (seat === mySeat()) return el.hands.querySelector("#your-hand");
    const others = el.hands.querySelector("#other-hands");
    let box = others.querySelector(`[data-seat="${seat}"]`);
    if (!box) {
      const name = (view().players && view().players[seat] && view().players[seat].name) || (view().seats || {})[seat] || "";
      box = handBox(`seat-${seat}-hand`, t("hand.seat", { seat, name }), "other");
      box.setAttribute("data-seat", seat);
      others.append(box);
    }
    return box;
  }

  function renderHands() {
    const v = view();
    if (v.round_number !== S.shownRound) {  // a new round on show: the felt is cleared
      S.shownRound = v.round_number;
      S.cardsShown = new Set();
      for (const box of el.hands.querySelectorAll(".hand")) {
        box.querySelector(".cards").replaceChildren();
        text(box.querySelector(".total"), "");
        text(box.querySelector(".hand-result"), "");
        box.classList.remove("winner");
      }
      const others = el.hands.querySelector("#other-hands");
      if (others) others.replaceChildren();
    }
    let turned = false;
    for (const card of [...(v.cards || [])].sort((a, b) => a.index - b.index)) {
      if (S.cardsShown.has(card.index)) continue;
      S.cardsShown.add(card.index);
      const box = handFor(card.to);
      if (!box) continue;
      // a card the table saw face down flips over (a squeeze table's); the others are dealt face up
      const flips = Boolean(el.hands.querySelector(`.card.squeeze[data-index="${card.index}"]`));
      const face = cardFace(card.card, `${card.hand_index >= 2 ? "third" : ""} ${flips ? "flip" : ""}`);
      face.setAttribute("data-index", card.index);
      // (a squeeze table: before the cards still face down, which come later in the deal)
      box.querySelector(".cards").insertBefore(face, box.querySelector(".cards .card.squeeze"));
      if (!S.firstFrame) turned = true;
    }
    if (turned) Sound.play("card");  // one sound a frame, however many cards it shows
    const struck = v.strike || [];
    el.strike.hidden = !struck.length;
    text(el.strike, struck.length
      ? t("table.strike", { cards: struck.map((s) => t("table.struck_card", { card: cardLabel(s.card), x: s.multiplier })).join("  ") })
      : "");
    renderSqueeze();
    // the dealer's face-down card(s) while seats decide
    if (lucky()) {
      const dealer = el.hands.querySelector("#dealer-hand .cards");
      // the contract's cards_expected when the server sends it; else the rule card's own picture: one
      // face-down dealer card from the decisions until the dealer's second card is shown
      if (v.phase === "decisions") S.decisionsRound = v.round_number;
      const upOnly = dealer.querySelectorAll(".card:not(.back)").length === 1;
      const hidden = v.cards_expected && v.cards_expected.dealer_hidden != null ? v.cards_expected.dealer_hidden
        : upOnly && (v.phase === "decisions" || (v.phase === "dealing" && S.decisionsRound === v.round_number)) ? 1 : 0;
      const backs = dealer.querySelectorAll(".card.back");
      if (backs.length !== hidden) {
        backs.forEach((b) => b.remove());
        for (let i = 0; i < hidden; i += 1) dealer.append(cardBack());
      }
      el.hands.querySelector("#your-hand").hidden = !mySeat();
    }
    const hands = v.hands || {};
    for (const box of el.hands.querySelectorAll(".hand")) {
      const key = box.id === "player-hand" ? "player" : box.id === "banker-hand" ? "banker" : box.id === "dealer-hand" ? "dealer"
        : box.id === "your-hand" ? (mySeat() ? `seat:${mySeat()}` : null) : `seat:${box.getAttribute("data-seat")}`;
      const hand = key && hands[key];
      text(box.querySelector(".total"), hand && hand.cards && hand.cards.length ? t("hand.total", { n: hand.total }) : "");
    }
  }

  // ------------------------------------------------------------ the squeeze (a squeeze table)
  // Cards come face down (view.squeeze.cards).  The card being squeezed is drawn large on the squeeze stage,
  // over the layout (betting is closed), with only the part of its face the server sends for its lift (its
  // `shows`: the pips, the index and a picture's frame a real card lifted that far would show, never more).  Its
  // squeezer lifts it from the bottom edge (the pips row by row), the right edge (the sides) or the corner (the
  // index first), by dragging or with the keys; every watcher sees the same lift and the same part of the face.
  // The face comes whole in view.cards once turned, and flips over in its hand.
  const reducedMotion = () => window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  const EDGE_KEYS = { ArrowUp: "short", ArrowLeft: "long", PageUp: "corner" };
  const LOWER_KEYS = new Set(["ArrowDown", "ArrowRight", "PageDown"]);
  const stage = {
    card: h("div", { class: "stage-card", role: "img" }, h("div", { class: "stage-face" })),
    title: h("h3", { class: "stage-title" }),
    countdown: h("p", { class: "stage-countdown", role: "timer", "aria-live": "off" }),
    howto: h("p", { class: "stage-howto" }),
    turn: h("button", { type: "button", class: "primary", id: "squeeze-turn", hidden: true },
      t("squeeze.turn")),
  };
  el.stage = h("div", { class: "squeeze-stage", id: "squeeze-stage", hidden: true }, stage.card,
    h("div", { class: "stage-words" }, stage.title, stage.countdown, stage.howto, stage.turn));
  el.hands.after(el.stage);

  function squeezable(c) {
    return Boolean(c.by && typeof me !== "undefined" && me && c.by === me.username && c.squeezed_from
      && serverNow() >= Date.parse(c.squeezed_from));
  }

  function sendSqueeze(frame) {
    if (!socket || socket.readyState !== WebSocket.OPEN) return;
    S.squeezeSent = (S.squeezeSent || 0) + 1;  // its answer (no key) is not a bet's or a decision's
    socket.send(JSON.stringify(frame));
  }

  // the squeezer's own peel belongs to one card of one round: never carried into another
  function ownPeel(c) {
    const p = S.peel;
    return p && p.round === view().round_number && p.card === c.index ? p : null;
  }

  function peelTo(index, edge, lift, force) {
    const round = view().round_number;
    if (S.turnedCard === `${round}:${index}`) return;  // turned once: a drag past the top sends nothing more
    const value = Math.max(0, Math.min(1, Math.round(lift * 100) / 100));
    S.peel = { round, card: index, edge, lift: value };
    drawStage();
    if (value >= 1) {
      S.turnedCard = `${round}:${index}`;
      S.peelSentAt = 0;
      clearTimeout(S.peelLater);
      sendSqueeze({ type: "turn", card: index });
      return;
    }
    const now = performance.now();
    clearTimeout(S.peelLater);
    if (!S.peelSentAt || now - S.peelSentAt > 150) {  // at most about 7 peels a second (the server takes 10)
      S.peelSentAt = now;
      sendSqueeze({ type: "squeeze", card: index, lift: value, edge });
    } else if (force) {  // the lift let go at: sent once the pause is over, never sooner (it would be passed over)
      S.peelLater = setTimeout(() => {
        const p = S.peel;
        if (p && p.round === round && p.card === index) peelTo(index, p.edge, p.lift);
      }, 150 - (now - S.peelSentAt) + 1);
    }
  }

  // the uncovered part of the face, as a clip-path: what the drawing shows is only what `shows` holds, and
  // this only shapes the light of the lifted card around it (the thumbs hold an edge's corners down; the light
  // reaches a little past the pips' centres, so a pip the server sent is drawn whole)
  function uncoveredPath(edge, lift) {
    const pct = (v) => `${(v * 100).toFixed(1)}%`;
    if (lift <= 0) return "polygon(100% 100%, 100% 100%, 100% 100%)";
    if (edge === "short") return `polygon(12% ${pct(1 - lift)}, 88% ${pct(1 - lift)}, 88% 100%, 12% 100%)`;
    if (edge === "long") return `polygon(${pct(1 - lift)} 12%, 100% 12%, 100% 88%, ${pct(1 - lift)} 88%)`;
    const k = 2 - 2 * lift;  // the fold line x + y = k
    return k >= 1 ? `polygon(100% ${pct(k - 1)}, 100% 100%, ${pct(k - 1)} 100%)`
      : `polygon(${pct(k)} 0%, 100% 0%, 100% 100%, 0% 100%, 0% ${pct(k)})`;
  }

  function faceParts(shows) {
    const red = shows.suit === "h" || shows.suit === "d";
    const suit = shows.suit ? SUITS[shows.suit] : "";
    const parts = shows.pips.map(([x, y]) => h("span", {
      class: "pip", style: { left: `${x * 100}%`, top: `${y * 100}%`, transform: `translate(-50%, -50%)${y > 0.5 ? " rotate(180deg)" : ""}` },
    }, suit));
    if (shows.court) parts.push(h("span", { class: "court" }, h("span", { class: "crown" }, "\u265B"), suit));
    if (shows.index) {
      const rank = rankOf(shows.index);  // "10" for T
      parts.push(h("span", { class: "index top" }, rank, h("br"), suit), h("span", { class: "index bottom" }, rank, h("br"), suit));
    }
    return { red, parts };
  }

  function drawStage() {
    const c = S.stageCard;
    el.stage.hidden = !c;
    if (!c) { clearInterval(S.stageTick); S.stageTick = null; return; }
    const mine = squeezable(c);
    const own = mine ? ownPeel(c) : null;
    const edge = own ? own.edge : c.edge;
    const lift = own ? own.lift : c.lift;
    const side = t(`squeeze.side.${c.to}`);
    text(stage.title, mine ? t("squeeze.title_yours", { side }) : t("squeeze.title_by", { name: c.by, side }));
    text(stage.howto, mine ? t("squeeze.howto") : t("squeeze.watch", { name: c.by }));
    stage.turn.hidden = !mine;
    stage.turn.onclick = () => peelTo(c.index, edge, 1, true);
    stage.card.tabIndex = mine ? 0 : -1;
    stage.card.classList.toggle("mine", mine);
    stage.card.setAttribute("data-index", String(c.index));
    stage.card.setAttribute("data-edge", edge);
    stage.card.style.setProperty("--lift", String(lift));
    stage.card.setAttribute("aria-label", `${t("squeeze.big", { side, percent: Math.round(lift * 100) })}. ${
      mine ? t("squeeze.yours", { seconds: secondsUntil(c.turns_at) }) : t("squeeze.by", { name: c.by })}`);
    const face = stage.card.querySelector(".stage-face");
    const { red, parts } = faceParts(c.shows);
    face.classList.toggle("red", red);
    face.style.clipPath = uncoveredPath(edge, lift);
    refill(face, ...parts);
    drawCountdown();
    if (!S.stageTick) S.stageTick = setInterval(drawCountdown, 250);
  }

  function drawCountdown() {
    const c = S.stageCard;
    if (c) text(stage.countdown, t("squeeze.turns_in", { seconds: secondsUntil(c.turns_at) }));
  }

  (function handleTheStageCard() {
    const node = stage.card;
    let grab = null;
    node.addEventListener("pointerdown", (event) => {
      const c = S.stageCard;
      if (!c || !squeezable(c)) return;
      const box = node.getBoundingClientRect();
      const fx = (event.clientX - box.left) / box.width;
      const fy = (event.clientY - box.top) / box.height;
      // where the card is taken says what is lifted: its corner, its right (long) edge or its bottom (short) edge
      const edge = fx > 0.7 && fy > 0.75 ? "corner" : fx > 0.6 ? "long" : "short";
      const own = ownPeel(c);
      grab = { c, edge, x: event.clientX, y: event.clientY, w: box.width || 1, h: box.height || 1,
               lift: own && own.edge === edge ? own.lift : 0 };
      node.setPointerCapture(event.pointerId);
      event.preventDefault();
    });
    node.addEventListener("pointermove", (event) => {
      if (!grab) return;
      const up = (grab.y - event.clientY) / grab.h;
      const left = (grab.x - event.clientX) / grab.w;
      const dragged = grab.edge === "short" ? up : grab.edge === "long" ? left : Math.max(up, left);
      peelTo(grab.c.index, grab.edge, grab.lift + Math.max(0, dragged));
    });
    const drop = () => {
      if (!grab) return;
      const { c, edge } = grab;
      grab = null;
      const own = ownPeel(c);
      if (own && own.lift < 1) peelTo(c.index, edge, own.lift, true);
    };
    node.addEventListener("pointerup", drop);
    node.addEventListener("pointercancel", drop);
    node.addEventListener("keydown", (event) => {
      const c = S.stageCard;
      if (!c || !squeezable(c)) return;
      const own = ownPeel(c);
      const edge = EDGE_KEYS[event.key];
      if (edge) peelTo(c.index, edge, (own && own.edge === edge ? own.lift : 0) + 0.1, true);
      else if (LOWER_KEYS.has(event.key)) peelTo(c.index, own ? own.edge : c.edge, (own ? own.lift : c.lift) - 0.1, true);
      else if (event.key === "Enter" || event.key === " ") peelTo(c.index, own ? own.edge : c.edge, 1, true);
      else return;
      event.preventDefault();
    });
  }());

  function renderSqueeze() {
    const sq = view().squeeze;
    if (!sq) { S.stageCard = null; drawStage(); return; }  // a table without the squeeze
    const cards = sq.cards || [];
    const down = new Set(cards.map((c) => c.index));
    for (const node of el.hands.querySelectorAll(".card.squeeze")) {
      if (!down.has(Number(node.getAttribute("data-index")))) node.remove();  // turned: its face is in cards
    }
    for (const c of cards) {
      const box = handFor(c.to);
      if (!box) continue;
      let node = box.querySelector(`.card.squeeze[data-index="${c.index}"]`);
      if (!node) {
        node = h("span", { class: "card back squeeze", role: "img", "data-index": String(c.index) });
        box.querySelector(".cards").append(node);
      }
      node.classList.toggle("squeezing", Boolean(c.turns_at));
      const own = ownPeel(c);
      node.style.setProperty("--lift", String(own ? own.lift : c.lift));
      node.setAttribute("aria-label", c.by ? t("squeeze.by", { name: c.by }) : t("card.face_down"));
    }
    // who squeezes each side, under its hand, for the whole squeeze
    for (const to of ["player", "banker"]) {
      const box = handFor(to);
      if (!box) continue;
      let line = box.querySelector(".squeezer");
      if (!line) { line = h("p", { class: "squeezer" }); box.querySelector("h3").after(line); }
      const name = cards.length ? sq.squeezers[to] : null;
      text(line, name ? t("squeeze.squeezer", { name }) : "");
    }
    const being = cards.find((c) => c.turns_at && c.by) || null;
    const mine = being ? squeezable(being) : false;
    const key = being ? `${view().round_number}:${being.index}` : null;
    const wasMine = Boolean(key) && S.stageMine === key;
    S.stageCard = being;
    S.stageMine = mine ? key : null;
    drawStage();
    if (mine && !wasMine) {
      if (reducedMotion()) peelTo(being.index, being.edge, 1, true);  // reduced motion: turned at once
      else stage.card.focus({ preventScroll: true });
    }
    // a card becomes the squeezer's at its squeezed_from, a moment no frame marks: render then
    clearTimeout(S.squeezeTimer);
    const next = cards.filter((c) => c.squeezed_from && Date.parse(c.squeezed_from) > serverNow())
      .map((c) => Date.parse(c.squeezed_from) - serverNow());
    if (next.length) S.squeezeTimer = setTimeout(render, Math.min(...next) + 20);
    el.hands.classList.toggle("squeeze-on", Boolean(cards.length));
  }

  function renderResult() {
    const v = view();
    const r = v.result && v.result.round === v.round_number ? v.result : null;
    for (const box of el.hands.querySelectorAll(".hand")) box.classList.remove("winner");
    const yours = r ? yourResult(r) : null;
    text(el.yours, yours ? yours.words : "");
    el.yours.className = `your-result ${yours ? yours.kind : ""}`;
    if (!r) {
      text(el.banner, "");
      el.banner.className = "banner";
      text(el.callouts, "");
      return;
    }
    let words;
    let spoken;
    let kind;
    if (r.void) {
      words = t("result.void", { round: r.round });
      spoken = words;
      kind = "void";
    } else if (!lucky()) {
      const a = r.winner === "banker" ? r.banker_total : r.player_total;
      const b = r.winner === "banker" ? r.player_total : r.banker_total;
      words = r.winner === "tie" ? t("banner.tie", { a: r.player_total, b: r.banker_total }) : t(`banner.${r.winner}`, { a, b });
      spoken = r.winner === "tie" ? t("result.tie", { a: r.player_total, b: r.banker_total }) : t(`result.${r.winner}`, { a, b });
      kind = r.winner;
      const box = el.hands.querySelector(`#${r.winner}-hand`);
      if (box) box.classList.add("winner");
      text(el.callouts, (r.callouts || []).map((c) => (has(`callout.${c}`) ? t(`callout.${c}`) : c)).join(" · "));
    } else {
      const seats = r.seats || {};
      const mine = mySeat() && seats[mySeat()];
      if (mine) {
        const key = { player: "you_win", dealer: "dealer_wins", tie: "push" }[mine.winner];
        words = t(`banner.${key}`, { you: mine.total, dealer: r.dealer_total });
        spoken = t(`result.${key}`, { you: mine.total, dealer: r.dealer_total });
        kind = mine.winner === "player" ? "you" : mine.winner === "dealer" ? "dealer" : "tie";
        if (mine.winner === "player") el.hands.querySelector("#your-hand").classList.add("winner");
        if (mine.winner === "dealer") el.hands.querySelector("#dealer-hand").classList.add("winner");
      } else {
        words = t("banner.dealer_total", { dealer: r.dealer_total });
        spoken = words;
        kind = "dealer";
      }
      for (const [seat, s] of Object.entries(seats)) {
        if (seat === mySeat()) continue;
        const box = el.hands.querySelector(`#other-hands [data-seat="${seat}"]`);
        if (box) text(box.querySelector(".hand-result"), t(`seat_result.${s.winner}`, { you: s.total, dealer: r.dealer_total }));
      }
      text(el.callouts, "");
    }
    text(el.banner, words);
    el.banner.className = `banner show ${kind}`;
    if (S.resultShown !== r.round) {
      const first = S.resultShown === null && S.firstFrame;
      S.resultShown = r.round;
      if (!first) announce(yours ? `${spoken}. ${yours.words}` : spoken);  // the same words as the line
      if (!first) Sound.play(yours ? { plus: "win", minus: "lose" }[yours.kind] || "push" : "result");
      if (yours || first) S.yoursSaid = r.round;
    } else if (yours && S.yoursSaid !== r.round) {
      // the settlement came in a frame after the result's: the line is said on its own
      S.yoursSaid = r.round;
      announce(yours.words);
    }
    if (S.resultDone !== r.round) {
      S.resultDone = r.round;
      const placed = { ...myBets() };
      delete placed.draw;
      if (S.you && S.you.round === r.round && Object.keys(placed).length) S.last = placed;
      loadRoads();
      loadHistory();
      loadOwnLimits();
    }
  }

  /** The player's own result on round ``r`` in one line, from the settlement the server showed: null
   *  when the player had no bet on it, while any of the bets is still unsettled, and on a void round
   *  (the banner says every stake came back). */
  function yourResult(r) {
    const settlement = S.you && S.you.round === r.round && !r.void ? S.you.settlement : null;
    const bets = Object.keys(myBets());
    if (!settlement || !bets.length || !bets.every((code) => settlement.bets && settlement.bets[code])) return null;
    const net = settlement.net;
    if (net > 0) return { words: t("yours.win", { amount: money(net) }), kind: "plus", net };
    if (net < 0) return { words: t("yours.lose", { amount: money(-net) }), kind: "minus", net };
    return { words: t("yours.push"), kind: "push", net };
  }

  function renderSpots() {
    const v = view();
    const mine = myBets();
    const players = v.players || {};
    const settlement = S.you && S.you.settlement && S.you.settlement.bets;
    const r = v.result && v.result.round === v.round_number ? v.result : null;
    const lit = new Set((r && r.winning_spots) || []);
    const pushed = new Set((r && r.pushed_spots) || []);
    const open = bettingOpen();
    const said = [];  // early results (Block Bonus), also said beside your hand
    for (const spot of el.layout.children) {
      const code = spot.getAttribute("data-spot");
      const w = wager(code) || {};
      const [, , , limits, crowd, markers, amount, net] = spot.children;
      const max = maximum(code);
      text(limits, w.placed === "decision" ? t("spot.equal_to_enter")
        : t("spot.limits", { min: money(v.limits.minimum), max: max === Infinity ? "∞" : money(max) }));
      const stats = (v.spots || {})[code] || { total: 0, players: 0 };
      text(crowd, stats.players ? t("spot.crowd", { n: stats.players, total: money(stats.total) }) : "");
      const who = Object.entries(players).filter(([, p]) => p.bets && p.bets[code]);
      const signature = who.map(([seat, p]) => `${seat}:${p.bets[code]}`).join(",");
      const stack = markers.querySelector(".stack");
      if (markers.dataset.sig !== signature) {
        markers.dataset.sig = signature;
        markers.replaceChildren(...who.map(([seat, p]) => h("span", { class: `marker ${seat === mySeat() ? "mine" : ""}`,
                                                                   title: `${p.name} ${money(p.bets[code])}` }, seat)), stack);
      }
      const staged = S.staged[code] || 0;
      drawStack(stack, mine[code] || 0, staged);
      text(amount, (mine[code] ? t("spot.yours", { amount: money(mine[code]) }) : "") + (staged ? ` +${money(staged)}` : ""));
      amount.className = `amount ${mine[code] ? "placed" : ""} ${staged ? "staged" : ""}`;
      const s = settlement && settlement[code];
      const outcome = s ? (s.net > 0 ? t("spot.won", { amount: money(s.net) }) : s.net < 0 ? t("spot.lost", { amount: money(-s.net) }) : t("spot.push")) : "";
      // a wager settled at the first deal (Block Bonus) names its result at the table: "Pair Block pays 10:1"
      const early = s && w.settles === "first_deal" ? settledWords(w, s) : "";
      text(net, early ? `${early} · ${outcome}` : outcome);
      if (early) said.push(`${wagerName(code, w.name)}: ${early}`);
      net.className = `net ${s ? (s.net > 0 ? "plus" : s.net < 0 ? "minus" : "") : ""}`;
      const won = lit.has(code) || Boolean(lucky() && s && s.net > 0);
      spot.classList.toggle("won", won);
      spot.classList.toggle("pushed", !won && pushed.has(code));
      spot.classList.toggle("lost", !!(s && s.net < 0));
      spot.classList.toggle("mine", !!mine[code]);
      spot.setAttribute("aria-disabled", String(!open || w.placed === "decision" || railOnly()));
      spot.classList.toggle("inert", railOnly());
      if (railOnly()) spot.setAttribute("aria-describedby", "rail"); else spot.removeAttribute("aria-describedby");
      spot.setAttribute("aria-label", [wagerName(code, w.name), spot.children[1].textContent, limits.textContent,
                                       crowd.textContent, amount.textContent, net.textContent].filter(Boolean).join(", "));
    }
    const yours = lucky() && el.hands.querySelector("#your-hand .hand-result");
    if (yours) text(yours, said.join(" · "));
  }

  /** The player's own chips on a spot as a stack beside the seat markers: the amount in the tray's chips,
   *  largest first (the top six drawn), each a chip's face with its value, the ones below showing their edge;
   *  placed chips solid and staged ones (not sent yet) dashed on top.  The amount stays in words in .amount. */
  function drawStack(box, placed, staged) {
    if (!box) return;
    const signature = `${placed}:${staged}`;
    if (box.dataset.sig === signature) return;
    box.dataset.sig = signature;
    const chips = (amount, kind) => {
      const out = [];
      let left = Math.floor(amount / 100);
      for (const value of [...CHIPS].reverse()) {
        for (; left >= value; left -= value) {
          out.push(h("span", { class: `stack-chip c${value} ${kind}`, "data-value": value }, String(value)));
        }
      }
      return out;
    };
    const all = [...chips(placed, "placed"), ...chips(staged, "staged")].slice(-6);
    all.forEach((chip, i) => { chip.style.bottom = `${i * 3}px`; });
    box.replaceChildren(...all);
  }

  /** A settled bet's result by name with what it pays ("Pair Block pays 10:1"), or its name alone when it lost. */
  function settledWords(w, s) {
    const pay = (w.pays || []).find((p) => p.event === s.event);
    return s.net > 0 && pay ? t("spot.result_pays", { event: eventName(s.event, w.code), pays: paysLabel(pay.label) })
      : eventName(s.event, w.code);
  }

  function renderDecision() {
    const v = view();
    if (!lucky()) return;
    const seat = mySeat();
    const enter = myBets().enter || 0;
    const deciding = v.phase === "decisions" && seat && enter && v.decision;
    const decided = (S.you && S.you.decision) || (S.inflight && S.inflight.kind === "decision" ? S.inflight.frame.action : null);
    const hand = seat && v.hands && v.hands[`seat:${seat}`];
    const upCard = v.decision && v.decision.first_deal && v.decision.first_deal.dealer && v.decision.first_deal.dealer[0];
    let advice = null;
    let why = null;
    if (S.hint && S.strategy && hand && upCard) {
      const drawOn = S.strategy.draw[String(hand.total)] || [];
      advice = drawOn.includes(handTotal([upCard])) ? "draw" : "stand";
      // the reason: the strategy's own numbers (the server's analysis), standing beside drawing
      const values = S.strategy.returns && S.strategy.returns[String(hand.total)];
      const pair = values && values[handTotal([upCard])];
      if (pair) {
        const signed = (x) => `${x > 0 ? "+" : x < 0 ? "−" : ""}${Math.abs(x).toLocaleString(lang, { minimumFractionDigits: 3, maximumFractionDigits: 3 })}`;
        why = t("decision.hint_why", { stand: signed(pair[0]), draw: signed(pair[1]) });
      }
    }
    const key = JSON.stringify([deciding ? v.decision.round : null, decided, S.hint, advice, hand && hand.total,
                                S.you && (S.you.balance >= enter || S.you.balance), lang]);  // a short balance: its words
    if (key === S.decisionKey) return;
    const focused = document.activeElement && el.decision.contains(document.activeElement) ? document.activeElement.id : null;
    S.decisionKey = key;
    if (!deciding) { el.decision.replaceChildren(); return; }
    if (decided) {
      el.decision.replaceChildren(h("span", { class: "decided" }, t(`decision.chose_${decided}`)));
      return;
    }
    const canDraw = (S.you.balance || 0) >= enter;
    el.decision.replaceChildren(...[
      h("span", { class: "your-total" }, t("decision.your_total", { n: hand ? hand.total : "–" })),
      // the hint's choice is the gold button; without the hint neither is pushed on the player
      h("button", { type: "button", id: "stand", class: advice === "stand" ? "primary" : "", onclick: () => decide("stand") },
        t("decision.stand")),
      h("button", { type: "button", id: "draw", class: advice === "draw" ? "primary" : "", "aria-disabled": String(!canDraw),
                    "aria-describedby": canDraw ? null : "draw-why", onclick: () => { if (canDraw) decide("draw"); else say(drawBalanceWords()); } },
        t("decision.draw", { amount: money(enter) })),
      canDraw ? null : h("span", { id: "draw-why", class: "why" }, drawBalanceWords()),
      h("label", { class: "hint-toggle" },
        h("input", { type: "checkbox", id: "show-hint", checked: S.hint, onchange: (e) => {
          S.hint = e.target.checked;
          localStorage.setItem("hint", S.hint ? "on" : "off");
          if (S.hint) loadStrategy();
          renderDecision();
        } }), ` ${t("decision.hint_toggle")}`),
      advice ? h("span", { id: "hint", class: "hint" }, t(`decision.hint_${advice}`),
                 why ? h("span", { class: "hint-why" }, ` ${why}`) : null) : null].filter(Boolean));
    if (S.hint && !S.strategy) loadStrategy();
    if (focused) { const again = document.getElementById(focused); if (again) again.focus(); }
  }

  function renderTray() {
    const v = view();
    const open = bettingOpen();
    const maxima = wagers().filter((w) => w.placed === "betting").map((w) => maximum(w.code));
    const tableMax = Math.max(0, ...maxima);
    const bestRoom = Math.max(0, ...wagers().filter((w) => w.placed === "betting").map((w) => room(w.code)));
    const free = available();
    const own = ownLimitLeft();  // the player's own loss or stake limit: chips over what it leaves are greyed
    for (const value of CHIPS) {
      const button = chipButton(value);
      const amount = value * 100;
      button.hidden = amount > tableMax;  // never offered at this table
      const overOwn = own != null && amount > own;
      const ok = !button.hidden && amount <= bestRoom && amount <= free && !overOwn;
      button.setAttribute("aria-disabled", String(!ok));
      button.classList.toggle("over-own-limit", overOwn);
      button.title = ok ? "" : amount > free ? (free > 0 ? t("chips.over_balance") : codeText("bet.balance_used_up", { amount }))
        : overOwn ? ownLimitWords(own) : t("chips.over_room");
    }
    // a chosen chip that no longer fits stays chosen and greyed (a spot it is put on says why): never swapped
    // for a smaller one behind the player's back
    for (const value of CHIPS) chipButton(value).setAttribute("aria-pressed", String(value * 100 === S.chip));
    const placed = sum(myBets());
    const staged = sum(S.staged);
    const over = overLimit();
    const totals = t("tray.totals", { placed: money(placed) }) + (staged ? ` · ${t("tray.staged", { amount: money(staged) })}` : "")
                   + (own != null && CHIPS.some((value) => value * 100 > own) ? ` · ${ownLimitWords(own)}` : "")
                   + (S.inflight && S.inflight.kind === "bet" ? ` · ${t("tray.sending")}` : "");
    // why Place bets is off, said where the eye is (not only in its tooltip)
    if (el.totals.dataset.shown !== `${totals}|${over}`) {
      el.totals.dataset.shown = `${totals}|${over}`;
      el.totals.replaceChildren(totals, ...(over ? [" · ", h("span", { class: "over-limit", id: "over-limit" }, t("bet.over_limit"))] : []));
    }
    const has = Object.keys(S.staged).length > 0;
    const set = (button, enabled) => button.setAttribute("aria-disabled", String(!enabled));
    set(buttons.place, open && has && !S.inflight && S.connected && !over);
    buttons.place.title = over ? t("bet.over_limit") : "";
    set(buttons.undo, (has || (S.atOnce && open && S.putDown.length > 0)) && !S.inflight);
    set(buttons.clear, (has || (S.atOnce && open && placed > 0)) && !S.inflight);
    set(buttons.double, open && !S.inflight && (has || placed > 0));
    set(buttons.rebet, open && !S.inflight && Object.keys(S.last).length > 0);
    set(buttons.leave, true);
    // on a break (protect.js's state): no Sit down button; the rail line says why and until when instead
    const onBreak = blockedText(protectionState);
    buttons.sit.hidden = Boolean(mySeat()) || v.status !== "open" || Boolean(onBreak);
    buttons.place.hidden = railOnly();  // punto banco: a player without a seat places from the rail
    el.rail.hidden = Boolean(mySeat()) || v.status !== "open";
    text(el.rail, onBreak && !mySeat() ? onBreak : lucky() ? t("rail.take_seat") : t("rail.bet_from_rail"));
    el.rail.className = `rail ${lucky() ? "inert" : ""}`;
    if (!lucky() || v) buttons.place.textContent = t("controls.place");
  }

  // ------------------------------------------------------------ data
  async function loadRoads() {
    if (!S.view || lucky()) { el.roads.replaceChildren(); el.strip.replaceChildren(); return; }
    try {
      S.roads = await api("GET", `/api/tables/${tableId}/roads`);
      const panel = roadsPanel(S.roads, game());
      const strip = roadStrip(S.roads);
      el.roads.replaceChildren(panel);
      el.strip.replaceChildren(strip);
      requestAnimationFrame(() => { panel.fit(); strip.fit(); });
      if (S.view) renderStatus();
    } catch (error) { /* the next result tries again */ }
  }

  async function loadStrategy() {
    if (S.strategy || S.strategyLoading) return;
    S.strategyLoading = true;
    try { S.strategy = await api("GET", `/api/tables/${tableId}/strategy`); renderDecision(); }
    catch (error) { /* no hint then */ }
    S.strategyLoading = false;
  }

  /** The seat this table's round ``number`` was played from, as the history says ("seat:N", Lucky Draw), or
   *  null: never the seat the player has now, which may have been another's then. */
  function seatIn(number) {
    const row = S.history.find((r) => r.round === number);
    return (row && row.seat) || null;
  }

  // The history comes a page at a time, the newest dealt first; a reload keeps as many rows as were shown.
  const HISTORY_PAGE = 12;

  async function loadHistory() {
    try {
      const limit = Math.min(100, Math.max(HISTORY_PAGE, S.history.length));
      S.history = await api("GET", `/api/history?table=${tableId}&limit=${limit}`);
      S.historyMore = S.history.length === limit;
      drawHistory();
    } catch (error) { /* shown on the next attempt */ }
  }

  async function loadOlderHistory() {
    const oldest = S.history[S.history.length - 1];
    if (!oldest) return;
    try {
      const older = await api("GET",
        `/api/history?table=${tableId}&limit=${HISTORY_PAGE}&before=${encodeURIComponent(oldest.cursor)}`);
      S.history = S.history.concat(older);
      S.historyMore = older.length === HISTORY_PAGE;
      drawHistory();
    } catch (error) { /* the button stays for another try */ }
  }

  function drawHistory() {
    // Verify's answers (rows fair.js puts under a round's row) stay under their round when it is redrawn
    const answers = new Map();
    for (const answer of el.history.querySelectorAll("tr.fair-answer")) {
      const above = answer.previousElementSibling;
      if (above && above.dataset.round) answers.set(above.dataset.round, answer);
    }
    // five columns, readable in the side column at 1366: the round with its time (which opens the detail) under
    // it, the bets, the result, the net with the balance after it under it, and Verify
    const columns = ["round", "bets", "result", "net", ...(fair ? ["fair"] : [])];
    const heads = { round: [t("history.round"), t("history.time")], net: [t("history.net"), t("history.balance")] };
    const rows = S.history.flatMap((r) => {
      const net = Object.values(r.bets).reduce((total, bet) => total + bet.net, 0);
      const id = `round-${r.round}-detail`;
      const open = S.openRows.has(r.round);
      const detail = h("tr", { class: "detail", id, hidden: !open }, h("td", { colspan: columns.length }, describe(r)));
      const toggle = h("button", { type: "button", class: "link", "aria-expanded": String(open), "aria-controls": id,
        onclick: () => {
          const now = detail.hidden;
          detail.hidden = !now;
          toggle.setAttribute("aria-expanded", String(now));
          if (now) S.openRows.add(r.round); else S.openRows.delete(r.round);
        } }, new Date(r.time).toLocaleTimeString(lang, { hour: "numeric", minute: "2-digit" }));
      const row = h("tr", { class: "row", "data-round": r.round },
        h("td", { class: "round" }, h("span", {}, r.round), h("br"), toggle),
        h("td", {}, Object.entries(r.bets).map(([code, bet]) => `${wagerName(code, bet.name)} ${money(bet.amount)}`).join(", ")),
        h("td", {}, historyResult(r, net)),
        h("td", { class: "money" },
          h("span", { class: `net ${net > 0 ? "plus" : net < 0 ? "minus" : ""}` }, net > 0 ? `+${money(net)}` : money(net)),
          r.balance_after == null ? null : h("span", { class: "after" }, money(r.balance_after))),
        fair ? h("td", { class: "fair" }, Fair.verifyButton(r)) : null);  // deals the round again from its revealed shoe (fair.js)
      return [row, answers.get(String(r.round)), detail];
    });
    refill(el.history, h("h3", { id: "history-title" }, t("history.title")),
      h("table", { class: "history" },
        h("thead", {}, h("tr", {}, columns.map((c) => h("th", { scope: "col" },
          heads[c] ? [heads[c][0], h("span", { class: "sub" }, heads[c][1])] : t(`history.${c}`))))),
        h("tbody", {}, rows.length ? rows : h("tr", {}, h("td", { colspan: columns.length }, t("history.none"))))),
      S.historyMore ? h("button", { type: "button", class: "link more", onclick: loadOlderHistory }, t("history.more"))
        : null);
  }

  function historyResult(r, net) {
    if (r.status === "refunded" || r.status === "void") return t("history.refunded");
    const d = r.detail || {};
    if (r.winner && d.player_total != null) return resultLine({ winner: r.winner, player_total: d.player_total, banker_total: d.banker_total });
    if (r.bets.enter) {
      const event = r.bets.enter.event;
      const said = event === "Player wins" ? t("history.you_won") : event === "Dealer wins" ? t("history.dealer_won") : t("history.push");
      const hands = d.hands || {};
      const seat = r.seat;  // the seat the round was played from, seated now or not: both totals beside the words
      return hands.dealer && seat && hands[seat]
        ? `${said} · ${t("result.dealer_you", { dealer: handTotal(hands.dealer), you: handTotal(hands[seat]) })}` : said;
    }
    return net > 0 ? t("history.won") : net < 0 ? t("history.lost") : t("history.push");
  }

  function describe(r) {
    const d = r.detail || {};
    const lines = [t("history.cards", { cards: (r.cards || []).map(cardLabel).join(" ") })];
    if (d.player_cards) {
      lines.push(t("history.hands", { player: d.player_cards.map(cardLabel).join(" "), pt: d.player_total,
                                      banker: d.banker_cards.map(cardLabel).join(" "), bt: d.banker_total }));
      if (d.reasons) {  // a round stored before the reasons had codes keeps its English words
        const why = d.reason_codes || {};
        lines.push(reasonText(why.player, d.reasons.player));
        if (d.reasons.banker !== d.reasons.player) lines.push(reasonText(why.banker, d.reasons.banker));
      }
    }
    if (d.hands) {
      lines.push(Object.entries(d.hands).map(([who, cards]) => `${who === "dealer" ? t("hand.dealer")
        : who === r.seat ? t("hand.you") : t("hand.seat", { seat: who.split(":")[1], name: "" }).trim()}: ${cards.map(cardLabel).join(" ")}`).join("; "));
    }
    lines.push(Object.entries(r.bets).map(([code, bet]) => `${wagerName(code, bet.name)}: ${eventName(bet.event, code)} (${bet.net > 0 ? "+" : ""}${money(bet.net)})`).join("; "));
    return h("div", {}, lines.map((line) => h("div", {}, line)));
  }

  // ------------------------------------------------------------ the table's feed
  function onView(message) {
    S.lastFrame = performance.now();
    if (message.table.server_time) syncClock(message.table.server_time);
    const before = S.view;
    S.view = message.table;
    if (message.you) S.you = message.you;
    if (S.you && S.you.balance != null) setBalance(S.you.balance);
    // "bets placed" and other notes belong to their phase
    if (before && before.phase !== S.view.phase && S.messageKind === "info" && !S.inflight) say("");
    // a new betting window: staged chips and old messages go
    // (the view's round is the one taking bets: from BETTING until the dealer deals it)
    const betting = S.view.round ? S.view.round.number : null;
    if (betting !== S.bettingRound) {
      if (betting !== null) {
        if (!S.inflight) { S.staged = {}; S.steps = []; }
        S.putDown = [];
        if (before && S.messageKind !== "info notice") say("");  // a stand-up's notice stays until they act or sit
      } else if (Object.keys(S.staged).length && !S.inflight) {
        S.staged = {};
        S.steps = [];
        say(t("bet.not_placed"), "info");
      }
      S.bettingRound = betting;
    }
    // the seat was taken from us (no bet in too many rounds, away too long, the house): say why, once
    // (after a new window's clearing above, so the words stay)
    const notice = S.you && S.you.notice;
    if (notice && notice.at !== S.noticeAt) {
      S.noticeAt = notice.at;
      const words = codeText(notice.code, notice.params, "");
      announce(words);  // and in the message line below (no toast over the table)
      say(words, "info notice");  // styled as info, but kept past the next phase (the player acts or sits to clear it)
    }
    if (before && before.shoe && S.view.shoe && before.shoe.number !== S.view.shoe.number) S.roads = null;
    S.firstFrame = !before;
    render();
    S.firstFrame = false;
    if (!before) { loadRoads(); loadHistory(); loadOwnLimits(); }
    if (fair) Fair.showShoe(fair, S.view);  // provably fair: the shoe's commitment; gives it your seed (fair.js)
  }

  function onAnswer(message) {
    const inflight = S.inflight;
    S.inflight = null;
    if (message.type === "ok") {
      if (inflight && inflight.kind === "bet") {
        if (S.atOnce) S.putDown.push(inflight.frame.bets);  // Undo takes these back, newest first
        S.staged = {};
        S.steps = [];
        say(t(S.atOnce ? "bet.put_down" : "bet.placed"), "info");
      }
      if (inflight && inflight.kind === "take_back") {
        const taken = inflight.frame.bets;
        const last = S.putDown[S.putDown.length - 1];
        if (last && JSON.stringify(last) === JSON.stringify(taken)) S.putDown.pop();
        else S.putDown = [];  // Clear: everything came back
        say(t("bet.taken_back", { amount: money(message.result.refunded) }), "info");
      }
      const result = message.result || {};
      if (result.balance != null && S.you) { S.you.balance = result.balance; setBalance(result.balance); }
      if (result.bets && S.you && inflight && (inflight.kind === "bet" || inflight.kind === "take_back")) {
        S.you.bets = { ...result.bets };
      }
    } else {
      if (inflight && inflight.kind === "bet") takeOffRefused(message);
      say(refusalText(message));
    }
    if (inflight && (inflight.kind === "bet" || inflight.kind === "take_back")) loadOwnLimits();  // what the limits leave
    S.decisionKey = null;
    render();
  }

  function connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    socket = new WebSocket(`${scheme}://${location.host}/ws/tables/${tableId}`);
    const mine = socket;
    socket.onopen = () => mine.send(JSON.stringify({ type: "auth", token }));
    socket.onmessage = (event) => {
      if (mine !== socket) return;
      let message;
      try { message = JSON.parse(event.data); } catch (error) { return; }
      if (message.type === "state") {
        if (!S.connected) {
          S.connected = true;
          S.attempts = 0;
          connection(false);
          if (S.everConnected) announce(t("connection.back"));
          S.everConnected = true;
          if (S.inflight) transmit();  // a command in flight when the line dropped: the same key again
          if (S.message === t("bet.held_until_connected")) say("");
        }
        onView(message);
      } else if (S.squeezeSent && ((message.type === "ok" && message.key == null)
                 || (message.type === "error" && String(message.code || "").startsWith("squeeze.")))) {
        S.squeezeSent -= 1;  // a peel's or a turn's answer: the next state shows it
        if (message.type === "error") say(refusalText(message));
      } else if (message.type === "ok" || message.type === "error") {
        S.lastFrame = performance.now();
        onAnswer(message);
      }
    };
    socket.onclose = (event) => {
      if (mine !== socket || closed) return;
      const wasConnected = S.connected;
      S.connected = false;
      if (event.code === 4401) { window.dispatchEvent(new Event("signed-out")); return; }  // signed out elsewhere
      // 1012 (service restart): the server process is stopping gracefully; connect again at once, without the
      // notice (behind a proxy another process answers; a command in flight is sent again with its key). Only
      // from a socket that was serving: if that try fails too, the notice and the usual pace follow.
      if (event.code === 1012 && wasConnected) {
        render();
        timers.push(setTimeout(() => { if (!closed) connect(); }, 0));
        return;
      }
      // 1008: the server refused this socket (too many open tables for the account): say so, try again slowly
      const refused = event.code === 1008;
      connection(true, refused ? t("connection.refused") : null);
      render();
      const wait = refused ? 5000 : RECONNECT_MS[Math.min(S.attempts, RECONNECT_MS.length - 1)];
      S.attempts += 1;
      timers.push(setTimeout(() => { if (!closed) connect(); }, wait));
    };
  }

  // A line that is open but silent (a peer gone without closing) is found by a REST probe, which also
  // takes a fresh clock sample: every 10 s, and at once after 12 s without a frame.
  async function probe() {
    try {
      const v = await api("GET", `/api/tables/${tableId}`);
      if (v && v.server_time) syncClock(v.server_time);
      if (!S.view && v) { rememberWagers(v.wagers); }
    } catch (error) {
      if (error.status === 0 && S.connected && socket) { S.connected = false; connection(true); socket.close(); }
    }
  }

  (async () => {
    try {
      const games = await api("GET", "/api/games");
      rememberGames(games);
      S.games = games;
      if (S.view && S.built) buildPaytables();  // the rules panel says on which totals the dealer draws
      const here = (games || []).find((g) => S.view && g.code === S.view.game);
      if (here && here.max_seats) { S.max_seats = here.max_seats; if (S.view) renderSeats(); }
      else if (games && games[0] && games[0].max_seats) S.max_seats = games[0].max_seats;
    } catch (error) { /* seven seats */ }
  })();
  // the player's own limits or a break set in another tab of this browser (protect.js says so through
  // localStorage), or while this tab was hidden: read them again, so the chips and the tray say what is left
  const limitsChanged = (event) => {
    if (event.type === "storage" && event.key !== PROTECTION_CHANGED) return;
    if (event.type === "visibilitychange" && document.visibilityState !== "visible") return;
    loadOwnLimits();
  };
  window.addEventListener("storage", limitsChanged);
  document.addEventListener("visibilitychange", limitsChanged);
  probe();
  connect();
  timers.push(setInterval(() => { if (S.view) renderCountdown(); }, 100));
  let ticks = 0;
  timers.push(setInterval(() => {
    ticks += 1;
    if (ticks % 10 === 0 || (S.connected && performance.now() - S.lastFrame > 12000)) probe();
  }, 1000));
  return () => {
    closed = true;
    window.removeEventListener("storage", limitsChanged);
    document.removeEventListener("visibilitychange", limitsChanged);
    for (const timer of timers) { clearTimeout(timer); clearInterval(timer); }
    connection(false);
    if (socket) socket.close();
  };
}
