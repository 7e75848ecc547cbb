// @ts-check
// The result, the spots, Lucky Draw's decision and the tray, drawn from the state.
import { announce, h, text } from "../dom.js";
import { codeText, eventName, has, lang, money, paysLabel, t, wagerName } from "../i18n.js";
import { blockedText, protectionState } from "../protect.js";
import { Sound } from "../sound.js";
import { CHIPS } from "./betting.js";

/** @param {any} T the table (table/index.js): its state S, its elements el, and the other parts' functions */
export function makeOutcome(T) {
  /** @type {import("./state.js").TableState} */
  const S = T.S;
  const { el } = T;
  const { view, lucky, mySeat, railOnly, myBets, wagers, wager, sum, bettingOpen, maximum, room, available, ownLimitLeft } = T.on;

  function renderResult() {
    const v = view();
    const r = v.result && v.result.round === v.round_number ? v.result : null;
    for (const box of el.hands.querySelectorAll(".hand")) box.classList.remove("winner");
    const yours = r ? yourResult(r) : null;
    text(el.yours, yours ? yours.words : "");
    el.yours.className = `your-result ${yours ? yours.kind : ""}`;
    if (!r) {
      text(el.banner, "");
      el.banner.className = "banner";
      text(el.callouts, "");
      return;
    }
    let words;
    let spoken;
    let kind;
    if (r.void) {
      words = t("result.void", { round: r.round });
      spoken = words;
      kind = "void";
    } else if (!lucky()) {
      const a = r.winner === "banker" ? r.banker_total : r.player_total;
      const b = r.winner === "banker" ? r.player_total : r.banker_total;
      words = r.winner === "tie" ? t("banner.tie", { a: r.player_total, b: r.banker_total }) : t(`banner.${r.winner}`, { a, b });
      spoken = r.winner === "tie" ? t("result.tie", { a: r.player_total, b: r.banker_total }) : t(`result.${r.winner}`, { a, b });
      kind = r.winner;
      const box = el.hands.querySelector(`#${r.winner}-hand`);
      if (box) box.classList.add("winner");
      text(el.callouts, (r.callouts || []).map((c) => (has(`callout.${c}`) ? t(`callout.${c}`) : c)).join(" · "));
    } else {
      const seats = r.seats || {};
      const mine = mySeat() && seats[mySeat()];
      if (mine) {
        const key = { player: "you_win", dealer: "dealer_wins", tie: "push" }[mine.winner];
        words = t(`banner.${key}`, { you: mine.total, dealer: r.dealer_total });
        spoken = t(`result.${key}`, { you: mine.total, dealer: r.dealer_total });
        kind = mine.winner === "player" ? "you" : mine.winner === "dealer" ? "dealer" : "tie";
        if (mine.winner === "player") el.hands.querySelector("#your-hand").classList.add("winner");
        if (mine.winner === "dealer") el.hands.querySelector("#dealer-hand").classList.add("winner");
      } else {
        words = t("banner.dealer_total", { dealer: r.dealer_total });
        spoken = words;
        kind = "dealer";
      }
      for (const [seat, s] of Object.entries(seats)) {
        if (seat === mySeat()) continue;
        const box = el.hands.querySelector(`#other-hands [data-seat="${seat}"]`);
        if (box) text(box.querySelector(".hand-result"), t(`seat_result.${s.winner}`, { you: s.total, dealer: r.dealer_total }));
      }
      text(el.callouts, "");
    }
    text(el.banner, words);
    el.banner.className = `banner show ${kind}`;
    if (S.resultShown !== r.round) {
      const first = S.resultShown === null && S.firstFrame;
      S.resultShown = r.round;
      if (!first) announce(yours ? `${spoken}. ${yours.words}` : spoken);  // the same words as the line
      if (!first) Sound.play(yours ? { plus: "win", minus: "lose" }[yours.kind] || "push" : "result");
      if (yours || first) S.yoursSaid = r.round;
    } else if (yours && S.yoursSaid !== r.round) {
      // the settlement came in a frame after the result's: the line is said on its own
      S.yoursSaid = r.round;
      announce(yours.words);
    }
    if (S.resultDone !== r.round) {
      S.resultDone = r.round;
      const placed = { ...myBets() };
      delete placed.draw;
      if (S.you && S.you.round === r.round && Object.keys(placed).length) S.last = placed;
      T.loadRoads();
      T.loadHistory();
      T.loadOwnLimits();
    }
  }

  /** The player's own result on round ``r`` in one line, from the settlement the server showed: null
   *  when the player had no bet on it, while any of the bets is still unsettled, and on a void round
   *  (the banner says every stake came back). */
  function yourResult(r) {
    const settlement = S.you && S.you.round === r.round && !r.void ? S.you.settlement : null;
    const bets = Object.keys(myBets());
    if (!settlement || !bets.length || !bets.every((code) => settlement.bets && settlement.bets[code])) return null;
    const net = settlement.net;
    if (net > 0) return { words: t("yours.win", { amount: money(net) }), kind: "plus", net };
    if (net < 0) return { words: t("yours.lose", { amount: money(-net) }), kind: "minus", net };
    return { words: t("yours.push"), kind: "push", net };
  }

  function renderSpots() {
    const v = view();
    const mine = myBets();
    const players = v.players || {};
    const settlement = S.you && S.you.settlement && S.you.settlement.bets;
    const r = v.result && v.result.round === v.round_number ? v.result : null;
    const lit = new Set((r && r.winning_spots) || []);
    const pushed = new Set((r && r.pushed_spots) || []);
    const open = bettingOpen();
    const said = [];  // early results (Block Bonus), also said beside your hand
    for (const spot of el.layout.children) {
      const code = spot.getAttribute("data-spot");
      const w = wager(code) || {};
      const [, , , limits, crowd, markers, amount, net] = spot.children;
      const max = maximum(code);
      text(limits, w.placed === "decision" ? t("spot.equal_to_enter")
        : t("spot.limits", { min: money(v.limits.minimum), max: max === Infinity ? "∞" : money(max) }));
      const stats = (v.spots || {})[code] || { total: 0, players: 0 };
      text(crowd, stats.players ? t("spot.crowd", { n: stats.players, total: money(stats.total) }) : "");
      const who = Object.entries(players).filter(([, p]) => p.bets && p.bets[code]);
      const signature = who.map(([seat, p]) => `${seat}:${p.bets[code]}`).join(",");
      const stack = markers.querySelector(".stack");
      if (markers.dataset.sig !== signature) {
        markers.dataset.sig = signature;
        markers.replaceChildren(...who.map(([seat, p]) => h("span", { class: `marker ${seat === mySeat() ? "mine" : ""}`,
                                                                   title: `${p.name} ${money(p.bets[code])}` }, seat)), stack);
      }
      const staged = S.staged[code] || 0;
      drawStack(stack, mine[code] || 0, staged);
      text(amount, (mine[code] ? t("spot.yours", { amount: money(mine[code]) }) : "") + (staged ? ` +${money(staged)}` : ""));
      amount.className = `amount ${mine[code] ? "placed" : ""} ${staged ? "staged" : ""}`;
      const s = settlement && settlement[code];
      const outcome = s ? (s.net > 0 ? t("spot.won", { amount: money(s.net) }) : s.net < 0 ? t("spot.lost", { amount: money(-s.net) }) : t("spot.push")) : "";
      // a wager settled at the first deal (Block Bonus) names its result at the table: "Pair Block pays 10:1"
      const early = s && w.settles === "first_deal" ? settledWords(w, s) : "";
      text(net, early ? `${early} · ${outcome}` : outcome);
      if (early) said.push(`${wagerName(code, w.name)}: ${early}`);
      net.className = `net ${s ? (s.net > 0 ? "plus" : s.net < 0 ? "minus" : "") : ""}`;
      const won = lit.has(code) || Boolean(lucky() && s && s.net > 0);
      spot.classList.toggle("won", won);
      spot.classList.toggle("pushed", !won && pushed.has(code));
      spot.classList.toggle("lost", !!(s && s.net < 0));
      spot.classList.toggle("mine", !!mine[code]);
      spot.setAttribute("aria-disabled", String(!open || w.placed === "decision" || railOnly()));
      spot.classList.toggle("inert", railOnly());
      if (railOnly()) spot.setAttribute("aria-describedby", "rail"); else spot.removeAttribute("aria-describedby");
      spot.setAttribute("aria-label", [wagerName(code, w.name), spot.children[1].textContent, limits.textContent,
                                       crowd.textContent, amount.textContent, net.textContent].filter(Boolean).join(", "));
    }
    const yours = lucky() && el.hands.querySelector("#your-hand .hand-result");
    if (yours) text(yours, said.join(" · "));
  }

  /** The player's own chips on a spot as a stack beside the seat markers: the amount in the tray's chips,
   *  largest first (the top six drawn), each a chip's face with its value, the ones below showing their edge;
   *  placed chips solid and staged ones (not sent yet) dashed on top.  The amount stays in words in .amount. */
  function drawStack(box, placed, staged) {
    if (!box) return;
    const signature = `${placed}:${staged}`;
    if (box.dataset.sig === signature) return;
    box.dataset.sig = signature;
    const chips = (amount, kind) => {
      const out = [];
      let left = Math.floor(amount / 100);
      for (const value of [...CHIPS].reverse()) {
        for (; left >= value; left -= value) {
          out.push(h("span", { class: `stack-chip c${value} ${kind}`, "data-value": value }, String(value)));
        }
      }
      return out;
    };
    const all = [...chips(placed, "placed"), ...chips(staged, "staged")].slice(-6);
    all.forEach((chip, i) => { chip.style.bottom = `${i * 3}px`; });
    box.replaceChildren(...all);
  }

  /** A settled bet's result by name with what it pays ("Pair Block pays 10:1"), or its name alone when it lost. */
  function settledWords(w, s) {
    const pay = (w.pays || []).find((p) => p.event === s.event);
    return s.net > 0 && pay ? t("spot.result_pays", { event: eventName(s.event, w.code), pays: paysLabel(pay.label) })
      : eventName(s.event, w.code);
  }

  function renderDecision() {
    const v = view();
    if (!lucky()) return;
    const seat = mySeat();
    const enter = myBets().enter || 0;
    const deciding = v.phase === "decisions" && seat && enter && v.decision;
    const decided = (S.you && S.you.decision) || (S.inflight && S.inflight.kind === "decision" ? S.inflight.frame.action : null);
    const hand = seat && v.hands && v.hands[`seat:${seat}`];
    const upCard = v.decision && v.decision.first_deal && v.decision.first_deal.dealer && v.decision.first_deal.dealer[0];
    let advice = null;
    let why = null;
    if (S.hint && S.strategy && hand && upCard) {
      const drawOn = S.strategy.draw[String(hand.total)] || [];
      advice = drawOn.includes(T.handTotal([upCard])) ? "draw" : "stand";
      // the reason: the strategy's own numbers (the server's analysis), standing beside drawing
      const values = S.strategy.returns && S.strategy.returns[String(hand.total)];
      const pair = values && values[T.handTotal([upCard])];
      if (pair) {
        const signed = (x) => `${x > 0 ? "+" : x < 0 ? "−" : ""}${Math.abs(x).toLocaleString(lang, { minimumFractionDigits: 3, maximumFractionDigits: 3 })}`;
        why = t("decision.hint_why", { stand: signed(pair[0]), draw: signed(pair[1]) });
      }
    }
    const key = JSON.stringify([deciding ? v.decision.round : null, decided, S.hint, advice, hand && hand.total,
                                S.you && (S.you.balance >= enter || S.you.balance), lang]);  // a short balance: its words
    if (key === S.decisionKey) return;
    const focused = document.activeElement && el.decision.contains(document.activeElement) ? document.activeElement.id : null;
    S.decisionKey = key;
    if (!deciding) { el.decision.replaceChildren(); return; }
    if (decided) {
      el.decision.replaceChildren(h("span", { class: "decided" }, t(`decision.chose_${decided}`)));
      return;
    }
    const canDraw = (S.you.balance || 0) >= enter;
    el.decision.replaceChildren(...[
      h("span", { class: "your-total" }, t("decision.your_total", { n: hand ? hand.total : "–" })),
      // the hint's choice is the gold button; without the hint neither is pushed on the player
      h("button", { type: "button", id: "stand", class: advice === "stand" ? "primary" : "", onclick: () => T.decide("stand") },
        t("decision.stand")),
      h("button", { type: "button", id: "draw", class: advice === "draw" ? "primary" : "", "aria-disabled": String(!canDraw),
                    "aria-describedby": canDraw ? null : "draw-why", onclick: () => { if (canDraw) T.decide("draw"); else T.say(T.drawBalanceWords()); } },
        t("decision.draw", { amount: money(enter) })),
      canDraw ? null : h("span", { id: "draw-why", class: "why" }, T.drawBalanceWords()),
      h("label", { class: "hint-toggle" },
        h("input", { type: "checkbox", id: "show-hint", checked: S.hint, onchange: (e) => {
          S.hint = e.target.checked;
          localStorage.setItem("hint", S.hint ? "on" : "off");
          if (S.hint) T.loadStrategy();
          renderDecision();
        } }), ` ${t("decision.hint_toggle")}`),
      advice ? h("span", { id: "hint", class: "hint" }, t(`decision.hint_${advice}`),
                 why ? h("span", { class: "hint-why" }, ` ${why}`) : null) : null].filter(Boolean));
    if (S.hint && !S.strategy) T.loadStrategy();
    if (focused) { const again = document.getElementById(focused); if (again) again.focus(); }
  }

  function renderTray() {
    const v = view();
    const open = bettingOpen();
    const maxima = wagers().filter((w) => w.placed === "betting").map((w) => maximum(w.code));
    const tableMax = Math.max(0, ...maxima);
    const bestRoom = Math.max(0, ...wagers().filter((w) => w.placed === "betting").map((w) => room(w.code)));
    const free = available();
    const own = ownLimitLeft();  // the player's own loss or stake limit: chips over what it leaves are greyed
    for (const value of CHIPS) {
      const button = T.chipButton(value);
      const amount = value * 100;
      button.hidden = amount > tableMax;  // never offered at this table
      const overOwn = own != null && amount > own;
      const ok = !button.hidden && amount <= bestRoom && amount <= free && !overOwn;
      button.setAttribute("aria-disabled", String(!ok));
      button.classList.toggle("over-own-limit", overOwn);
      button.title = ok ? "" : amount > free ? (free > 0 ? t("chips.over_balance") : codeText("bet.balance_used_up", { amount }))
        : overOwn ? T.ownLimitWords(own) : t("chips.over_room");
    }
    // a chosen chip that no longer fits stays chosen and greyed (a spot it is put on says why): never swapped
    // for a smaller one behind the player's back
    for (const value of CHIPS) T.chipButton(value).setAttribute("aria-pressed", String(value * 100 === S.chip));
    const placed = sum(myBets());
    const staged = sum(S.staged);
    const over = T.overLimit();
    const totals = t("tray.totals", { placed: money(placed) }) + (staged ? ` · ${t("tray.staged", { amount: money(staged) })}` : "")
                   + (own != null && CHIPS.some((value) => value * 100 > own) ? ` · ${T.ownLimitWords(own)}` : "")
                   + (S.inflight && S.inflight.kind === "bet" ? ` · ${t("tray.sending")}` : "");
    // why Place bets is off, said where the eye is (not only in its tooltip)
    if (el.totals.dataset.shown !== `${totals}|${over}`) {
      el.totals.dataset.shown = `${totals}|${over}`;
      el.totals.replaceChildren(totals, ...(over ? [" · ", h("span", { class: "over-limit", id: "over-limit" }, t("bet.over_limit"))] : []));
    }
    const has = Object.keys(S.staged).length > 0;
    const set = (button, enabled) => button.setAttribute("aria-disabled", String(!enabled));
    set(T.buttons.place, open && has && !S.inflight && S.connected && !over);
    T.buttons.place.title = over ? t("bet.over_limit") : "";
    set(T.buttons.undo, (has || (S.atOnce && open && S.putDown.length > 0)) && !S.inflight);
    set(T.buttons.clear, (has || (S.atOnce && open && placed > 0)) && !S.inflight);
    set(T.buttons.double, open && !S.inflight && (has || placed > 0));
    set(T.buttons.rebet, open && !S.inflight && Object.keys(S.last).length > 0);
    set(T.buttons.leave, true);
    // on a break (protect.js's state): no Sit down button; the rail line says why and until when instead
    const onBreak = blockedText(protectionState);
    T.buttons.sit.hidden = Boolean(mySeat()) || v.status !== "open" || Boolean(onBreak);
    T.buttons.place.hidden = railOnly();  // punto banco: a player without a seat places from the rail
    el.rail.hidden = Boolean(mySeat()) || v.status !== "open";
    text(el.rail, onBreak && !mySeat() ? onBreak : lucky() ? t("rail.take_seat") : t("rail.bet_from_rail"));
    el.rail.className = `rail ${lucky() ? "inert" : ""}`;
    if (!lucky() || v) T.buttons.place.textContent = t("controls.place");
  }


  return { drawStack, renderDecision, renderResult, renderSpots, renderTray, settledWords, yourResult };
}
