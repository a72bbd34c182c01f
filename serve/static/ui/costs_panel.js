// Costs (GET /v1/alphas/{alpha}/analytics/costs): the break-even cost against the modelled one,
// the information ratio before and after costs, P&L gross and net, the curve of the net information
// ratio against the cost level (`net_ir_by_cost`) and tied to capacity (`net_ir_by_capital`: the
// cost rising with participation), and turnover by score decile (per year, the page's one turnover
// basis, as the route annualises it: `decile_annual_target_turnover`, the target weights' turnover,
// not the ledger's traded turnover of /metrics). Every point drawn is a served figure.

import { panelLoader, titledBlocks } from "./analytics_panel.js";
import { byCapitalBlock, capitalHeader } from "./capacity_panel.js";
import { COLORS, categoryChart } from "./charts.js";
import { fill, h, note, table, warningList } from "./dom.js";
import { fixed, int, num } from "./format.js";
import { figureColumn, figureName, inUnit } from "./labels.js";
import { entryCell, entryTable, figureCell, namedEntries, notMeasurable } from "./stat_entry.js";
import { axes, legendSvg, niceTicks, paddedRange, s, ticksCovering } from "./svg.js";

const FIGURES = [
  "break_even_cost_bps",
  "break_even_bps",
  "modelled_cost_bps",
  "break_even_multiple",
  "information_ratio.gross",
  "information_ratio.net",
  "gross_pnl",
  "execution_cost",
  "net_pnl",
  "traded_notional",
  "holding_period",
];

export function costFigures(data) {
  return namedEntries(data, FIGURES);
}

const LEVEL_TEXT = { grid: "", modelled: " (modelled)", break_even: " (break-even)" };

/** The break-even of the net information ratio, stated with the served figures. */
function breakEvenText(data) {
  const found = data.break_even_cost_bps;
  if (found.value == null) return `The net information ratio has no break-even cost: ${found.withheld_reason}.`;
  return `The net information ratio reaches 0 at ${fixed(found.value, 1)} bps of traded notional (break_even_cost_bps), against a modelled cost of ${fixed(data.modelled_cost_bps.value, 1)} bps; the compounded net return reaches 0 at ${data.break_even_bps.value == null ? "no cost" : `${fixed(data.break_even_bps.value, 1)} bps`} (break_even_bps).`;
}

const LEVEL_MARK = {
  modelled: { color: "#e07b00", dash: "6 3", name: "modelled cost" },
  break_even: { color: "#c0392b", dash: "2 2", name: "break-even cost" },
};
const CURVE_COLOR = "#1f5fbf";

/**
 * The net information ratio against the cost level as a curve: each served level a point at its
 * cost on a linear x scale (the grid's levels are unequally spaced and the modelled and break-even
 * ones fall anywhere between them, so equal slots would bend the curve), the modelled and break-even
 * levels a dashed vertical line each. No label is written beside a point: the x axis carries round
 * ticks (their count keeps them apart at any level spacing) and the legend above names the marked
 * levels with their costs, so no text can fall on another; the table beneath has every value.
 * Each point carries its served level (`data-cost`, `data-level`, `data-value`).
 */
