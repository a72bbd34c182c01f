// The book by regime of SPY (GET /v1/alphas/{alpha}/analytics/regimes, docs/analytics.md "Regimes"):
// SPY's sessions labelled by trend (its 200-session average), volatility (terciles of its 63-session
// realised volatility over its whole history: look-ahead, a descriptive label) and drawdown (beyond
// 10 %), at publish. One row a regime, with its sessions and weeks, information ratio, rebuilt mean IC
// and hit rate, as served (nothing is computed here); row "all" is the window, and each dimension's
// rows with its unlabelled one add up to it. A key that may not read SPY sees the reason instead.

import { panelLoader } from "./analytics_panel.js";
import { fill, h, note, table, warningList } from "./dom.js";
import { figureColumn } from "./labels.js";
import { entryCell, entryTable, figureCell, namedEntries } from "./stat_entry.js";

export const loadRegimes = panelLoader("/analytics/regimes", "The regimes could not be read", (body, answer) => fill(body, regimesBlock(answer)), { book: "long_short" });

const FIGURES = ["information_ratio", "rebuilt_mean_ic", "rebuilt_hit_rate"];


/** The table of regimes, the volatility cut points, and what the labels mean. */
export function regimesBlock(answer) {
  const data = answer.data;
  const rows = (data.by_regime || []).map((row) => [
    h("th", { scope: "row", "data-regime": row.regime, class: row.dimension === "all" ? "total" : "" }, row.regime),
    figureCell(row.regime_sessions, "regime_sessions"),
    figureCell(row.regime_weeks, "regime_weeks"),
    ...FIGURES.map((name) => entryCell(row[name], name)),
  ]);
  return [
    warningList(answer.meta && answer.meta.warnings),
    table(
      // Each figure's name and unit are its term's (vocabulary.js): the headers wrap to fit a printed page.
      ["Regime", ...["regime_sessions", "regime_weeks", ...FIGURES].map(figureColumn)],
      rows,
      { className: "data compact regimes-table" },
    ),
    entryTable(namedEntries(data, ["volatility_low_cut", "volatility_high_cut"]), { className: "data entries regimes-cuts" }),
    note(
      `${data.benchmark}'s sessions labelled when it is published: trend up when its price is above its 200-session average (the first 199 sessions unlabelled); ` +
        "volatility low, mid or high by the terciles of its 63-session realised volatility over its whole stored history (the cut points look ahead: a descriptive label, never a signal; the first 63 sessions unlabelled); " +
        "drawdown in when more than 10 % below its running peak. A weekly IC takes the labels of its rebalance date. Each dimension's rows, unlabelled included, add up to row all.",
      "caption",
    ),
  ];
}
