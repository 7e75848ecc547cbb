// @ts-check
// fair.js's own statement of the rules, unit by unit: a round dealt again from known cards (the tableau, Lucky
// Draw's dealer rule), its facts, the pays a rules file writes, and each wager settled (the rounding rule); then
// the shuffle of a revealed shoe and a whole round checked against it.  Every expected value comes from the rule
// cards (shared/rules/ next to the repository) and was confirmed with the Python verifier (baccarat.verify.rules,
// baccarat.verify.definitions) or the house (baccarat.core.fair): none was copied from fair.js's own output.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import * as Fair from "../../src/baccarat/server/static/fair.js";

describe("punto banco, dealt by the tableau", () => {
  test("a natural 9 stands: four cards, Player wins", () => {
    const dealt = Fair.dealPuntoBanco(["9h", "Kc", "Ts", "5d", "Ah", "Ah"]);
    assert.deepEqual(dealt.cards, ["9h", "Kc", "Ts", "5d"]);
    assert.deepEqual(dealt.hands, { player: ["9h", "Ts"], banker: ["Kc", "5d"] });
    assert.equal(dealt.short, false);
    assert.equal(Fair.winner(dealt), "player");
  });

  test("a natural on both sides ties: no card drawn", () => {
    const dealt = Fair.dealPuntoBanco(["8h", "3c", "Kd", "5s", "Ah", "Ah"]);
    assert.deepEqual(dealt.cards, ["8h", "3c", "Kd", "5s"]);
    assert.equal(Fair.winner(dealt), "tie");
  });

  test("the Player stands on 6; the Banker then draws on 0-5", () => {
    const dealt = Fair.dealPuntoBanco(["6h", "2c", "Ks", "3d", "4c", "Ah"]);
    assert.deepEqual(dealt.hands, { player: ["6h", "Ks"], banker: ["2c", "3d", "4c"] });
    assert.equal(Fair.total(dealt.hands.banker), 9);
    assert.equal(Fair.winner(dealt), "banker");
  });

  test("Banker 3 stands when the Player's third card is an 8", () => {
    const dealt = Fair.dealPuntoBanco(["2h", "3c", "3d", "Kc", "8s", "9h"]);
    assert.deepEqual(dealt.hands, { player: ["2h", "3d", "8s"], banker: ["3c", "Kc"] });
    assert.equal(Fair.winner(dealt), "tie");
  });

  test("Banker 6 draws when the Player's third card is a 6", () => {
    const dealt = Fair.dealPuntoBanco(["Ah", "6c", "2d", "Kc", "6s", "5h"]);
    assert.deepEqual(dealt.hands, { player: ["Ah", "2d", "6s"], banker: ["6c", "Kc", "5h"] });
    assert.equal(Fair.winner(dealt), "player");
  });

  test("Banker 5 stands on the Player's third card 0 (a King)", () => {
    const dealt = Fair.dealPuntoBanco(["2h", "6c", "3d", "Kc", "Ks", "As"]);
    assert.deepEqual(dealt.hands, { player: ["2h", "3d", "Ks"], banker: ["6c", "Kc"] });
    assert.equal(Fair.winner(dealt), "banker");
  });

  test("the verifier's own example (baccarat.verify.rules)", () => {
    assert.deepEqual(Fair.dealPuntoBanco(["2h", "3c", "2d", "Kc", "5s", "7h"]).hands,
      { player: ["2h", "2d", "5s"], banker: ["3c", "Kc", "7h"] });
  });

  test("a round the record cut short is named short, not a crash", () => {
    const dealt = Fair.dealPuntoBanco(["2h", "3c", "2d", "Kc", "5s"]);
    assert.equal(dealt.short, true);
  });

  test("points, totals and the burn", () => {
    assert.deepEqual(["Ac", "9d", "Th", "Js", "Qc", "Kd"].map(Fair.points), [1, 9, 0, 0, 0, 0]);
    assert.equal(Fair.total(["7h", "8c"]), 5); // 7 + 8 = 15: the right-hand digit (Lucky Draw's rule card)
    assert.equal(Fair.total(["Kh", "Td"]), 0);
    // the turned card and as many more as it counts, tens ten
    assert.deepEqual([Fair.burnCount("Td"), Fair.burnCount("5h"), Fair.burnCount("Ac")], [11, 6, 2]);
  });
});

