// @ts-check
// A table's state from the server's frames (table/state.js): what a new window, a closed one, a seat notice, a
// new shoe and the server's answers do to the chips in hand and the line of words.  The frames are typed by the
// server's contract (types from /openapi.json), so a frame here that the server could not send fails the type check.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  applyAnswer, applyView, balance, lucky, myBets, mySeat, newState, railOnly, stage, undoStep,
} from "../../src/baccarat/server/static/table/state.js";

/** @typedef {import("api-types").components["schemas"]["TableView"]} TableView */
/** @typedef {import("api-types").components["schemas"]["YourState"]} YourState */

/** A mini table's view in ``phase`` with round ``n`` taking bets (null: none), as the server sends it. */
function frame(/** @type {string} */ phase, /** @type {number | null} */ n, /** @type {Partial<TableView>} */ more = {}) {
  /** @type {TableView} */
  const view = {
    id: 1, name: "mini-1", game: "mini", game_name: "Mini-Baccarat", status: "open", paytable: null,
    betting_seconds: 15, decision_seconds: 0, pace: { no_more_bets: 1, card: 0.6, results: 4 },
    limits: { minimum: 100, maximums: { player: 50_000, banker: 50_000, tie: 10_000 } }, pending_limits: null,
    server_time: "2026-11-29T10:00:01Z", phase, phase_started_at: "2026-11-29T10:00:00Z",
    phase_ends_at: "2026-11-29T10:00:15Z", round_number: n ?? 7,
    round: n == null ? null : { number: n, opens_at: "2026-11-29T10:00:00Z", closes_at: "2026-11-29T10:00:15Z" },
    next_round: null, cards: [], hands: {}, result: null, seats: {}, players: {}, spots: {}, announcements: [],
    shoe: { number: 1, algorithm: "hmac-sha256-fisher-yates/3", commitment: "ab", cards_dealt: 10, cards: 416,
            cut_card: 14, last_hand: false, taking_client_seeds: false, client_seeds: null, merkle_root: null },
    last_result: null, decision: null, wagers: [], bettors: 1, squeeze: null, strike: null,
  };
  return { ...view, ...more };
}

/** The player's own part of a frame. */
function you(/** @type {Partial<YourState>} */ more = {}) {
  /** @type {YourState} */
  const mine = { seat: 2, name: "ann", balance: 100_000, round: 7, bets: {}, settlement: null, decision: null, notice: null };
  return { ...mine, ...more };
}

test("the first frame is the table: nothing said, the player's seat, bets and balance read from it", () => {
  const S = newState(null);
  const done = applyView(S, { table: frame("betting", 7), you: you({ bets: { banker: 500 } }) });
  assert.deepEqual(done, { first: true, say: null, notice: null, newShoe: false });
  assert.equal(mySeat(S), "2");
  assert.deepEqual(myBets(S), { banker: 500 });
  assert.equal(balance(S), 100_000);
  assert.equal(lucky(S), false);
  assert.equal(railOnly(S), false);
  assert.equal(S.bettingRound, 7);
});

test("chips staged and not placed when the window closes are taken back, and the player is told", () => {
  const S = newState(null);
  applyView(S, { table: frame("betting", 7), you: you() });
  stage(S, { banker: 2_500 });
  const done = applyView(S, { table: frame("dealing", null), you: you() });
  assert.deepEqual(S.staged, {});
  assert.deepEqual(S.steps, []);
  assert.deepEqual(done.say, { words: { code: "bet.not_placed" }, kind: "info" });
  assert.deepEqual(S.message, { code: "bet.not_placed" });
  // the next phase (the result) clears an info line; the next window clears the rest
  applyView(S, { table: frame("result", null), you: you() });
  assert.equal(S.message, null);
});

test("a bet in flight keeps its chips across a new window (the answer says what became of them)", () => {
  const S = newState(null);
  applyView(S, { table: frame("betting", 7), you: you() });
  stage(S, { player: 1_000 });
  S.inflight = { key: "k".repeat(32), frame: { type: "bet", bets: { player: 1_000 }, round: 7 }, kind: "bet" };
  applyView(S, { table: frame("betting", 8), you: you() });
  assert.deepEqual(S.staged, { player: 1_000 });
  assert.equal(S.bettingRound, 8);
});

test("a new betting window clears the chips staged, the ones put down and the words, but not a seat notice", () => {
  const S = newState(null);
  applyView(S, { table: frame("betting", 7), you: you() });
  stage(S, { tie: 100 });
  S.putDown = [{ tie: 100 }];
  S.message = { code: "bet.placed" };
  applyView(S, { table: frame("betting", 8), you: you() });
  assert.deepEqual([S.staged, S.steps, S.putDown, S.message], [{}, [], [], null]);
  const notice = { code: "notice.stood_up", params: { seat: 2, rounds: 5 }, at: "2026-11-29T10:01:00Z" };
  const told = applyView(S, { table: frame("betting", 8), you: you({ seat: null, notice }) });
  assert.deepEqual(told.notice, { code: "notice.stood_up", params: { seat: 2, rounds: 5 } });
  assert.equal(S.messageKind, "info notice");
  // said once: the same notice in the next frames says nothing again, and a new window keeps it on the line
  assert.equal(applyView(S, { table: frame("betting", 8), you: you({ seat: null, notice }) }).notice, null);
  applyView(S, { table: frame("betting", 9), you: you({ seat: null, notice }) });
  assert.deepEqual(S.message, { code: "notice.stood_up", params: { seat: 2, rounds: 5 } });
});