function costCurveSvg(levels, { width = 760, height = 240 } = {}) {
  const pad = { left: 78, right: 18, top: 12, bottom: 42 };
  const drawn = levels.filter((row) => Number.isFinite(row.net_information_ratio_at_cost.value));
  const costs = drawn.map((row) => row.cost_bps);
  const values = drawn.map((row) => row.net_information_ratio_at_cost.value);
  const xTicks = ticksCovering(costs, 8); // the axis ends on a round tick at or beyond the costliest level
  const [x0, x1] = [xTicks[0], xTicks[xTicks.length - 1]];
  const [low, high] = paddedRange(values);
  const x = (c) => pad.left + ((c - x0) / (x1 - x0 || 1)) * (width - pad.left - pad.right);
  const y = (v) => pad.top + (1 - (v - low) / (high - low || 1)) * (height - pad.top - pad.bottom);
  const title = "Net information ratio at each cost level";
  const svg = s("svg", { class: "svg-chart svg-curve", "data-chart": "cost-curve", viewBox: `0 0 ${width} ${height}`, width, height, role: "img", "aria-label": title });
  svg.append(s("title", {}, title));
  const bottom = height - pad.bottom;
  for (const tick of niceTicks(low, high, 5)) {
    svg.append(s("line", { x1: pad.left, x2: width - pad.right, y1: y(tick), y2: y(tick), stroke: tick === 0 ? "#555" : "#ddd", "stroke-width": 1 }));
    svg.append(s("text", { class: "y-tick", x: pad.left - 6, y: y(tick) + 4, "text-anchor": "end", "font-size": 11, fill: "#222" }, fixed(tick, 2)));
  }
  for (const tick of xTicks) {
    svg.append(s("line", { x1: x(tick), x2: x(tick), y1: bottom, y2: bottom + 4, stroke: "#222", "stroke-width": 1 }));
    svg.append(s("text", { class: "x-tick", x: x(tick), y: bottom + 16, "text-anchor": "middle", "font-size": 10, fill: "#222" }, num(tick)));
  }
  for (const row of drawn) {
    const mark = LEVEL_MARK[row.level];
    if (mark) svg.append(s("line", { class: `level-mark ${row.level}`, x1: x(row.cost_bps), x2: x(row.cost_bps), y1: pad.top, y2: bottom, stroke: mark.color, "stroke-width": 1.2, "stroke-dasharray": mark.dash }));
  }
  svg.append(
    s("path", {
      d: drawn.map((row, i) => `${i ? "L" : "M"}${x(row.cost_bps).toFixed(2)},${y(row.net_information_ratio_at_cost.value).toFixed(2)}`).join(""),
      fill: "none",
      stroke: CURVE_COLOR,
      "stroke-width": 1.6,
      "data-series": CURVE_LABEL,
      "data-values": JSON.stringify(values),
    }),
  );
  for (const row of drawn) {
    const value = row.net_information_ratio_at_cost.value;
    const mark = LEVEL_MARK[row.level];
    svg.append(
      s("circle", {
        class: `point ${row.level}`,
        cx: x(row.cost_bps),
        cy: y(value),
        r: mark ? 4.5 : 3.5,
        fill: mark ? mark.color : CURVE_COLOR,
        stroke: "#fff",
        "stroke-width": 1,
        "data-cost": String(row.cost_bps),
        "data-level": row.level,
        "data-value": String(value),
      }),
    );
  }
  svg.append(axes(pad, width, height, "Execution cost (bps of traded notional; every modelled cost scaled)", "Net information ratio (annualised)"));
  return svg;
}

const CURVE_LABEL = "net information ratio at the cost level";

/** The legend of the curve: the line, and each marked level with its cost. */
function costCurveLegend(levels) {
  const marked = levels.filter((row) => LEVEL_MARK[row.level] && Number.isFinite(row.net_information_ratio_at_cost.value));
  return legendSvg([
    { label: CURVE_LABEL, color: CURVE_COLOR, dash: null },
    ...marked.map((row) => ({ label: `${LEVEL_MARK[row.level].name}: ${fixed(row.cost_bps, 1)} bps`, color: LEVEL_MARK[row.level].color, dash: LEVEL_MARK[row.level].dash })),
  ]);
}

