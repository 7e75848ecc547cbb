// @ts-check
// Provably fair, in the page: your client seed, the shoe's commitment, and Verify for a round.
//
// This module shares no code with the table's modules on purpose: it deals a round again from the shoe's
// revealed record with Web Crypto's HMAC-SHA256 (or, while a shoe of algorithm 3 is in play, proves the round's
// cards against the shoe's Merkle root with SHA-256) and its own statement of the rules (the tableau, Lucky Draw's
// dealer rule, Block Bonus, the pay tables and the rounding rule) and its own card handling, so a mistake in the
// table's code cannot hide the same mistake here.  The protocol is described in the documentation
// (docs/fairness.md); `baccarat verify` does the same for a whole history.
//
// table.js calls only shoePanel / showShoe (the commitment and your seed on the table) and verifyButton (one per
// history row).  Never builds HTML from data: DOM nodes and text only.  Its words are the catalogues' fair.* keys
// (i18n/en.js, zh-CN.js, zh-Hant.js), read by t() in the page's language when they are shown: that is all it
// takes from the page's other modules.  Importing it touches no document, window or storage (the unit tests,
// tests/js/fair.test.js, import it in Node): they are used only inside the functions that show things.
import { eventName, has, t, wagerName } from "./i18n.js";

/** @typedef {import("api-types").components["schemas"]} Schemas */
/** @typedef {Schemas["ShoeRecord"]} ShoeRecord */
/** @typedef {Schemas["ShoeRound"]} ShoeRound */
/** @typedef {Schemas["CardProof"]} CardProof */
/** @typedef {Schemas["RecallEntry"]} HistoryRow  one round of your history (GET /api/history) */
/** @typedef {Schemas["TableView"]} TableView */
/** @typedef {Schemas["StruckCard"]} StruckCard */
/**
 * One round dealt by the rules: every card taken, in order; each hand's cards ("player" and "banker", or
 * "seat:N" and "dealer"); short when the rules draw a card the cards given lack.
 * @typedef {{ cards: string[], hands: Record<string, string[]>, short: boolean }} Dealt
 */
/** @typedef {{ hands: Record<string, string[]> }} Hands  what the facts and the events read of a round */
/** @typedef {[number, number]} Odds  net odds as [numerator, denominator]: [-1, 1] loses, [0, 1] pushes */
/**
 * Struck cards of a game from a rules file: which wagers they multiply, the cap, and the weight tables of how many
 * cards are struck and of their multipliers ([value, weight], smallest value first).
 * @typedef {{ wagers: string[], cap: number | null, struck: [number, number][], values: [number, number][] }} StrikeFeature
 */
/** @typedef {(dealt: Hands, seat?: string) => string} Classify  a round's event for one wager */
/** @typedef {{ tableId: number, token: () => string | null | undefined, shoe: string | null,
 *              sent: string | null, table: TableView | null, send: (seed: string) => Promise<void> }} PanelState */

export const ALGORITHM = "hmac-sha256-fisher-yates/3";
export const ALGORITHM_2 = "hmac-sha256-fisher-yates/2";
export const ALGORITHM_1 = "hmac-sha256-fisher-yates/1";
const RANKS = "A23456789TJQK";
const SUITS = "cdhs";
const ACE_HIGH = "23456789TJQKA";
const SEED_RULE = /^[\x21-\x7e]{1,64}$/;
const SEEDS_KEY = "fair.seeds"; // localStorage: "table:shoe" -> the client seed this browser gave that shoe
const OWN_KEY = "fair.own-seed"; // localStorage: a seed the player typed (else a fresh random one per shoe)
const PANEL_KEY = "fair.panel"; // localStorage: "open" / "closed", as the player last left the panel
const encoder = new TextEncoder();

// ------------------------------------------------------------------ its words

// Hexadecimal digests and seeds, and the algorithm's name (hmac-sha256-fisher-yates/2), are shown as they are in
// every language: they are what a player compares with other tools.  The words are the catalogues' fair.* keys.

/** A wager's name in Verify's words (fair.wager.<code>), else the registry's. */
function wagerWords(code) {
  return has(`fair.wager.${code}`) ? t(`fair.wager.${code}`) : wagerName(code);
}

/** A pay-table event in Verify's words (fair.event.<wager>.<event>, fair.event.<event>), else the registry's. */
function eventWords(code, event) {
  if (has(`fair.event.${code}.${event}`)) return t(`fair.event.${code}.${event}`);
  return has(`fair.event.${event}`) ? t(`fair.event.${event}`) : eventName(event, code);
}

/** A winner (player, banker, tie) in Verify's words. */
function winnerWords(who) {
  return has(`fair.winner.${who}`) ? t(`fair.winner.${who}`) : String(who);
}

// ------------------------------------------------------------------ small helpers of its own

/**
 * An element with attributes (on* ones are listeners) and children.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, any>} [attrs]
 * @param {...(Node | string | null | undefined)} children
 * @returns {HTMLElementTagNameMap[K]}
 */
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (name === "class") node.className = value;
    else node.setAttribute(name, value);
  }
  node.append(...children.filter((c) => c != null));
  return node;
}

/** @param {Uint8Array} bytes */
function hex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** @param {unknown} text @returns {Uint8Array<ArrayBuffer> | null} the bytes of a hex string, or null */
export function unhex(text) {
  if (typeof text !== "string" || !/^([0-9a-fA-F]{2})+$/.test(text)) return null;
  return new Uint8Array(text.match(/../g).map((pair) => parseInt(pair, 16)));
}

function randomSeed() {
  return hex(crypto.getRandomValues(new Uint8Array(16)));
}

/** @returns {Record<string, string>} */
function seedsGiven() {
  try {
    return JSON.parse(localStorage.getItem(SEEDS_KEY) || "{}");
  } catch {
    return {};
  }
}

function remember(tableId, shoe, seed) {
  const given = seedsGiven();
  given[`${tableId}:${shoe}`] = seed;
  const keys = Object.keys(given);
  for (const old of keys.slice(0, Math.max(0, keys.length - 200))) delete given[old]; // keep the last 200
  localStorage.setItem(SEEDS_KEY, JSON.stringify(given));
}

