// @ts-check
// Drawing the felt from the state: the status line and countdown, the news, the seats, and the hands as the
// frames reveal the cards.
import { secondsUntil, serverNow } from "../api.js";
import { announce, cardBack, cardFace, cardLabel, h, text } from "../dom.js";
import { codeText, lang, money, t, tableTitle } from "../i18n.js";
import { Sound } from "../sound.js";

/** @param {any} T the table (table/index.js): its state S, its elements el, and the other parts' functions */
export function makeFelt(T) {
  /** @type {import("./state.js").TableState} */
  const S = T.S;
  const { el } = T;
  const { view, lucky, mySeat, myBets, sum, bettingOpen } = T.on;

  function render() {
    if (!S.view) return;
    if (S.built !== S.view.game) T.build();
    renderStatus();
    renderSeats();
    renderHands();
    T.renderResult();
    T.renderSpots();
    T.renderDecision();
    T.renderTray();
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
    if (open !== S.wasOpen) { S.wasOpen = open; T.renderTray(); T.renderSpots(); }
  }

  function renderStatus() {
    const v = view();
    text(el.title, tableTitle(v.name, v.game));
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
    const lastWords = last && last.round !== v.round_number ? resultLine(last, T.seatIn(last.round)) : "";
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
      box = T.handBox(`seat-${seat}-hand`, t("hand.seat", { seat, name }), "other");
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
    T.renderSqueeze();
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
        for (const b of backs) b.remove();
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


  return { drawBar, handFor, handTotal, phaseEnds, render, renderCountdown, renderHands, renderNews, renderSeats, renderStatus, resultLine };
}
