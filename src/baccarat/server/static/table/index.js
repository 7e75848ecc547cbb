// @ts-check
// A table: the server's timeline as its views give it (phase, countdown on the server's clock, the cards one by
// one as the state frames reveal them, the result only once it is shown), chips that add up on a spot within its
// limits, the whole table (seats, names, everyone's chips, spot totals), Lucky Draw's decisions, the roads and the
// player's history.  The page never computes ahead of a view.
//
// This module builds the table and wires its parts: the state (state.js: frames to state, pure), the stake rule
// (betting.js, pure), the feed (socket.js) and the views drawn from the state (layout.js, felt.js, squeeze.js,
// outcome.js, history.js).  Each part is made with the table ``T`` (its state, its elements, the others' functions).

import { api, newKey, serverNow, syncClock, token } from "../api.js";
import { announce, h, text } from "../dom.js";
import * as Fair from "../fair.js";
import * as FairExport from "../fair_export.js";
import { codeText, money, refusalText, rememberGames, t } from "../i18n.js";
import { PROTECTION_CHANGED, loadProtection } from "../protect.js";
import { connection, setBalance, show } from "../shell.js";
import { Sound } from "../sound.js";
import { CHIPS, addAllRefusal, available, bettingOpen, checkStakes, chipRefusal, maximum, ownLimitLeft, ownLimitLeftRefusal,
         ownLimits, room, sum, balanceRefusal } from "./betting.js";
import { makeFelt } from "./felt.js";
import { makeHistory } from "./history.js";
import { makeLayout } from "./layout.js";
import { makeOutcome } from "./outcome.js";
import { makeSocket } from "./socket.js";
import { makeSqueeze } from "./squeeze.js";
import * as state from "./state.js";

