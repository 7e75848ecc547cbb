// @ts-check
// The page's stake rule (table/betting.js) against the server's: every case of cases/stakes.json, which the
// server's own check answered (tests/js/stake_cases.py), gets the same answer here; and the chips in hand.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import {
  addAllRefusal, bettingOpen, checkStakes, chipRefusal, feeOf, ownLimits, room, takeOffRefused,
} from "../../src/baccarat/server/static/table/betting.js";

const { games, cases } = JSON.parse(readFileSync(new URL("./cases/stakes.json", import.meta.url), "utf8"));

test("every case gets the server's answer: the stakes after, or the same refusal with the same parameters", () => {
  assert.ok(cases.length >= 1000);
  const codes = new Set();
  for (const c of cases) {
    const found = checkStakes({ code: c.game, wagers: games[c.game] }, c.limits, c.placed, c.bets,
                              { ownLimits: c.own_limits, balance: c.balance });
    assert.deepEqual(found, c.answer, JSON.stringify(c));
    codes.add("refusal" in c.answer ? c.answer.refusal.code : "ok");
  }
  // the cases reach every step of the rule, so a step the page lost would show
  for (const code of ["ok", "bet.no_wager", "wager.unknown", "bet.draw_at_decision", "amount.not_whole",
                      "amount.not_positive", "amount.too_large", "bet.below_minimum", "bet.at_maximum",
                      "bet.room_left", "bet.above_maximum", "bet.needs_base", "protection.limit_left",
                      "protection.limit_reached", "bet.balance", "bet.balance_used_up"]) {
    assert.ok(codes.has(code), code);
  }
});

test("a fee is its fraction of the stake rounded up to a cent, and counted against the balance", () => {
  assert.equal(feeOf({ fee: "1/5" }, 1_001), 201);
  assert.equal(feeOf({ fee: null }, 1_001), 0);
  const game = { code: "lightning", wagers: games.lightning };
  const fee = games.lightning.find((w) => w.fee);
  assert.ok(fee, "the catalogue's Lightning Baccarat has a fee");
  const stake = 10_000;
  const cost = stake + feeOf(fee, stake);
  const limits = { minimum: 100, maximums: {} };
  assert.deepEqual(checkStakes(game, limits, {}, { [fee.code]: stake }, { balance: cost }), { stakes: { [fee.code]: stake } });
  assert.deepEqual(checkStakes(game, limits, {}, { [fee.code]: stake }, { balance: cost - 1 }),
                   { refusal: { code: "bet.balance", params: { amount: cost, balance: cost - 1 } } });
});

/** A table view taking bets on a mini table (limits 1.00 to 500.00; Tie 100.00). */
function miniView(overrides = {}) {
  return /** @type {any} */ ({
    game: "mini", phase: "betting", wagers: games.mini,
    limits: { minimum: 100, maximums: { player: 50_000, banker: 50_000, tie: 10_000 } },
    round: { number: 3, opens_at: "2026-11-29T10:00:00Z", closes_at: "2026-11-29T10:00:15Z" },
    ...overrides,
  });
}

test("betting is open from the window's opening to its close, on the server's clock", () => {
  const view = miniView();
  const at = (iso) => Date.parse(iso);
  assert.equal(bettingOpen(view, at("2026-11-29T09:59:59Z")), false);
  assert.equal(bettingOpen(view, at("2026-11-29T10:00:00Z")), true);
  assert.equal(bettingOpen(view, at("2026-11-29T10:00:14.999Z")), true);
  assert.equal(bettingOpen(view, at("2026-11-29T10:00:15Z")), false);
  assert.equal(bettingOpen(miniView({ phase: "dealing" }), at("2026-11-29T10:00:05Z")), false);
  assert.equal(bettingOpen(null, 0), false);
});

test("a chip is refused when the spot, the balance or one's own limits have no room for it", () => {
  const hand = { view: miniView(), mine: { tie: 9_000 }, staged: { tie: 500 }, balance: 100_000, protection: null, chip: 2_500 };
  assert.equal(room(hand.view, hand.mine, hand.staged, "tie"), 500);
  assert.deepEqual(chipRefusal(hand, "tie"), { code: "bet.room_left", params: { wager: "tie", amount: 500, maximum: 10_000 } });
  assert.deepEqual(chipRefusal({ ...hand, staged: { tie: 1_000 } }, "tie"), { code: "bet.at_maximum", params: { wager: "tie", maximum: 10_000 } });
  assert.equal(chipRefusal(hand, "banker"), null);
  assert.deepEqual(chipRefusal({ ...hand, balance: 2_000 }, "banker"), { code: "bet.balance_left", params: { amount: 1_500 } });
  assert.deepEqual(chipRefusal({ ...hand, balance: 500 }, "banker"), { code: "bet.balance_used_up", params: { amount: 2_500 } });
  const protection = { limits: [{ kind: "loss", period: "day", amount: 5_000, used: 3_000, left: 2_000 }] };
  assert.deepEqual(chipRefusal({ ...hand, protection }, "banker"), { code: "chips.own_limit_left", params: { amount: 1_500 } });
  assert.deepEqual(ownLimits(protection), [{ kind: "loss", period: "day", amount: 5_000, used: 3_000 }]);
});

test("a Double or Rebet over a spot's maximum, the balance or one's own limits stages nothing", () => {
  const hand = { view: miniView(), mine: {}, staged: { banker: 30_000 }, balance: 100_000, protection: null };
  assert.deepEqual(addAllRefusal(hand, { banker: 30_000 }, "double"),
                   { code: "bet.double_over", params: { wager: "banker", amount: 60_000, maximum: 50_000, room: 20_000 } });
  assert.deepEqual(addAllRefusal({ ...hand, staged: { banker: 50_000 } }, { banker: 1_000 }, "rebet"),
                   { code: "bet.at_maximum", params: { wager: "banker", maximum: 50_000 } });
  assert.deepEqual(addAllRefusal({ ...hand, balance: 40_000 }, { player: 20_000 }, "rebet"),
                   { code: "bet.rebet_balance", params: { amount: 20_000, balance: 10_000 } });
  assert.equal(addAllRefusal(hand, { player: 20_000 }, "double"), null);
});

test("a refused bet takes off the chips it could not take, newest first", () => {
  const steps = [{ banker: 10_000 }, { tie: 500 }, { banker: 10_000 }, { banker: 10_000 }];
  const staged = { banker: 30_000, tie: 500 };
  const over = { code: "bet.room_left", params: { wager: "banker", amount: 15_000, maximum: 50_000 } };
  // 35,000 on the layout: the spot takes 15,000 more, so two of the three banker chips come off
  assert.deepEqual(takeOffRefused(staged, steps, { banker: 35_000 }, over),
                   { staged: { banker: 10_000, tie: 500 }, steps: steps.slice(0, 2) });
  const short = { code: "bet.balance", params: { amount: 30_500, balance: 11_000 } };
  assert.deepEqual(takeOffRefused(staged, steps, {}, short), { staged: { banker: 10_000, tie: 500 }, steps: steps.slice(0, 2) });
  assert.deepEqual(takeOffRefused(staged, steps, {}, { code: "bet.balance_used_up", params: { amount: 1 } }),
                   { staged: {}, steps: [] });
  const other = { code: "bet.closed", params: {} };  // not about the chips: nothing comes off
  assert.deepEqual(takeOffRefused(staged, steps, {}, other), { staged, steps });
});
