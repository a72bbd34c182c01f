// Factor attribution of the long_short book (GET /v1/alphas/{alpha}/analytics/factors,
// docs/analytics.md "Factor attribution"; pyfolio's perf_attrib, Barra-style): the book's weekly
// return split into each factor's part (its exposure times the factor's return, estimated each week
// by a cross-sectional regression) and the specific part, their sums over the weeks, the book's
// exposures to the style factors over time, each factor's figures, and the signal's feature-neutral
// IC beside its IC. The alpha page's panel and the tear sheet's two pages draw the same blocks; a
// seal without exposures gets the route's reason, never zeros; factor (sector) names are set as text.

import { alphaPath, apiGet } from "./api.js";
import { fill, h, note, numberCell, showError, table, warningList } from "./dom.js";
import { fixed, int, pct } from "./format.js";
import { entryCell, entryTable } from "./stat_entry.js";
import { DASHES, hbarChartSvg, legendSvg, lineChartSvg, PALETTE, signKey } from "./svg.js";

export async function loadFactors(body, alpha, { signal }) {
  let answer;
  try {
    answer = await apiGet(alphaPath(alpha, "/analytics/factors"), { book: "long_short" }, { signal });
  } catch (error) {
    showError(body, error, "The factor attribution could not be read");
    return null;
  }
  fill(body, warningList(answer.meta.warnings), factorReturnsBlock(answer), h("h3", {}, "Exposures over time"), factorExposuresBlock(answer));
  return answer;
}


/** The window's book, common and specific returns, their weekly running sums, and each factor's part. */
export function factorReturnsBlock(answer) {
  const data = answer.data;
  const weekly = data.weekly || [];
  const summary = entryTable(
    [
      ["book_return", data.book_return],
      ["common_return", data.common_return],
      ["specific_return", data.specific_return],
      ["specific_information_ratio", data.specific_information_ratio],
      ["variance_explained", data.variance_explained],
    ],
    { className: "data entries factor-summary" },
  );
  if (weekly.length === 0) return [summary, note(`Not measurable over weeks: ${data.book_return.withheld_reason || "no week is attributed"}.`, "not-measurable")];
  // Running sums of the weekly parts, as the route sums them over the window (arithmetic, not compounded).
  const running = (pick) => {
    let total = 0;
    return weekly.map((w) => {
      const v = pick(w);
      if (v == null) return null;
      total += v;
      return total * 100;
    });
  };
  const series = [
    { label: "book (summed weekly returns)", values: running((w) => w.book_return), color: "#1f5fbf", dash: null },
    { label: "common: the factors' parts", values: running((w) => w.common_return), color: "#e07b00", dash: "6 3" },
    { label: "specific: what the factors leave", values: running((w) => w.specific_return), color: "#2e8b57", dash: "2 2" },
  ];
  const factors = data.factors || [];
  return [
    summary,
    legendSvg(series),
    lineChartSvg({
      name: "factor-returns",
      title: "The book's weekly return split into its common and specific parts, summed (%)",
      yLabel: "Summed weekly return (%)",
      dates: weekly.map((w) => w.date),
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

/** The book's weekly exposure to each style factor, each factor's figures, and the neutral IC. */
export function factorExposuresBlock(answer) {
  const data = answer.data;
  const styles = (data.factors || []).filter((f) => f.type === "style").map((f) => f.factor);
  const dates = [...new Set((data.exposures || []).map((e) => e.date))].sort();
  const at = new Map((data.exposures || []).map((e) => [`${e.date}|${e.factor}`, e.exposure]));
  const series = styles.map((factor, k) => ({ label: factor, values: dates.map((d) => at.get(`${d}|${factor}`) ?? null), color: PALETTE[k % PALETTE.length], dash: DASHES[k % DASHES.length] }));
  const ic = data.ic;
  return [
    series.length && dates.length
      ? [
          legendSvg(series),
          lineChartSvg({ name: "factor-exposures", title: "The book's exposure to each style factor, week by week", yLabel: "Exposure (weight × loading)", dates, series, format: (v) => fixed(v, 2), height: 200 }),
        ]
      : note("No style exposure: the seal carries no style loading, or no week is attributed.", "not-measurable"),
    table(
      ["Factor", "Type", "Mean exposure", "Factor return (%, summed)", "Part of the book's return (%)", "Weeks"],
      (data.factors || []).map((f) => [
        h("th", { scope: "row", "data-factor": f.factor }, f.factor),
        f.type,
        entryCell(f.mean_exposure, "mean_exposure"),
        entryCell(f.factor_return, "factor_return"),
        entryCell(f.part, "part"),
        numberCell(int(f.weeks), f.weeks),
      ]),
      { className: "data compact factor-table" },
    ),
    h("h4", {}, "The signal's IC and its feature-neutral IC"),
    entryTable(
      [
        ["mean_ic", ic.mean_ic],
        ["mean_neutral_ic", ic.mean_neutral_ic],
      ],
      { className: "data entries neutral-ic" },
    ),
    note(`A sector's exposure is the net weight of its names, a style's the weight-weighted loading; the neutral IC ranks the score residualised on the week's loadings (${ic.signal} signal).`, "caption"),
  ];
}
