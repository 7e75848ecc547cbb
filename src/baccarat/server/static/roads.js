// @ts-check
// The scoreboards ("roads") as the server computes them (GET /api/tables/{id}/roads): grids sized to
// their panel (at least 20 px cells on a desk), a letter on every Bead Plate and Big Road cell and a
// shape on every derived mark, so that red and blue are never the only cue.
import { h } from "./dom.js";
import { t } from "./i18n.js";

const ROAD_CELL = { bead: 24, big: 24, derived: 20, strip: 11 };  // px; phones keep them (see style.css --cell)

/** A road grid: ``cells`` are {node, col, row}; as many whole columns as fit the panel, more scroll (the
 *  newest in view).  The box is as wide as a whole number of columns, so that no column is ever cut in
 *  half at either edge; a road with nothing on it yet is one line that says so, not six empty rows. */
function roadGrid(cells, kind, label, empty) {
  const inner = h("div", { class: `grid g-${kind}`, "aria-hidden": "true" });
  for (const cell of cells) {
    cell.node.style.gridColumn = cell.col + 1;
    cell.node.style.gridRow = cell.row + 1;
    inner.append(cell.node);
  }
  const used = cells.reduce((most, cell) => Math.max(most, cell.col + 1), 0);
  const outer = cells.length
    ? h("div", { class: "grid-box", role: "img", "aria-label": label }, inner)
    : h("div", { class: "grid-box empty", role: "img", "aria-label": label }, h("p", { class: "road-empty" }, empty));
  outer.fit = () => {
    if (!cells.length) { outer.style.width = ""; return; }
    const cell = parseFloat(getComputedStyle(inner).getPropertyValue("--c")) || ROAD_CELL[kind];
    const pitch = cell + 1;  // a column and the 1 px line after it
    const room = (outer.parentElement || outer).clientWidth;
    const fit = Math.max(1, Math.floor((room - 3) / pitch));  // 2 px of border and 1 px of padding besides
    outer.style.width = `${fit * pitch + 3}px`;
    inner.style.gridTemplateColumns = `repeat(${Math.max(used + 1, fit)}, ${cell}px)`;
    outer.scrollLeft = outer.scrollWidth;  // the newest columns in view (a whole number of columns scrolled)
  };
  return outer;
}

// A window that changes size (a phone turned, a desk window dragged) fits every road again.
window.addEventListener("resize", () => {
  for (const box of /** @type {NodeListOf<any>} */ (document.querySelectorAll(".grid-box"))) if (box.fit) box.fit();
});

function pairs(cell) { return `${cell.banker_pair ? "pair-b" : ""} ${cell.player_pair ? "pair-p" : ""}`; }

function outcomeWord(outcome) { return t(`road.outcome.${outcome}`); }

function beadPlate(cells) {
  const marks = cells.map((c) => ({ col: c.col, row: c.row,
    node: h("span", { class: `cell bead ${c.outcome} ${pairs(c)}`, title: outcomeWord(c.outcome) }, t(`road.letter.${c.outcome}`)) }));
  return roadGrid(marks, "bead", t("road.bead_plate.label", { n: cells.length }), t("road.empty_hands"));
}

function bigRoad(cells, kind) {
  const marks = cells.map((c) => ({ col: c.col, row: c.row,
    node: h("span", { class: `cell big ${c.side || "none"} ${pairs(c)}`,
                      title: c.side ? outcomeWord(c.side) + (c.ties ? ` · ${t("road.ties", { n: c.ties })}` : "")
                                    : t("road.ties", { n: c.ties }) },
      c.side ? h("span", { class: "letter" }, t(`road.letter.${c.side}`)) : null,
      c.ties ? h("span", { class: "tie" }) : null,
      c.ties > 1 ? h("span", { class: "ties" }, c.ties) : null) }));
  const columns = cells.reduce((most, c) => Math.max(most, c.col + 1), 0);
  return roadGrid(marks, kind || "big", t("road.big_road.label", { n: columns }), t("road.empty_hands"));
}

const DERIVED = { big_eye_boy: "eye", small_road: "small", cockroach_pig: "roach" };

function derivedMark(kind, colour, extra) {
  return h("span", { class: `cell mark ${kind} ${colour} ${extra || ""}`, title: t(`road.colour.${colour}`) });
}

