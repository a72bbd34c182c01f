// Uncertainty of an alpha's headline figures (GET /v1/alphas/{alpha}/analytics/uncertainty,
// docs/analytics.md "Uncertainty"): each figure with its 95% stationary block-bootstrap interval,
// the bounds in the figure's unit, drawn as a whisker on one scale per row with 0 on it. The page
// draws only: every number comes from the route.

import { alphaPath, apiGet } from "./api.js";
import { fill, h, note, numberCell, showError, table, warningList } from "./dom.js";
import { int, num } from "./format.js";
import { figureNameWithBasis, inUnit } from "./labels.js";
import { entryCell } from "./stat_entry.js";
import { intervalSvg } from "./svg.js";

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

export async function loadUncertainty(body, alpha, { signal }) {
  let answer;
  try {
    answer = await apiGet(alphaPath(alpha, "/analytics/uncertainty"), { book: "long_short" }, { signal });
  } catch (error) {
    showError(body, error, "The uncertainty could not be read");
    return null;
  }
  renderUncertainty(body, answer);
  return answer;
}

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

function windowText(window) {
  if (!window || (!window.from && !window.to)) return ", whole history";
  return `, ${window.from ?? "start"} to ${window.to ?? "end"}`;
}

function uncertaintyTable(data) {
  return table(
    ["Figure", "Estimate", "Lower", "Upper", "Interval (0 marked)", "Observations", "Block length"],
    FIGURES.map((key) => {
      const entry = data[key] || null;
      const lower = entry ? entry.lower : null;
      const upper = entry ? entry.upper : null;
      const unit = entry ? entry.unit : null;
      const ends = [lower, upper, entry && entry.value, 0].filter(Number.isFinite);
      const scale = [Math.min(...ends), Math.max(...ends)];
      return [
        h("th", { scope: "row", "data-figure": key }, figureNameWithBasis(key)),
        entryCell(entry, key),
        numberCell(inUnit(lower, unit), lower),
        numberCell(inUnit(upper, unit), upper),
        h("td", {}, intervalSvg(entry && entry.value, lower, upper, scale, 120)), // narrower: the printed page's width
        numberCell(int(entry && entry.observations), null),
        numberCell(num(entry && entry.block_length), null),
      ];
    }),
    { className: "data uncertainty" },
  );
}
