// A bound over the whole catalogue (GET /v1/alphas/{alpha}/analytics/catalogue_bound, docs/analytics.md
// "A bound over the whole catalogue"): Paleologo's Rademacher anti-serum, a lower bound on the alpha's
// true Sharpe ratio (per session) and mean weekly IC that holds for every published alpha at once
// with probability ras_confidence, beside what the bound reads of the alpha, the catalogue's
// complexity and its size. Each side withheld from a key that may not read its data shows its reason.
// Nothing is computed here.

import { panelLoader } from "./analytics_panel.js";
import { fill, h, table, warningList } from "./dom.js";
import { figureNameWithBasis, labelMark } from "./labels.js";
import { entryCell, figureCell, figureSpan, isEntry } from "./stat_entry.js";

export const loadCatalogueBound = panelLoader("/analytics/catalogue_bound", "The catalogue's bound could not be read", (body, answer) => fill(body, catalogueBoundBlock(answer)));

const SIDES = [
  ["Sharpe ratio (daily returns)", "catalogue-bound-sharpe", ["ras_sharpe_observed", "ras_sharpe_lower_bound", "ras_sharpe_complexity", "ras_sharpe_complexity_error", "ras_sharpe_alphas", "ras_sessions"]],
  ["Mean weekly IC", "catalogue-bound-ic", ["ras_ic_observed", "ras_ic_lower_bound", "ras_ic_complexity", "ras_ic_complexity_error", "ras_ic_alphas", "ras_weeks"]],
];

/** A row per figure: its name (the registry's, marked) and its value, a stat entry's with its reason. */
function figureRows(data, keys) {
  return keys.map((key) => {
    const value = data[key];
    const cell = isEntry(value) ? entryCell(value, key) : figureCell(value, key);
    const why = isEntry(value) && value.status === "not_measurable" ? value.withheld_reason || "not measurable" : "";
    return [h("th", { scope: "row", "data-figure": key, ...labelMark(key) }, figureNameWithBasis(key)), cell, h("td", { class: "reason" }, why)];
  });
}

/** The panel's content (also a tear-sheet page). */
export function catalogueBoundBlock(answer) {
  const data = answer.data;
  return [
    warningList(answer.meta && answer.meta.warnings),
    h(
      "p",
      { class: "summary", id: "catalogue-bound-summary" },
      "Lower bounds holding for every alpha this key may read at once with probability ",
      figureSpan("ras_confidence", data.ras_confidence),
      " (",
      figureSpan("ras_draws", data.ras_draws),
      " Monte Carlo draws of the signs). The complexity is computed exactly over those alphas alone.",
    ),
    SIDES.map(([title, className, keys]) => [h("h3", {}, title), table(["Figure", "Value", "Why not measured"], figureRows(data, keys), { className: `data compact ${className}` })]),
  ];
}