/** The break-even and the curve of the net information ratio against the cost level. */
export function costCurveBlock(answer) {
  const data = answer.data;
  const levels = data.net_ir_by_cost || [];
  const levelLabel = (row) => `${fixed(row.cost_bps, 1)} bps${LEVEL_TEXT[row.level]}`;
  const byCost = levels.every((row) => row.net_information_ratio_at_cost.value == null)
    ? notMeasurable("The curve of the net information ratio against the cost", levels.length ? levels[0].net_information_ratio_at_cost.withheld_reason : "no cost level", { id: "cost-curve-withheld" })
    : [
        costCurveLegend(levels),
        costCurveSvg(levels),
        table(
          // Each column named by its term (docs/dashboard.md "Every figure is marked"); the level's
          // multiple of the modelled cost a figure of its own (cost_multiple), in its term's unit; the
          // cost's label states its unit (bps of traded notional), so its column does not write it again.
          [figureColumn("cost_bps", { unit: false }), figureColumn("cost_multiple"), figureColumn("net_information_ratio_at_cost")],
          levels.map((row) => [
            h("th", { scope: "row", "data-cost": String(row.cost_bps), "data-level": row.level }, levelLabel(row)),
            figureCell(row.cost_multiple, "cost_multiple"),
            entryCell(row.net_information_ratio_at_cost, "net_information_ratio_at_cost"),
          ]),
          { className: "data compact cost-curve" },
        ),
      ];
  return [
    h("p", { class: "summary", id: "cost-break-even" }, breakEvenText(data)),
    byCost,
    note("Each level scales every session's modelled cost by the same multiple (information ratio before costs at 0 bps, after the modelled costs at the modelled level, 0 at the break-even), drawn at its cost on a linear scale; a figure not measurable is a dash, its reason in the Status column.", "caption"),
  ];
}

/** The same tied to capacity: the net information ratio as the cost rises with participation. */
export function costCapitalBlock(answer) {
  const capitals = answer.data.net_ir_by_capital || [];
  const byCapital = byCapitalBlock(capitals, {
    what: "The curve tied to capacity",
    id: "cost-capital-withheld",
    chart: ["cost-capital", "Net information ratio as the cost rises with participation", 230],
    headers: [capitalHeader(), figureColumn("cost_bps", { unit: false }), figureColumn("participation_p95"), figureColumn("net_information_ratio")],
    cells: (row) => [entryCell(row.cost_bps, "cost_bps"), entryCell(row.participation_p95, "participation_p95"), entryCell(row.net_information_ratio, "net_information_ratio")],
    className: "data compact cost-capital",
  });
  return [
    byCapital,
    note("At each capital the fills' fees grow in proportion and their slippage as a square-root impact on participation (GET …/analytics/capacity's cost model, reference capital 1e8): the cost per traded notional and the net information ratio it gives.", "caption"),
  ];
}

export const loadCosts = panelLoader("/analytics/costs", "The costs could not be read", drawCosts, { book: "long_short" });

/** The panel: the figures, the curves against the cost and the capital, the turnover by decile. */
function drawCosts(body, answer) {
  const data = answer.data;
  const deciles = data.turnover_by_decile;
  const chart = h("div", {});
  fill(
    body,
    warningList(answer.meta.warnings),
    entryTable(costFigures(data), { className: "data entries costs" }),
    titledBlocks(answer, [
      ["Net information ratio against the cost", costCurveBlock],
      ["Tied to capacity: the cost rising with participation", costCapitalBlock],
    ]),
    chart,
  );
  if (deciles && deciles.buckets && deciles.buckets.length) {
    categoryChart(chart, {
      name: "turnover-deciles",
      title: `${figureName("annual_target_turnover")}, by score decile`,
      labels: deciles.buckets.map((b) => b.bucket),
      values: deciles.buckets.map((b) => b.decile_annual_target_turnover),
      color: COLORS.deciles,
      format: num,
      axis: "Decile",
      height: 200,
    });
    chart.append(
      note(
        `${int(deciles.bucketed_weeks)} of ${int(deciles.weeks)} weeks bucketed by ${deciles.score_field}; the whole book's ${figureName("annual_target_turnover").toLowerCase()} ${inUnit(deciles.annual_target_turnover, "per_year")} (${deciles.weight_field}: weekly one-way turnover of the target weights x ${int(deciles.weeks_per_year)}, not the ledger's traded turnover per year of /metrics).`,
        "caption",
      ),
    );
  } else {
    chart.append(note("No turnover by decile: the run sealed no decisions for this book."));
  }
}
