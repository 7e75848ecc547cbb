// @ts-check
// The game's parts, built once per game: the spots from the game's felt, the hands, and the rules panel with
// every pay table (the registry's words).
import { h } from "../dom.js";
import { eventName, has, paysLabel, paytableName, rememberWagers, t, wagerName } from "../i18n.js";

/** @param {any} T the table (table/index.js): its state S, its elements el, and the other parts' functions */
export function makeLayout(T) {
  /** @type {import("./state.js").TableState} */
  const S = T.S;
  const { el } = T;
  const { view, game, lucky, wagers, wager } = T.on;

  function build() {
    const v = view();
    S.built = v.game;
    rememberWagers(v.wagers);
    // where each spot sits is the game's data (its felt: side, row, place in the row), built-in games' and rules
    // files' alike
    const felt = (w) => w.felt || { side: "centre", row: 0, order: 0 };
    const order = [...wagers()].sort((a, b) => felt(a).row - felt(b).row || felt(a).order - felt(b).order)
      .map((w) => w.code);
    const rows = new Set(wagers().map((w) => felt(w).row)).size;
    el.layout.className = `layout n${order.length} ${lucky() ? "lucky" : ""}`;
    el.layout.replaceChildren(...order.map((code) => {
      const w = wager(code);
      const side = { player: "player-side", banker: "banker-side" }[felt(w).side] || "";
      return h("button", { type: "button", class: `spot ${side}`, "data-spot": code, onclick: () => T.stake(code),
        style: rows > 1 ? { gridRow: String(felt(w).row + 1) } : null },
        h("span", { class: "name" }, wagerName(code, w.name)),
        h("span", { class: "pays" }, w.placed === "decision" ? t("spot.draw_pays", { pays: paysLabel(w.summary) }) : paysLabel(w.summary),
          w.multiplied ? t("spot.multiplied") : "",
          // a fee paid with each stake (a fraction of it, "1/5"), shown as a percentage
          w.fee ? t("spot.fee", { percent: Math.round(10000 * Number(w.fee.split("/")[0]) / Number(w.fee.split("/")[1])) / 100 }) : ""),
        h("span", { class: "note" }, (w.pays || []).filter((p) => p.label === "push" && !/tie/i.test(p.event))
          .map((p) => eventName(p.event, code)).join(" · ")),
        h("span", { class: "limits" }),
        h("span", { class: "crowd" }),
        // the seats on the spot, and your own chips drawn as a stack beside them (drawStack)
        h("span", { class: "markers", "aria-hidden": "true" }, h("span", { class: "stack" })),
        h("span", { class: "amount" }),
        h("span", { class: "net" }));
    }));
    buildPaytables();
    if (lucky()) {
      el.hands.className = "hands lucky";
      el.hands.replaceChildren(
        handBox("dealer-hand", t("hand.dealer"), "dealer"),
        handBox("your-hand", t("hand.you"), "you"),
        h("div", { class: "others", id: "other-hands" }));
    } else {
      el.hands.className = "hands";
      el.hands.replaceChildren(handBox("player-hand", t("hand.player"), "player"), handBox("banker-hand", t("hand.banker"), "banker"));
    }
    S.shownRound = null;
  }

  function handBox(id, title, side) {
    return h("div", { class: `hand ${side}`, id },
      h("h3", {}, title),
      h("div", { class: "cards", role: "group", "aria-label": title }),
      h("div", { class: "total", "aria-live": "off" }),
      h("div", { class: "hand-result" }));
  }

  // The rules panel: how the game is played and every pay table, all from the registry (the games
  // catalogue: the wagers' pays, what each Block result means, on which totals the dealer draws); a pay
  // table is named by what it pays ("Draw: Lucky 7 (3-card 7) pays 2:1"), never by its number.
  function buildPaytables() {
    const rows = (w) => (w.pays || []).filter((p) => p.label !== "loses" || p.rule).map((p) =>
      h("tr", {}, h("th", { scope: "row" }, eventName(p.event, w.code)), h("td", {}, paysLabel(p.label)),
        p.rule ? h("td", { class: "rule" }, has(`rule.${p.event}`) ? t(`rule.${p.event}`) : p.rule) : null));
    const tables = wagers().map((w) => h("table", { class: "paytable", "data-wager": w.code },
      h("caption", {}, w.placed === "decision" && w.headline ? paytableName(w) : wagerName(w.code, w.name)),
      h("tbody", {}, rows(w))));
    const info = S.games && S.games.find((g) => g.code === game() && (g.paytable == null || g.paytable === view().paytable));
    const draws = (info && info.dealer_draws) || [];
    const drawing = info && info.drawing;
    const how = lucky()
      ? [t("rules.lucky_hand"), t("rules.lucky_draw"), draws.length ? t("rules.lucky_dealer", { totals: totalsWords(draws) }) : null, t("rules.lucky_block")]
      : [t("rules.punto_banco"), drawing ? t("rules.natural") : null,
         drawing ? t("rules.player_draws", { draws: totalsWords(drawing.player_draws), stands: totalsWords(standsOn(drawing.player_draws)) }) : null,
         drawing ? t("rules.banker_stood", { draws: totalsWords(drawing.banker_draws_player_stood), stands: totalsWords(standsOn(drawing.banker_draws_player_stood)) }) : null];
    const body = [h("ul", { class: "rules-how" }, how.filter(Boolean).map((line) => h("li", {}, line))),
                  drawing ? bankerChart(drawing.banker_draws) : null,
                  h("div", { class: "paytable-grid" }, tables)].filter(Boolean);
    el.paytables.className = `paytables rules ${lucky() ? "open" : ""}`;
    // Lucky Draw's open (a seat decides with them in view); punto banco's fold away under their title
    el.paytables.replaceChildren(h("details", { id: "rules-panel", open: lucky() }, h("summary", {}, `${t("rules.title")} · ${t("paytable.title")}`), ...body));
  }

  // totals as a player reads them: a run as "0–5", otherwise listed ("3, 5")
  function totalsWords(totals) {
    const run = totals.length > 1 && totals[totals.length - 1] - totals[0] === totals.length - 1;
    return run ? `${totals[0]}–${totals[totals.length - 1]}` : totals.join(t("list.comma"));
  }

  // the two-card totals without a natural (0-7) that stand, given those that draw
  function standsOn(drawsOn) {
    return [0, 1, 2, 3, 4, 5, 6, 7].filter((total) => !drawsOn.includes(total));
  }

  // the Banker's chart as casino layouts print it: a row per Banker total, a column per Player third card
  function bankerChart(chart) {
    const thirds = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
    return h("table", { class: "drawing-chart", id: "drawing-chart" },
      h("caption", {}, t("rules.banker_chart")),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("rules.banker_total")),
        ...thirds.map((third) => h("th", { scope: "col", title: t("rules.player_third") }, String(third))))),
      h("tbody", {}, Object.keys(chart).sort((a, b) => Number(a) - Number(b)).map((total) => h("tr", {},
        h("th", { scope: "row" }, total),
        ...thirds.map((third) => {
          const drawsHere = chart[total].includes(third);
          return h("td", { class: drawsHere ? "draws" : "stands" }, t(drawsHere ? "rules.draws" : "rules.stands"));
        })))),
      h("tfoot", {}, h("tr", {}, h("td", { colspan: "11" }, t("rules.chart_note")))));
  }

  return { bankerChart, build, buildPaytables, handBox, standsOn, totalsWords };
}
