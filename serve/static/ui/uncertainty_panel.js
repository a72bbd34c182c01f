// Uncertainty of an alpha's headline figures (GET /v1/alphas/{alpha}/analytics/uncertainty,
// docs/analytics.md "Uncertainty"): each figure with its 95% stationary block-bootstrap interval,
// the bounds in the figure's unit, drawn as a whisker on one scale per row with 0 on it. The page
// draws only: every number comes from the route.

import { panelLoader, windowText } from "./analytics_panel.js";
import { fill, h, note, table, warningList } from "./dom.js";
import { int, num } from "./format.js";
import { figureNameWithBasis, inUnit } from "./labels.js";
import { intervalRow } from "./stat_entry.js";

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

function uncertaintyTable(data) {
  return table(
    ["Figure", "Estimate", "Lower", "Upper", "Interval (0 marked)", "Observations", "Block length"],
    FIGURES.map((key) => {
      const entry = data[key] || null;
      const ends = [entry && entry.lower, entry && entry.upper, entry && entry.value, 0].filter(Number.isFinite);
      const scale = [Math.min(...ends), Math.max(...ends)];
      const bound = (value) => inUnit(value, entry ? entry.unit : null); // in the figure's unit
      const header = h("th", { scope: "row", "data-figure": key }, figureNameWithBasis(key));
      return intervalRow(header, entry, key, scale, { bound, width: 120 }); // narrower: the printed page's width
    }),
    { className: "data uncertainty" },
  );
}
