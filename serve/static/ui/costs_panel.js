// Costs (GET /v1/alphas/{alpha}/analytics/costs): the break-even cost against the modelled one,
// the information ratio before and after costs, P&L gross and net, and turnover by score decile.

import { alphaPath, apiGet } from "./api.js";
import { COLORS, categoryChart } from "./charts.js";
import { fill, h, note, showError, warningList } from "./dom.js";
import { int, num, pct } from "./format.js";
import { entryTable } from "./stat_entry.js";

const FIGURES = [
  ["break_even_bps", "Break-even cost"],
  ["modelled_cost_bps", "Modelled cost"],
  ["break_even_multiple", "Break-even multiple of the modelled cost"],
  ["information_ratio.gross", "Information ratio before costs"],
  ["information_ratio.net", "Information ratio after costs"],
  ["gross_pnl", "Gross P&L"],
  ["execution_cost", "Execution cost"],
  ["net_pnl", "Net P&L"],
  ["traded_notional", "Traded notional"],
  ["holding_period", "Holding period"],
];

export function costFigures(data) {
  const pick = (path) => path.split(".").reduce((o, k) => (o ? o[k] : undefined), data);
  return FIGURES.map(([path]) => [path, pick(path)]);
}

export const COST_LABELS = Object.fromEntries(FIGURES);

export async function loadCosts(body, alpha, { signal }) {
  let answer;
  try {
    answer = await apiGet(alphaPath(alpha, "/analytics/costs"), { book: "long_short" }, { signal });
  } catch (error) {
    showError(body, error, "The costs could not be read");
    return null;
  }
  const data = answer.data;
  const deciles = data.turnover_by_decile;
  const chart = h("div", {});
  fill(
    body,
    warningList(answer.meta.warnings),
    entryTable(costFigures(data), { labels: COST_LABELS, className: "data entries costs" }),
    chart,
  );
  if (deciles && deciles.buckets && deciles.buckets.length) {
    categoryChart(chart, {
      name: "turnover-deciles",
      title: "Mean weekly turnover by score decile",
      labels: deciles.buckets.map((b) => b.bucket),
      values: deciles.buckets.map((b) => b.mean_turnover),
      color: COLORS.deciles,
      format: (v) => pct(v, 1),
      height: 200,
    });
    chart.append(
      note(
        `${int(deciles.bucketed_weeks)} of ${int(deciles.weeks)} weeks bucketed by ${deciles.score_field}; mean weekly turnover ${num(deciles.mean_weekly_turnover)} (${deciles.weight_field}).`,
        "caption",
      ),
    );
  } else {
    chart.append(note("No turnover by decile: the run sealed no decisions for this book."));
  }
  return answer;
}
