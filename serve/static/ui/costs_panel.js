// Costs (GET /v1/alphas/{alpha}/analytics/costs): the break-even cost against the modelled one,
// the information ratio before and after costs, P&L gross and net, the curve of the net information
// ratio against the cost level (`net_ir_by_cost`) and tied to capacity (`net_ir_by_capital`: the
// cost rising with participation), and turnover by score decile (per year, the page's one turnover
// basis, as the route annualises it: `decile_annual_target_turnover`, the target weights' turnover,
// not the ledger's traded turnover of /metrics). Every point drawn is a served figure.

import { panelLoader, titledBlocks } from "./analytics_panel.js";
import { byCapitalBlock } from "./capacity_panel.js";
import { COLORS, categoryChart } from "./charts.js";
import { fill, h, note, table, warningList } from "./dom.js";
import { fixed, int, num } from "./format.js";
import { figureName, inUnit } from "./labels.js";
import { entryCell, entryTable, namedEntries, notMeasurable } from "./stat_entry.js";
import { barChartSvg, signKey } from "./svg.js";

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

/** The break-even and the curve of the net information ratio against the cost level. */
export function costCurveBlock(answer) {
  const data = answer.data;
  const levels = data.net_ir_by_cost || [];
  const levelLabel = (row) => `${fixed(row.cost_bps, 1)} bps${LEVEL_TEXT[row.level]}`;
  const byCost = levels.every((row) => row.net_information_ratio_at_cost.value == null)
    ? notMeasurable("The curve of the net information ratio against the cost", levels.length ? levels[0].net_information_ratio_at_cost.withheld_reason : "no cost level", { id: "cost-curve-withheld" })
    : [
        barChartSvg({
          name: "cost-curve",
          title: "Net information ratio at each cost level",
          labels: levels.map(levelLabel),
          values: levels.map((row) => row.net_information_ratio_at_cost.value),
          format: (v) => fixed(v, 2),
          yLabel: "Net information ratio (annualised)",
          xLabel: "Execution cost (bps of traded notional; every modelled cost scaled)",
          height: 230,
          key: signKey("net information ratio"),
        }),
        table(
          ["Cost (bps of traded notional)", "× the modelled cost", "Net information ratio"],
          levels.map((row) => [
            h("th", { scope: "row", "data-cost": String(row.cost_bps), "data-level": row.level }, levelLabel(row)),
            h("td", { "data-value": row.cost_multiple == null ? "" : String(row.cost_multiple) }, row.cost_multiple == null ? "—" : fixed(row.cost_multiple, 3)),
            entryCell(row.net_information_ratio_at_cost, "net_information_ratio_at_cost"),
          ]),
          { className: "data compact cost-curve" },
        ),
      ];
  return [
    h("p", { class: "summary", id: "cost-break-even" }, breakEvenText(data)),
    byCost,
    note("Each level scales every session's modelled cost by the same multiple (information ratio before costs at 0 bps, after the modelled costs at the modelled level, 0 at the break-even); a figure not measurable is a dash, its reason in the Status column.", "caption"),
  ];
}

/** The same tied to capacity: the net information ratio as the cost rises with participation. */
export function costCapitalBlock(answer) {
  const capitals = answer.data.net_ir_by_capital || [];
  const byCapital = byCapitalBlock(capitals, {
    what: "The curve tied to capacity",
    id: "cost-capital-withheld",
    chart: ["cost-capital", "Net information ratio as the cost rises with participation", 230],
    headers: ["Capital", "Cost (bps of traded notional)", "95th-percentile participation (% of adv)", "Net information ratio"],
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
