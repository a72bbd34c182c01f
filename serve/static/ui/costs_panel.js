// Costs (GET /v1/alphas/{alpha}/analytics/costs): the break-even cost against the modelled one,
// the information ratio before and after costs, P&L gross and net, and turnover by score decile
// (per year, the page's one turnover basis, as the route annualises it: `annual_turnover`).

import { alphaPath, apiGet } from "./api.js";
import { COLORS, categoryChart } from "./charts.js";
import { fill, h, note, showError, warningList } from "./dom.js";
import { int, num } from "./format.js";
import { inUnit } from "./labels.js";
import { entryTable } from "./stat_entry.js";

const FIGURES = [
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
  const pick = (path) => {
    let found = data;
    for (const key of path.split(".")) found = found ? found[key] : undefined;
    return found;
  };
  return FIGURES.map((path) => [path, pick(path)]);
}

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
    entryTable(costFigures(data), { className: "data entries costs" }),
    chart,
  );
  if (deciles && deciles.buckets && deciles.buckets.length) {
    categoryChart(chart, {
      name: "turnover-deciles",
      title: "Mean turnover by score decile (per year)",
      labels: deciles.buckets.map((b) => b.bucket),
      values: deciles.buckets.map((b) => b.annual_turnover),
      color: COLORS.deciles,
      format: num,
      axis: "Decile",
      height: 200,
    });
    chart.append(
      note(
        `${int(deciles.bucketed_weeks)} of ${int(deciles.weeks)} weeks bucketed by ${deciles.score_field}; the book's mean turnover ${inUnit(deciles.mean_annual_turnover, "per_year")} (${deciles.weight_field}; weekly one-way turnover x ${int(deciles.weeks_per_year)}, annual_turnover of GET …/analytics/costs).`,
        "caption",
      ),
    );
  } else {
    chart.append(note("No turnover by decile: the run sealed no decisions for this book."));
  }
  return answer;
}
