// @ts-check
// The squeeze (a squeeze table): the card being squeezed, large, and its squeezer's peel.
import { secondsUntil, serverNow } from "../api.js";
import { h, rankOf, refill, SUITS, text } from "../dom.js";
import { t } from "../i18n.js";
import { session } from "../shell.js";

/** @param {any} T the table (table/index.js): its state S, its elements el, and the other parts' functions */
export function makeSqueeze(T) {
  /** @type {import("./state.js").TableState} */
  const S = T.S;
  const { el } = T;
  const { view } = T.on;

  // Cards come face down (view.squeeze.cards).  The card being squeezed is drawn large on the squeeze stage,
  // over the layout (betting is closed), with only the part of its face the server sends for its lift (its
  // `shows`: the pips, the index and a picture's frame a real card lifted that far would show, never more).  Its
  // squeezer lifts it from the bottom edge (the pips row by row), the right edge (the sides) or the corner (the
  // index first), by dragging or with the keys; every watcher sees the same lift and the same part of the face.
  // The face comes whole in view.cards once turned, and flips over in its hand.
  const reducedMotion = () => window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  const EDGE_KEYS = { ArrowUp: "short", ArrowLeft: "long", PageUp: "corner" };
  const LOWER_KEYS = new Set(["ArrowDown", "ArrowRight", "PageDown"]);
  const stage = {
    card: h("div", { class: "stage-card", role: "img" }, h("div", { class: "stage-face" })),
    title: h("h3", { class: "stage-title" }),
    countdown: h("p", { class: "stage-countdown", role: "timer", "aria-live": "off" }),
    howto: h("p", { class: "stage-howto" }),
    turn: h("button", { type: "button", class: "primary", id: "squeeze-turn", hidden: true },
      t("squeeze.turn")),
  };
  el.stage = h("div", { class: "squeeze-stage", id: "squeeze-stage", hidden: true }, stage.card,
    h("div", { class: "stage-words" }, stage.title, stage.countdown, stage.howto, stage.turn));
  el.hands.after(el.stage);

  function squeezable(c) {
    return Boolean(c.by && session.me && c.by === session.me.username && c.squeezed_from
      && serverNow() >= Date.parse(c.squeezed_from));
  }

  function sendSqueeze(frame) {
    if (!T.socket || T.socket.readyState !== WebSocket.OPEN) return;
    S.squeezeSent = (S.squeezeSent || 0) + 1;  // its answer (no key) is not a bet's or a decision's
    T.socket.send(JSON.stringify(frame));
  }

  // the squeezer's own peel belongs to one card of one round: never carried into another
  function ownPeel(c) {
    const p = S.peel;
    return p && p.round === view().round_number && p.card === c.index ? p : null;
  }

  function peelTo(index, edge, lift, force) {
    const round = view().round_number;
    if (S.turnedCard === `${round}:${index}`) return;  // turned once: a drag past the top sends nothing more
    const value = Math.max(0, Math.min(1, Math.round(lift * 100) / 100));
    S.peel = { round, card: index, edge, lift: value };
    drawStage();
    if (value >= 1) {
      S.turnedCard = `${round}:${index}`;
      S.peelSentAt = 0;
      clearTimeout(S.peelLater);
      sendSqueeze({ type: "turn", card: index });
      return;
    }
    const now = performance.now();
    clearTimeout(S.peelLater);
    if (!S.peelSentAt || now - S.peelSentAt > 150) {  // at most about 7 peels a second (the server takes 10)
      S.peelSentAt = now;
      sendSqueeze({ type: "squeeze", card: index, lift: value, edge });
    } else if (force) {  // the lift let go at: sent once the pause is over, never sooner (it would be passed over)
      S.peelLater = setTimeout(() => {
        const p = S.peel;
        if (p && p.round === round && p.card === index) peelTo(index, p.edge, p.lift);
      }, 150 - (now - S.peelSentAt) + 1);
    }
  }

  // The answer to the last peel sent: the peel on show.  The server passes over a peel that arrives within its
  // pause of the one before (two frames read off the network together after a stall arrive at once), so the
  // lift the squeezer let go at may not be the one every watcher sees: it is sent again, after the pause.
  function peelAnswered(shown) {
    const p = S.peel;
    // more answers to come, or no lift of this round's held (a turn is always taken)
    if (S.squeezeSent || !p || p.lift >= 1 || p.round !== view().round_number) return;
    if (shown && shown.card === p.card && shown.edge === p.edge && shown.lift === p.lift) return;
    if (!shown || shown.card === p.card) peelTo(p.card, p.edge, p.lift, true);
  }

  // the uncovered part of the face, as a clip-path: what the drawing shows is only what `shows` holds, and
  // this only shapes the light of the lifted card around it (the thumbs hold an edge's corners down; the light
  // reaches a little past the pips' centres, so a pip the server sent is drawn whole)
  function uncoveredPath(edge, lift) {
    const pct = (v) => `${(v * 100).toFixed(1)}%`;
    if (lift <= 0) return "polygon(100% 100%, 100% 100%, 100% 100%)";
    if (edge === "short") return `polygon(12% ${pct(1 - lift)}, 88% ${pct(1 - lift)}, 88% 100%, 12% 100%)`;
    if (edge === "long") return `polygon(${pct(1 - lift)} 12%, 100% 12%, 100% 88%, ${pct(1 - lift)} 88%)`;
    const k = 2 - 2 * lift;  // the fold line x + y = k
    return k >= 1 ? `polygon(100% ${pct(k - 1)}, 100% 100%, ${pct(k - 1)} 100%)`
      : `polygon(${pct(k)} 0%, 100% 0%, 100% 100%, 0% 100%, 0% ${pct(k)})`;
  }

  function faceParts(shows) {
    const red = shows.suit === "h" || shows.suit === "d";
    const suit = shows.suit ? SUITS[shows.suit] : "";
    const parts = shows.pips.map(([x, y]) => h("span", {
      class: "pip", style: { left: `${x * 100}%`, top: `${y * 100}%`, transform: `translate(-50%, -50%)${y > 0.5 ? " rotate(180deg)" : ""}` },
    }, suit));
    if (shows.court) parts.push(h("span", { class: "court" }, h("span", { class: "crown" }, "\u265B"), suit));
    if (shows.index) {
      const rank = rankOf(shows.index);  // "10" for T
      parts.push(h("span", { class: "index top" }, rank, h("br"), suit), h("span", { class: "index bottom" }, rank, h("br"), suit));
    }
    return { red, parts };
  }

  function drawStage() {
    const c = S.stageCard;
    el.stage.hidden = !c;
    if (!c) { clearInterval(S.stageTick); S.stageTick = null; return; }
    const mine = squeezable(c);
    const own = mine ? ownPeel(c) : null;
    const edge = own ? own.edge : c.edge;
    const lift = own ? own.lift : c.lift;
    const side = t(`squeeze.side.${c.to}`);
    text(stage.title, mine ? t("squeeze.title_yours", { side }) : t("squeeze.title_by", { name: c.by, side }));
    text(stage.howto, mine ? t("squeeze.howto") : t("squeeze.watch", { name: c.by }));
    stage.turn.hidden = !mine;
    stage.turn.onclick = () => peelTo(c.index, edge, 1, true);
    stage.card.tabIndex = mine ? 0 : -1;
    stage.card.classList.toggle("mine", mine);
    stage.card.setAttribute("data-index", String(c.index));
    stage.card.setAttribute("data-edge", edge);
    stage.card.style.setProperty("--lift", String(lift));
    stage.card.setAttribute("aria-label", `${t("squeeze.big", { side, percent: Math.round(lift * 100) })}. ${
      mine ? t("squeeze.yours", { seconds: secondsUntil(c.turns_at) }) : t("squeeze.by", { name: c.by })}`);
    const face = stage.card.querySelector(".stage-face");
    const { red, parts } = faceParts(c.shows);
    face.classList.toggle("red", red);
    face.style.clipPath = uncoveredPath(edge, lift);
    refill(face, ...parts);
    drawCountdown();
    if (!S.stageTick) S.stageTick = setInterval(drawCountdown, 250);
  }

  function drawCountdown() {
    const c = S.stageCard;
    if (c) text(stage.countdown, t("squeeze.turns_in", { seconds: secondsUntil(c.turns_at) }));
  }

  (function handleTheStageCard() {
    const node = stage.card;
    let grab = null;
    node.addEventListener("pointerdown", (event) => {
      const c = S.stageCard;
      if (!c || !squeezable(c)) return;
      const box = node.getBoundingClientRect();
      const fx = (event.clientX - box.left) / box.width;
      const fy = (event.clientY - box.top) / box.height;
      // where the card is taken says what is lifted: its corner, its right (long) edge or its bottom (short) edge
      const edge = fx > 0.7 && fy > 0.75 ? "corner" : fx > 0.6 ? "long" : "short";
      const own = ownPeel(c);
      grab = { c, edge, x: event.clientX, y: event.clientY, w: box.width || 1, h: box.height || 1,
               lift: own && own.edge === edge ? own.lift : 0 };
      node.setPointerCapture(event.pointerId);
      event.preventDefault();
    });
    node.addEventListener("pointermove", (event) => {
      if (!grab) return;
      const up = (grab.y - event.clientY) / grab.h;
      const left = (grab.x - event.clientX) / grab.w;
      const dragged = grab.edge === "short" ? up : grab.edge === "long" ? left : Math.max(up, left);
      peelTo(grab.c.index, grab.edge, grab.lift + Math.max(0, dragged));
    });
    const drop = () => {
      if (!grab) return;
      const { c, edge } = grab;
      grab = null;
      const own = ownPeel(c);
      if (own && own.lift < 1) peelTo(c.index, edge, own.lift, true);
    };
    node.addEventListener("pointerup", drop);
    node.addEventListener("pointercancel", drop);
    node.addEventListener("keydown", (event) => {
      const c = S.stageCard;
      if (!c || !squeezable(c)) return;
      const own = ownPeel(c);
      const edge = EDGE_KEYS[event.key];
      if (edge) peelTo(c.index, edge, (own && own.edge === edge ? own.lift : 0) + 0.1, true);
      else if (LOWER_KEYS.has(event.key)) peelTo(c.index, own ? own.edge : c.edge, (own ? own.lift : c.lift) - 0.1, true);
      else if (event.key === "Enter" || event.key === " ") peelTo(c.index, own ? own.edge : c.edge, 1, true);
      else return;
      event.preventDefault();
    });
  }());

  function renderSqueeze() {
    const sq = view().squeeze;
    if (!sq) { S.stageCard = null; drawStage(); return; }  // a table without the squeeze
    const cards = sq.cards || [];
    const down = new Set(cards.map((c) => c.index));
    for (const node of el.hands.querySelectorAll(".card.squeeze")) {
      if (!down.has(Number(node.getAttribute("data-index")))) node.remove();  // turned: its face is in cards
    }
    for (const c of cards) {
      const box = T.handFor(c.to);
      if (!box) continue;
      let node = box.querySelector(`.card.squeeze[data-index="${c.index}"]`);
      if (!node) {
        node = h("span", { class: "card back squeeze", role: "img", "data-index": String(c.index) });
        box.querySelector(".cards").append(node);
      }
      node.classList.toggle("squeezing", Boolean(c.turns_at));
      const own = ownPeel(c);
      node.style.setProperty("--lift", String(own ? own.lift : c.lift));
      node.setAttribute("aria-label", c.by ? t("squeeze.by", { name: c.by }) : t("card.face_down"));
    }
    // who squeezes each side, under its hand, for the whole squeeze
    for (const to of ["player", "banker"]) {
      const box = T.handFor(to);
      if (!box) continue;
      let line = box.querySelector(".squeezer");
      if (!line) { line = h("p", { class: "squeezer" }); box.querySelector("h3").after(line); }
      const name = cards.length ? sq.squeezers[to] : null;
      text(line, name ? t("squeeze.squeezer", { name }) : "");
    }
    const being = cards.find((c) => c.turns_at && c.by) || null;
    const mine = being ? squeezable(being) : false;
    const key = being ? `${view().round_number}:${being.index}` : null;
    const wasMine = Boolean(key) && S.stageMine === key;
    S.stageCard = being;
    S.stageMine = mine ? key : null;
    drawStage();
    if (mine && !wasMine) {
      if (reducedMotion()) peelTo(being.index, being.edge, 1, true);  // reduced motion: turned at once
      else stage.card.focus({ preventScroll: true });
    }
    // a card becomes the squeezer's at its squeezed_from, a moment no frame marks: render then
    clearTimeout(S.squeezeTimer);
    const next = cards.filter((c) => c.squeezed_from && Date.parse(c.squeezed_from) > serverNow())
      .map((c) => Date.parse(c.squeezed_from) - serverNow());
    if (next.length) S.squeezeTimer = setTimeout(T.render, Math.min(...next) + 20);
    el.hands.classList.toggle("squeeze-on", Boolean(cards.length));
  }

  return {
    drawCountdown, drawStage, faceParts, ownPeel, peelAnswered, peelTo, renderSqueeze, sendSqueeze, squeezable,
    uncoveredPath,
  };
}