/** The table ``tableId`` on the page; returns what closes it (its socket, its timers). */
export function tableView(/** @type {number} */ tableId) {
  const S = state.newState(localStorage);
  const T = { S, tableId, /** @type {WebSocket | null} */ socket: null, closed: false, /** @type {any[]} */ timers: [] };

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
    onclick: () => { if (chipButton(value).getAttribute("aria-disabled") !== "true") { S.chip = value * 100; T.render(); } },
  }, String(value)));
  function chipButton(value) { return chipButtons[CHIPS.indexOf(value)]; }
  el.chips.append(...chipButtons);

  // ---- provably fair: fair.js, a module of its own (it shares no code with this file), owns these
  // three hooks: its panel (the shoe's commitment, your client seed) on the felt under the shoe line,
  // Fair.showShoe on every view (onView), and a Verify cell in each history row (drawHistory).
  const fair = Fair.shoePanel(tableId, () => token);
  // under the history: your history signed by the house, and an export's signature checked (fair_export.js)
  const exportPanel = FairExport.exportPanel(() => token);

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
    if (S.atOnce && Object.keys(S.staged).length) putDownNow(); else T.render();
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
  Object.assign(T, { el, fair, exportPanel, buttons, chipButton });

  // ------------------------------------------------------------ what the state says (every part reads these)
  const view = () => S.view;
  const on = {
    view,
    game: () => state.game(S),
    lucky: () => state.lucky(S),
    mySeat: () => state.mySeat(S),
    railOnly: () => state.railOnly(S),
    myBets: () => state.myBets(S),
    wagers: () => state.wagers(S),
    wager: (/** @type {string} */ code) => state.wager(S, code),
    sum,
    bettingOpen: () => bettingOpen(S.view, serverNow()),
    maximum: (/** @type {string} */ code) => maximum(S.view, code),
    room: (/** @type {string} */ code) => room(S.view, state.myBets(S), S.staged, code),
    available: () => available(state.balance(S), S.staged),
    ownLimitLeft: () => ownLimitLeft(S.protection, S.staged),
  };
  T.on = on;
  const { railOnly, myBets } = on;

  /** Words for what the state says (a code and its parameters, a server refusal, or words already said). */
  function words(/** @type {any} */ said) {
    if (!said) return "";
    if (said.text != null) return said.text;
    if (said.refusal) return refusalText(said.refusal);
    return codeText(said.code, said.params, said.code);  // (a code no catalogue has: shown as it is)
  }

  /** Says ``message`` (words, or a code and its parameters) in the line under the layout. */
  function say(/** @type {any} */ message, kind) {
    state.setMessage(S, typeof message === "string" ? (message ? { text: message } : null) : message, kind);
    drawMessage();
  }

  function drawMessage() {
    const shown = words(S.message);
    text(el.refusal, shown);
    el.refusal.className = `refusal ${shown ? S.messageKind : ""}`;
  }

  /** Words for what the player's own limits leave. */
  function ownLimitWords(/** @type {number} */ left) { return words(ownLimitLeftRefusal(left)); }

  /** Words for a stake the balance cannot cover: what it leaves, or that it is used up (never "leaves 0.00"). */
  function balanceWords(/** @type {number} */ amount, /** @type {number} */ left) { return words(balanceRefusal(amount, left)); }

  /** Whether anything staged is over a limit: a spot's maximum (limits can change, a refusal can tell) or the balance. */
  function overLimit() {
    if (Object.keys(S.staged).some((code) => S.staged[code] > 0 && on.room(code) < 0)) return true;
    return S.you && S.you.balance != null && sum(S.staged) > S.you.balance;
  }

  // ------------------------------------------------------------ bets
  function stake(/** @type {string} */ code) {
    say("");
    const w = on.wager(code);
    if (railOnly()) return say({ code: "bet.sit_first" });  // punto banco: bettors need no seat
    if (w && w.placed !== "betting") return say({ code: "bet.draw_at_decision", params: { wager: code } });
    if (!on.bettingOpen()) return say({ code: "bet.wait_next_round" });
    if (S.inflight) return say({ code: "bet.sending" }, "info");
    const refusal = chipRefusal(state.hand(S), code);
    if (refusal) return say(refusal);
    state.stage(S, { [code]: S.chip });
    Sound.play("chip");
    if (S.atOnce) return putDownNow();
    T.render();
  }

  /** Put-down mode: the chips staged go on the layout now, or wait (said, not refused) until they make a bet the
   *  table takes (a spot's minimum, a side wager's base). */
  function putDownNow() {
    const why = whyNotPlace();
    if (why && (why.code === "bet.below_minimum" || why.code === "bet.needs_base")) { say(why, "info"); T.render(); return; }
    place();
  }

  function addAll(/** @type {Record<string, number>} */ amounts, /** @type {"double" | "rebet"} */ what) {
    // every spot checked before anything is staged: a Double or Rebet over a maximum changes nothing
    const refusal = addAllRefusal(state.hand(S), amounts, what);
    if (refusal) return say(refusal);
    state.stage(S, amounts);
    if (S.atOnce) return putDownNow();
    T.render();
  }

  function double() {
    say("");
    if (railOnly()) return say({ code: "bet.sit_first" });
    if (!on.bettingOpen()) return say({ code: "bet.wait_next_round" });
    if (S.inflight) return say({ code: "bet.sending" }, "info");
    const base = Object.keys(S.staged).length ? { ...S.staged } : { ...myBets() };
    delete base.draw;
    if (!Object.keys(base).length) return say({ code: "bet.nothing_to_double" });
    addAll(base, "double");
  }

  function rebet() {
    say("");
    if (railOnly()) return say({ code: "bet.sit_first" });
    if (!on.bettingOpen()) return say({ code: "bet.wait_next_round" });
    if (S.inflight) return say({ code: "bet.sending" }, "info");
    if (!Object.keys(S.last).length) return say({ code: "bet.nothing_to_rebet" });
    addAll({ ...S.last }, "rebet");
  }

  function undo() {
    say("");
    if (!S.steps.length && S.atOnce) return takeBack(S.putDown[S.putDown.length - 1]);
    if (state.undoStep(S)) T.render();
  }

  async function loadOwnLimits() {
    if (!token) return;
    // through protect.js's loadProtection: one read gives the limits here and the break the page shows
    try { S.protection = await loadProtection(); if (S.view) T.renderTray(); } catch { /* no limits shown then */ }
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
    T.render();
  }

  /** Chips back off the layout while betting is open (put-down mode's Undo and Clear): the server returns them. */
  function takeBack(/** @type {Record<string, number> | null} */ bets) {
    if (!bets) return;
    if (S.inflight) return say({ code: "bet.sending" }, "info");
    if (!on.bettingOpen()) return say({ code: "bet.wait_next_round" });
    send({ type: "take_back", bets: { ...bets }, round: view().round.number }, "take_back");
  }

  /** Why the chips staged cannot be placed as they are: the server's stake rule (betting.js), or null. */
  function whyNotPlace() {
    const checked = checkStakes({ code: view().game, wagers: view().wagers }, view().limits, myBets(), S.staged,
                                { ownLimits: ownLimits(S.protection), balance: S.you ? S.you.balance : null });
    return "refusal" in checked ? checked.refusal : null;
  }

  function place() {
    say("");
    if (S.inflight) return say({ code: "bet.sending" }, "info");
    if (!Object.keys(S.staged).length) return say({ code: "bet.stage_first" });
    if (!on.bettingOpen()) return say({ code: "bet.wait_next_round" });
    const why = whyNotPlace();
    if (why) return say(why);
    if (overLimit()) return say({ code: "bet.over_limit" });
    // the bets name their round: one that arrives after its window closed is refused, never moved on
    send({ type: "bet", bets: { ...S.staged }, round: view().round.number }, "bet");
  }

  /** Why DRAW is refused: the balance is below the Enter wager the Draw wager must equal (the server's words). */
  function drawBalanceWords() {
    return codeText("decision.draw_balance", { balance: Math.max(0, (S.you && S.you.balance) || 0), enter: myBets().enter || 0 });
  }

  function decide(/** @type {string} */ action) {
    say("");
    if (S.inflight) return;
    if (action === "draw" && (S.you.balance || 0) < (myBets().enter || 0)) return say(drawBalanceWords());
    // the decision names its round: resent after that round's decisions ended, it is refused
    const decision = view().decision;
    send({ type: "decision", action, ...(decision ? { round: decision.round } : {}) }, "decision");
  }

  function send(/** @type {Record<string, any>} */ command, /** @type {string} */ kind) {
    S.inflight = { key: newKey(), frame: command, kind };
    transmit();
    T.render();
  }

  function transmit() {
    if (!S.inflight) return;
    if (T.socket && T.socket.readyState === WebSocket.OPEN && S.connected) {
      T.socket.send(JSON.stringify({ ...S.inflight.frame, key: S.inflight.key }));
    } else {
      say({ code: "bet.held_until_connected" }, "info");  // sent with the same key once the table is back
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

  // ------------------------------------------------------------ the table's feed
  function onView(message) {
    S.lastFrame = performance.now();
    if (message.table.server_time) syncClock(message.table.server_time);
    const done = state.applyView(S, message);
    if (S.you && S.you.balance != null) setBalance(S.you.balance);
    if (done.notice) announce(words(done.notice));  // and in the message line below (no toast over the table)
    if (done.say) drawMessage();
    S.firstFrame = done.first;
    T.render();
    S.firstFrame = false;
    if (done.first) { T.loadRoads(); T.loadHistory(); loadOwnLimits(); }
    Fair.showShoe(fair, S.view);  // provably fair: the shoe's commitment; gives it your seed (fair.js)
  }

  function onAnswer(message) {
    const done = state.applyAnswer(S, message);
    if (done.balance != null) setBalance(done.balance);
    drawMessage();
    if (done.reloadLimits) loadOwnLimits();  // what the limits leave
    T.render();
  }

  Object.assign(T, { say, words, drawMessage, ownLimitWords, balanceWords, overLimit, stake, putDownNow, double, rebet,
                     undo, loadOwnLimits, clearStaged, takeBack, place, drawBalanceWords, decide, send, transmit,
                     sitDown, leave, onView, onAnswer });
  Object.assign(T, makeLayout(T), makeFelt(T), makeSqueeze(T), makeOutcome(T), makeHistory(T), makeSocket(T));
  const { connect, probe } = T;

  (async () => {
    try {
      const games = await api("GET", "/api/games");
      rememberGames(games);
      S.games = games;
      if (S.view && S.built) T.buildPaytables();  // the rules panel says on which totals the dealer draws
      const here = (games || []).find((g) => S.view && g.code === S.view.game);
      if (here && here.max_seats) { S.max_seats = here.max_seats; if (S.view) T.renderSeats(); }
      else if (games && games[0] && games[0].max_seats) S.max_seats = games[0].max_seats;
    } catch { /* seven seats */ }
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
  T.timers.push(setInterval(() => { if (S.view) T.renderCountdown(); }, 100));
  let ticks = 0;
  T.timers.push(setInterval(() => {
    ticks += 1;
    if (ticks % 10 === 0 || (S.connected && performance.now() - S.lastFrame > 12000)) probe();
  }, 1000));
  return () => {
    T.closed = true;
    window.removeEventListener("storage", limitsChanged);
    document.removeEventListener("visibilitychange", limitsChanged);
    for (const timer of T.timers) { clearTimeout(timer); clearInterval(timer); }
    connection(false);
    if (T.socket) T.socket.close();
  };
}