describe("Lucky Draw, dealt by its procedure", () => {
  test("a card to each seat, the dealer's up card, a second each, the draws, the dealer's second", () => {
    const dealt = Fair.dealLuckyDraw(["9h", "2c", "5h", "Kd", "4s", "3d", "Qs", "Ah", "Ah"], [1, 3], [3], true);
    assert.deepEqual(dealt.cards, ["9h", "2c", "5h", "Kd", "4s", "3d", "Qs"]);
    assert.deepEqual(dealt.hands, { "seat:1": ["9h", "Kd"], "seat:3": ["2c", "4s", "3d"], dealer: ["5h", "Qs"] });
  });

  test("the dealer draws a third card on 4 or less", () => {
    const dealt = Fair.dealLuckyDraw(["9h", "2c", "Ac", "Kd", "4s", "3d", "Kc", "7h", "2s"], [1, 3], [3], true);
    assert.deepEqual(dealt.hands.dealer, ["Ac", "Kc", "7h"]);
    assert.equal(dealt.cards.length, 8);
  });

  test("a round voided at its decisions stops after the first deal", () => {
    const dealt = Fair.dealLuckyDraw(["9h", "2c", "5h", "Kd", "4s", "3d", "Qs"], [1, 3], [], false);
    assert.deepEqual(dealt.hands, { "seat:1": ["9h", "Kd"], "seat:3": ["2c", "4s"], dealer: ["5h"] });
  });
});

describe("the facts a rules file reads (baccarat.verify.definitions.facts)", () => {
  test("a pair on the Player's side, a natural on the Banker's", () => {
    const found = Fair.facts({ hands: { player: ["8h", "8d"], banker: ["8s", "Kc"] } });
    assert.deepEqual(
      [found.winner, found.player_total, found.banker_total, found.margin, found.natural, found.player_natural,
        found.banker_natural, found.player_pair, found.banker_pair, found.pairs, found.twin_pairs, found.player_suited,
        found.perfect_pairs, found.cards, found.winning_total, found.totals_sum, found.most_of_a_rank,
        found.count_red, found.player_third_rank, found.banker_third_face],
      ["banker", 6, 8, 2, true, false, true, true, false, 1, false, false, 0, 4, 8, 14, 3, 2, "none", false]);
  });

  test("twin pairs, a perfect pair and third cards", () => {
    const found = Fair.facts({ hands: { player: ["3h", "3h", "Kc"], banker: ["3s", "3d", "Qd"] } });
    assert.deepEqual(
      [found.winner, found.pairs, found.twin_pairs, found.player_perfect_pair, found.perfect_pairs, found.cards,
        found.most_of_a_rank, found.count_rank_3, found.count_red, found.one_colour_first_four,
        found.player_third_rank, found.banker_third_face, found.full_house],
      ["tie", 2, true, true, 1, 6, 4, 4, 4, false, "K", true, false]);
  });
});

describe("pays as a rules file writes them (baccarat.verify.definitions._pays)", () => {
  const cases = [["11", [11, 1]], ["19/20", [19, 20]], ["push", [0, 1]], ["lose", [-1, 1]], ["loses", [-1, 1]],
    ["9 for 1", [8, 1]], ["3/2 for 1", [1, 2]]];
  for (const [pays, net] of cases) {
    test(`"${pays}"`, () => {
      assert.deepEqual(Fair.odds(pays), net);
    });
  }
});

