// @ts-check
// A table's state in the page, from the server's frames: the view it last sent, the player's own part of it,
// the chips in hand, the command in flight and the line of words under the layout.  Pure: no DOM and no words
// (what to say is a code and its parameters; the view says it), so that tests/js/state.test.js runs it in Node on
// frames as the server sends them.  The view modules draw the page from this state.

import { isLuckyDraw } from "../i18n.js";
import { takeOffRefused } from "./betting.js";

/** @typedef {import("api-types").components["schemas"]["TableView"]} TableView */
/** @typedef {import("api-types").components["schemas"]["YourState"]} YourState */
/** @typedef {Omit<TableView, "wagers"> & {wagers?: TableView["wagers"]}} PushedView
 *  a state frame's view: its wagers only in a socket's first push and when they change */
/** @typedef {import("./betting.js").Amounts} Amounts */
/** @typedef {{code?: string, params?: Record<string, any>, refusal?: any}} Words
 *  what to say: a catalogue's code and parameters, or a server refusal ({code, params, message}) */
/** @typedef {{key: string, frame: Record<string, any>, kind: string}} Inflight  a command sent and not yet answered */

/**
 * The state of a table just opened.
 * @param {{getItem(key: string): string | null} | null} [storage] this browser's remembered choices
 */
export function newState(storage) {
  const remembered = (/** @type {string} */ key) => (storage ? storage.getItem(key) : null);
  return {
    /** @type {TableView | null} */ view: null,
    /** @type {YourState | null} */ you: null,
    max_seats: 7,
    /** @type {Amounts} */ staged: {},
    /** @type {Amounts[]} */ steps: [],
    chip: 100,
    /** @type {Amounts} */ last: {},
    /** @type {Inflight | null} */ inflight: null,
    /** @type {number | null} */ shownRound: null,
    cardsShown: new Set(),
    /** @type {number | null} */ resultShown: null,
    /** @type {number | null} */ bettingRound: null,
    /** @type {string | null} */ phase: null,
    /** @type {Words | null} */ message: null,
    messageKind: "",
    /** @type {any} */ roads: null,
    /** @type {any} */ strategy: null,
    /** @type {any[]} */ history: [],
    historyMore: false,
    openRows: new Set(),
    connected: false,
    lastFrame: 0,  // performance.now() of the last frame read (a silent line is probed)
    everConnected: false,
    attempts: 0,
    seen: new Set(),
    /** @type {string[]} */ news: [],
    /** @type {string | null} */ built: null,
    /** @type {string | null} */ decisionKey: null,
    hint: remembered("hint") === "on",
    // each chip placed as it is put down, as at a live table (remembered in this browser); putDown: the chips
    // placed that way this round, newest last, which Undo takes back one by one while betting is open
    atOnce: remembered("chips-at-once") === "on",
    /** @type {Amounts[]} */ putDown: [],
    /** @type {any} */ protection: null,
    /** @type {any[] | null} */ games: null,
    /** @type {string | null} */ noticeAt: null,
    firstFrame: false,
  };
}

/** @typedef {ReturnType<typeof newState>} TableState */

// ---------------------------------------------------------------- what the state says

/** The game being dealt (its registry code), or null before the first frame. */
export const game = (/** @type {TableState} */ S) => (S.view ? S.view.game : null);
/** Whether the table deals Lucky Draw (a seat against the dealer). */
export const lucky = (/** @type {TableState} */ S) => isLuckyDraw(game(S));
/** The player's seat ("3"), or null. */
export const mySeat = (/** @type {TableState} */ S) => (S.you && S.you.seat ? String(S.you.seat) : null);
/** A watcher at Lucky Draw: no seat, so no hand to bet on (punto banco takes bets from the rail). */
export const railOnly = (/** @type {TableState} */ S) => lucky(S) && !mySeat(S);
/** The player's bets on the round (wager code -> minor units). */
export const myBets = (/** @type {TableState} */ S) => /** @type {Amounts} */ ((S.you && S.you.bets) || {});
/** The table's wagers. */
export const wagers = (/** @type {TableState} */ S) => (S.view && S.view.wagers) || [];
/** One wager of the table, by code. */
export const wager = (/** @type {TableState} */ S, /** @type {string} */ code) => wagers(S).find((w) => w.code === code);
/** The player's balance as shown (0 when not known). */
export const balance = (/** @type {TableState} */ S) => (S.you && S.you.balance != null ? S.you.balance : 0);

/** What the stake rule reads of the chips in hand. */
export function hand(/** @type {TableState} */ S) {
  return { view: S.view, mine: myBets(S), staged: S.staged, balance: balance(S), protection: S.protection, chip: S.chip };
}

// ---------------------------------------------------------------- frames

/**
 * A state frame ({type: "state", table, you}): the state after it, and what the page is to do.
 * @param {TableState} S
 * @param {{table: PushedView, you?: YourState | null}} message
 * @returns {{first: boolean, say: {words: Words | null, kind?: string} | null, notice: Words | null, newShoe: boolean}}
 */
