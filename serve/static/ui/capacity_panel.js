// Capacity of the long_short book (GET /v1/alphas/{alpha}/analytics/capacity, docs/analytics.md
// "Capacity"): the capital at which the modelled costs halve the net information ratio, the capital
// at which the 95th-percentile fill takes 10% of its name's average daily traded value, each fill's
// participation at the reference capital, and the book over a grid of capitals. The alpha page's
// panel and the tear sheet's page draw the same block; a figure the route could not measure (a seal
// without adv in its exposures) is a dash with its reason, never a zero.

import { panelLoader, titledBlocks } from "./analytics_panel.js";
import { fill, h, note, table, warningList } from "./dom.js";
import { fixed, int } from "./format.js";
import { figureColumn, inUnit, unitText } from "./labels.js";
import { entryCell, entryTable, namedEntries, notMeasurable } from "./stat_entry.js";
import { barChartSvg, signKey } from "./svg.js";

export const loadCapacity = panelLoader("/analytics/capacity", "The capacity could not be read", (body, answer) =>
  fill(body, warningList(answer.meta.warnings), titledBlocks(answer, [[null, capacityBlock], ["Over a grid of capitals", capacityGridBlock]])),
  { book: "long_short" },
);

/** An amount of the book's currency with the currency named ("100 m USD"). */
export const money = (value) => `${inUnit(value, "base_currency")} ${unitText("base_currency")}`;

/** The capital column's header, with its currency. */
export const capitalHeader = () => `Capital (${unitText("base_currency")})`;

/** The reference capital and the cost model, the capacities, the participation and the largest fill. */
export function capacityBlock(answer) {
  const data = answer.data;
  const part = data.participation;
  const largest = part.largest;
  return [
    h(
      "p",
      { class: "summary", id: "capacity-summary" },
      `${data.book}, ${int(data.sessions)} sessions, ${int(data.fills)} fills (${int(data.fills_with_adv)} with an average daily traded value). `,
      `Reference capital K0 = ${money(data.capital)} (the seal states none: its modelled costs are taken as the costs at K0); cost model ${data.cost_model}: each fill's fee grows with capital, its slippage as a square-root impact on participation.`,
    ),
    entryTable(
      [
        ...namedEntries(data, ["net_information_ratio", "capacity", "participation_capacity", "participation.median", "participation.p95", "participation.max"]),
        ...namedEntries(part, ["above_1pct", "above_5pct", "above_10pct"]),
      ],
      { className: "data entries capacity" },
    ),
    largest
      ? h(
          "p",
          { class: "caption", id: "capacity-largest" },
          `Largest participation: ${largest.symbol} on ${largest.date} (decided ${largest.decision_at}), ${inUnit(largest.participation, "fraction")} of its adv: ${money(largest.notional)} traded against ${money(largest.adv)} a day.`,
        )
      : null,
  ];
}

/** The net information ratio at each capital of `rows` (each row a `capital` and its
 * `net_information_ratio` entry, as served): the capacity grid and the costs' curve tied to it. */
function netIrByCapitalChart(rows, name, title, height) {
  return barChartSvg({
    name,
    title,
    labels: rows.map((row) => inUnit(row.capital, "base_currency")),
    values: rows.map((row) => row.net_information_ratio.value),
    format: (v) => fixed(v, 2),
    yLabel: "Net information ratio (annualised)",
    xLabel: `Capital at inception (${unitText("base_currency")})`,
    height,
    key: signKey("net information ratio"),
  });
}

/**
 * The net information ratio at each capital of `rows` as a chart and a table (each row headed by
 * its capital, then `cells(row)` under `headers`), or, when no capital has it measured, the part
 * (`what`, its element `id`) as not measurable with the reason served: the capacity grid and the
 * costs' curve tied to capacity.
 */
export function byCapitalBlock(rows, { what, id, chart: [name, title, height], headers, cells, className }) {
  if (rows.length && rows.every((row) => row.net_information_ratio.value == null))
    return notMeasurable(what, rows[0].net_information_ratio.withheld_reason, { id });
  return [
    netIrByCapitalChart(rows, name, title, height),
    table(
      headers,
      rows.map((row) => [h("th", { scope: "row", "data-capital": String(row.capital) }, inUnit(row.capital, "base_currency")), ...cells(row)]),
      { className },
    ),
  ];
}

const GRID_FIGURES = ["net_information_ratio", "cost_drag", "participation_p95"];

/** The net information ratio, the cost drag and the participation at each capital of the grid. */
export function capacityGridBlock(answer) {
  const grid = answer.data.grid || [];
  return [
    grid.length
      ? byCapitalBlock(grid, {
          what: "The grid of capitals",
          id: "capacity-grid-withheld",
          chart: ["capacity-grid", "Net information ratio at each capital of the grid", 250],
          headers: [capitalHeader(), ...GRID_FIGURES.map(figureColumn)],
          cells: (p) => GRID_FIGURES.map((key) => entryCell(p[key], key)),
          className: "data compact capacity-grid",
        })
      : note("No capital in the grid.", "muted"),
    note(`A capital is the book's size at inception, in ${unitText("base_currency")}: the currency the service declares for every book (the answer's currency; the seal states none), that of the seal's average daily traded value. A figure not measurable is a dash, its reason in the Status column.`, "caption"),
  ];
}

