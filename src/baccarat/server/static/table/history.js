// @ts-check
// What the table reads besides its frames: the roads, Lucky Draw's strategy card and the player's history.
import { api } from "../api.js";
import { cardLabel, h, refill } from "../dom.js";
import * as Fair from "../fair.js";
import { eventName, lang, money, reasonText, t, wagerName } from "../i18n.js";
import { roadsPanel, roadStrip } from "../roads.js";

/** @param {any} T the table (table/index.js): its state S, its elements el, and the other parts' functions */
export function makeHistory(T) {
  /** @type {import("./state.js").TableState} */
  const S = T.S;
  const { el } = T;
  const { game, lucky } = T.on;

  async function loadRoads() {
    if (!S.view || lucky()) { el.roads.replaceChildren(); el.strip.replaceChildren(); return; }
    try {
      S.roads = await api("GET", `/api/tables/${T.tableId}/roads`);
      const panel = roadsPanel(S.roads, game());
      const strip = roadStrip(S.roads);
      el.roads.replaceChildren(panel);
      el.strip.replaceChildren(strip);
      requestAnimationFrame(() => { panel.fit(); strip.fit(); });
      if (S.view) T.renderStatus();
    } catch { /* the next result tries again */ }
  }

  async function loadStrategy() {
    if (S.strategy || S.strategyLoading) return;
    S.strategyLoading = true;
    try { S.strategy = await api("GET", `/api/tables/${T.tableId}/strategy`); T.renderDecision(); }
    catch { /* no hint then */ }
    S.strategyLoading = false;
  }

  /** The seat this table's round ``number`` was played from, as the history says ("seat:N", Lucky Draw), or
   *  null: never the seat the player has now, which may have been another's then. */
  function seatIn(number) {
    const row = S.history.find((r) => r.round === number);
    return (row && row.seat) || null;
  }

  // The history comes a page at a time, the newest dealt first; a reload keeps as many rows as were shown.
  const HISTORY_PAGE = 12;

  async function loadHistory() {
    try {
      const limit = Math.min(100, Math.max(HISTORY_PAGE, S.history.length));
      S.history = await api("GET", `/api/history?table=${T.tableId}&limit=${limit}`);
      S.historyMore = S.history.length === limit;
      drawHistory();
    } catch { /* shown on the next attempt */ }
  }

  async function loadOlderHistory() {
    const oldest = S.history[S.history.length - 1];
    if (!oldest) return;
    try {
      const older = await api("GET",
        `/api/history?table=${T.tableId}&limit=${HISTORY_PAGE}&before=${encodeURIComponent(oldest.cursor)}`);
      S.history = S.history.concat(older);
      S.historyMore = older.length === HISTORY_PAGE;
      drawHistory();
    } catch { /* the button stays for another try */ }
  }

  function drawHistory() {
    // Verify's answers (rows fair.js puts under a round's row) stay under their round when it is redrawn
    const answers = new Map();
    for (const answer of el.history.querySelectorAll("tr.fair-answer")) {
      const above = answer.previousElementSibling;
      if (above && above.dataset.round) answers.set(above.dataset.round, answer);
    }
    // five columns, readable in the side column at 1366: the round with its time (which opens the detail) under
    // it, the bets, the result, the net with the balance after it under it, and Verify
    const columns = ["round", "bets", "result", "net", ...(T.fair ? ["fair"] : [])];
    const heads = { round: [t("history.round"), t("history.time")], net: [t("history.net"), t("history.balance")] };
    const rows = S.history.flatMap((r) => {
      const net = Object.values(r.bets).reduce((total, bet) => total + bet.net, 0);
      const id = `round-${r.round}-detail`;
      const open = S.openRows.has(r.round);
      const detail = h("tr", { class: "detail", id, hidden: !open }, h("td", { colspan: columns.length }, describe(r)));
      const toggle = h("button", { type: "button", class: "link", "aria-expanded": String(open), "aria-controls": id,
        onclick: () => {
          const now = detail.hidden;
          detail.hidden = !now;
          toggle.setAttribute("aria-expanded", String(now));
          if (now) S.openRows.add(r.round); else S.openRows.delete(r.round);
        } }, new Date(r.time).toLocaleTimeString(lang, { hour: "numeric", minute: "2-digit" }));
      const row = h("tr", { class: "row", "data-round": r.round },
        h("td", { class: "round" }, h("span", {}, r.round), h("br"), toggle),
        h("td", {}, Object.entries(r.bets).map(([code, bet]) => `${wagerName(code, bet.name)} ${money(bet.amount)}`).join(", ")),
        h("td", {}, historyResult(r, net)),
        h("td", { class: "money" },
          h("span", { class: `net ${net > 0 ? "plus" : net < 0 ? "minus" : ""}` }, net > 0 ? `+${money(net)}` : money(net)),
          r.balance_after == null ? null : h("span", { class: "after" }, money(r.balance_after))),
        T.fair ? h("td", { class: "fair" }, Fair.verifyButton(r)) : null);  // deals the round again from its revealed shoe (fair.js)
      return [row, answers.get(String(r.round)), detail];
    });
    refill(el.history, h("h3", { id: "history-title" }, t("history.title")),
      h("table", { class: "history" },
        h("thead", {}, h("tr", {}, columns.map((c) => h("th", { scope: "col" },
          heads[c] ? [heads[c][0], h("span", { class: "sub" }, heads[c][1])] : t(`history.${c}`))))),
        h("tbody", {}, rows.length ? rows : h("tr", {}, h("td", { colspan: columns.length }, t("history.none"))))),
      S.historyMore ? h("button", { type: "button", class: "link more", onclick: loadOlderHistory }, t("history.more"))
        : null,
      T.exportPanel);
  }

  function historyResult(r, net) {
    if (r.status === "refunded" || r.status === "void") return t("history.refunded");
    const d = r.detail || {};
    if (r.winner && d.player_total != null) return T.resultLine({ winner: r.winner, player_total: d.player_total, banker_total: d.banker_total });
    if (r.bets.enter) {
      const event = r.bets.enter.event;
      const said = event === "Player wins" ? t("history.you_won") : event === "Dealer wins" ? t("history.dealer_won") : t("history.push");
      const hands = d.hands || {};
      const seat = r.seat;  // the seat the round was played from, seated now or not: both totals beside the words
      return hands.dealer && seat && hands[seat]
        ? `${said} · ${t("result.dealer_you", { dealer: T.handTotal(hands.dealer), you: T.handTotal(hands[seat]) })}` : said;
    }
    return net > 0 ? t("history.won") : net < 0 ? t("history.lost") : t("history.push");
  }

  function describe(r) {
    const d = r.detail || {};
    const lines = [t("history.cards", { cards: (r.cards || []).map(cardLabel).join(" ") })];
    if (d.player_cards) {
      lines.push(t("history.hands", { player: d.player_cards.map(cardLabel).join(" "), pt: d.player_total,
                                      banker: d.banker_cards.map(cardLabel).join(" "), bt: d.banker_total }));
      if (d.reasons) {  // a round stored before the reasons had codes keeps its English words
        const why = d.reason_codes || {};
        lines.push(reasonText(why.player, d.reasons.player));
        if (d.reasons.banker !== d.reasons.player) lines.push(reasonText(why.banker, d.reasons.banker));
      }
    }
    if (d.hands) {
      lines.push(Object.entries(d.hands).map(([who, cards]) => `${who === "dealer" ? t("hand.dealer")
        : who === r.seat ? t("hand.you") : t("hand.seat", { seat: who.split(":")[1], name: "" }).trim()}: ${cards.map(cardLabel).join(" ")}`).join("; "));
    }
    lines.push(Object.entries(r.bets).map(([code, bet]) => `${wagerName(code, bet.name)}: ${eventName(bet.event, code)} (${bet.net > 0 ? "+" : ""}${money(bet.net)})`).join("; "));
    return h("div", {}, lines.map((line) => h("div", {}, line)));
  }


  return { describe, drawHistory, historyResult, loadHistory, loadOlderHistory, loadRoads, loadStrategy, seatIn };
}
