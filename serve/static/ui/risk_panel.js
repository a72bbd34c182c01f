// Risk of the long_short book against the market benchmark (GET /v1/alphas/{alpha}/analytics/risk): the
// benchmark-relative block (beta, alpha, tracking error) and the tail and path figures (Sortino,
// Calmar, CAGR, tail ratio, VaR and CVaR, best and worst day, week, month). Every stat entry the
// answer holds is shown, in the order served, so a figure added later appears without a change here.

import { panelLoader } from "./analytics_panel.js";
import { fill, h, warningList } from "./dom.js";
import { int } from "./format.js";
import { entriesOf, entryTable } from "./stat_entry.js";

export const loadRisk = panelLoader("/analytics/risk", "The risk figures could not be read", renderRisk, { book: "long_short" });

export function renderRisk(body, answer) {
  const data = answer.data;
  const bench = data.benchmark || {};
  fill(
    body,
    warningList(answer.meta && answer.meta.warnings),
    h(
      "p",
      { class: "summary", id: "risk-summary" },
      `${data.book ?? "long_short"}, ${int(data.sessions)} sessions`,
      bench.symbol ? `; against ${bench.symbol} (${bench.return_basis ?? "basis not stated"}) over ${int(bench.observations)} sessions` : "",
      ".",
    ),
    entryTable(entriesOf(data), { className: "data entries risk" }),
  );
}
