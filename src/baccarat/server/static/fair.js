// Provably fair, in the page: your client seed, the shoe's commitment, and Verify for a round.
//
// This file shares no code with the table's (app.js) on purpose: it deals a round again from the
// shoe's revealed record with Web Crypto's HMAC-SHA256 (or, while a shoe of algorithm 3 is in play,
// proves the round's cards against the shoe's Merkle root with SHA-256) and its own statement of the rules (the
// tableau, Lucky Draw's dealer rule, Block Bonus, the pay tables and the rounding rule), so a
// mistake in the table's code cannot hide the same mistake here.  The protocol is described in the
// documentation (docs/fairness.md); `baccarat verify` does the same for a whole history.
//
// table.js calls only Fair.shoePanel / Fair.showShoe (the commitment and your seed on the table) and
// Fair.verifyButton (one per history row).  Never builds HTML from data: DOM nodes and text only.
// Its words are its own (WORDS below, English and Simplified Chinese), in the page's language as
// <html lang> says when they are shown; a language it does not have reads English.
"use strict";

window.Fair = (() => {
  const ALGORITHM = "hmac-sha256-fisher-yates/3";
  const ALGORITHM_2 = "hmac-sha256-fisher-yates/2";
  const ALGORITHM_1 = "hmac-sha256-fisher-yates/1";
  const RANKS = "A23456789TJQK";
  const SUITS = "cdhs";
  const ACE_HIGH = "23456789TJQKA";
  const SEED_RULE = /^[\x21-\x7e]{1,64}$/;
  const SEEDS_KEY = "fair.seeds";      // localStorage: "table:shoe" -> the client seed this browser gave that shoe
  const OWN_KEY = "fair.own-seed";     // localStorage: a seed the player typed (else a fresh random one per shoe)
  const PANEL_KEY = "fair.panel";      // localStorage: "open" / "closed", as the player last left the panel
  const encoder = new TextEncoder();

  // ------------------------------------------------------------------ its words, in two languages

  // Hexadecimal digests and seeds, and the algorithm's name (hmac-sha256-fisher-yates/2), are shown
  // as they are in every language: they are what a player compares with other tools.
  const WORDS = {
    en: {
      title: "Provably fair",
      summary: "the shoe's commitment and your client seed",
      commitment: "Shoe commitment (SHA-256 of the server seed, published before any bet): ",
      merkle_root: "Merkle root of the shuffled shoe (published at its first deal, before any card is shown): ",
      proven_rest: ": each card is proven at its place in the shoe against the Merkle root published before it was "
        + "dealt, and these cards give this result and these payouts. The seed is checked when the shoe ends.",
      bad_proof: ({ card, position }) => `${card} at position ${position}: its proof does not lead to the shoe's Merkle root`,
      bad_position: ({ said, gives }) => `a card's position: the record says ${said}, the deal gives ${gives}`,
      bad_deal: ({ said, gives }) => `cards: the record says ${said}, the rules take ${gives}`,
      bad_deal_short: ({ said }) => `cards: the record says ${said}, the rules draw one card more`,
      proven_claim: ({ field, said, gives }) => `${field}: your history says ${said}, the proven cards give ${gives}`,
      shoe_title: ({ n, algorithm }) => `shoe ${n}, ${algorithm}`,
      taking: ({ n }) => `Shoe ${n} takes the seeds of those who bet before its first deal.`,
      shuffled: ({ n, count }) => `Shoe ${n} was shuffled with ${count} client seed${count === 1 ? "" : "s"}; `
        + "a seed you set now goes into the next shoe you bet on.",
      shoe_plain: ({ n, algorithm }) => `Shoe ${n} (${algorithm}).`,
      seed_label: "Your client seed",
      new_seed: "New",
      new_seed_name: "New random client seed",
      use_seed: "Use this seed",
      fresh: "A new random seed, drawn by this browser.",
      random: "A random seed, drawn by this browser.",
      own: "Your own seed.",
      seed_rule: "a client seed is 1 to 64 letters, digits or punctuation marks, without spaces",
      seed_refused: ({ detail }) => detail || "the seed was refused",
      verify: "Verify",
      verify_name: ({ round }) => `Verify round ${round}`,
      no_cards: "no cards dealt",
      checking: "checking…",
      pending: ({ shoe, table }) => `Verifiable when shoe ${shoe} of ${table} ends: its server seed is revealed then.`,
      not_fetched: ({ status }) => `the shoe's record could not be fetched (${status})`,
      bad_definition: ({ digest, gives }) => `the game's rules file is not the one the shoe names: its digest is ${gives}, the record names ${digest}`,
      could_not: ({ message }) => `could not check: ${message}`,
      verified: "verified",
      verified_rest: ": the revealed seeds deal these cards, this result and these payouts.",
      mismatch: "MISMATCH",
      seed_in: ({ seed }) => ` Your seed ${seed} is among the shoe's client seeds.`,
      seed_not_in: ({ seed, seeds }) => ` The seed this browser gave, ${seed}, is not among the shoe's client seeds `
        + `(${seeds}): did another tab or device change it before you bet?`,
      unreadable: "the server seed is not readable",
      bad_commitment: ({ said, digest }) => `commitment: the record says ${said}, SHA-256 of the revealed seed is ${digest}`,
      bad_burn: ({ said, gives }) => `burned cards: the record says ${said}, the seed gives ${gives}`,
      no_round: ({ round }) => `round ${round} is not in the shoe's record`,
      claim: ({ field, said, gives }) => `${field}: your history says ${said}, the seeds give ${gives}`,
      field: { strike: "struck cards", cards: "cards", your_cards: "your cards", dealer_cards: "the dealer's cards", player: "Player's cards",
        banker: "Banker's cards", result: "result" },
      wager: { player: "Player", banker: "Banker", tie: "Tie", dragon_bonus_player: "Dragon Bonus on Player",
        dragon_bonus_banker: "Dragon Bonus on Banker", dragon_7: "Dragon 7", panda_8: "Panda 8", enter: "Enter",
        draw: "Draw", block_bonus: "Block Bonus" },
      winner: { player: "Player wins", banker: "Banker wins", tie: "Tie" },
      event: {},   // pay-table events ("Banker wins") as the records name them
    },
    "zh-CN": {
      title: "可证明公平",
      summary: "本靴承诺值与您的客户端种子",
      commitment: "本靴承诺值（服务器种子的哈希值，在任何下注之前公布）：",
      merkle_root: "洗好的整靴牌的默克尔根（首次发牌时、任何牌亮出之前公布）：",
      proven_rest: "：每张牌都已在其靴中位置上对照发牌前公布的默克尔根得到证明，这些牌得出这个结果和这些派彩。本靴结束时再核对种子。",
      bad_proof: ({ card, position }) => `第 ${position} 位的 ${card}：其证明不能导出本靴的默克尔根`,
      bad_position: ({ said, gives }) => `牌的位置：记录为 ${said}，发牌顺序得出 ${gives}`,
      bad_deal: ({ said, gives }) => `牌：记录为 ${said}，规则取用 ${gives}`,
      bad_deal_short: ({ said }) => `牌：记录为 ${said}，按规则还要再补一张`,
      proven_claim: ({ field, said, gives }) => `${field}：您的记录为 ${said}，已证明的牌得出 ${gives}`,
      shoe_title: ({ n, algorithm }) => `第 ${n} 靴，${algorithm}`,
      taking: ({ n }) => `第 ${n} 靴收取首次发牌前下注玩家的种子。`,
      shuffled: ({ n, count }) => `第 ${n} 靴已用 ${count} 个客户端种子洗牌；您现在设置的种子用于您下注的下一靴。`,
      shoe_plain: ({ n, algorithm }) => `第 ${n} 靴（${algorithm}）。`,
      seed_label: "您的客户端种子",
      new_seed: "新种子",
      new_seed_name: "随机抽取新种子",
      use_seed: "使用此种子",
      fresh: "本浏览器新抽取的随机种子。",
      random: "本浏览器抽取的随机种子。",
      own: "您自己的种子。",
      seed_rule: "客户端种子为 1 到 64 个字母、数字或标点符号，不含空格。",
      seed_refused: () => "种子未被接受：客户端种子为 1 到 64 个字母、数字或标点符号，不含空格。",
      verify: "验证",
      verify_name: ({ round }) => `验证第 ${round} 局`,
      no_cards: "未发牌",
      checking: "验证中…",
      pending: ({ shoe }) => `第 ${shoe} 靴结束后即可验证：届时公开其服务器种子。`,
      not_fetched: ({ status }) => `无法取得本靴记录（${status}）`,
      bad_definition: ({ digest, gives }) => `本局游戏的规则文件与牌靴记录所写的不符：其摘要为 ${gives}，记录写的是 ${digest}`,
      could_not: () => "无法验证：请稍后再试。",
      verified: "已验证",
      verified_rest: "：公开的种子发出的正是这些牌、这个结果和这些派彩。",
      mismatch: "不一致",
      seed_in: ({ seed }) => ` 您的种子 ${seed} 在本靴的客户端种子之中。`,
      seed_not_in: ({ seed, seeds }) => ` 本浏览器提供的种子 ${seed} 不在本靴的客户端种子（${seeds}）之中：`
        + "是否有您的其他标签页或设备在您下注前更改了它？",
      unreadable: "服务器种子无法读取",
      bad_commitment: ({ said, digest }) => `承诺值：记录为 ${said}，公开种子的哈希值为 ${digest}`,
      bad_burn: ({ said, gives }) => `烧牌：记录为 ${said}，种子得出 ${gives}`,
      no_round: ({ round }) => `第 ${round} 局不在本靴记录中`,
      claim: ({ field, said, gives }) => `${field}：您的记录为 ${said}，种子得出 ${gives}`,
      field: { strike: "闪电牌", cards: "牌", your_cards: "您的牌", dealer_cards: "荷官的牌", player: "闲家的牌", banker: "庄家的牌", result: "结果" },
      wager: { player: "闲", banker: "庄", tie: "和", dragon_bonus_player: "闲龙宝", dragon_bonus_banker: "庄龙宝",
        dragon_7: "龙7", panda_8: "熊猫8", enter: "入局注", draw: "补牌注", block_bonus: "封牌奖" },
      winner: { player: "闲赢", banker: "庄赢", tie: "和局" },
      event: { "Player wins": "闲赢", "Banker wins": "庄赢", Tie: "和局", "Dealer wins": "荷官赢", Void: "作废",
        "enter.Player wins": "您的牌赢", "draw.Player wins": "您的牌赢", "Natural win": "例牌赢",
        "Win by 9": "赢 9 点", "Win by 8": "赢 8 点", "Win by 7": "赢 7 点", "Win by 6": "赢 6 点", "Win by 5": "赢 5 点",
        "Win by 4": "赢 4 点", "Win by 1-3": "赢 1 至 3 点", "Natural tie": "例牌和局", "Tie without natural": "非例牌和局",
        "Hand loses": "该方输", "Dragon 7 (Banker pushes)": "龙7（庄退回本金）", "Dragon 7": "龙7", "No Dragon 7": "没有龙7",
        "Panda 8": "熊猫8", "No Panda 8": "没有熊猫8", "Lucky 9 (3-card 9)": "幸运9（三张牌 9 点）",
        "Lucky 8 (3-card 8)": "幸运8（三张牌 8 点）", "Lucky 7 (3-card 7)": "幸运7（三张牌 7 点）",
        "Win with 6 or less": "以 6 点或以下赢", "Ultimate Block": "至尊封牌", "Pair Block": "对子封牌",
        "Flush Block": "同花封牌", "Normal Block": "普通封牌", "No Block": "无封牌" },
    },
    "zh-Hant": {
      title: "可證明公平",
      summary: "本靴承諾值與您的客戶端種子",
      commitment: "本靴承諾值（伺服器種子的哈希值，在任何下注之前公佈）：",
      merkle_root: "洗好的整靴牌的默克爾根（首次發牌時、任何牌亮出之前公佈）：",
      proven_rest: "：每張牌都已在其靴中位置上對照發牌前公佈的默克爾根得到證明，這些牌得出這個結果和這些派彩。本靴結束時再核對種子。",
      bad_proof: ({ card, position }) => `第 ${position} 位的 ${card}：其證明不能推導出本靴的默克爾根`,
      bad_position: ({ said, gives }) => `牌的位置：記錄為 ${said}，發牌順序得出 ${gives}`,
      bad_deal: ({ said, gives }) => `牌：記錄為 ${said}，規則取用 ${gives}`,
      bad_deal_short: ({ said }) => `牌：記錄為 ${said}，按規則還要再補一張`,
      proven_claim: ({ field, said, gives }) => `${field}：您的記錄為 ${said}，已證明的牌得出 ${gives}`,
      shoe_title: ({ n, algorithm }) => `第 ${n} 靴，${algorithm}`,
      taking: ({ n }) => `第 ${n} 靴收取首次發牌前下注玩家的種子。`,
      shuffled: ({ n, count }) => `第 ${n} 靴已用 ${count} 個客戶端種子洗牌；您現在設定的種子用於您下注的下一靴。`,
      shoe_plain: ({ n, algorithm }) => `第 ${n} 靴（${algorithm}）。`,
      seed_label: "您的客戶端種子",
      new_seed: "新種子",
      new_seed_name: "隨機抽取新種子",
      use_seed: "使用此種子",
      fresh: "本瀏覽器新抽取的隨機種子。",
      random: "本瀏覽器抽取的隨機種子。",
      own: "您自己的種子。",
      seed_rule: "客戶端種子為 1 到 64 個字母、數字或標點符號，不含空格。",
      seed_refused: () => "種子未被接受：客戶端種子為 1 到 64 個字母、數字或標點符號，不含空格。",
      verify: "驗證",
      verify_name: ({ round }) => `驗證第 ${round} 局`,
      no_cards: "未發牌",
      checking: "驗證中…",
      pending: ({ shoe }) => `第 ${shoe} 靴結束後即可驗證：屆時公開其伺服器種子。`,
      not_fetched: ({ status }) => `無法取得本靴記錄（${status}）`,
      bad_definition: ({ digest, gives }) => `本局遊戲的規則檔案與牌靴記錄所寫的不符：其摘要為 ${gives}，記錄寫的是 ${digest}`,
      could_not: () => "無法驗證：請稍後再試。",
      verified: "已驗證",
      verified_rest: "：公開的種子發出的正是這些牌、這個結果和這些派彩。",
      mismatch: "不一致",
      seed_in: ({ seed }) => ` 您的種子 ${seed} 在本靴的客戶端種子之中。`,
      seed_not_in: ({ seed, seeds }) => ` 本瀏覽器提供的種子 ${seed} 不在本靴的客戶端種子（${seeds}）之中：`
        + "是否有您的其他標籤頁或設備在您下注前更改了它？",
      unreadable: "伺服器種子無法讀取",
      bad_commitment: ({ said, digest }) => `承諾值：記錄為 ${said}，公開種子的哈希值為 ${digest}`,
      bad_burn: ({ said, gives }) => `燒牌：記錄為 ${said}，種子得出 ${gives}`,
      no_round: ({ round }) => `第 ${round} 局不在本靴記錄中`,
      claim: ({ field, said, gives }) => `${field}：您的記錄為 ${said}，種子得出 ${gives}`,
      field: { strike: "閃電牌", cards: "牌", your_cards: "您的牌", dealer_cards: "荷官的牌", player: "閒家的牌", banker: "莊家的牌", result: "結果" },
      wager: { player: "閒", banker: "莊", tie: "和", dragon_bonus_player: "閒龍寶", dragon_bonus_banker: "莊龍寶",
        dragon_7: "龍7", panda_8: "熊貓8", enter: "入局注", draw: "補牌注", block_bonus: "封牌獎" },
      winner: { player: "閒贏", banker: "莊贏", tie: "和局" },
      event: { "Player wins": "閒贏", "Banker wins": "莊贏", Tie: "和局", "Dealer wins": "荷官贏", Void: "作廢",
        "enter.Player wins": "您的牌贏", "draw.Player wins": "您的牌贏", "Natural win": "例牌贏",
        "Win by 9": "贏 9 點", "Win by 8": "贏 8 點", "Win by 7": "贏 7 點", "Win by 6": "贏 6 點", "Win by 5": "贏 5 點",
        "Win by 4": "贏 4 點", "Win by 1-3": "贏 1 至 3 點", "Natural tie": "例牌和局", "Tie without natural": "非例牌和局",
        "Hand loses": "該方輸", "Dragon 7 (Banker pushes)": "龍7（莊退回本金）", "Dragon 7": "龍7", "No Dragon 7": "沒有龍7",
        "Panda 8": "熊貓8", "No Panda 8": "沒有熊貓8", "Lucky 9 (3-card 9)": "幸運9（三張牌 9 點）",
        "Lucky 8 (3-card 8)": "幸運8（三張牌 8 點）", "Lucky 7 (3-card 7)": "幸運7（三張牌 7 點）",
        "Win with 6 or less": "以 6 點或以下贏", "Ultimate Block": "至尊封牌", "Pair Block": "對子封牌",
        "Flush Block": "同花封牌", "Normal Block": "普通封牌", "No Block": "無封牌" },
    },
  };

  /** The words of the page's language (<html lang>, which the page sets when it picks or switches). */
  function words() {
    const lang = document.documentElement.lang || "en";
    if (WORDS[lang]) return WORDS[lang];
    const base = lang.toLowerCase().split("-")[0];
    const near = Object.keys(WORDS).find((code) => code.toLowerCase().split("-")[0] === base);
    return WORDS[near] || WORDS.en;
  }

  /** ``key``'s words, a function's filled from ``params``. */
  function say(key, params) {
    const value = words()[key];
    return typeof value === "function" ? value(params || {}) : value;
  }

  // ------------------------------------------------------------------ small helpers of its own

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

  function hex(bytes) { return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join(""); }

  function unhex(text) {
    if (typeof text !== "string" || !/^([0-9a-fA-F]{2})+$/.test(text)) return null;
    return new Uint8Array(text.match(/../g).map((pair) => parseInt(pair, 16)));
  }

  function randomSeed() { return hex(crypto.getRandomValues(new Uint8Array(16))); }

  function seedsGiven() {
    try { return JSON.parse(localStorage.getItem(SEEDS_KEY) || "{}"); } catch (error) { return {}; }
  }

  function remember(tableId, shoe, seed) {
    const given = seedsGiven();
    given[`${tableId}:${shoe}`] = seed;
    const keys = Object.keys(given);
    for (const old of keys.slice(0, Math.max(0, keys.length - 200))) delete given[old];  // keep the last 200
    localStorage.setItem(SEEDS_KEY, JSON.stringify(given));
  }

  async function sha256(bytes) { return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)); }

  async function hmacKey(bytes) {
    return crypto.subtle.importKey("raw", bytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  }

  async function hmac(key, message) { return new Uint8Array(await crypto.subtle.sign("HMAC", key, message)); }

  // ------------------------------------------------------------------ the shoe from its seeds

  // Version 2: HMAC-SHA256(server seed, hex SHA-256 of the distinct client seeds, sorted, joined by
  // newlines); version 1: the server seed itself.
  async function streamKey(record, seed) {
    if (record.algorithm === ALGORITHM_1) return seed;
    const seeds = [...new Set(record.client_seeds || [])].sort();
    const combined = hex(await sha256(encoder.encode(seeds.join("\n"))));
    return hmac(await hmacKey(seed), encoder.encode(combined));
  }

  // The stream: block k = HMAC-SHA256(key, k as 8 bytes big-endian), read as 32-bit big-endian
  // words; an index below n by rejection sampling; Fisher-Yates from the last position down.
  async function stream(key) {
    const hashed = await hmacKey(key);
    let block = 0;
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

  async function shoeOrder(key, decks) {
    const below = await stream(key);
    const order = [];
    for (let d = 0; d < decks; d++) for (const suit of SUITS) for (const rank of RANKS) order.push(rank + suit);
    for (let i = order.length - 1; i > 0; i--) {
      const j = await below(i + 1);
      [order[i], order[j]] = [order[j], order[i]];
    }
    return order;
  }

  // Step 9, struck cards: the key HMAC-SHA256(stream key, "strike" + the coup's first position as 2 bytes
  // big-endian); how many cards, then each card (an index into the deck not yet struck) and its multiplier,
  // each located in its weight table from the smallest value up.
  async function strikeOf(key, position, feature) {
    const message = new Uint8Array([...encoder.encode("strike"), position >> 8, position & 255]);
    const below = await stream(await hmac(await hmacKey(key), message));
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

  // What a strike multiplies a winning pay by: the winning hand's struck cards (both hands on a tie), capped.
  function strikeFactor(struck, dealt, feature) {
    const of = Object.fromEntries((struck || []).map((s) => [s.card, s.multiplier]));
    const who = winner(dealt);
    const cards = who === "tie" ? [...dealt.hands.player, ...dealt.hands.banker] : dealt.hands[who];
    const product = cards.reduce((p, card) => p * (of[card] || 1), 1);
    return feature.cap == null ? product : Math.min(product, feature.cap);
  }

  // ------------------------------------------------------------------ algorithm 3: a card proven

  // Leaf i = SHA-256(0x00, i as 2 bytes big-endian, the card's 2 ASCII characters, its 32-byte salt);
  // a node = SHA-256(0x01, left, right); the tree has RFC 6962's shape, and a proof is the card's
  // audit path, climbed as RFC 9162 (2.1.3.2) says.
  async function proves(root, size, position, card, proof) {
    const salt = proof && unhex(proof.salt);
    const path = proof && Array.isArray(proof.path) ? proof.path.map(unhex) : null;
    if (!salt || salt.length !== 32 || !path || path.some((p) => !p || p.length !== 32)) return false;
    if (!(position >= 0 && position < size) || !/^[A2-9TJQK][cdhs]$/.test(card)) return false;
    let node = await sha256(new Uint8Array([0, position >> 8, position & 255, ...encoder.encode(card), ...salt]));
    let index = position;
    let last = size - 1;
    for (const sibling of path) {
      if (last === 0) return false;
      if (index % 2 === 1 || index === last) {
        node = await sha256(new Uint8Array([1, ...sibling, ...node]));
        while (index % 2 === 0 && index !== 0) { index >>= 1; last >>= 1; }
      } else {
        node = await sha256(new Uint8Array([1, ...node, ...sibling]));
      }
      index >>= 1;
      last >>= 1;
    }
    return last === 0 && hex(node) === String(root).toLowerCase();
  }

  // ------------------------------------------------------------------ the rules, written out again

  // a card the record lacks (a changed record can make the rules draw one more) counts nothing here: the deal
  // that needed it is named short (provenRound), never a crash of the check
  function points(card) {
    if (typeof card !== "string") return 0;
    const value = RANKS.indexOf(card[0]) + 1;
    return value <= 9 ? value : 0;
  }
  function total(cards) { return cards.reduce((sum, card) => sum + points(card), 0) % 10; }
  function burnCount(first) { return 1 + (points(first) || 10); }

  function bankerDraws(banker, third) {
    if (third === null) return banker <= 5;
    if (banker <= 2) return true;
    if (banker === 3) return third !== 8;
    if (banker === 4) return third >= 2 && third <= 7;
    if (banker === 5) return third >= 4 && third <= 7;
    if (banker === 6) return third === 6 || third === 7;
    return false;
  }

  function dealPuntoBanco(cards) {
    const player = [cards[0], cards[2]];
    const banker = [cards[1], cards[3]];
    let taken = 4;
    if (total(player) < 8 && total(banker) < 8) {
      let third = null;
      if (total(player) <= 5) { player.push(cards[taken]); third = points(cards[taken]); taken++; }
      if (bankerDraws(total(banker), third)) { banker.push(cards[taken]); taken++; }
    }
    return { cards: cards.slice(0, taken), hands: { player, banker }, short: taken > cards.length };
  }

  function dealLuckyDraw(cards, seats, drew, complete) {
    const hands = { dealer: [] };
    for (const seat of seats) hands[`seat:${seat}`] = [];
    let order = [...seats.map((s) => `seat:${s}`), "dealer", ...seats.map((s) => `seat:${s}`)];
    if (complete) order = [...order, ...seats.filter((s) => drew.includes(s)).map((s) => `seat:${s}`), "dealer"];
    order.forEach((who, i) => hands[who].push(cards[i]));
    let taken = order.length;
    if (complete && total(hands.dealer) <= 4) hands.dealer.push(cards[taken++]);
    return { cards: cards.slice(0, taken), hands, short: taken > cards.length };
  }

  const LOSE = [-1, 1];
  const PUSH = [0, 1];
  const SIDE = { "Player wins": [1, 1], Tie: PUSH, "Banker wins": LOSE };
  const TIE = { Tie: [8, 1], "Player wins": LOSE, "Banker wins": LOSE };
  const DRAGON_BONUS = { "Natural win": [1, 1], "Win by 9": [30, 1], "Win by 8": [10, 1], "Win by 7": [6, 1],
    "Win by 6": [4, 1], "Win by 5": [2, 1], "Win by 4": [1, 1], "Natural tie": PUSH, "Win by 1-3": LOSE,
    "Tie without natural": LOSE, "Hand loses": LOSE };
  const BLOCK = { "Ultimate Block": [35, 1], "Pair Block": [10, 1], "Flush Block": [5, 1], "Normal Block": [2, 1],
    "No Block": LOSE };
  const ENTER = { "Player wins": [1, 1], Tie: PUSH, "Dealer wins": LOSE };

  function winner(d) {
    const p = total(d.hands.player);
    const b = total(d.hands.banker);
    return p > b ? "player" : b > p ? "banker" : "tie";
  }
  function sideEvent(d) { return { player: "Player wins", banker: "Banker wins", tie: "Tie" }[winner(d)]; }
  function natural(d) { return ["player", "banker"].some((h) => d.hands[h].length === 2 && total(d.hands[h]) >= 8); }
  function threeCard(d, hand, points_) {
    return winner(d) === hand && d.hands[hand].length === 3 && total(d.hands[hand]) === points_;
  }
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
  function seatResult(d, seat) {
    const mine = total(d.hands[seat]);
    const dealer = total(d.hands.dealer);
    return mine > dealer ? "player" : dealer > mine ? "dealer" : "tie";
  }
  function enterEvent(d, seat) { return { player: "Player wins", dealer: "Dealer wins", tie: "Tie" }[seatResult(d, seat)]; }
  function drawEvent(d, seat) {
    if (seatResult(d, seat) !== "player") return enterEvent(d, seat);
    return { 9: "Lucky 9 (3-card 9)", 8: "Lucky 8 (3-card 8)", 7: "Lucky 7 (3-card 7)" }[total(d.hands[seat])]
      || "Win with 6 or less";
  }
  function blockEvent(d, seat) {
    const [first, second] = d.hands[seat];
    const up = d.hands.dealer[0];
    const higher = [first, second].filter((c) => c[1] === up[1] && ACE_HIGH.indexOf(c[0]) > ACE_HIGH.indexOf(up[0]));
    if (!higher.length) return "No Block";
    if (first[0] === second[0]) return first[1] === second[1] && second[1] === up[1] ? "Ultimate Block" : "Pair Block";
    return first[1] === second[1] ? "Flush Block" : "Normal Block";
  }
  function lucky(lucky7) {
    return {
      enter: [enterEvent, ENTER],
      draw: [drawEvent, { "Lucky 9 (3-card 9)": [3, 1], "Lucky 8 (3-card 8)": [2, 1], "Lucky 7 (3-card 7)": lucky7,
        "Win with 6 or less": [1, 1], Tie: PUSH, "Dealer wins": LOSE }],
      block_bonus: [blockEvent, BLOCK],
    };
  }
  // Mini: Banker 19 to 20 (1 to 1 less 5%).  EZ: a Banker win with a three-card 7 pushes.
  // games from definitions that strike cards: their key in WAGERS -> { wagers, cap, struck, values }
  const STRUCK = {};
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

  // A game from a rules file: its rules read from the file's canonical content (its TOML as JSON), fetched by the
  // digest the shoe's record names and checked against it; the facts of a coup and the net odds, computed here.
  function facts(d) {
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
  const red = (card) => "dh".includes(card[1]);
  const oneColour = (cards) => new Set(cards.map(red)).size === 1;
  const most = (cards, key) => {
    const tally = {};
    for (const card of cards) tally[key(card)] = (tally[key(card)] || 0) + 1;
    return Object.values(tally).sort((x, y) => y - x);
  };
  function cardFacts(player, banker) {
    const found = {};
    for (const [hand, cards] of [["player", player], ["banker", banker]]) {
      ["first", "second", "third"].forEach((nth, i) => {
        const card = cards[i];
        found[`${hand}_${nth}_rank`] = card ? card[0] : "none";
        found[`${hand}_${nth}_suit`] = card ? SUIT_WORDS[card[1]] : "none";
        found[`${hand}_${nth}_colour`] = card ? (red(card) ? "red" : "black") : "none";
        found[`${hand}_${nth}_face`] = Boolean(card) && "JQK".includes(card[0]);
      });
      found[`${hand}_one_colour`] = oneColour(cards);
    }
    for (const [suffix, cards] of [["", [...player, ...banker]], ["_first_four", [...player.slice(0, 2), ...banker.slice(0, 2)]]]) {
      const count = (test) => cards.filter(test).length;
      found[`count_red${suffix}`] = count(red);
      found[`count_black${suffix}`] = count((c) => !red(c));
      found[`count_face${suffix}`] = count((c) => "JQK".includes(c[0]));
      found[`one_colour${suffix}`] = oneColour(cards);
      for (const r of RANKS) found[`count_rank_${r.toLowerCase()}${suffix}`] = count((c) => c[0] === r);
      for (const [letter, word] of Object.entries(SUIT_WORDS)) found[`count_suit_${word}${suffix}`] = count((c) => c[1] === letter);
      for (const r of RANKS) for (const letter of SUITS) found[`count_card_${r.toLowerCase()}${letter}${suffix}`] = count((c) => c === r + letter);
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
  function odds(pays) {
    const word = String(pays).trim().toLowerCase();
    if (word === "push") return PUSH;
    if (word === "lose" || word === "loses") return LOSE;
    const forOne = word.match(/^(\d+)(?:\/(\d+))?\s+for\s+1$/);  // "9 for 1": the stake among the 9, so 8 to 1
    if (forOne) {
      const den = Number(forOne[2] || 1);
      return [Number(forOne[1]) - den, den];
    }
    const [num, den] = word.split("/").map(Number);
    return [num, den || 1];
  }
  function holds(when, found) {
    return Object.entries(when || {}).every(([name, wanted]) =>
      (Array.isArray(wanted) ? wanted : [wanted]).some((v) => typeof v === typeof found[name] && v === found[name]));
  }
  async function rulesOf(record, problems) {
    const response = await fetch(`/api/games/definition?digest=${encodeURIComponent(record.definition)}`);
    if (!response.ok) throw new Error(say("not_fetched", { status: response.status }));
    const { content } = await response.json();
    const gives = hex(await sha256(new TextEncoder().encode(content)));
    if (gives !== record.definition) {
      problems.push(say("bad_definition", { digest: record.definition.slice(0, 16), gives: gives.slice(0, 16) }));
      return null;
    }
    const rules = JSON.parse(content);
    if (rules.game.procedure === "lucky_draw") return `lucky-draw/${rules.game.paytable || 1}`;
    const key = `${rules.game.code}@${gives.slice(0, 16)}`;
    if (rules.multipliers) {
      const table = (rows, name) => rows.map((row) => [row[name], row.weight]).sort((a, b) => a[0] - b[0]);
      STRUCK[key] = { wagers: rules.multipliers.wagers, cap: rules.multipliers.cap ?? null,
        struck: table(rules.multipliers.struck, "cards"), values: table(rules.multipliers.values, "multiplier") };
    }
    WAGERS[key] = Object.fromEntries(rules.wagers.map((wager) => {
      const pays = {};
      for (const event of wager.events) if (!(event.event in pays)) pays[event.event] = odds(event.pays);
      const classify = (d) => {
        const found = facts(d);
        return wager.events.find((event) => holds(event.when, found)).event;
      };
      return [wager.code, [classify, pays]];
    }));
    return key;
  }

  // A win that is not a whole number of cents is rounded down to the cent (12.50 on Banker wins 11.87).
  function settle(game, code, stake, dealt, seat, factor = 1) {
    const [classify, pays] = WAGERS[game][code];
    const event = classify(dealt, seat);
    const [num, den] = pays[event];
    return [event, num === -1 ? -stake : Math.floor((stake * num * (num > 0 ? factor : 1)) / den)];
  }

  // ------------------------------------------------------------------ one round, checked

  function cents(minor) { return (minor / 100).toFixed(2); }
  function showStrike(struck) {
    return (struck || []).map((s) => `${showCards([s.card])} ×${s.multiplier}`).join(" ") || "—";
  }
  function same(a, b) { return JSON.stringify(a) === JSON.stringify(b); }
  function show(value) { return Array.isArray(value) ? value.join(" ") : String(value); }
  // cards as the table shows them ("Kc" -> "K♣", "Td" -> "10♦"): the same in every language
  const SUIT_SIGNS = { c: "♣", d: "♦", h: "♥", s: "♠" };
  function showCards(value) {
    if (!Array.isArray(value)) return show(value);
    return value.map((card) => (/^[A2-9TJQK][cdhs]$/.test(card) ? (card[0] === "T" ? "10" : card[0]) + SUIT_SIGNS[card[1]] : card))
      .join(" ");
  }

  // Deal the shoe of `record` again up to round `number`; problems found on the way are named.
  async function dealtRound(record, number, problems) {
    const seed = unhex(record.server_seed);
    if (!seed) { problems.push(say("unreadable")); return null; }
    const digest = hex(await sha256(seed));
    if (digest !== String(record.commitment).toLowerCase()) {
      problems.push(say("bad_commitment", { said: record.commitment, digest }));
    }
    const key = await streamKey(record, seed);
    const order = await shoeOrder(key, record.decks);
    let position = burnCount(order[0]);
    if (record.burned && !same(record.burned, order.slice(0, position))) {
      problems.push(say("bad_burn", { said: showCards(record.burned), gives: showCards(order.slice(0, position)) }));
    }
    const luckyDraw = record.game === "lucky-draw";
    for (const entry of record.rounds) {
      const left = order.slice(position);
      const dealt = luckyDraw ? dealLuckyDraw(left, entry.seats, entry.void ? [] : entry.drew || [], !("void" in entry))
        : dealPuntoBanco(left);
      if (entry.round === number) return { dealt, entry, key, position };
      position += dealt.cards.length;
    }
    problems.push(say("no_round", { round: number }));
    return null;
  }

  // A shoe of algorithm 3 in play (no seed yet): the burn (its turned card) and each round's cards
  // proven against the Merkle root at the positions the deal gives, up to round `number`, which is
  // dealt by the rules from its proven cards.
  async function provenRound(record, number, problems) {
    const size = 52 * record.decks;
    const root = record.merkle_root;
    async function prove(cards, proofs, start) {
      for (let k = 0; k < cards.length; k++) {
        const proof = (proofs || [])[k];
        const position = proof ? proof.position : null;
        if (position !== start + k) {
          problems.push(say("bad_position", { said: position, gives: start + k }));
        } else if (!(await proves(root, size, position, cards[k], proof))) {
          problems.push(say("bad_proof", { card: showCards([cards[k]]), position }));
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
    const luckyDraw = record.game === "lucky-draw";
    for (const entry of record.rounds) {
      await prove(entry.cards, entry.proof, position);
      position += entry.cards.length;
      if (entry.round !== number) continue;
      const cards = entry.cards;
      const dealt = luckyDraw ? dealLuckyDraw(cards, entry.seats, entry.void ? [] : entry.drew || [], !("void" in entry))
        : dealPuntoBanco(cards);
      const short = dealt.short;  // the rules draw a card the round lacks
      if (short) problems.push(say("bad_deal_short", { said: showCards(cards) }));
      else if (dealt.cards.length !== cards.length) {
        problems.push(say("bad_deal", { said: showCards(cards), gives: showCards(dealt.cards) }));
      }
      // a hand short of a card has no total to compare with your history: the mismatch above says it all
      return short ? null : { dealt, entry };
    }
    problems.push(say("no_round", { round: number }));
    return null;
  }

  // Compare a round of your history (GET /api/history) with the round the revealed shoe deals (or,
  // for a shoe in play, the round its proven cards give).  Returns the mismatches, a note on your
  // client seed, and whether the round was proven in play.
  async function check(row, record) {
    const problems = [];
    const inPlay = record.server_seed == null && record.algorithm === ALGORITHM && !!record.merkle_root;
    const given = seedsGiven()[`${row.table_id}:${row.shoe}`];
    let note = "";
    if ((record.algorithm === ALGORITHM || record.algorithm === ALGORITHM_2) && given) {
      // only a note: another tab or device of yours may have set another seed before you bet
      note = (record.client_seeds || []).includes(given) ? say("seed_in", { seed: given })
        : say("seed_not_in", { seed: given, seeds: show(record.client_seeds || []) });
    }
    const found = inPlay ? await provenRound(record, row.round, problems) : await dealtRound(record, row.round, problems);
    if (!found) return { problems, note, inPlay };
    const { dealt, entry } = found;
    const game = record.definition ? await rulesOf(record, problems)
      : record.game === "lucky-draw" ? `lucky-draw/${record.paytable || 1}` : record.game;
    if (!game) return { problems, note, inPlay };
    const { field, wager: wagerWords, winner: winnerWords, event: eventWords } = words();
    const claim = (name, said, gives, display = show) => {
      if (!same(said, gives)) {
        problems.push(say(inPlay ? "proven_claim" : "claim", { field: name, said: display(said), gives: display(gives) }));
      }
    };
    claim(field.cards, row.cards, dealt.cards, showCards);
    const voided = "void" in entry;
    const seat = row.seat || "";
    const detail = row.detail || {};
    if (!voided && game.startsWith("lucky-draw")) {
      claim(field.your_cards, (detail.hands || {})[seat], dealt.hands[seat], showCards);
      claim(field.dealer_cards, (detail.hands || {}).dealer, dealt.hands.dealer, showCards);
    } else if (!voided) {
      claim(field.player, detail.player_cards, dealt.hands.player, showCards);
      claim(field.banker, detail.banker_cards, dealt.hands.banker, showCards);
      claim(field.result, row.winner, winner(dealt), (who) => winnerWords[who] || who);
    }
    // struck cards: drawn again from the seeds (in play, before the seed: those your history shows)
    const feature = STRUCK[game];
    let factor = 1;
    if (feature && !voided) {
      const struck = found.key ? await strikeOf(found.key, found.position, feature) : detail.strike;
      claim(field.strike, showStrike(detail.strike), showStrike(struck));
      factor = strikeFactor(struck, dealt, feature);
    }
    for (const [code, bet] of Object.entries(row.bets)) {
      const multiplied = feature && feature.wagers.includes(code) ? factor : 1;
      const [event, net] = voided && code !== "block_bonus" ? ["Void", 0]
        : settle(game, code, bet.amount, dealt, seat, multiplied);
      claim(wagerWords[code] || code, [bet.event, bet.net], [event, net],
        ([what, amount]) => `${eventWords[`${code}.${what}`] || eventWords[what] || what} ${cents(amount)}`);
    }
    return { problems, note, inPlay };
  }

  async function verify(row, output) {
    output.className = "fair-result";
    output.textContent = say("checking");
    try {
      // a shoe in play (algorithm 3) answers its record as it stands: the round is proven now
      const response = await fetch(`/api/tables/${row.table_id}/shoes/${row.shoe}?in_play=true`);
      if (response.status === 409) {
        output.className = "fair-result pending";
        output.textContent = say("pending", { shoe: row.shoe, table: row.table });
        return;
      }
      if (!response.ok) throw new Error(say("not_fetched", { status: response.status }));
      const { problems, note, inPlay } = await check(row, await response.json());
      output.className = `fair-result ${problems.length ? "mismatch" : "verified"}`;
      output.replaceChildren(problems.length ? say("mismatch") : say("verified"),
        problems.length ? el("ul", {}, ...problems.map((p) => el("li", {}, p)))
          : say(inPlay ? "proven_rest" : "verified_rest"), note);
    } catch (error) {
      output.className = "fair-result mismatch";
      output.textContent = say("could_not", { message: error.message });
    }
  }

  // The answer goes in a row of its own under the round's row (the whole width of the table), or
  // next to the button when it is not in a table.
  function answerBox(button) {
    const row = button.closest("tr");
    if (!row) return button.parentElement.querySelector(".fair-result");
    let answer = row.nextElementSibling;
    if (!answer || !answer.classList.contains("fair-answer")) {
      answer = el("tr", { class: "fair-answer" }, el("td", { colspan: String(row.cells.length) }));
      row.after(answer);
    }
    answer.hidden = false;
    const cell = answer.firstElementChild;
    if (!cell.firstElementChild) cell.append(el("div", { class: "fair-result", "aria-live": "polite" }));
    return cell.firstElementChild;
  }

  /** A Verify button for one round of your history; its answer appears under the round. */
  function verifyButton(row) {
    if (row.shoe == null || row.status === "refunded" || !row.cards.length) {
      return el("span", { class: "fair-result" }, row.cards.length ? "" : say("no_cards"));
    }
    const button = el("button", { type: "button", class: "fair-verify", "data-verify": row.round,
      "aria-label": say("verify_name", { round: row.round }),
      onclick: (event) => { event.stopPropagation(); verify(row, answerBox(button)); } }, say("verify"));
    return el("span", { class: "fair-cell" }, button, el("span", { class: "fair-result" }));
  }

  // ------------------------------------------------------------------ the commitment and your seed

  /** The table's provably fair panel: the shoe's commitment and your client seed.  A <details> that
   *  opens by itself on a wide screen and stays one line on a phone (the cards and the chips first),
   *  until the player opens or closes it (remembered). */
  function shoePanel(tableId, token) {
    const commitment = el("code", { class: "fair-commitment", id: "fair-commitment" });
    const state = el("span", { class: "fair-state", id: "fair-state" });
    const input = el("input", { id: "client-seed", maxlength: "64", spellcheck: "false", autocomplete: "off" });
    const note = el("span", { class: "fair-note", id: "client-seed-note", role: "status" });
    const summary = el("summary", {}, el("b", {}, say("title")), el("span", { class: "fair-summary" }, ` · ${say("summary")}`));
    const panel = el("details", { class: "fair", id: "fair" }, summary,
      el("div", {}, say("commitment"), commitment),
      el("div", { id: "fair-root-line", hidden: "" }, say("merkle_root"), el("code", { class: "fair-commitment", id: "fair-root" })),
      el("div", { class: "fair-seed" }, el("label", { for: "client-seed" }, say("seed_label")), input,
        el("button", { type: "button", id: "new-client-seed", "aria-label": say("new_seed_name"), onclick: () => fresh() },
          say("new_seed")),
        el("button", { type: "button", id: "set-client-seed", onclick: () => own() }, say("use_seed"))),
      el("div", {}, state, " ", note));
    const remembered = localStorage.getItem(PANEL_KEY);
    panel.open = remembered ? remembered === "open" : !window.matchMedia("(max-width: 600px)").matches;
    // a click on the summary (or Enter / Space on it) toggles the panel after this handler: remember the new state
    summary.addEventListener("click", () => localStorage.setItem(PANEL_KEY, panel.open ? "closed" : "open"));
    panel.fair = { tableId, token, shoe: null, sent: null, table: null };

    async function send(seed) {
      const headers = { "Content-Type": "application/json" };
      if (token()) headers.Authorization = `Bearer ${token()}`;
      const response = await fetch("/api/fairness/client-seed", { method: "PUT", headers, body: JSON.stringify({ seed }) });
      const data = await response.json().catch(() => null);
      if (!response.ok) {
        const detail = data && Array.isArray(data.detail) ? data.detail.map((d) => d.problem).join("; ")
          : data && data.detail;
        throw new Error(say("seed_refused", { detail }));
      }
      panel.fair.sent = seed;
      input.value = seed;
      const shoe = panel.fair.table && panel.fair.table.shoe;
      if (shoe && shoe.taking_client_seeds) remember(tableId, shoe.number, seed);
    }
    async function fresh() {
      localStorage.removeItem(OWN_KEY);
      try { await send(randomSeed()); note.textContent = say("fresh"); }
      catch (error) { note.textContent = error.message; }
    }
    async function own() {
      const seed = input.value.trim();
      if (!SEED_RULE.test(seed)) { note.textContent = say("seed_rule"); return; }
      try { await send(seed); localStorage.setItem(OWN_KEY, seed); note.textContent = say("own"); }
      catch (error) { note.textContent = error.message; }
    }
    input.addEventListener("keydown", (event) => { if (event.key === "Enter") own(); });
    panel.fair.send = send;
    // the seed you have now, shown while the table's shoe no longer takes seeds (one that does gets a new one)
    (async () => {
      try {
        const response = await fetch("/api/fairness/client-seed", { headers: token() ? { Authorization: `Bearer ${token()}` } : {} });
        const data = response.ok ? await response.json() : null;
        if (data && data.client_seed && panel.fair.sent === null && !input.value) input.value = data.client_seed;
      } catch (error) { /* the field stays empty until a seed is sent */ }
    })();
    return panel;
  }

  function setText(node, value) { if (node.textContent !== value) node.textContent = value; }

  /** Show the table's shoe; while it takes seeds, give it yours (a fresh random one unless you chose your own). */
  function showShoe(panel, table) {
    const shoe = table && table.shoe;
    panel.fair.table = table;
    if (!shoe) return;
    const commitment = panel.querySelector("#fair-commitment");
    setText(commitment, shoe.commitment);
    commitment.title = say("shoe_title", { n: shoe.number, algorithm: shoe.algorithm });
    const rootLine = panel.querySelector("#fair-root-line");
    rootLine.hidden = !shoe.merkle_root;
    setText(panel.querySelector("#fair-root"), shoe.merkle_root || "");
    const state = panel.querySelector("#fair-state");
    if (shoe.taking_client_seeds) setText(state, say("taking", { n: shoe.number }));
    else if (shoe.client_seeds) setText(state, say("shuffled", { n: shoe.number, count: shoe.client_seeds.length }));
    else setText(state, say("shoe_plain", { n: shoe.number, algorithm: shoe.algorithm }));
    const key = `${table.id}:${shoe.number}`;
    if (!shoe.taking_client_seeds || panel.fair.shoe === key) return;
    panel.fair.shoe = key;
    const chosen = localStorage.getItem(OWN_KEY);
    panel.fair.send(chosen || randomSeed())
      .then(() => { panel.querySelector("#client-seed-note").textContent = chosen ? say("own") : say("random"); })
      .catch((error) => { panel.querySelector("#client-seed-note").textContent = error.message; });
  }

  return { shoePanel, showShoe, verifyButton, check, shoeOrder, streamKey, strikeOf, strikeFactor, proves, facts, odds,
    ALGORITHM };
})();
