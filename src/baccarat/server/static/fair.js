// Provably fair, in the page: your client seed, the shoe's commitment, and Verify for a round.
//
// This file shares no code with the table's (app.js) on purpose: it deals a round again from the
// shoe's revealed record with Web Crypto's HMAC-SHA256 and its own statement of the rules (the
// tableau, Lucky Draw's dealer rule, Block Bonus, the pay tables and the rounding rule), so a
// mistake in the table's code cannot hide the same mistake here.  The protocol is described in the
// README ("Provably fair shoes"); `baccarat verify` does the same for a whole history.
//
// app.js calls only Fair.shoePanel / Fair.showShoe (the commitment and your seed on the table) and
// Fair.verifyButton (one per history row).  Never builds HTML from data: DOM nodes and text only.
"use strict";

window.Fair = (() => {
  const ALGORITHM = "hmac-sha256-fisher-yates/2";
  const ALGORITHM_1 = "hmac-sha256-fisher-yates/1";
  const RANKS = "A23456789TJQK";
  const SUITS = "cdhs";
  const ACE_HIGH = "23456789TJQKA";
  const SEED_RULE = /^[\x21-\x7e]{1,64}$/;
  const SEEDS_KEY = "fair.seeds";      // localStorage: "table:shoe" -> the client seed this browser gave that shoe
  const OWN_KEY = "fair.own-seed";     // localStorage: a seed the player typed (else a fresh random one per shoe)
  const encoder = new TextEncoder();

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
  async function shoeOrder(key, decks) {
    const stream = await hmacKey(key);
    let block = 0;
    let words = [];
    async function word() {
      if (!words.length) {
        const counter = new Uint8Array(8);
        new DataView(counter.buffer).setUint32(4, block++);
        const digest = await hmac(stream, counter);
        const view = new DataView(digest.buffer);
        words = Array.from({ length: 8 }, (_, i) => view.getUint32(4 * i));
      }
      return words.shift();
    }
    const order = [];
    for (let d = 0; d < decks; d++) for (const suit of SUITS) for (const rank of RANKS) order.push(rank + suit);
    for (let i = order.length - 1; i > 0; i--) {
      const bound = i + 1;
      const limit = 2 ** 32 - (2 ** 32 % bound);
      let w = await word();
      while (w >= limit) w = await word();
      const j = w % bound;
      [order[i], order[j]] = [order[j], order[i]];
    }
    return order;
  }

  // ------------------------------------------------------------------ the rules, written out again

  function points(card) { const value = RANKS.indexOf(card[0]) + 1; return value <= 9 ? value : 0; }
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
    return { cards: cards.slice(0, taken), hands: { player, banker } };
  }

  function dealLuckyDraw(cards, seats, drew, complete) {
    const hands = { dealer: [] };
    for (const seat of seats) hands[`seat:${seat}`] = [];
    let order = [...seats.map((s) => `seat:${s}`), "dealer", ...seats.map((s) => `seat:${s}`)];
    if (complete) order = [...order, ...seats.filter((s) => drew.includes(s)).map((s) => `seat:${s}`), "dealer"];
    order.forEach((who, i) => hands[who].push(cards[i]));
    let taken = order.length;
    if (complete && total(hands.dealer) <= 4) hands.dealer.push(cards[taken++]);
    return { cards: cards.slice(0, taken), hands };
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

  // A win that is not a whole number of cents is rounded down to the cent (12.50 on Banker wins 11.87).
  function settle(game, code, stake, dealt, seat) {
    const [classify, pays] = WAGERS[game][code];
    const event = classify(dealt, seat);
    const [num, den] = pays[event];
    return [event, num === -1 ? -stake : Math.floor((stake * num) / den)];
  }

  // ------------------------------------------------------------------ one round, checked

  function cents(minor) { return (minor / 100).toFixed(2); }
  function same(a, b) { return JSON.stringify(a) === JSON.stringify(b); }
  function show(value) { return Array.isArray(value) ? value.join(" ") : String(value); }

  // Deal the shoe of `record` again up to round `number`; problems found on the way are named.
  async function dealtRound(record, number, problems) {
    const seed = unhex(record.server_seed);
    if (!seed) { problems.push("the server seed is not readable"); return null; }
    const digest = hex(await sha256(seed));
    if (digest !== String(record.commitment).toLowerCase()) {
      problems.push(`commitment: the record says ${record.commitment}, SHA-256 of the revealed seed is ${digest}`);
    }
    const order = await shoeOrder(await streamKey(record, seed), record.decks);
    let position = burnCount(order[0]);
    if (record.burned && !same(record.burned, order.slice(0, position))) {
      problems.push(`burned cards: the record says ${show(record.burned)}, the seed gives ${show(order.slice(0, position))}`);
    }
    const luckyDraw = record.game === "lucky-draw";
    for (const entry of record.rounds) {
      const left = order.slice(position);
      const dealt = luckyDraw ? dealLuckyDraw(left, entry.seats, entry.void ? [] : entry.drew || [], !("void" in entry))
        : dealPuntoBanco(left);
      if (entry.round === number) return { dealt, entry };
      position += dealt.cards.length;
    }
    problems.push(`round ${number} is not in the shoe's record`);
    return null;
  }

  // Compare a round of your history (GET /api/history) with the round the revealed shoe deals.
  // Returns the mismatches, and a note on your client seed.
  async function check(row, record) {
    const problems = [];
    const given = seedsGiven()[`${row.table_id}:${row.shoe}`];
    let note = "";
    if (record.algorithm === ALGORITHM && given) {
      // only a note: another tab or device of yours may have set another seed before you bet
      note = (record.client_seeds || []).includes(given) ? ` Your seed ${given} is among the shoe's client seeds.`
        : ` The seed this browser gave, ${given}, is not among the shoe's client seeds `
          + `(${show(record.client_seeds || [])}): did another tab or device change it before you bet?`;
    }
    const found = await dealtRound(record, row.round, problems);
    if (!found) return { problems, note };
    const { dealt, entry } = found;
    const game = record.game === "lucky-draw" ? `lucky-draw/${record.paytable || 1}` : record.game;
    const claim = (field, said, gives) => {
      if (!same(said, gives)) problems.push(`${field}: your history says ${show(said)}, the seeds give ${show(gives)}`);
    };
    claim("cards", row.cards, dealt.cards);
    const voided = "void" in entry;
    const seat = row.seat || "";
    const detail = row.detail || {};
    if (!voided && game.startsWith("lucky-draw")) {
      claim("your cards", (detail.hands || {})[seat], dealt.hands[seat]);
      claim("the dealer's cards", (detail.hands || {}).dealer, dealt.hands.dealer);
    } else if (!voided) {
      claim("Player", detail.player_cards, dealt.hands.player);
      claim("Banker", detail.banker_cards, dealt.hands.banker);
      claim("result", row.winner, winner(dealt));
    }
    for (const [code, bet] of Object.entries(row.bets)) {
      const [event, net] = voided && code !== "block_bonus" ? ["Void", 0] : settle(game, code, bet.amount, dealt, seat);
      claim(`${code}`, `${bet.event} ${cents(bet.net)}`, `${event} ${cents(net)}`);
    }
    return { problems, note };
  }

  async function verify(row, output) {
    output.className = "fair-result";
    output.textContent = "checking…";
    try {
      const response = await fetch(`/api/tables/${row.table_id}/shoes/${row.shoe}`);
      if (response.status === 409) {
        output.className = "fair-result pending";
        output.textContent = `Verifiable when shoe ${row.shoe} of ${row.table} ends: its server seed is revealed then.`;
        return;
      }
      if (!response.ok) throw new Error(`the shoe's record could not be fetched (${response.status})`);
      const { problems, note } = await check(row, await response.json());
      output.className = `fair-result ${problems.length ? "mismatch" : "verified"}`;
      output.replaceChildren(problems.length ? "MISMATCH" : "verified",
        problems.length ? el("ul", {}, ...problems.map((p) => el("li", {}, p)))
          : ": the revealed seeds deal these cards, this result and these payouts.", note);
    } catch (error) {
      output.className = "fair-result mismatch";
      output.textContent = `could not check: ${error.message}`;
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
      return el("span", { class: "fair-result" }, row.cards.length ? "" : "no cards dealt");
    }
    const button = el("button", { type: "button", class: "fair-verify", "data-verify": row.round,
      onclick: (event) => { event.stopPropagation(); verify(row, answerBox(button)); } }, "Verify");
    return el("span", { class: "fair-cell" }, button, el("span", { class: "fair-result" }));
  }

  // ------------------------------------------------------------------ the commitment and your seed

  /** The table's provably fair line: the shoe's commitment and your client seed. */
  function shoePanel(tableId, token) {
    const commitment = el("code", { class: "fair-commitment", id: "fair-commitment" });
    const state = el("span", { class: "fair-state", id: "fair-state" });
    const input = el("input", { id: "client-seed", maxlength: "64", spellcheck: "false", autocomplete: "off",
      "aria-label": "your client seed" });
    const note = el("span", { class: "fair-note", id: "client-seed-note", role: "status" });
    const panel = el("section", { class: "fair", id: "fair" },
      el("div", {}, el("b", {}, "Provably fair"), " · shoe commitment (SHA-256 of the server seed, published before any bet): ",
        commitment),
      el("div", { class: "fair-seed" }, el("label", { for: "client-seed" }, "Your client seed"), input,
        el("button", { type: "button", id: "new-client-seed", onclick: () => fresh() }, "New"),
        el("button", { type: "button", id: "set-client-seed", onclick: () => own() }, "Use this seed")),
      el("div", {}, state, " ", note));
    panel.fair = { tableId, token, shoe: null, sent: null, table: null };

    async function send(seed) {
      const headers = { "Content-Type": "application/json" };
      if (token()) headers.Authorization = `Bearer ${token()}`;
      const response = await fetch("/api/fairness/client-seed", { method: "PUT", headers, body: JSON.stringify({ seed }) });
      const data = await response.json().catch(() => null);
      if (!response.ok) {
        const detail = data && Array.isArray(data.detail) ? data.detail.map((d) => d.problem).join("; ")
          : (data && data.detail) || "the seed was refused";
        throw new Error(detail);
      }
      panel.fair.sent = seed;
      input.value = seed;
      const shoe = panel.fair.table && panel.fair.table.shoe;
      if (shoe && shoe.taking_client_seeds) remember(tableId, shoe.number, seed);
    }
    async function fresh() {
      localStorage.removeItem(OWN_KEY);
      try { await send(randomSeed()); note.textContent = "A new random seed, drawn by this browser."; }
      catch (error) { note.textContent = error.message; }
    }
    async function own() {
      const seed = input.value.trim();
      if (!SEED_RULE.test(seed)) { note.textContent = "a client seed is 1 to 64 letters, digits or punctuation marks, without spaces"; return; }
      try { await send(seed); localStorage.setItem(OWN_KEY, seed); note.textContent = "Your own seed."; }
      catch (error) { note.textContent = error.message; }
    }
    input.addEventListener("keydown", (event) => { if (event.key === "Enter") own(); });
    panel.fair.send = send;
    return panel;
  }

  /** Show the table's shoe; while it takes seeds, give it yours (a fresh random one unless you chose your own). */
  function showShoe(panel, table) {
    const shoe = table && table.shoe;
    panel.fair.table = table;
    if (!shoe) return;
    panel.querySelector("#fair-commitment").textContent = shoe.commitment;
    panel.querySelector("#fair-commitment").title = `shoe ${shoe.number}, ${shoe.algorithm}`;
    const state = panel.querySelector("#fair-state");
    if (shoe.taking_client_seeds) {
      state.textContent = `Shoe ${shoe.number} takes the seeds of those who bet before its first deal.`;
    } else if (shoe.client_seeds) {
      const count = shoe.client_seeds.length;
      state.textContent = `Shoe ${shoe.number} was shuffled with ${count} client seed${count === 1 ? "" : "s"}; `
        + "a seed you set now goes into the next shoe you bet on.";
    } else state.textContent = `Shoe ${shoe.number} (${shoe.algorithm}).`;
    const key = `${table.id}:${shoe.number}`;
    if (!shoe.taking_client_seeds || panel.fair.shoe === key) return;
    panel.fair.shoe = key;
    const chosen = localStorage.getItem(OWN_KEY);
    panel.fair.send(chosen || randomSeed())
      .then(() => {
        panel.querySelector("#client-seed-note").textContent = chosen ? "Your own seed." : "A random seed, drawn by this browser.";
      })
      .catch((error) => { panel.querySelector("#client-seed-note").textContent = error.message; });
  }

  return { shoePanel, showShoe, verifyButton, check, shoeOrder, streamKey, ALGORITHM };
})();
