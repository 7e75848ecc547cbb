// The scoreboards ("roads") as the server computes them (GET /api/tables/{id}/roads): grids sized to
// their panel (at least 20 px cells on a desk), a letter on every Bead Plate and Big Road cell and a
// shape on every derived mark, so that red and blue are never the only cue.
"use strict";

const ROAD_CELL = { bead: 24, big: 24, derived: 20 };  // px; phones keep them (see style.css --cell)

/** A road grid: ``cells`` are {node, col, row}; as many columns as fit the panel, more scroll. */
function roadGrid(cells, kind, label) {
  const inner = h("div", { class: `grid g-${kind}`, "aria-hidden": "true" });
  for (const cell of cells) {
    cell.node.style.gridColumn = cell.col + 1;
    cell.node.style.gridRow = cell.row + 1;
    inner.append(cell.node);
  }
  const used = cells.reduce((most, cell) => Math.max(most, cell.col + 1), 0);
  const outer = h("div", { class: "grid-box", role: "img", "aria-label": label }, inner);
  outer.fit = () => {
    const size = ROAD_CELL[kind] + 1;
    const fit = Math.floor((outer.clientWidth - 2) / size);
    inner.style.gridTemplateColumns = `repeat(${Math.max(used + 1, fit, 6)}, ${ROAD_CELL[kind]}px)`;
    outer.scrollLeft = outer.scrollWidth;  // the newest columns in view
  };
  return outer;
}

function pairs(cell) { return `${cell.banker_pair ? "pair-b" : ""} ${cell.player_pair ? "pair-p" : ""}`; }

function outcomeWord(outcome) { return t(`road.outcome.${outcome}`); }

function beadPlate(cells) {
  const marks = cells.map((c) => ({ col: c.col, row: c.row,
    node: h("span", { class: `cell bead ${c.outcome} ${pairs(c)}`, title: outcomeWord(c.outcome) }, t(`road.letter.${c.outcome}`)) }));
  return roadGrid(marks, "bead", t("road.bead_plate.label", { n: cells.length }));
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
  return roadGrid(marks, kind || "big", t("road.big_road.label", { n: columns }));
}

const DERIVED = { big_eye_boy: "eye", small_road: "small", cockroach_pig: "roach" };

function derivedMark(kind, colour, extra) {
  return h("span", { class: `cell mark ${kind} ${colour} ${extra || ""}`, title: t(`road.colour.${colour}`) });
}

function derivedRoad(marks, road) {
  const cells = marks.map((m) => ({ col: m.col, row: m.row, node: derivedMark(DERIVED[road], m.colour) }));
  const reds = marks.filter((m) => m.colour === "red").length;
  return roadGrid(cells, "derived", t("road.derived.label", { road: t(`road.${road}`), red: reds, blue: marks.length - reds }));
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
function roadsPanel(roads, game) {
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
  panel.fit = () => grids.forEach((grid) => grid.fit());
  return panel;
}

/** The lobby's small Big Road. */
function lobbyRoad(roads, game) {
  const grid = bigRoad(roads.big_road, "big");
  const box = h("div", { class: "road lobby-road" }, h("h4", {}, t("road.big_road")), grid, statsLine(roads.stats, game));
  box.fit = () => grid.fit();
  return box;
}