describe("each wager settled (minor units)", () => {
  const deal = Fair.dealPuntoBanco;

  test("Mini: Banker pays 19 to 20, rounded down to the cent", () => {
    const dealt = deal(["2h", "6c", "3d", "Kc", "Ks", "As"]); // Banker 6 beats Player 5
    assert.deepEqual(Fair.settle("mini", "banker", 1250, dealt), ["Banker wins", 1187]); // 11.875 -> 11.87
    assert.deepEqual(Fair.settle("mini", "banker", 1000, dealt), ["Banker wins", 950]);
    assert.deepEqual(Fair.settle("mini", "banker", 1999, dealt), ["Banker wins", 1899]);
    assert.deepEqual(Fair.settle("mini", "banker", 1, dealt), ["Banker wins", 0]);
    assert.deepEqual(Fair.settle("mini", "player", 1000, dealt), ["Banker wins", -1000]);
  });

  test("a tie pays 8 to 1 and pushes Player and Banker", () => {
    const dealt = deal(["8h", "3c", "Kd", "5s"]);
    assert.deepEqual(Fair.settle("mini", "tie", 1000, dealt), ["Tie", 8000]);
    assert.deepEqual(Fair.settle("mini", "player", 1000, dealt), ["Tie", 0]);
    assert.deepEqual(Fair.settle("ez", "banker", 1000, dealt), ["Tie", 0]);
  });

  test("Dragon Bonus: a natural win, a natural tie, a margin, a tie without natural", () => {
    assert.deepEqual(Fair.settle("mini", "dragon_bonus_player", 1000, deal(["9h", "Kc", "Ts", "5d"])), ["Natural win", 1000]);
    assert.deepEqual(Fair.settle("mini", "dragon_bonus_banker", 1000, deal(["9h", "Kc", "Ts", "5d"])), ["Hand loses", -1000]);
    assert.deepEqual(Fair.settle("mini", "dragon_bonus_player", 1000, deal(["8h", "3c", "Kd", "5s"])), ["Natural tie", 0]);
    assert.deepEqual(Fair.settle("mini", "dragon_bonus_player", 1000, deal(["2h", "3c", "2d", "Kc", "5s", "7h"])),
      ["Win by 9", 30000]);
    assert.deepEqual(Fair.settle("mini", "dragon_bonus_player", 1000, deal(["Ah", "6c", "2d", "Kc", "6s", "5h"])),
      ["Win by 8", 10000]);
    assert.deepEqual(Fair.settle("mini", "dragon_bonus_banker", 1000, deal(["6h", "2c", "Ks", "3d", "4c"])),
      ["Win by 1-3", -1000]);
    assert.deepEqual(Fair.settle("mini", "dragon_bonus_player", 1000, deal(["2h", "3c", "3d", "Kc", "8s"])),
      ["Tie without natural", -1000]);
  });

  test("EZ: a Banker three-card 7 pushes Banker and pays Dragon 7 40 to 1", () => {
    const dealt = deal(["Kh", "Ac", "5d", "2s", "Ts", "4h"]);
    assert.deepEqual(dealt.hands.banker, ["Ac", "2s", "4h"]);
    assert.deepEqual(Fair.settle("ez", "banker", 1000, dealt), ["Dragon 7 (Banker pushes)", 0]);
    assert.deepEqual(Fair.settle("ez", "dragon_7", 1000, dealt), ["Dragon 7", 40000]);
    assert.deepEqual(Fair.settle("ez", "player", 1000, dealt), ["Banker wins", -1000]);
    assert.deepEqual(Fair.settle("mini", "banker", 1000, dealt), ["Banker wins", 950]);
  });

  test("EZ: a Player three-card 8 pays Panda 8 25 to 1 and Player 1 to 1; Banker wins pay even money", () => {
    const dealt = deal(["Kh", "Kc", "5d", "7s", "3s", "9h"]);
    assert.deepEqual(Fair.settle("ez", "panda_8", 1000, dealt), ["Panda 8", 25000]);
    assert.deepEqual(Fair.settle("ez", "player", 1000, dealt), ["Player wins", 1000]);
    assert.deepEqual(Fair.settle("ez", "banker", 1000, deal(["6h", "2c", "Ks", "3d", "4c"])), ["Banker wins", 1000]);
  });

  test("Lucky Draw: Enter, the DrawWin pay tables and Block Bonus", () => {
    const first = Fair.dealLuckyDraw(["9h", "2c", "5h", "Kd", "4s", "3d", "Qs"], [1, 3], [3], true);
    assert.deepEqual(Fair.settle("lucky-draw/1", "enter", 1000, first, "seat:1"), ["Player wins", 1000]);
    assert.deepEqual(Fair.settle("lucky-draw/1", "draw", 1000, first, "seat:3"), ["Lucky 9 (3-card 9)", 3000]);
    assert.deepEqual(Fair.settle("lucky-draw/1", "block_bonus", 1000, first, "seat:1"), ["Normal Block", 2000]);
    assert.deepEqual(Fair.settle("lucky-draw/1", "block_bonus", 1000, first, "seat:3"), ["No Block", -1000]);
    const lucky7 = Fair.dealLuckyDraw(["3h", "5c", "2d", "2s", "Kd", "9c"], [2], [2], true);
    assert.deepEqual(lucky7.hands, { "seat:2": ["3h", "2d", "2s"], dealer: ["5c", "Kd"] });
    assert.deepEqual(Fair.settle("lucky-draw/1", "draw", 333, lucky7, "seat:2"), ["Lucky 7 (3-card 7)", 666]);
    assert.deepEqual(Fair.settle("lucky-draw/2", "draw", 333, lucky7, "seat:2"), ["Lucky 7 (3-card 7)", 499]); // 3 to 2
    const block = Fair.dealLuckyDraw(["Jh", "3c", "5h", "Jh", "4c", "4d", "Kc", "Qs"], [1, 3], [3], true);
    assert.deepEqual(Fair.settle("lucky-draw/2", "block_bonus", 333, block, "seat:1"), ["Ultimate Block", 11655]);
    assert.deepEqual(Fair.settle("lucky-draw/2", "enter", 333, block, "seat:1"), ["Dealer wins", -333]);
    assert.deepEqual(Fair.settle("lucky-draw/2", "draw", 333, block, "seat:3"), ["Dealer wins", -333]);
  });

  test("a struck-card factor multiplies a win, never a loss", () => {
    const dealt = deal(["2h", "6c", "3d", "Kc", "Ks", "As"]);
    assert.deepEqual(Fair.settle("mini", "banker", 1000, dealt, "", 4), ["Banker wins", 3800]);
    assert.deepEqual(Fair.settle("mini", "player", 1000, dealt, "", 4), ["Banker wins", -1000]);
  });
});