test("a new shoe forgets the roads of the last one", () => {
  const S = newState(null);
  applyView(S, { table: frame("betting", 7), you: you() });
  S.roads = { shoe: 1 };
  assert.equal(applyView(S, { table: frame("betting", 7), you: you() }).newShoe, false);
  assert.deepEqual(S.roads, { shoe: 1 });
  const next = frame("betting", 8);
  next.shoe = { ...next.shoe, number: 2, cards_dealt: 0 };
  assert.equal(applyView(S, { table: next, you: you() }).newShoe, true);
  assert.equal(S.roads, null);
});

test("a push without the wagers keeps the ones sent before; one with them replaces them", () => {
  const S = newState(null);
  const player = { code: "player", name: "Player" };
  const banker = { code: "banker", name: "Banker" };
  applyView(S, { table: frame("betting", 7, /** @type {any} */ ({ wagers: [player] })), you: you() });
  const { wagers: _, ...slim } = frame("dealing", null);
  applyView(S, { table: slim, you: you() });
  assert.equal(S.view?.phase, "dealing");
  assert.deepEqual(S.view?.wagers, [player]);
  applyView(S, { table: frame("betting", 8, /** @type {any} */ ({ wagers: [banker] })), you: you() });
  assert.deepEqual(S.view?.wagers, [banker]);
});

test("a bet taken: the chips leave the hand, the balance and the bets are the server's", () => {
  const S = newState(null);
  applyView(S, { table: frame("betting", 7), you: you() });
  stage(S, { banker: 2_500 });
  S.inflight = { key: "k".repeat(32), frame: { type: "bet", bets: { banker: 2_500 }, round: 7 }, kind: "bet" };
  const done = applyAnswer(S, { type: "ok", result: { balance: 97_500, bets: { banker: 2_500 } } });
  assert.deepEqual(done, { kind: "bet", balance: 97_500, reloadLimits: true });
  assert.deepEqual([S.staged, S.steps, S.inflight, S.you.balance, S.you.bets], [{}, [], null, 97_500, { banker: 2_500 }]);
  assert.deepEqual([S.message, S.messageKind], [{ code: "bet.placed" }, "info"]);
});

test("a refused bet takes off the chips it could not take and says the server's refusal", () => {
  const S = newState(null);
  applyView(S, { table: frame("betting", 7), you: you({ bets: { tie: 9_500 } }) });
  stage(S, { tie: 500 });
  stage(S, { tie: 500 });
  stage(S, { banker: 1_000 });
  S.inflight = { key: "k".repeat(32), frame: { type: "bet", bets: { ...S.staged }, round: 7 }, kind: "bet" };
  const refusal = { type: "error", code: "bet.room_left", params: { wager: "tie", amount: 500, maximum: 10_000 } };
  assert.deepEqual(applyAnswer(S, refusal), { kind: "bet", balance: null, reloadLimits: true });
  // 9,500 on Tie takes 500 more: the Banker chip staged last, then one Tie chip came off
  assert.deepEqual(S.staged, { tie: 500 });
  assert.deepEqual(S.message, { refusal });
  assert.equal(S.messageKind, "refusal");
});

test("put down as they go: each bet is remembered for Undo, and a take-back takes the newest", () => {
  const S = newState({ getItem: (key) => (key === "chips-at-once" ? "on" : null) });
  assert.equal(S.atOnce, true);
  applyView(S, { table: frame("betting", 7), you: you() });
  for (const [bets, total] of /** @type {[Record<string, number>, number][]} */ ([[{ banker: 500 }, 500], [{ banker: 100 }, 600]])) {
    S.inflight = { key: "k".repeat(32), frame: { type: "bet", bets, round: 7 }, kind: "bet" };
    applyAnswer(S, { type: "ok", result: { balance: 100_000 - total, bets: { banker: total } } });
  }
  assert.deepEqual(S.putDown, [{ banker: 500 }, { banker: 100 }]);
  assert.deepEqual(S.message, { code: "bet.put_down" });
  S.inflight = { key: "t".repeat(32), frame: { type: "take_back", bets: { banker: 100 }, round: 7 }, kind: "take_back" };
  applyAnswer(S, { type: "ok", result: { balance: 99_500, bets: { banker: 500 }, refunded: 100 } });
  assert.deepEqual([S.putDown, S.you.bets, S.you.balance], [[{ banker: 500 }], { banker: 500 }, 99_500]);
  assert.deepEqual(S.message, { code: "bet.taken_back", params: { amount: 100 } });
});

test("Undo takes back the newest step staged, a Double's group at once", () => {
  const S = newState(null);
  stage(S, { banker: 500 });
  stage(S, { banker: 500, tie: 100 });
  assert.equal(undoStep(S), true);
  assert.deepEqual(S.staged, { banker: 500 });
  assert.equal(undoStep(S), true);
  assert.deepEqual(S.staged, {});
  assert.equal(undoStep(S), false);
});

test("at Lucky Draw a player without a seat watches from the rail", () => {
  const S = newState(null);
  applyView(S, { table: frame("betting", 7, { game: "lucky-draw", name: "lucky-draw-1" }), you: you({ seat: null }) });
  assert.equal(lucky(S), true);
  assert.equal(railOnly(S), true);
  applyView(S, { table: frame("betting", 7, { game: "lucky-draw", name: "lucky-draw-1" }), you: you({ seat: 3 }) });
  assert.equal(railOnly(S), false);
});
