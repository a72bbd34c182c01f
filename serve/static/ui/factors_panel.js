// Factor attribution of the long_short book (GET /v1/alphas/{alpha}/analytics/factors,
// docs/analytics.md "Factor attribution"; pyfolio's perf_attrib, Barra-style): the book's weekly
// return split into each factor's part (its exposure times the factor's return, estimated each week
// by a cross-sectional regression) and the specific part, their sums over the weeks, the book's
// exposures to the style factors over time, each factor's figures, and the signal's feature-neutral
// IC beside its IC. The alpha page's panel and the tear sheet's two pages draw the same blocks; a
// seal without exposures gets the route's reason, never zeros; factor (sector) names are set as text.

import { panelLoader, titledBlocks } from "./analytics_panel.js";
import { fill, h, note, table, warningList } from "./dom.js";
import { fixed, int, pct } from "./format.js";
import { figureColumn } from "./labels.js";
import { entryCell, entryTable, figureCell, namedEntries } from "./stat_entry.js";
import { hbarChartSvg, legendSvg, lineChartSvg, PALETTE, signKey } from "./svg.js";

export const loadFactors = panelLoader("/analytics/factors", "The factor attribution could not be read", (body, answer) =>
  fill(body, warningList(answer.meta.warnings), titledBlocks(answer, [[null, factorReturnsBlock], ["Exposures over time", factorExposuresBlock]])),
  { book: "long_short" },
);

const SUMMARY_FIGURES = ["sum_of_weekly_returns", "sum_of_weekly_common_returns", "sum_of_weekly_specific_returns", "specific_information_ratio", "variance_explained"];

/** The window's book, common and specific returns, their weekly running sums, and each factor's part. */
export function factorReturnsBlock(answer) {
  const data = answer.data;
  const weekly = data.weekly || [];
  const summary = entryTable(namedEntries(data, SUMMARY_FIGURES), { className: "data entries factor-summary" });
  if (weekly.length === 0) return [summary, note(`Not measurable over weeks: ${data.sum_of_weekly_returns.withheld_reason || "no week is attributed"}.`, "not-measurable")];
  // The running sums of the weekly parts, as the route serves them (`running_sums`: arithmetic, not compounded).
  const sums = data.running_sums || [];
  const running = (key) => sums.map((row) => (row[key] == null ? null : row[key] * 100));
  const series = [
    { label: "book (summed weekly returns)", values: running("sum_of_weekly_returns"), color: "#1f5fbf", dash: null },
    { label: "common: the factors' parts", values: running("sum_of_weekly_common_returns"), color: "#e07b00", dash: "6 3" },
    { label: "specific: what the factors leave", values: running("sum_of_weekly_specific_returns"), color: "#2e8b57", dash: "2 2" },
  ];
  const factors = data.factors || [];
  return [
    summary,
    legendSvg(series),
    lineChartSvg({
      name: "factor-returns",
      title: "The book's weekly return split into its common and specific parts, summed (%)",
      yLabel: "Summed weekly return (%)",
      dates: sums.map((row) => row.date),
      series,
      format: (v) => `${fixed(v, 0)}%`,
      height: 210,
    }),
    factors.length
      ? hbarChartSvg({
          name: "factor-parts",
          title: "Each factor's part of the book's return over the window (%)",
          labels: factors.map((f) => f.factor),
          values: factors.map((f) => f.part.value),
          format: (v) => pct(v, 1),
          xLabel: "Part of the book's return (% of equity, the weekly parts summed)",
          yLabel: "Factor",
          rowHeight: 12,
          labelWidth: 150,
          key: signKey("part"),
        })
      : null,
    note(`${int(data.weeks)} weeks attributed. ${data.estimator}.`, "caption"),
  ];
}

/**
 * Small multiples: one chart a style factor, each on its own scale, of the book's weekly exposure
 * (the route's `exposures`) with its mean over the window (the route's `mean_exposure`, dashed), so
 * a factor whose exposure is a tenth of another's is still read, and none hides behind another.
 */
function exposureMultiples(data, beside) {
  const styles = (data.factors || []).filter((f) => f.type === "style");
  const dates = [...new Set((data.exposures || []).map((e) => e.date))].sort();
  const at = new Map((data.exposures || []).map((e) => [`${e.date}|${e.factor}`, e.exposure]));
  if (!styles.length || !dates.length) return [note("No style exposure: the seal carries no style loading, or no week is attributed.", "not-measurable"), beside];
  return h(
    "div",
    { class: "small-multiples", id: "factor-exposure-multiples" },
    styles.map((f, k) => {
      const color = PALETTE[k % PALETTE.length];
      const mean = f.mean_exposure;
      const series = [{ label: `${f.factor}, weekly`, values: dates.map((d) => at.get(`${d}|${f.factor}`) ?? null), color, dash: null }];
      if (mean && Number.isFinite(mean.value)) series.push({ label: `mean ${fixed(mean.value, 3)}`, values: dates.map(() => mean.value), color: "#555", dash: "4 3", width: 1 });
      return h(
        "figure",
        { class: "multiple", "data-factor": f.factor },
        legendSvg(series, 360),
        lineChartSvg({ name: `factor-exposure-${f.factor}`, title: `The book's exposure to ${f.factor}, week by week`, yLabel: "Exposure (ratio)", xLabel: "Week", dates, series, format: (v) => fixed(v, 2), width: 360, height: 122, compact: true }),
      );
    }),
    h("div", { class: "multiple beside" }, beside), // the grid's free cell
  );
}

/** The book's weekly exposure to each style factor, each factor's figures, and the neutral IC. */
export function factorExposuresBlock(answer) {
  const data = answer.data;
  const ic = data.ic;
  const neutral = [
    h("h4", {}, "The signal's IC and its feature-neutral IC"),
    entryTable(namedEntries(ic, ["attributed_mean_ic", "mean_neutral_ic"]), { className: "data entries neutral-ic" }),
  ];
  return [
    exposureMultiples(data, neutral),
    table(
      ["Factor", "Type", ...["mean_exposure", "factor_return", "part", "weeks"].map(figureColumn)],
      (data.factors || []).map((f) => [
        h("th", { scope: "row", "data-factor": f.factor }, f.factor),
        f.type,
        entryCell(f.mean_exposure, "mean_exposure"),
        entryCell(f.factor_return, "factor_return"),
        entryCell(f.part, "part"),
        figureCell(f.weeks, "weeks"),
      ]),
      { className: "data compact factor-table" },
    ),
    note(`One chart a style factor, each on its own scale, its mean over the window dashed. A sector's exposure is the net weight of its names, a style's the weight-weighted loading (a ratio); the neutral IC ranks the score residualised on the week's loadings (${ic.signal} signal).`, "caption"),
  ];
}