// A revealed shoe of algorithm 2: server seed SHA-256("fair.test.js"), client seeds alice, bob-7 and alice again
// (distinct seeds count once), one deck.  Computed once with the house's code:
//   .venv/bin/python -c 'import hashlib; from baccarat.core import fair
//   seed = hashlib.sha256(b"fair.test.js").digest(); key = fair.shoe_key(fair.ALGORITHM_2, seed, ["alice", "bob-7", "alice"])
//   print(fair.commitment(seed), key.hex(), " ".join(map(str, fair.fair_cards(key, 1))))'
// and its first three rounds dealt and settled by baccarat.verify.rules (deal_punto_banco, settle).
const SERVER_SEED = "dd6de091c68b946009d21377e9e733bb3fc8cc92182a286630343e24961034e6";
const COMMITMENT = "1db393055bddabc3fbfa05e81df23b98b9df4574ff58402f0ebe9fa60b661782";
const STREAM_KEY = "c5cba37c897b276ebdf6e5840012889357fd948a42c3e6a578384ec530550dfd";
const ORDER = ("Td Tc 4d Qd 8h Qh Qc Ks Jd 4s 5h Jc 6h 7h Js 5s Jh 7d 5c 2h 6s 9d Kh 4h 7s 6c 3h Ad Ah Ts 3d 9c 3c 7c "
  + "8d 2d 2s 9s Kc 2c Qs Kd 8c 8s 3s 6d Th As 9h 4c 5d Ac").split(" ");
const CLIENT_SEEDS = ["alice", "bob-7", "alice"];

/** @param {string} text */
const bytes = (text) => Uint8Array.from(Buffer.from(text, "hex"));
const hexOf = (/** @type {Uint8Array} */ b) => Buffer.from(b).toString("hex");

describe("the shoe from its seeds (HMAC-SHA256 Fisher-Yates)", () => {
  test("the stream key of algorithm 2 is the house's", async () => {
    const key = await Fair.streamKey({ algorithm: Fair.ALGORITHM_2, client_seeds: CLIENT_SEEDS }, bytes(SERVER_SEED));
    assert.equal(hexOf(key), STREAM_KEY);
  });

  test("algorithm 1 shuffles with the server seed itself", async () => {
    const key = await Fair.streamKey({ algorithm: Fair.ALGORITHM_1 }, bytes(SERVER_SEED));
    assert.equal(hexOf(key), SERVER_SEED);
    // fair.fair_cards(seed, 1)[:8] in the house's code
    assert.deepEqual((await Fair.shoeOrder(key, 1)).slice(0, 8), ["Qh", "5d", "Td", "9s", "5s", "6d", "6c", "3h"]);
  });

  test("the shuffled deck is the house's, card for card", async () => {
    assert.deepEqual(await Fair.shoeOrder(bytes(STREAM_KEY), 1), ORDER);
  });

  test("eight decks: the house's first and last cards", async () => {
    const order = await Fair.shoeOrder(bytes(STREAM_KEY), 8);
    assert.equal(order.length, 416);
    assert.deepEqual(order.slice(0, 6), ["2s", "Qc", "Ad", "Ts", "7s", "4h"]);
    assert.deepEqual(order.slice(-4), ["Kh", "9d", "Qh", "Ac"]);
  });
});

