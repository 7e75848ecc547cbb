// @ts-check
// May these chips go on these spots?  The page's copy of the server's one stake rule
// (baccarat.core.stakes.check_stakes), in the same order and naming the same refusal with the same parameters,
// so that a player hears the dealer's words before the chips travel.  Pure: no DOM, no words (a refusal is the
// server's code and its parameters; i18n.js's codeText says it).  tests/js/betting.test.js runs it on a file of
// cases that the server's own check answered (tests/js/cases/stakes.json), so the two cannot drift.

/** @typedef {import("api-types").components["schemas"]["WagerInfo"]} WagerInfo */
/** @typedef {import("api-types").components["schemas"]["TableView"]} TableView */
/** @typedef {Record<string, number>} Amounts  wager code -> minor units */
/** @typedef {{code: string, params?: Record<string, any>}} Refusal  a server code and its parameters */
/** @typedef {{kind: string, period: string, amount: number, used: number}} OwnLimit  one of the player's own limits */
/** @typedef {{minimum: number, maximums: Record<string, number>}} Limits  a table's limits (minor units) */

/** Chip values in currency units; amounts travel in minor units (cents). */
export const CHIPS = [1, 5, 25, 100, 500];

/** The most one amount may be (baccarat.core.money.MAX_AMOUNT: a trillion in currency units). */
const MAX_AMOUNT = 100_000_000_000_000;

/** The sum of an amounts map. */
export function sum(/** @type {Amounts | null | undefined} */ amounts) {
  return Object.values(amounts || {}).reduce((a, b) => a + b, 0);
}

/** The fee charged with ``stake`` on a wager with a fee ("1/20"): its fraction, rounded up to a minor unit. */
export function feeOf(/** @type {{fee?: string | null}} */ wager, /** @type {number} */ stake) {
  if (!wager || !wager.fee) return 0;
  const [numerator, denominator] = wager.fee.split("/").map(Number);
  return Math.ceil((stake * numerator) / denominator);
}

/** The fee charged with ``bets`` added to ``placed``: each spot's fee of its new total less that of what was on it. */
export function feeFor(/** @type {WagerInfo[]} */ wagers, /** @type {Amounts} */ placed, /** @type {Amounts} */ bets) {
  let total = 0;
  for (const [code, amount] of Object.entries(bets)) {
    const wager = wagers.find((w) => w.code === code);
    const before = placed[code] || 0;
    total += feeOf(wager, before + amount) - feeOf(wager, before);
  }
  return total;
}

/** The refusal for one's own limits that a stake would pass (the first in order), or null. */
export function ownLimitRefusal(/** @type {OwnLimit[]} */ ownLimits, /** @type {number} */ stake) {
  for (const limit of ownLimits || []) {
    if (limit.used + stake > limit.amount) {
      const left = Math.max(limit.amount - limit.used, 0);
      return { code: left ? "protection.limit_left" : "protection.limit_reached",
               params: { stake, kind: limit.kind, limit: limit.amount, period: limit.period, left } };
    }
  }
  return null;
}

/**
 * The server's stake rule: the player's stakes once ``bets`` go down on ``placed``, or the refusal.
 * @param {{code: string, wagers: WagerInfo[]}} game the game's code and wagers (the table view's)
 * @param {Limits} limits the table's limits
 * @param {Amounts} placed what the player has on the layout this round
 * @param {Amounts} bets the new chips
 * @param {{ownLimits?: OwnLimit[], balance?: number | null}} [options] the player's own limits; the balance shown
 * @returns {{stakes: Amounts} | {refusal: Refusal}}
 */