/** @param {Uint8Array<ArrayBuffer>} bytes */
async function sha256(bytes) {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
}

/** @param {Uint8Array<ArrayBuffer>} bytes */
async function hmacKey(bytes) {
  return crypto.subtle.importKey("raw", bytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}

/** @param {CryptoKey} key @param {Uint8Array<ArrayBuffer>} message */
async function hmac(key, message) {
  return new Uint8Array(await crypto.subtle.sign("HMAC", key, message));
}

// ------------------------------------------------------------------ the shoe from its seeds

/**
 * The shoe's stream key.  Versions 2 and 3: HMAC-SHA256(server seed, hex SHA-256 of the distinct client seeds,
 * sorted, joined by newlines); version 1: the server seed itself.
 * @param {{ algorithm: string, client_seeds?: string[] }} record
 * @param {Uint8Array<ArrayBuffer>} seed the server seed
 * @returns {Promise<Uint8Array<ArrayBuffer>>}
 */
export async function streamKey(record, seed) {
  if (record.algorithm === ALGORITHM_1) return seed;
  const seeds = [...new Set(record.client_seeds || [])].sort();
  const combined = hex(await sha256(encoder.encode(seeds.join("\n"))));
  return hmac(await hmacKey(seed), encoder.encode(combined));
}

/**
 * The stream: block k = HMAC-SHA256(key, k as 8 bytes big-endian), read as 32-bit big-endian words; an index
 * below n by rejection sampling.
 * @param {Uint8Array<ArrayBuffer>} key
 * @returns {Promise<(bound: number) => Promise<number>>}
 */
async function stream(key) {
  const hashed = await hmacKey(key);
  let block = 0;
  /** @type {number[]} */
  let words = [];
  async function word() {
    if (!words.length) {
      const counter = new Uint8Array(8);
      new DataView(counter.buffer).setUint32(4, block++);
      const digest = await hmac(hashed, counter);
      const view = new DataView(digest.buffer);
      words = Array.from({ length: 8 }, (_, i) => view.getUint32(4 * i));
    }
    return words.shift();
  }
  return async function below(bound) {
    const limit = 2 ** 32 - (2 ** 32 % bound);
    let w = await word();
    while (w >= limit) w = await word();
    return w % bound;
  };
}

/**
 * The shoe's card order before the burn: `decks` decks in order (each suit c d h s, ranks A to K), shuffled by
 * Fisher-Yates from the last position down with the stream of `key`.
 * @param {Uint8Array<ArrayBuffer>} key
 * @param {number} decks
 * @returns {Promise<string[]>}
 */
export async function shoeOrder(key, decks) {
  const below = await stream(key);
  const order = [];
  for (let d = 0; d < decks; d++) for (const suit of SUITS) for (const rank of RANKS) order.push(rank + suit);
  for (let i = order.length - 1; i > 0; i--) {
    const j = await below(i + 1);
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

/**
 * Step 9, struck cards: the key HMAC-SHA256(stream key, "strike" + the coup's first position as 2 bytes
 * big-endian); how many cards, then each card (an index into the deck not yet struck) and its multiplier, each
 * located in its weight table from the smallest value up.
 * @param {Uint8Array<ArrayBuffer>} key the shoe's stream key
 * @param {number} position the coup's first card's position in the shoe
 * @param {StrikeFeature} feature
 * @returns {Promise<StruckCard[]>}
 */
export async function strikeOf(key, position, feature) {
  const message = new Uint8Array([...encoder.encode("strike"), position >> 8, position & 255]);
  const below = await stream(await hmac(await hmacKey(key), message));
  /** @param {[number, number][]} table */
  const located = async (table) => {
    let index = await below(table.reduce((sum, [, weight]) => sum + weight, 0));
    for (const [value, weight] of table) {
      if (index < weight) return value;
      index -= weight;
    }
    return null;
  };
  const deck = [];
  for (const suit of SUITS) for (const rank of RANKS) deck.push(rank + suit);
  const struck = [];
  for (let n = await located(feature.struck); n > 0; n--) {
    const [card] = deck.splice(await below(deck.length), 1);
    struck.push({ card, multiplier: await located(feature.values) });
  }
  return struck;
}

/**
 * What a strike multiplies a winning pay by: the winning hand's struck cards (both hands on a tie), capped.
 * @param {StruckCard[] | null | undefined} struck
 * @param {Hands} dealt
 * @param {StrikeFeature} feature
 */
export function strikeFactor(struck, dealt, feature) {
  const of = Object.fromEntries((struck || []).map((s) => [s.card, s.multiplier]));
  const who = winner(dealt);
  const cards = who === "tie" ? [...dealt.hands.player, ...dealt.hands.banker] : dealt.hands[who];
  const product = cards.reduce((p, card) => p * (of[card] || 1), 1);
  return feature.cap == null ? product : Math.min(product, feature.cap);
}

// ------------------------------------------------------------------ algorithm 3: a card proven

/**
 * Whether `proof` proves `card` at `position` of a shoe of `size` cards against the Merkle `root`.  Leaf i =
 * SHA-256(0x00, i as 2 bytes big-endian, the card's 2 ASCII characters, its 32-byte salt); a node = SHA-256(0x01,
 * left, right); the tree has RFC 6962's shape, and a proof is the card's audit path, climbed as RFC 9162
 * (2.1.3.2) says.
 * @param {string} root @param {number} size @param {number} position @param {string} card
 * @param {CardProof | null | undefined} proof
 */
export async function proves(root, size, position, card, proof) {
  const salt = proof && unhex(proof.salt);
  const path = proof && Array.isArray(proof.path) ? proof.path.map(unhex) : null;
  if (salt?.length !== 32 || !path || path.some((p) => p?.length !== 32)) return false;
  if (!(position >= 0 && position < size) || !/^[A2-9TJQK][cdhs]$/.test(card)) return false;
  let node = await sha256(new Uint8Array([0, position >> 8, position & 255, ...encoder.encode(card), ...salt]));
  let index = position;
  let last = size - 1;
  for (const sibling of path) {
    if (last === 0) return false;
    if (index % 2 === 1 || index === last) {
      node = await sha256(new Uint8Array([1, ...sibling, ...node]));
      while (index % 2 === 0 && index !== 0) {
        index >>= 1;
        last >>= 1;
      }
    } else {
      node = await sha256(new Uint8Array([1, ...node, ...sibling]));
    }
    index >>= 1;
    last >>= 1;
  }
  return last === 0 && hex(node) === String(root).toLowerCase();
}

// ------------------------------------------------------------------ the rules, written out again

/**
 * A card's baccarat points: Ace 1, 2-9 their face, tens and pictures nothing.  A card the record lacks (a changed
 * record can make the rules draw one more) counts nothing here: the deal that needed it is named short
 * (provenRound), never a crash of the check.
 * @param {unknown} card
 */
export function points(card) {
  if (typeof card !== "string") return 0;
  const value = RANKS.indexOf(card[0]) + 1;
  return value <= 9 ? value : 0;
}

/** A hand's total: the last digit of the sum of its points. @param {string[]} cards */
export function total(cards) {
  return cards.reduce((sum, card) => sum + points(card), 0) % 10;
}

/** Cards burned at the start of a shoe: the turned card and as many more as it counts (tens ten). @param {string} first */
export function burnCount(first) {
  return 1 + (points(first) || 10);
}

/** The Banker's rule: on 0-5 when the Player stood (third null); else by the Player's third card's points. */
function bankerDraws(banker, third) {
  if (third === null) return banker <= 5;
  if (banker <= 2) return true;
  if (banker === 3) return third !== 8;
  if (banker === 4) return third >= 2 && third <= 7;
  if (banker === 5) return third >= 4 && third <= 7;
  if (banker === 6) return third === 6 || third === 7;
  return false;
}

/**
 * A punto banco coup from the cards coming out of the shoe: Player, Banker, Player, Banker, then the thirds by
 * the tableau (no draw on a natural; the Player draws on 0-5; the Banker by its total and the Player's third).
 * @param {string[]} cards
 * @returns {Dealt}
 */
export function dealPuntoBanco(cards) {
  const player = [cards[0], cards[2]];
  const banker = [cards[1], cards[3]];
  let taken = 4;
  if (total(player) < 8 && total(banker) < 8) {
    let third = null;
    if (total(player) <= 5) {
      player.push(cards[taken]);
      third = points(cards[taken]);
      taken++;
    }
    if (bankerDraws(total(banker), third)) {
      banker.push(cards[taken]);
      taken++;
    }
  }
  return { cards: cards.slice(0, taken), hands: { player, banker }, short: taken > cards.length };
}

/**
 * A Lucky Draw round: one card to each seat, the dealer's up card, a second card to each seat; then (complete)
 * each seat that drew takes one card, in seat order, then the dealer's second card and a third on 0-4.  A round
 * voided at its decisions is not complete: it stops after the first deal.
 * @param {string[]} cards @param {number[]} seats @param {number[]} drew @param {boolean} complete
 * @returns {Dealt}
 */
export function dealLuckyDraw(cards, seats, drew, complete) {
  /** @type {Record<string, string[]>} */
  const hands = { dealer: [] };
  for (const seat of seats) hands[`seat:${seat}`] = [];
  let order = [...seats.map((s) => `seat:${s}`), "dealer", ...seats.map((s) => `seat:${s}`)];
  if (complete) order = [...order, ...seats.filter((s) => drew.includes(s)).map((s) => `seat:${s}`), "dealer"];
  order.forEach((who, i) => {
    hands[who].push(cards[i]);
  });
  let taken = order.length;
  if (complete && total(hands.dealer) <= 4) hands.dealer.push(cards[taken++]);
  return { cards: cards.slice(0, taken), hands, short: taken > cards.length };
}

/** @type {Odds} */
const LOSE = [-1, 1];
/** @type {Odds} */
const PUSH = [0, 1];
/** @type {Record<string, Odds>} */
const SIDE = { "Player wins": [1, 1], Tie: PUSH, "Banker wins": LOSE };
/** @type {Record<string, Odds>} */
const TIE = { Tie: [8, 1], "Player wins": LOSE, "Banker wins": LOSE };
/** @type {Record<string, Odds>} */
const DRAGON_BONUS = {
  "Natural win": [1, 1], "Win by 9": [30, 1], "Win by 8": [10, 1], "Win by 7": [6, 1], "Win by 6": [4, 1],
  "Win by 5": [2, 1], "Win by 4": [1, 1], "Natural tie": PUSH, "Win by 1-3": LOSE, "Tie without natural": LOSE,
  "Hand loses": LOSE,
};
/** @type {Record<string, Odds>} */
const BLOCK = { "Ultimate Block": [35, 1], "Pair Block": [10, 1], "Flush Block": [5, 1], "Normal Block": [2, 1],
  "No Block": LOSE };
/** @type {Record<string, Odds>} */
const ENTER = { "Player wins": [1, 1], Tie: PUSH, "Dealer wins": LOSE };

/** Punto banco's winner: "player", "banker" or "tie". @param {Hands} d */
export function winner(d) {
  const p = total(d.hands.player);
  const b = total(d.hands.banker);
  return p > b ? "player" : b > p ? "banker" : "tie";
}
/** @param {Hands} d */
function sideEvent(d) {
  return { player: "Player wins", banker: "Banker wins", tie: "Tie" }[winner(d)];
}
/** @param {Hands} d */
function natural(d) {
  return ["player", "banker"].some((h) => d.hands[h].length === 2 && total(d.hands[h]) >= 8);
}
/** @param {Hands} d @param {string} hand @param {number} points_ */
function threeCard(d, hand, points_) {
  return winner(d) === hand && d.hands[hand].length === 3 && total(d.hands[hand]) === points_;
}
/** @param {string} side @returns {Classify} */
function dragonBonus(side) {
  return (d) => {
    const w = winner(d);
    if (w === "tie") return natural(d) ? "Natural tie" : "Tie without natural";
    if (w !== side) return "Hand loses";
    if (d.hands[side].length === 2 && total(d.hands[side]) >= 8) return "Natural win";
    const margin = Math.abs(total(d.hands.player) - total(d.hands.banker));
    return margin >= 4 ? `Win by ${margin}` : "Win by 1-3";
  };
}
/** @param {Hands} d @param {string} seat */
function seatResult(d, seat) {
  const mine = total(d.hands[seat]);
  const dealer = total(d.hands.dealer);
  return mine > dealer ? "player" : dealer > mine ? "dealer" : "tie";
}
/** @type {Classify} */
function enterEvent(d, seat) {
  return { player: "Player wins", dealer: "Dealer wins", tie: "Tie" }[seatResult(d, seat)];
}
/** @type {Classify} */
function drawEvent(d, seat) {
  if (seatResult(d, seat) !== "player") return enterEvent(d, seat);
  return { 9: "Lucky 9 (3-card 9)", 8: "Lucky 8 (3-card 8)", 7: "Lucky 7 (3-card 7)" }[total(d.hands[seat])]
    || "Win with 6 or less";
}
/** @type {Classify} */
function blockEvent(d, seat) {
  const [first, second] = d.hands[seat];
  const up = d.hands.dealer[0];
  const higher = [first, second].filter((c) => c[1] === up[1] && ACE_HIGH.indexOf(c[0]) > ACE_HIGH.indexOf(up[0]));
  if (!higher.length) return "No Block";
  if (first[0] === second[0]) return first[1] === second[1] && second[1] === up[1] ? "Ultimate Block" : "Pair Block";
  return first[1] === second[1] ? "Flush Block" : "Normal Block";
}
/** @param {Odds} lucky7 @returns {Record<string, [Classify, Record<string, Odds>]>} */
function lucky(lucky7) {
  return {
    enter: [enterEvent, ENTER],
    draw: [drawEvent, { "Lucky 9 (3-card 9)": [3, 1], "Lucky 8 (3-card 8)": [2, 1], "Lucky 7 (3-card 7)": lucky7,
      "Win with 6 or less": [1, 1], Tie: PUSH, "Dealer wins": LOSE }],
    block_bonus: [blockEvent, BLOCK],
  };
}
/** Games from rules files that strike cards: their key in WAGERS -> the feature. @type {Record<string, StrikeFeature>} */
const STRUCK = {};
/**
 * Each game's wagers: code -> [how the round names its event, the pay table: event -> net odds].  Mini: Banker
 * 19 to 20 (1 to 1 less 5%).  EZ: a Banker win with a three-card 7 pushes.  Lucky Draw: Draw's Lucky 7 pays 2 to 1
 * (pay table 1) or 3 to 2 (pay table 2).  A game from a rules file is added when Verify reads its file.
 * @type {Record<string, Record<string, [Classify, Record<string, Odds>]>>}
 */
const WAGERS = {
  mini: { player: [sideEvent, SIDE], banker: [sideEvent, { "Banker wins": [19, 20], Tie: PUSH, "Player wins": LOSE }],
    tie: [sideEvent, TIE], dragon_bonus_player: [dragonBonus("player"), DRAGON_BONUS],
    dragon_bonus_banker: [dragonBonus("banker"), DRAGON_BONUS] },
  ez: { player: [sideEvent, SIDE],
    banker: [(d) => (threeCard(d, "banker", 7) ? "Dragon 7 (Banker pushes)" : sideEvent(d)),
      { "Banker wins": [1, 1], "Dragon 7 (Banker pushes)": PUSH, Tie: PUSH, "Player wins": LOSE }],
    tie: [sideEvent, TIE],
    dragon_7: [(d) => (threeCard(d, "banker", 7) ? "Dragon 7" : "No Dragon 7"), { "Dragon 7": [40, 1], "No Dragon 7": LOSE }],
    panda_8: [(d) => (threeCard(d, "player", 8) ? "Panda 8" : "No Panda 8"), { "Panda 8": [25, 1], "No Panda 8": LOSE }] },
  "lucky-draw/1": lucky([2, 1]),
  "lucky-draw/2": lucky([3, 2]),
};

/**
 * The facts of a punto banco coup, as a rules file's `when` reads them (docs/rules-files.md, "The facts"): the
 * winner, totals, naturals, pairs, suits, and the facts of the cards themselves.
 * @param {Hands} d
 * @returns {Record<string, string | number | boolean>}
 */
export function facts(d) {
  const [player, banker] = [d.hands.player, d.hands.banker];
  const [p, b] = [total(player), total(banker)];
  const win = winner(d);
  const pn = total(player.slice(0, 2)) >= 8;
  const bn = total(banker.slice(0, 2)) >= 8;
  const pp = player[0][0] === player[1][0];
  const bp = banker[0][0] === banker[1][0];
  const ps = player[0][1] === player[1][1];
  const bs = banker[0][1] === banker[1][1];
  return { winner: win, player_total: p, banker_total: b, margin: Math.abs(p - b), player_natural: pn,
    banker_natural: bn, natural: pn || bn, player_cards: player.length, banker_cards: banker.length,
    cards: player.length + banker.length, winning_total: win === "banker" ? b : p, player_pair: pp,
    banker_pair: bp, pairs: Number(pp) + Number(bp), twin_pairs: pp && bp && player[0][0] === banker[0][0],
    player_suited: ps, banker_suited: bs, player_perfect_pair: pp && ps, banker_perfect_pair: bp && bs,
    perfect_pairs: Number(pp && ps) + Number(bp && bs), totals_sum: p + b, ...cardFacts(player, banker) };
}
// The facts of the cards themselves (docs/rules-files.md, "The facts"): each card by position, counts over all the
// cards dealt or the first four, combinations of ranks, suits and identical cards.
const SUIT_WORDS = { c: "clubs", d: "diamonds", h: "hearts", s: "spades" };
/** @param {string} card */
const red = (card) => "dh".includes(card[1]);
/** @param {string[]} cards */
const oneColour = (cards) => new Set(cards.map(red)).size === 1;
/** @param {string[]} cards @param {(card: string) => string} key */
const most = (cards, key) => {
  /** @type {Record<string, number>} */
  const tally = {};
  for (const card of cards) tally[key(card)] = (tally[key(card)] || 0) + 1;
  return Object.values(tally).sort((x, y) => y - x);
};
/** @param {string[]} player @param {string[]} banker */
function cardFacts(player, banker) {
  /** @type {Record<string, string | number | boolean>} */
  const found = {};
  for (const [hand, cards] of /** @type {[string, string[]][]} */ ([["player", player], ["banker", banker]])) {
    ["first", "second", "third"].forEach((nth, i) => {
      const card = cards[i];
      found[`${hand}_${nth}_rank`] = card ? card[0] : "none";
      found[`${hand}_${nth}_suit`] = card ? SUIT_WORDS[card[1]] : "none";
      found[`${hand}_${nth}_colour`] = card ? (red(card) ? "red" : "black") : "none";
      found[`${hand}_${nth}_face`] = Boolean(card) && "JQK".includes(card[0]);
    });
    found[`${hand}_one_colour`] = oneColour(cards);
  }
  /** @type {[string, string[]][]} */
  const groups = [["", [...player, ...banker]], ["_first_four", [...player.slice(0, 2), ...banker.slice(0, 2)]]];
  for (const [suffix, cards] of groups) {
    /** @param {(card: string) => boolean} test */
    const count = (test) => cards.filter(test).length;
    found[`count_red${suffix}`] = count(red);
    found[`count_black${suffix}`] = count((c) => !red(c));
    found[`count_face${suffix}`] = count((c) => "JQK".includes(c[0]));
    found[`one_colour${suffix}`] = oneColour(cards);
    for (const r of RANKS) found[`count_rank_${r.toLowerCase()}${suffix}`] = count((c) => c[0] === r);
    for (const [letter, word] of Object.entries(SUIT_WORDS)) found[`count_suit_${word}${suffix}`] = count((c) => c[1] === letter);
    for (const r of RANKS) {
      for (const letter of SUITS) found[`count_card_${r.toLowerCase()}${letter}${suffix}`] = count((c) => c === r + letter);
    }
    const ranks = [...most(cards, (c) => c[0]), 0, 0];
    found[`most_of_a_rank${suffix}`] = ranks[0];
    found[`rank_pairs${suffix}`] = ranks.filter((n) => n === 2).length;
    found[`rank_trips${suffix}`] = ranks.filter((n) => n === 3).length;
    found[`rank_quads${suffix}`] = ranks.filter((n) => n >= 4).length;
    found[`full_house${suffix}`] = ranks[0] >= 3 && ranks[1] >= 2;
    found[`most_of_a_suit${suffix}`] = most(cards, (c) => c[1])[0];
    found[`most_of_a_card${suffix}`] = most(cards, (c) => c)[0];
  }
  return found;
}

/**
 * A rules file's pays as net odds: "11" (11 to 1), "19/20", "push", "lose" / "loses", and "N for 1" (the stake
 * among the N: "9 for 1" is 8 to 1, "3/2 for 1" is 1 to 2).
 * @param {unknown} pays
 * @returns {Odds}
 */
export function odds(pays) {
  const word = String(pays).trim().toLowerCase();
  if (word === "push") return PUSH;
  if (word === "lose" || word === "loses") return LOSE;
  const forOne = word.match(/^(\d+)(?:\/(\d+))?\s+for\s+1$/);
  if (forOne) {
    const den = Number(forOne[2] || 1);
    return [Number(forOne[1]) - den, den];
  }
  const [num, den] = word.split("/").map(Number);
  return [num, den || 1];
}

/** Whether a rules file's `when` holds for the facts found. @param {Record<string, unknown>} when @param {Record<string, unknown>} found */
function holds(when, found) {
  return Object.entries(when || {}).every(([name, wanted]) =>
    (Array.isArray(wanted) ? wanted : [wanted]).some((v) => typeof v === typeof found[name] && v === found[name]));
}

/**
 * A game from a rules file: its rules read from the file's canonical content (its TOML as JSON), fetched by the
 * digest the shoe's record names and checked against it; its wagers added to WAGERS.  Its key there, or null (a
 * problem named) when the content is not the one the digest names.
 * @param {ShoeRecord} record @param {string[]} problems
 */
async function rulesOf(record, problems) {
  const response = await fetch(`/api/games/definition?digest=${encodeURIComponent(record.definition)}`);
  if (!response.ok) throw new Error(t("fair.not_fetched", { status: response.status }));
  const { content } = await response.json();
  const gives = hex(await sha256(encoder.encode(content)));
  if (gives !== record.definition) {
    problems.push(t("fair.bad_definition", { digest: record.definition.slice(0, 16), gives: gives.slice(0, 16) }));
    return null;
  }
  const rules = JSON.parse(content);
  if (rules.game.procedure === "lucky_draw") return `lucky-draw/${rules.game.paytable || 1}`;
  const key = `${rules.game.code}@${gives.slice(0, 16)}`;
  if (rules.multipliers) {
    /** @returns {[number, number][]} */
    const table = (rows, name) => rows.map((row) => [row[name], row.weight]).sort((a, b) => a[0] - b[0]);
    STRUCK[key] = { wagers: rules.multipliers.wagers, cap: rules.multipliers.cap ?? null,
      struck: table(rules.multipliers.struck, "cards"), values: table(rules.multipliers.values, "multiplier") };
  }
  WAGERS[key] = Object.fromEntries(rules.wagers.map((wager) => {
    /** @type {Record<string, Odds>} */
    const pays = {};
    for (const event of wager.events) if (!(event.event in pays)) pays[event.event] = odds(event.pays);
    /** @type {Classify} */
    const classify = (d) => {
      const found = facts(d);
      return wager.events.find((event) => holds(event.when, found)).event;
    };
    return [wager.code, [classify, pays]];
  }));
  return key;
}

/**
 * One wager settled: its event and net result in minor units (won, 0 on a push, minus the stake on a loss).  A
 * win that is not a whole number of cents is rounded down to the cent (12.50 on Banker at 19 to 20 wins 11.87);
 * `factor` (struck cards) multiplies a win.
 * @param {string} game "mini", "ez", "lucky-draw/1", "lucky-draw/2" (or a rules file's key, once read)
 * @param {string} code the wager
 * @param {number} stake minor units
 * @param {Hands} dealt
 * @param {string} [seat] Lucky Draw: the hand that is the player's ("seat:N")
 * @param {number} [factor]
 * @returns {[string, number]}
 */
export function settle(game, code, stake, dealt, seat, factor = 1) {
  const [classify, pays] = WAGERS[game][code];
  const event = classify(dealt, seat);
  const [num, den] = pays[event];
  return [event, num === -1 ? -stake : Math.floor((stake * num * (num > 0 ? factor : 1)) / den)];
}

// ------------------------------------------------------------------ one round, checked

/** @param {number} minor */
function cents(minor) {
  return (minor / 100).toFixed(2);
}
/** @param {StruckCard[] | null | undefined} struck */
function showStrike(struck) {
  return (struck || []).map((s) => `${showCards([s.card])} ×${s.multiplier}`).join(" ") || "—";
}
function same(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}
/** @param {unknown} value */
function show(value) {
  return Array.isArray(value) ? value.join(" ") : String(value);
}
// cards as the table shows them ("Kc" -> "K♣", "Td" -> "10♦"): the same in every language
const SUIT_SIGNS = { c: "♣", d: "♦", h: "♥", s: "♠" };
/** @param {unknown} value */
function showCards(value) {
  if (!Array.isArray(value)) return show(value);
  return value.map((card) => (/^[A2-9TJQK][cdhs]$/.test(card) ? (card[0] === "T" ? "10" : card[0]) + SUIT_SIGNS[card[1]] : card))
    .join(" ");
}

/**
 * A round of a shoe dealt by the rules from the cards given (the rest of the shoe, or the round's own cards).
 * @param {ShoeRecord} record @param {ShoeRound} entry @param {string[]} cards
 */
function dealEntry(record, entry, cards) {
  return record.game === "lucky-draw"
    ? dealLuckyDraw(cards, entry.seats || [], entry.void ? [] : entry.drew || [], !("void" in entry))
    : dealPuntoBanco(cards);
}

/**
 * Deal the shoe of `record` again up to round `number`; problems found on the way are named.
 * @param {ShoeRecord} record @param {number} number @param {string[]} problems
 * @returns {Promise<{ dealt: Dealt, entry: ShoeRound, key?: Uint8Array<ArrayBuffer>, position?: number } | null>}
 */
async function dealtRound(record, number, problems) {
  const seed = unhex(record.server_seed);
  if (!seed) {
    problems.push(t("fair.unreadable"));
    return null;
  }
  const digest = hex(await sha256(seed));
  if (digest !== String(record.commitment).toLowerCase()) {
    problems.push(t("fair.bad_commitment", { said: record.commitment, digest }));
  }
  const key = await streamKey(record, seed);
  const order = await shoeOrder(key, record.decks);
  let position = burnCount(order[0]);
  if (record.burned && !same(record.burned, order.slice(0, position))) {
    problems.push(t("fair.bad_burn", { said: showCards(record.burned), gives: showCards(order.slice(0, position)) }));
  }
  for (const entry of record.rounds) {
    const dealt = dealEntry(record, entry, order.slice(position));
    if (entry.round === number) return { dealt, entry, key, position };
    position += dealt.cards.length;
  }
  problems.push(t("fair.no_round", { round: number }));
  return null;
}

/**
 * A shoe of algorithm 3 in play (no seed yet): the burn (its turned card) and each round's cards proven against
 * the Merkle root at the positions the deal gives, up to round `number`, which is dealt by the rules from its
 * proven cards.
 * @param {ShoeRecord} record @param {number} number @param {string[]} problems
 * @returns {Promise<{ dealt: Dealt, entry: ShoeRound, key?: undefined, position?: undefined } | null>}
 */
async function provenRound(record, number, problems) {
  const size = 52 * record.decks;
  const root = record.merkle_root;
  /** @param {string[]} cards @param {CardProof[] | undefined} proofs @param {number} start */
  async function prove(cards, proofs, start) {
    for (let k = 0; k < cards.length; k++) {
      const proof = (proofs || [])[k];
      const position = proof ? proof.position : null;
      if (position !== start + k) {
        problems.push(t("fair.bad_position", { said: position, gives: start + k }));
      } else if (!(await proves(root, size, position, cards[k], proof))) {
        problems.push(t("fair.bad_proof", { card: showCards([cards[k]]), position }));
      }
    }
  }
  let position;
  if (Array.isArray(record.burned)) {
    await prove(record.burned, record.burn_proof, 0);
    position = record.burned.length;
  } else {
    await prove([record.turned], [record.turned_proof], 0);
    position = burnCount(String(record.turned));
  }
  for (const entry of record.rounds) {
    await prove(entry.cards, entry.proof, position);
    position += entry.cards.length;
    if (entry.round !== number) continue;
    const cards = entry.cards;
    const dealt = dealEntry(record, entry, cards);
    const short = dealt.short; // the rules draw a card the round lacks
    if (short) problems.push(t("fair.bad_deal_short", { said: showCards(cards) }));
    else if (dealt.cards.length !== cards.length) {
      problems.push(t("fair.bad_deal", { said: showCards(cards), gives: showCards(dealt.cards) }));
    }
    // a hand short of a card has no total to compare with your history: the mismatch above says it all
    return short ? null : { dealt, entry };
  }
  problems.push(t("fair.no_round", { round: number }));
  return null;
}

/**
 * Compare a round of your history (GET /api/history) with the round the revealed shoe deals (or, for a shoe in
 * play, the round its proven cards give).  Returns the mismatches, a note on your client seed, and whether the
 * round was proven in play.  Reads this browser's storage (the seeds it gave), and fetches a game's rules file.
 * @param {HistoryRow} row @param {ShoeRecord} record
 * @returns {Promise<{ problems: string[], note: string, inPlay: boolean }>}
 */
export async function check(row, record) {
  /** @type {string[]} */
  const problems = [];
  const inPlay = record.server_seed == null && record.algorithm === ALGORITHM && !!record.merkle_root;
  const given = seedsGiven()[`${row.table_id}:${row.shoe}`];
  let note = "";
  if ((record.algorithm === ALGORITHM || record.algorithm === ALGORITHM_2) && given) {
    // only a note: another tab or device of yours may have set another seed before you bet
    note = (record.client_seeds || []).includes(given) ? t("fair.seed_in", { seed: given })
      : t("fair.seed_not_in", { seed: given, seeds: show(record.client_seeds || []) });
  }
  const found = inPlay ? await provenRound(record, row.round, problems) : await dealtRound(record, row.round, problems);
  if (!found) return { problems, note, inPlay };
  const { dealt, entry } = found;
  const game = record.definition ? await rulesOf(record, problems)
    : record.game === "lucky-draw" ? `lucky-draw/${record.paytable || 1}` : record.game;
  if (!game) return { problems, note, inPlay };
  /** @param {string} name @param {unknown} said @param {unknown} gives @param {(value: any) => string} [display] */
  const claim = (name, said, gives, display = show) => {
    if (!same(said, gives)) {
      problems.push(t(inPlay ? "fair.proven_claim" : "fair.claim", { field: name, said: display(said), gives: display(gives) }));
    }
  };
  claim(t("fair.field.cards"), row.cards, dealt.cards, showCards);
  const voided = "void" in entry;
  const seat = row.seat || "";
  const detail = row.detail || {};
  if (!voided && game.startsWith("lucky-draw")) {
    claim(t("fair.field.your_cards"), detail.hands?.[seat], dealt.hands[seat], showCards);
    claim(t("fair.field.dealer_cards"), detail.hands?.dealer, dealt.hands.dealer, showCards);
  } else if (!voided) {
    claim(t("fair.field.player"), detail.player_cards, dealt.hands.player, showCards);
    claim(t("fair.field.banker"), detail.banker_cards, dealt.hands.banker, showCards);
    claim(t("fair.field.result"), row.winner, winner(dealt), winnerWords);
  }
  // struck cards: drawn again from the seeds (in play, before the seed: those your history shows)
  const feature = STRUCK[game];
  let factor = 1;
  if (feature && !voided) {
    const struck = found.key ? await strikeOf(found.key, found.position, feature) : detail.strike;
    claim(t("fair.field.strike"), showStrike(detail.strike), showStrike(struck));
    factor = strikeFactor(struck, dealt, feature);
  }
  for (const [code, bet] of Object.entries(row.bets)) {
    const multiplied = feature?.wagers.includes(code) ? factor : 1;
    const [event, net] = voided && code !== "block_bonus" ? ["Void", 0]
      : settle(game, code, bet.amount, dealt, seat, multiplied);
    claim(wagerWords(code), [bet.event, bet.net], [event, net],
      ([what, amount]) => `${eventWords(code, what)} ${cents(amount)}`);
  }
  return { problems, note, inPlay };
}

/** @param {HistoryRow} row @param {HTMLElement} output */
async function verify(row, output) {
  output.className = "fair-result";
  output.textContent = t("fair.checking");
  try {
    // a shoe in play (algorithm 3) answers its record as it stands: the round is proven now
    const response = await fetch(`/api/tables/${row.table_id}/shoes/${row.shoe}?in_play=true`);
    if (response.status === 409) {
      output.className = "fair-result pending";
      output.textContent = t("fair.pending", { shoe: row.shoe, table: row.table });
      return;
    }
    if (!response.ok) throw new Error(t("fair.not_fetched", { status: response.status }));
    const { problems, note, inPlay } = await check(row, await response.json());
    output.className = `fair-result ${problems.length ? "mismatch" : "verified"}`;
    output.replaceChildren(problems.length ? t("fair.mismatch") : t("fair.verified"),
      problems.length ? el("ul", {}, ...problems.map((p) => el("li", {}, p)))
        : t(inPlay ? "fair.proven_rest" : "fair.verified_rest"), note);
  } catch (error) {
    output.className = "fair-result mismatch";
    output.textContent = t("fair.could_not", { message: error.message });
  }
}

/**
 * The answer goes in a row of its own under the round's row (the whole width of the table), or next to the button
 * when it is not in a table.
 * @param {HTMLElement} button
 * @returns {HTMLElement}
 */
function answerBox(button) {
  const row = button.closest("tr");
  if (!row) return button.parentElement.querySelector(".fair-result");
  let answer = /** @type {HTMLElement | null} */ (row.nextElementSibling);
  if (!answer?.classList.contains("fair-answer")) {
    answer = el("tr", { class: "fair-answer" }, el("td", { colspan: String(row.cells.length) }));
    row.after(answer);
  }
  answer.hidden = false;
  const cell = answer.firstElementChild;
  if (!cell.firstElementChild) cell.append(el("div", { class: "fair-result", "aria-live": "polite" }));
  return /** @type {HTMLElement} */ (cell.firstElementChild);
}

/**
 * A Verify button for one round of your history; its answer appears under the round.
 * @param {HistoryRow} row
 * @returns {HTMLElement}
 */
export function verifyButton(row) {
  if (row.shoe == null || row.status === "refunded" || !row.cards.length) {
    return el("span", { class: "fair-result" }, row.cards.length ? "" : t("fair.no_cards"));
  }
  const button = el("button", { type: "button", class: "fair-verify", "data-verify": row.round,
    "aria-label": t("fair.verify_name", { round: row.round }),
    onclick: (event) => {
      event.stopPropagation();
      verify(row, answerBox(button));
    } }, t("fair.verify"));
  return el("span", { class: "fair-cell" }, button, el("span", { class: "fair-result" }));
}

// ------------------------------------------------------------------ the commitment and your seed

/** Each panel's state (shoePanel's), for showShoe. @type {WeakMap<HTMLElement, PanelState>} */
const panels = new WeakMap();

/**
 * The table's provably fair panel: the shoe's commitment and your client seed.  A <details> that opens by itself
 * on a wide screen and stays one line on a phone (the cards and the chips first), until the player opens or
 * closes it (remembered).
 * @param {number} tableId
 * @param {() => string | null | undefined} token the player's session token, when there is one
 * @returns {HTMLDetailsElement}
 */
export function shoePanel(tableId, token) {
  const commitment = el("code", { class: "fair-commitment", id: "fair-commitment" });
  const state = el("span", { class: "fair-state", id: "fair-state" });
  const input = el("input", { id: "client-seed", maxlength: "64", spellcheck: "false", autocomplete: "off" });
  const note = el("span", { class: "fair-note", id: "client-seed-note", role: "status" });
  const summary = el("summary", {}, el("b", {}, t("fair.title")), el("span", { class: "fair-summary" }, ` · ${t("fair.summary")}`));
  const panel = el("details", { class: "fair", id: "fair" }, summary,
    el("div", {}, t("fair.commitment"), commitment),
    el("div", { id: "fair-root-line", hidden: "" }, t("fair.merkle_root"), el("code", { class: "fair-commitment", id: "fair-root" })),
    el("div", { class: "fair-seed" }, el("label", { for: "client-seed" }, t("fair.seed_label")), input,
      el("button", { type: "button", id: "new-client-seed", "aria-label": t("fair.new_seed_name"), onclick: () => fresh() },
        t("fair.new_seed")),
      el("button", { type: "button", id: "set-client-seed", onclick: () => own() }, t("fair.use_seed"))),
    el("div", {}, state, " ", note));
  const remembered = localStorage.getItem(PANEL_KEY);
  panel.open = remembered ? remembered === "open" : !window.matchMedia("(max-width: 600px)").matches;
  // a click on the summary (or Enter / Space on it) toggles the panel after this handler: remember the new state
  summary.addEventListener("click", () => localStorage.setItem(PANEL_KEY, panel.open ? "closed" : "open"));

  /** @param {string} seed */
  async function send(seed) {
    /** @type {Record<string, string>} */
    const headers = { "Content-Type": "application/json" };
    if (token()) headers.Authorization = `Bearer ${token()}`;
    const response = await fetch("/api/fairness/client-seed", { method: "PUT", headers, body: JSON.stringify({ seed }) });
    const data = await response.json().catch(() => null);
    if (!response.ok) {
      const detail = data && Array.isArray(data.detail) ? data.detail.map((d) => d.problem).join("; ") : data?.detail;
      throw new Error(t("fair.seed_refused", { detail }));
    }
    fair.sent = seed;
    input.value = seed;
    const shoe = fair.table?.shoe;
    if (shoe?.taking_client_seeds) remember(tableId, shoe.number, seed);
  }
  /** @type {PanelState} */
  const fair = { tableId, token, shoe: null, sent: null, table: null, send };
  panels.set(panel, fair);
  async function fresh() {
    localStorage.removeItem(OWN_KEY);
    try {
      await send(randomSeed());
      note.textContent = t("fair.fresh");
    } catch (error) {
      note.textContent = error.message;
    }
  }
  async function own() {
    const seed = input.value.trim();
    if (!SEED_RULE.test(seed)) {
      note.textContent = t("fair.seed_rule");
      return;
    }
    try {
      await send(seed);
      localStorage.setItem(OWN_KEY, seed);
      note.textContent = t("fair.own");
    } catch (error) {
      note.textContent = error.message;
    }
  }
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter") own();
  });
  // the seed you have now, shown while the table's shoe no longer takes seeds (one that does gets a new one)
  (async () => {
    try {
      const response = await fetch("/api/fairness/client-seed", { headers: token() ? { Authorization: `Bearer ${token()}` } : {} });
      const data = response.ok ? await response.json() : null;
      if (data?.client_seed && fair.sent === null && !input.value) input.value = data.client_seed;
    } catch {
      // the field stays empty until a seed is sent
    }
  })();
  return panel;
}

/** @param {Element} node @param {string} value */
function setText(node, value) {
  if (node.textContent !== value) node.textContent = value;
}

/**
 * Show the table's shoe on the panel; while it takes seeds, give it yours (a fresh random one unless you chose
 * your own).
 * @param {HTMLElement} panel what shoePanel made
 * @param {TableView | null | undefined} table the table's view
 */
export function showShoe(panel, table) {
  const fair = panels.get(panel);
  const shoe = table?.shoe;
  if (!fair) return;
  fair.table = table;
  if (!shoe) return;
  const commitment = /** @type {HTMLElement} */ (panel.querySelector("#fair-commitment"));
  setText(commitment, shoe.commitment);
  commitment.title = t("fair.shoe_title", { n: shoe.number, algorithm: shoe.algorithm });
  const rootLine = /** @type {HTMLElement} */ (panel.querySelector("#fair-root-line"));
  rootLine.hidden = !shoe.merkle_root;
  setText(panel.querySelector("#fair-root"), shoe.merkle_root || "");
  const state = panel.querySelector("#fair-state");
  if (shoe.taking_client_seeds) setText(state, t("fair.taking", { n: shoe.number }));
  else if (shoe.client_seeds) setText(state, t("fair.shuffled", { n: shoe.number, count: shoe.client_seeds.length }));
  else setText(state, t("fair.shoe_plain", { n: shoe.number, algorithm: shoe.algorithm }));
  const key = `${table.id}:${shoe.number}`;
  if (!shoe.taking_client_seeds || fair.shoe === key) return;
  fair.shoe = key;
  const chosen = localStorage.getItem(OWN_KEY);
  const seedNote = panel.querySelector("#client-seed-note");
  fair.send(chosen || randomSeed())
    .then(() => {
      seedNote.textContent = chosen ? t("fair.own") : t("fair.random");
    })
    .catch((error) => {
      seedNote.textContent = error.message;
    });
}