function derivedRoad(marks, road) {
  const cells = marks.map((m) => ({ col: m.col, row: m.row, node: derivedMark(DERIVED[road], m.colour) }));
  const reds = marks.filter((m) => m.colour === "red").length;
  return roadGrid(cells, "derived", t("road.derived.label", { road: t(`road.${road}`), red: reds, blue: marks.length - reds }),
                  t("road.empty_marks"));
}

function statsLine(stats, game) {
  const parts = [t("stats.hands", { n: stats.hands }),
                 t("stats.banker", { n: stats.banker, pct: stats.banker_pct }),
                 t("stats.player", { n: stats.player, pct: stats.player_pct }),
                 t("stats.tie", { n: stats.tie, pct: stats.tie_pct }),
                 t("stats.banker_pairs", { n: stats.banker_pairs }),
                 t("stats.player_pairs", { n: stats.player_pairs }),
                 t("stats.naturals", { n: stats.naturals })];
  if (game === "ez") parts.push(t("stats.dragon_7", { n: stats.dragon_7 }), t("stats.panda_8", { n: stats.panda_8 }));
  return h("div", { class: "stats" }, parts.map((p) => h("span", {}, p)));
}

/** The roads panel; call ``panel.fit()`` once it is in the page (and when its width changes). */
export function roadsPanel(roads, game) {
  const preview = h("div", { class: "ask-preview", id: "ask-preview", "aria-live": "polite" });
  const buttons = {};
  function ask(side) {
    for (const [name, button] of Object.entries(buttons)) button.setAttribute("aria-pressed", String(name === side));
    const marks = roads.ask[side];
    preview.replaceChildren(h("span", { class: "ask-title" }, t(`road.ask.${side}.next`)),
      ...Object.keys(DERIVED).map((road) => h("span", { class: "ask-item" },
        h("span", { class: "ask-road" }, t(`road.${road}`)),
        marks[road] ? derivedMark(DERIVED[road], marks[road], "asked") : h("span", { class: "cell none" }, "–"),
        h("span", { class: "ask-colour" }, marks[road] ? t(`road.colour.${marks[road]}`) : t("road.no_mark")))));
  }
  for (const side of ["banker", "player"]) {
    buttons[side] = h("button", { type: "button", id: `ask-${side}`, class: `ask ${side}`, "aria-pressed": "false",
                                  onclick: () => ask(side) }, t(`road.ask.${side}`));
  }
  const grids = [];
  const road = (id, title, grid) => { grids.push(grid); return h("div", { class: "road", id }, h("h4", {}, title), grid); };
  const panel = h("section", { class: "panel roads", id: "roads", "aria-label": t("road.panel") },
    h("h3", {}, t("road.title", { shoe: roads.shoe == null ? "–" : roads.shoe })),
    road("bead-plate", t("road.bead_plate"), beadPlate(roads.bead_plate)),
    road("big-road", t("road.big_road"), bigRoad(roads.big_road)),
    h("div", { class: "derived-roads" },
      ...Object.keys(DERIVED).map((name) => road(name.replaceAll("_", "-"), t(`road.${name}`), derivedRoad(roads[name], name)))),
    h("p", { class: "legend" },
      derivedMark("small", "red"), ` ${t("road.colour.red")}  `, derivedMark("small", "blue"), ` ${t("road.colour.blue")}`,
      h("span", { class: "legend-note" }, t("road.legend"))),
    statsLine(roads.stats, game),
    h("div", { class: "asks" }, buttons.banker, buttons.player), preview);
  panel.fit = () => { for (const grid of grids) grid.fit(); };
  return panel;
}

/** The Big Road as a strip on a phone's main screen, under the cards (the whole panel is below the fold). */
export function roadStrip(roads) {
  const grid = bigRoad(roads.big_road, "strip");
  const box = h("div", { class: "road road-strip-road" }, grid);
  box.fit = () => grid.fit();
  return box;
}

/** The lobby's small Big Road. */
export function lobbyRoad(roads, game) {
  const grid = bigRoad(roads.big_road, "big");
  const box = h("div", { class: "road lobby-road" }, h("h4", {}, t("road.big_road")), grid, statsLine(roads.stats, game));
  box.fit = () => grid.fit();
  return box;
}