export function checkStakes(game, limits, placed, bets, options = {}) {
  const wagers = game.wagers;
  const refuse = (/** @type {string} */ code, /** @type {Record<string, any>} */ params) => ({ refusal: { code, params } });
  if (!bets || typeof bets !== "object" || !Object.keys(bets).length) return refuse("bet.no_wager", {});
  /** @type {Amounts} */
  const combined = { ...placed };
  for (const [code, amount] of Object.entries(bets)) {
    const wager = wagers.find((w) => w.code === code);
    if (!wager) return refuse("wager.unknown", { wager: code, game: game.code, wagers: wagers.filter((w) => w.placed === "betting").map((w) => w.code) });
    if (wager.placed !== "betting") return refuse("bet.draw_at_decision", { wager: code });
    if (!Number.isInteger(amount)) return refuse("amount.not_whole", { amount });
    if (amount <= 0) return refuse("amount.not_positive", { amount });
    if (amount > MAX_AMOUNT) return refuse("amount.too_large", { amount });
    combined[code] = (combined[code] || 0) + amount;
  }
  for (const [code, stake] of Object.entries(combined)) {
    const refusal = limitRefusal(limits, code, stake, code in bets ? placed[code] || 0 : 0);
    if (refusal) return { refusal };
  }
  for (const code of Object.keys(combined)) {
    const required = (wagers.find((w) => w.code === code) || {}).requires;
    if (required && !(required in combined)) return refuse("bet.needs_base", { wager: code, base: required });
  }
  const total = sum(bets) + feeFor(wagers, placed, bets);
  const own = ownLimitRefusal(options.ownLimits || [], total);
  if (own) return { refusal: own };
  const balance = options.balance;
  if (balance != null && total > balance) {
    return balance <= 0 ? refuse("bet.balance_used_up", { amount: total })
      : refuse("bet.balance", { amount: total, balance });
  }
  return { stakes: combined };
}

/** A spot's total ``stake`` (``already`` of it on the layout before) against the table's limits, or null. */
function limitRefusal(/** @type {Limits} */ limits, /** @type {string} */ code, /** @type {number} */ stake,
                      /** @type {number} */ already) {
  if (stake < limits.minimum) return { code: "bet.below_minimum", params: { wager: code, amount: stake, minimum: limits.minimum } };
  const maximum = (limits.maximums || {})[code];
  if (maximum != null && stake > maximum && already) {
    if (already >= maximum) return { code: "bet.at_maximum", params: { wager: code, maximum } };
    return { code: "bet.room_left", params: { wager: code, amount: maximum - already, maximum } };
  }
  if (maximum != null && stake > maximum) return { code: "bet.above_maximum", params: { wager: code, amount: stake, maximum } };
  return null;
}

// ---------------------------------------------------------------- the chips in hand

/** Whether the table takes bets now (``now``: milliseconds on the server's clock). */
export function bettingOpen(/** @type {TableView | null} */ view, /** @type {number} */ now) {
  if (!view || view.phase !== "betting" || !view.round) return false;
  return (!view.round.opens_at || Date.parse(view.round.opens_at) <= now) && Date.parse(view.round.closes_at) > now;
}

/** A spot's maximum at this table (the table's limits, else the wager's own; Infinity: none). */
export function maximum(/** @type {TableView} */ view, /** @type {string} */ code) {
  const limits = view.limits || /** @type {any} */ ({});
  const wager = (view.wagers || []).find((w) => w.code === code);
  return (limits.maximums && limits.maximums[code]) || (wager && wager.maximum) || Infinity;
}

/** What a spot can still take: its maximum less what is on it and what is staged on it. */
export function room(/** @type {TableView} */ view, /** @type {Amounts} */ mine, /** @type {Amounts} */ staged,
                     /** @type {string} */ code) {
  return maximum(view, code) - (mine[code] || 0) - (staged[code] || 0);
}

/** What the balance leaves for more chips: the balance less what is staged. */
export function available(/** @type {number} */ balance, /** @type {Amounts} */ staged) {
  return balance - sum(staged);
}

/** The player's own limits in force, as the stake rule reads them, from GET /api/protection's limits. */
export function ownLimits(/** @type {{limits?: {kind: string, period: string, amount: number | null, used: number}[]} | null} */ protection) {
  return ((protection && protection.limits) || []).filter((l) => l.amount != null)
    .map((l) => ({ kind: l.kind, period: l.period, amount: l.amount, used: l.used }));
}

/** What the player's own limits leave (the least of them), less ``staged``; null: none set. */
export function ownLimitLeft(/** @type {{limits?: {left?: number | null}[]} | null} */ protection, /** @type {Amounts} */ staged) {
  const limits = ((protection && protection.limits) || []).filter((l) => l.left != null);
  if (!limits.length) return null;
  return Math.min(...limits.map((l) => l.left)) - sum(staged);
}

/**
 * Why one more chip of ``chip`` cannot be staged on ``code`` (before anything travels), or null.  The spot's
 * room, the balance and the player's own limits, as the stake rule will check them; the minimum and a side
 * wager's base wait for Place bets (more chips may come).
 * @param {{view: TableView, mine: Amounts, staged: Amounts, balance: number, protection: any, chip: number}} hand
 * @param {string} code
 * @returns {Refusal | null}
 */
