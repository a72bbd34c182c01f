// The probability of backtest overfitting of the alpha's trial family
// (GET /v1/alphas/{alpha}/analytics/overfitting): the family and its trials the key may read, every stat
// entry the answer holds in the order served (PBO, the performance degradation's slope and intercept,
// the probability of loss out of sample), the logit distribution as bars, and each member's parameters
// and how often the cross-validation picked it. Nothing is computed here: a figure not measured (no
// family, fewer than 6 readable members) shows its reason.

import { panelLoader } from "./analytics_panel.js";
import { fill, h, numberCell, table, warningList } from "./dom.js";
import { fixed, int, pct } from "./format.js";
import { entriesOf, entryTable } from "./stat_entry.js";
import { barChartSvg } from "./svg.js";

export const loadOverfitting = panelLoader("/analytics/overfitting", "The overfitting figures could not be read", (body, answer) => fill(body, overfittingBlock(answer)));

/** The panel's content (also a tear-sheet page). */
export function overfittingBlock(answer) {
  const data = answer.data;
  const summary = h(
    "p",
    { class: "summary", id: "overfitting-summary" },
    data.family
      ? `Family ${data.family}: ${int(data.family_trials)} trials this key may read, ranked by ${data.measure}; ` +
          `${int(data.splits)} blocks, ${int(data.combinations)} combinations over ${int(data.cscv_sessions)} sessions.`
      : "The alpha's seal names no trial family.",
  );
  const bins = data.logit_distribution || [];
  const chart = bins.length
    ? barChartSvg({
        name: "overfitting-logits",
        title: "Combinations by the logit of the in-sample best trial's out-of-sample rank (at or below 0: overfit)",
        labels: bins.map((b) => fixed(b.logit_from, 1)),
        values: bins.map((b) => b.splits_in_bin),
        format: (v) => int(v),
        yLabel: "Combinations",
        xLabel: "Logit of the relative rank out of sample (bin's lower edge)",
        height: 230,
      })
    : null;
  const members = (data.members || []).map((m) => {
    const cell = m.pick_share == null ? h("td", {}, "n/m") : numberCell(pct(m.pick_share, 1), m.pick_share);
    const text = Object.entries(m.parameters || {}).map(([k, v]) => `${k}=${v}`).join(", ");
    return [h("th", { scope: "row" }, m.alpha_id), h("td", {}, text), cell];
  });
  return [
    warningList(answer.meta && answer.meta.warnings),
    summary,
    entryTable(entriesOf(data), { className: "data entries overfitting" }),
    chart,
    members.length ? table(["Member", "Parameters", "Picked in sample"], members, { className: "data overfitting-members" }) : null,
  ].filter(Boolean);
}
