// What is new in the book against the catalogue (GET /v1/alphas/{alpha}/analytics/residual): its daily
// returns regressed on the reference set's and SPY's. The set it was regressed on (its origin, the
// alphas kept and dropped), then every stat entry the answer holds in the order served (information
// ratio of intercept plus residual, intercept and its Newey-West t-statistic, R², SPY's partial beta), then
// each reference alpha's partial beta: nothing is computed here, a figure not measured shows its reason.

import { h, table, warningList } from "./dom.js";
import { int } from "./format.js";
import { figureColumn } from "./labels.js";
import { entriesOf, entryTable, figureCell } from "./stat_entry.js";

const BETA = "betas.partial_beta";

export function residualBlock(answer) {
  const data = answer.data;
  const reference = data.reference || {};
  const dropped = reference.dropped || { count: 0, alphas: [] };
  const summary = h(
    "p",
    { class: "summary", id: "residual-summary" },
    `${data.book ?? "long_short"} against the ${reference.origin ?? "?"} reference set: ${int(reference.regressed)} of ${int(reference.count)} alphas regressed`,
    dropped.count ? ` (${int(dropped.count)} dropped: ${dropped.alphas.map((d) => `${d.alpha}, ${d.reason}`).join("; ")})` : "",
    ` and ${data.benchmark ? data.benchmark.symbol : "SPY"}, over ${int(data.sessions)} sessions; Newey-West lag ${int(data.newey_west_lag)}.`,
  );
  // A reference alpha's partial beta is a plain coefficient (ratio), not a stat entry: its own term
  // (reference_partial_beta), not SPY's partial_beta, though both are served as partial_beta.
  const betas = (data.betas || []).map((b) => [h("th", { scope: "row" }, b.alpha), figureCell(b.partial_beta, BETA)]);
  return [
    warningList(answer.meta && answer.meta.warnings),
    summary,
    entryTable(entriesOf(data), { className: "data entries residual" }),
    betas.length ? table(["Reference alpha", figureColumn(BETA)], betas, { className: "data residual-betas" }) : null,
  ].filter(Boolean);
}