describe("a round of your history checked against the revealed shoe", () => {
  // the burn: Td turned, ten more (11 cards); then the rounds as baccarat.verify.rules deals them
  const record = () => ({
    shoe: 1, table: "mini-1", table_id: 1, algorithm: Fair.ALGORITHM_2, game: "mini", decks: 1, cut_card: 14,
    commitment: COMMITMENT, server_seed: SERVER_SEED, client_seeds: ["alice", "bob-7"], burned: ORDER.slice(0, 11),
    rounds: [{ round: 1, cards: ["Jc", "6h", "7h", "Js"] }, { round: 2, cards: ["5s", "Jh", "7d", "5c", "2h"] },
      { round: 3, cards: ["6s", "9d", "Kh", "4h", "7s"] }],
  });
  /** Round 2: Player 5s 7d 2h (4), Banker Jh 5c (5) stands on a third card 2: Banker wins; 12.50 on Banker wins
   *  11.87, Dragon Bonus on Banker (a win by 1) loses. */
  const row = () => ({
    cursor: "", table: "mini-1", table_id: 1, round: 2, status: "settled", shoe: 1, time: "", cards_named: [],
    result_message: null, balance_before: null, balance_after: null,
    cards: ["5s", "Jh", "7d", "5c", "2h"], winner: "banker",
    detail: { player_cards: ["5s", "7d", "2h"], banker_cards: ["Jh", "5c"] },
    bets: { banker: { amount: 1250, event: "Banker wins", net: 1187, name: "Banker" },
      dragon_bonus_banker: { amount: 1250, event: "Win by 1-3", net: -1250, name: "Dragon Bonus on Banker" } },
  });

  test("a true history verifies", async () => {
    assert.deepEqual(await Fair.check(row(), record()), { problems: [], note: "", inPlay: false });
  });

  test("round 3: a Player 6 against a Banker three-card 0 pays Dragon Bonus 4 to 1", async () => {
    const third = { ...row(), round: 3, cards: ["6s", "9d", "Kh", "4h", "7s"], winner: "player",
      detail: { player_cards: ["6s", "Kh"], banker_cards: ["9d", "4h", "7s"] },
      bets: { dragon_bonus_player: { amount: 1250, event: "Win by 6", net: 5000, name: "" } } };
    assert.deepEqual((await Fair.check(third, record())).problems, []);
  });

  test("a payout the rules do not give is named", async () => {
    const changed = row();
    changed.bets.banker.net = 1188;
    const { problems } = await Fair.check(changed, record());
    assert.equal(problems.length, 1);
    assert.match(problems[0], /^Banker: your history says Banker wins 11\.88, the seeds give Banker wins 11\.87$/);
  });

  test("cards the seeds do not deal are named", async () => {
    const changed = row();
    changed.cards = ["5s", "Jh", "7d", "5c", "3h"];
    const { problems } = await Fair.check(changed, record());
    assert.ok(problems.some((p) => p.startsWith("cards: your history says")), problems.join("\n"));
  });

  test("a server seed that is not the committed one is named", async () => {
    const changed = { ...record(), commitment: "00".repeat(32) };
    const { problems } = await Fair.check(row(), changed);
    assert.ok(problems.some((p) => p.startsWith("commitment: the record says")), problems.join("\n"));
  });

  test("another client seed shuffles another shoe", async () => {
    const changed = { ...record(), client_seeds: ["alice", "bob-7", "planted"] };
    const { problems } = await Fair.check(row(), changed);
    assert.ok(problems.some((p) => p.startsWith("burned cards: the record says")), problems.join("\n"));
  });

  test("a round the record lacks is named", async () => {
    const { problems } = await Fair.check({ ...row(), round: 9 }, record());
    assert.deepEqual(problems, ["round 9 is not in the shoe's record"]);
  });
});