export function applyView(S, message) {
  const before = S.view;
  // a push leaves the wagers out when this socket was sent them already: the last ones hold
  S.view = { ...message.table, wagers: message.table.wagers ?? (before ? before.wagers : []) };
  if (message.you) S.you = message.you;
  /** @type {{words: Words | null, kind?: string} | null} */
  let say = null;
  // "bets placed" and other notes belong to their phase
  if (before && before.phase !== S.view.phase && S.messageKind === "info" && !S.inflight) say = { words: null };
  // a new betting window: staged chips and old messages go (the view's round is the one taking bets: from
  // BETTING until the dealer deals it)
  const betting = S.view.round ? S.view.round.number : null;
  if (betting !== S.bettingRound) {
    if (betting !== null) {
      if (!S.inflight) { S.staged = {}; S.steps = []; }
      S.putDown = [];
      if (before && S.messageKind !== "info notice") say = { words: null };  // a stand-up's notice stays until they act or sit
    } else if (Object.keys(S.staged).length && !S.inflight) {
      S.staged = {};
      S.steps = [];
      say = { words: { code: "bet.not_placed" }, kind: "info" };
    }
    S.bettingRound = betting;
  }
  // the seat was taken from us (no bet in too many rounds, away too long, the house): said once (after a new
  // window's clearing above, so the words stay)
  const seatNotice = S.you && S.you.notice;
  let notice = null;
  if (seatNotice && seatNotice.at !== S.noticeAt) {
    S.noticeAt = seatNotice.at;
    notice = { code: seatNotice.code, params: seatNotice.params };
    say = { words: notice, kind: "info notice" };  // styled as info, but kept past the next phase
  }
  const newShoe = Boolean(before && before.shoe && S.view.shoe && before.shoe.number !== S.view.shoe.number);
  if (newShoe) S.roads = null;
  if (say) setMessage(S, say.words, say.kind);
  return { first: !before, say, notice, newShoe };
}

/** The line of words under the layout: what it says and how (refusal, info, info notice). */
export function setMessage(/** @type {TableState} */ S, /** @type {Words | null} */ words, kind = "refusal") {
  S.message = words || null;
  S.messageKind = kind;
}

/**
 * The server's answer to the command in flight ({type: "ok", key, result} or {type: "error", code, params}).
 * @param {TableState} S
 * @param {{type: string, code?: string, params?: Record<string, any>, result?: any}} message
 * @returns {{kind: string | null, balance: number | null, reloadLimits: boolean}}
 */
export function applyAnswer(S, message) {
  const inflight = S.inflight;
  S.inflight = null;
  const kind = inflight ? inflight.kind : null;
  let shown = null;
  if (message.type === "ok") {
    const result = message.result || {};
    if (kind === "bet") {
      if (S.atOnce) S.putDown.push(inflight.frame.bets);  // Undo takes these back, newest first
      S.staged = {};
      S.steps = [];
      setMessage(S, { code: S.atOnce ? "bet.put_down" : "bet.placed" }, "info");
    }
    if (kind === "take_back") {
      const last = S.putDown[S.putDown.length - 1];
      if (last && JSON.stringify(last) === JSON.stringify(inflight.frame.bets)) S.putDown.pop();
      else S.putDown = [];  // Clear: everything came back
      setMessage(S, { code: "bet.taken_back", params: { amount: result.refunded } }, "info");
    }
    if (result.balance != null && S.you) { S.you.balance = result.balance; shown = result.balance; }
    if (result.bets && S.you && (kind === "bet" || kind === "take_back")) S.you.bets = { ...result.bets };
  } else {
    if (kind === "bet") takeOff(S, message);
    setMessage(S, { refusal: message });
  }
  S.decisionKey = null;
  return { kind, balance: shown, reloadLimits: kind === "bet" || kind === "take_back" };
}

/** A bet the server refused: the chips it could not take come off the layout, newest first. */
function takeOff(/** @type {TableState} */ S, /** @type {{code?: string, params?: Record<string, any>}} */ refusal) {
  const left = takeOffRefused(S.staged, S.steps, myBets(S), refusal);
  S.staged = left.staged;
  S.steps = left.steps;
}


/** Undo: the newest chip or group of chips staged comes back off the layout (false: nothing staged). */
export function undoStep(/** @type {TableState} */ S) {
  const step = S.steps.pop();
  if (!step) return false;
  for (const [code, amount] of Object.entries(step)) {
    S.staged[code] -= amount;
    if (S.staged[code] <= 0) delete S.staged[code];
  }
  return true;
}

/** Chips staged on a spot (one chip, or a Double's or Rebet's group), as one step Undo takes back. */
export function stage(/** @type {TableState} */ S, /** @type {Amounts} */ amounts) {
  for (const [code, amount] of Object.entries(amounts)) S.staged[code] = (S.staged[code] || 0) + amount;
  S.steps.push({ ...amounts });
}
