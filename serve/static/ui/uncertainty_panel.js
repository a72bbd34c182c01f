// Uncertainty of an alpha's headline figures (GET /v1/alphas/{alpha}/analytics/uncertainty,
// docs/analytics.md "Uncertainty"): each figure with its 95% stationary block-bootstrap interval,
// the bounds in the figure's unit, drawn as a whisker. Figures served in one unit and basis share one
// scale (the same value at the same x), ends round and written under the group, 0 a solid line where
// it is in range. The page draws only: every number comes from the route.

import { panelLoader, windowText } from "./analytics_panel.js";
import { fill, h, note, table, warningList } from "./dom.js";
import { DASH, int, num } from "./format.js";
import { figureColumn, figureName, figureNameWithBasis, inUnit, labelMark, unitText } from "./labels.js";
import { boundCell, entryCell, figureCell } from "./stat_entry.js";
import { roundEnds, s } from "./svg.js";
import { TERMS } from "./vocabulary.js";

// In the route's order: the sessions' figures, then the weeks'.
const FIGURES = [
  "information_ratio",
  "excess_sharpe",
  "max_drawdown_pct",
  "turnover",
  "rebuilt_mean_ic",
  "rebuilt_icir",
  "rebuilt_hit_rate",
];

export const loadUncertainty = panelLoader("/analytics/uncertainty", "The uncertainty could not be read", renderUncertainty, { book: "long_short" });

export function renderUncertainty(body, answer) {
  const data = answer.data;
  fill(
    body,
    warningList(answer.meta && answer.meta.warnings),
    h(
      "p",
      { class: "summary" },
      `${data.book}, ${int(data.sessions)} sessions and ${int(data.weeks)} weeks with an IC${windowText(data.window)}.`,
    ),
    uncertaintyTable(data),
    note(
      `${data.method}; ${int(data.resamples)} resamples, seed ${data.seed}, confidence ${num(data.confidence)}. Block length: ${data.block_length_rule}.`,
      "caption",
    ),
  );
}

// The whiskers' width: narrow enough for the printed page (703 px), beside six columns of figures.
const WIDTH = 120;
const INSET = 8;

/** The scale a figure's whisker is drawn on: one per unit and basis, as served (the entry's `unit`
 * and `annualisation`): the annualised ratios share one, a per-week mean IC has its own (on theirs
 * it would be a dot), a share of weeks its own. */
const scaleOf = (entry) => (entry ? `${entry.unit} ${entry.annualisation}` : "none");

/** The x of `value` on a scale `[min, max]`, in a whisker's (and its axis's) own units. */
const xOn = ([min, max]) => (value) => INSET + ((value - min) / (max - min || 1)) * (WIDTH - 2 * INSET);

/** The zero line of a scale that holds 0 inside it, the same in every whisker of the scale and its axis. */
function zeroLine(ends, height) {
  if (!(ends[0] < 0 && ends[1] > 0)) return null;
  const at = xOn(ends)(0);
  return s("line", { class: "zero-line", x1: at, x2: at, y1: 0, y2: height, stroke: "#333", "stroke-width": 1.2 });
}

/** A figure's whisker on its scale: the interval, its ends, the estimate, and 0 where in range. */
function whiskerSvg(entry, key, ends) {
  const height = 18;
  const svg = s("svg", { class: "interval", width: WIDTH, height, viewBox: `0 0 ${WIDTH} ${height}`, role: "img", "data-scale": scaleOf(entry) });
  const [lower, upper, value] = entry ? [entry.lower, entry.upper, entry.value] : [null, null, null];
  if (![lower, upper].every(Number.isFinite)) {
    svg.setAttribute("aria-label", DASH);
    return svg;
  }
  const x = xOn(ends);
  svg.setAttribute("aria-label", `${figureName(key)}: ${inUnit(lower, entry.unit)} to ${inUnit(upper, entry.unit)}`);
  svg.append(zeroLine(ends, height));
  svg.append(s("line", { x1: x(lower), x2: x(upper), y1: 9, y2: 9, stroke: "#1f5fbf", "stroke-width": 2 }));
  svg.append(s("line", { class: "lower-end", x1: x(lower), x2: x(lower), y1: 4, y2: 14, stroke: "#1f5fbf", "stroke-width": 2 }));
  svg.append(s("line", { class: "upper-end", x1: x(upper), x2: x(upper), y1: 4, y2: 14, stroke: "#1f5fbf", "stroke-width": 2 }));
  if (Number.isFinite(value)) svg.append(s("circle", { class: "estimate", cx: x(value), cy: 9, r: 3.5, fill: "#111" }));
  return svg;
}