export function chipRefusal(hand, code) {
  const { view, mine, staged, balance, protection, chip } = hand;
  const left = room(view, mine, staged, code);
  if (chip > left) {
    return left > 0 ? { code: "bet.room_left", params: { wager: code, amount: left, maximum: maximum(view, code) } }
      : { code: "bet.at_maximum", params: { wager: code, maximum: maximum(view, code) } };
  }
  const free = available(balance, staged);
  if (chip > free) return balanceRefusal(chip, free);
  const own = ownLimitLeft(protection, staged);
  if (own != null && chip > own) return ownLimitLeftRefusal(own);
  return null;
}

/** A stake the balance cannot cover: what it leaves, or that it is used up (never "leaves 0.00"). */
export function balanceRefusal(/** @type {number} */ amount, /** @type {number} */ left) {
  return left > 0 ? { code: "bet.balance_left", params: { amount: left } } : { code: "bet.balance_used_up", params: { amount } };
}

/** What the player's own limits leave (the tray's words: "your own limits leave 20.00", or that they are used). */
export function ownLimitLeftRefusal(/** @type {number} */ left) {
  return left > 0 ? { code: "chips.own_limit_left", params: { amount: left } } : { code: "chips.own_limit_used", params: {} };
}

/**
 * Why a Double or a Rebet of ``amounts`` cannot be staged (every spot checked before anything is), or null.
 * @param {{view: TableView, mine: Amounts, staged: Amounts, balance: number, protection: any}} hand
 * @param {Amounts} amounts
 * @param {"double" | "rebet"} what
 * @returns {Refusal | null}
 */
export function addAllRefusal(hand, amounts, what) {
  const { view, mine, staged, balance, protection } = hand;
  for (const [code, amount] of Object.entries(amounts)) {
    const left = room(view, mine, staged, code);
    if (left < amount) {
      // a spot with no room left is named as full: "add up to 0.00 by hand" is no advice
      if (left <= 0) return { code: "bet.at_maximum", params: { wager: code, maximum: maximum(view, code) } };
      return { code: `bet.${what}_over`, params: { wager: code, amount: (mine[code] || 0) + (staged[code] || 0) + amount,
                                                  maximum: maximum(view, code), room: Math.max(0, left) } };
    }
  }
  const free = available(balance, staged);
  if (sum(amounts) > free) {
    if (free <= 0) return balanceRefusal(sum(amounts), free);
    return { code: `bet.${what}_balance`, params: { amount: sum(amounts), balance: Math.max(0, free) } };
  }
  const own = ownLimitLeft(protection, staged);  // the player's own loss or stake limit, as a chip put down by hand
  if (own != null && sum(amounts) > own) return ownLimitLeftRefusal(own);
  return null;
}

/**
 * The chips a refused bet could not take, off the staged ones, newest first (over a spot's maximum: that spot's
 * until it fits; over the balance or one's own limit: until the rest fits).  Returns the new staged and steps.
 * @param {Amounts} staged
 * @param {Amounts[]} steps each chip or group of chips staged, oldest first
 * @param {Amounts} mine what the player has on the layout
 * @param {{code?: string, params?: Record<string, any>}} refusal the server's
 * @returns {{staged: Amounts, steps: Amounts[]}}
 */
export function takeOffRefused(staged, steps, mine, refusal) {
  const params = refusal.params || {};
  const code = refusal.code || "";
  const left = { ...staged };
  const rest = [...steps];
  let fits;
  if (params.wager && params.maximum != null && left[params.wager]) {
    fits = () => (left[params.wager] || 0) + (mine[params.wager] || 0) <= params.maximum;
  } else if (params.wager && left[params.wager] && /^bet\.(at_maximum|room_left|above_maximum)$/.test(code)) {
    fits = () => !left[params.wager];
  } else if (params.left != null) {
    fits = () => sum(left) <= params.left;
  } else if (params.balance != null && /^(wallet\.short|bet\.balance)$/.test(code)) {
    fits = () => sum(left) <= params.balance;
  } else if (code === "bet.balance_used_up") {
    fits = () => !Object.keys(left).length;
  } else {
    return { staged: left, steps: rest };
  }
  while (rest.length && !fits()) {
    for (const [spot, amount] of Object.entries(rest.pop())) {
      left[spot] -= amount;
      if (left[spot] <= 0) delete left[spot];
    }
  }
  return { staged: left, steps: rest };
}