/** A scale's axis, under its figures' whiskers: its two ends written in the unit, and 0 where in range. */
function axisSvg(scale, unit, ends) {
  const height = 26;
  const x = xOn(ends);
  const svg = s("svg", { class: "interval-axis", width: WIDTH, height, viewBox: `0 0 ${WIDTH} ${height}`, role: "img", "data-scale": scale, "data-min": String(ends[0]), "data-max": String(ends[1]), "aria-label": `scale from ${inUnit(ends[0], unit)} to ${inUnit(ends[1], unit)}` });
  svg.append(s("line", { x1: x(ends[0]), x2: x(ends[1]), y1: 3, y2: 3, stroke: "#222", "stroke-width": 1 }));
  for (const end of ends) svg.append(s("line", { x1: x(end), x2: x(end), y1: 0, y2: 7, stroke: "#222", "stroke-width": 1 }));
  const [left, right] = ends.map((end) => inUnit(end, unit));
  // The ends' labels inside the svg (anchored at its edges), so they print; 0's label only where it
  // clears them (about 6 px a character at 10 px), its line always.
  svg.append(s("text", { class: "scale-end", x: 0, y: 19, "text-anchor": "start", "font-size": 10, fill: "#222" }, left));
  svg.append(s("text", { class: "scale-end", x: WIDTH, y: 19, "text-anchor": "end", "font-size": 10, fill: "#222" }, right));
  const zero = zeroLine(ends, 9);
  if (zero) {
    svg.append(zero);
    const clear = x(0) - 6 > left.length * 6 + 2 && x(0) + 6 < WIDTH - right.length * 6 - 2;
    if (clear) svg.append(s("text", { class: "zero-label", x: x(0), y: 19, "text-anchor": "middle", "font-size": 10, fill: "#222" }, "0"));
  }
  return svg;
}

function uncertaintyTable(data) {
  // The figures grouped by scale (in the route's order of each scale's first figure), each group's
  // whiskers followed by its axis.
  const groups = new Map();
  for (const key of FIGURES) {
    const entry = data[key] || null;
    const scale = scaleOf(entry);
    if (!groups.has(scale)) groups.set(scale, []);
    groups.get(scale).push([key, entry]);
  }
  const rows = [];
  for (const [scale, members] of groups) {
    const values = members.flatMap(([, e]) => (e ? [e.lower, e.upper, e.value] : [])).filter(Number.isFinite);
    const ends = values.length ? roundEnds(values) : [0, 1];
    for (const [key, entry] of members) {
      // Every number marked (docs/dashboard.md "Every figure is marked"): the row names the figure,
      // its bounds are the figure's (served as `key.lower`, `key.upper`), its observations and block
      // length their own terms, named by their columns.
      const header = h("th", { scope: "row", "data-figure": key, ...labelMark(key) }, figureNameWithBasis(key));
      const bound = (value) => inUnit(value, entry ? entry.unit : null); // in the figure's unit
      rows.push([
        header,
        entryCell(entry, key),
        boundCell(bound, entry && entry.lower, key, "lower", entry),
        boundCell(bound, entry && entry.upper, key, "upper", entry),
        h("td", { class: "whisker" }, whiskerSvg(entry, key, ends)),
        figureCell(entry ? entry.observations : null, `${key}.observations`),
        figureCell(entry ? entry.block_length : null, `${key}.block_length`),
      ]);
    }
    if (values.length) {
      const unit = members[0][1].unit;
      rows.push([
        h("td", { class: "scale-name muted", colspan: 4 }, `Scale of the ${members.length === 1 ? "figure" : `${members.length} figures`} above: ${unitText(unit)}${basisText(members[0][0])}`),
        h("td", { class: "whisker" }, axisSvg(scale, unit, ends)),
        h("td", { colspan: 2 }),
      ]);
    }
  }
  const built = table(["Figure", "Estimate", "Lower", "Upper", "Interval (scale beneath)", figureColumn("observations"), figureColumn("block_length")], rows, { className: "data uncertainty" });
  for (const cell of built.querySelectorAll("td.scale-name")) cell.parentElement.classList.add("interval-scale");
  return built;
}

/** ", annualised" or ", per week": the basis the vocabulary states for the figure `key`. */
function basisText(key) {
  const basis = TERMS[key] && TERMS[key].basis;
  return basis ? `, ${basis === "per year" ? "annualised" : basis}` : "";
}
