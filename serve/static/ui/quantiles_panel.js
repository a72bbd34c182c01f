// Quantile returns of the signal (GET /v1/alphas/{alpha}/analytics/quantiles, docs/analytics.md
// "Quantile returns"; alphalens' returns and information tear sheets): the mean one-week forward
// return of each score quantile with its standard error, each quantile's compounded curve and the
// top-minus-bottom spread's, and the IC by calendar month, by month of the year and by sector. The
// alpha page's panel and the tear sheet's pages draw the same blocks; a part the route could not
// measure (a seal without sectors) shows its reason; sector names are set as text.

import { panelLoader, titledBlocks } from "./analytics_panel.js";
import { fill, h, note, table } from "./dom.js";
import { DASH, fixed, int, MONTHS, num, pct } from "./format.js";
import { figureColumn } from "./labels.js";
import { entryCell, entryText, figureCell, notMeasurable } from "./stat_entry.js";
import { barChartSvg, DASHES, divergingFill, hbarChartSvg, heatmapSvg, legendSvg, lineChartSvg, PALETTE, POSITIVE, signKey } from "./svg.js";

export const QUANTILES = 5; // alphalens' default, the route's

export function quantileParams() {
  return { quantiles: QUANTILES };
}

export const loadQuantiles = panelLoader("/analytics/quantiles", "The quantile returns could not be read", (body, answer) =>
  fill(
    body,
    titledBlocks(answer, [
      ["Mean forward return by quantile", quantileBarsBlock],
      ["Cumulative return by quantile", quantileCurvesBlock],
      ["IC by calendar month", icByMonthBlock],
      ["IC by month of the year", icByMonthOfYearBlock],
      ["IC by sector", icBySectorBlock],
    ]),
  ),
  quantileParams(),
);

const weekly = (v) => pct(v, 2);

/** Mean forward return per quantile (per week) with ± one standard error, and the spread's test. */
export function quantileBarsBlock(answer) {
  const data = answer.data;
  const spread = data.spread;
  return [
    h(
      "p",
      { class: "summary", id: "quantiles-summary" },
      `${data.quantiles} quantiles of the ${data.signal} score (${data.score_field}); ${int(data.bucketed_weeks)} of ${int(data.weeks)} weeks bucketed, ${int(data.skipped_weeks)} skipped. `,
      `Top minus bottom: ${entryText(spread.mean)} a week (Newey-West t-statistic ${entryText(spread.t_statistic)}, lag ${spread.lag ?? DASH}, over ${int(spread.weeks)} weeks).`,
    ),
    barChartSvg({
      name: "quantile-returns",
      title: "Mean one-week forward return by score quantile (% a week)",
      labels: data.buckets.map((b) => b.label),
      values: data.buckets.map((b) => b.mean_forward_return.value),
      errors: data.buckets.map((b) => b.standard_error.value),
      format: weekly,
      yLabel: "Mean forward return (% a week)",
      xLabel: "Score quantile (Q1 lowest)",
      key: signKey("mean return", true),
    }),
    table(
      ["Quantile", ...["mean_forward_return", "standard_error", "weeks", "mean_names"].map(figureColumn)],
      data.buckets.map((b) => [h("th", { scope: "row", "data-quantile": b.quantile }, b.label), entryCell(b.mean_forward_return, "mean_forward_return"), entryCell(b.standard_error, "standard_error"), figureCell(b.weeks, "weeks"), figureCell(b.mean_names, "mean_names")]),
      { className: "data compact quantile-table" },
    ),
    note(`Each week's quantiles: ${data.assignment}. A quantile's mean is over the bucketed weeks of its equal-weighted mean forward return (alphalens' mean_return_by_quantile, not demeaned); the spread is the plain difference (alphalens halves it).`, "caption"),
  ];
}

/** Each quantile's weekly means compounded, and the spread's, over the bucketed weeks. */
export function quantileCurvesBlock(answer) {
  const data = answer.data;
  if (!data.dates || data.dates.length === 0) return note("Not measurable: no week was bucketed.", "not-measurable");
  const series = data.buckets.map((b, k) => ({
    label: b.label,
    values: (b.cumulative_return || []).map((v) => (v == null ? null : v * 100)),
    color: PALETTE[k % PALETTE.length],
    dash: DASHES[k % DASHES.length],
  }));
  if (data.spread.cumulative_return) {
    series.push({ label: `Q${data.spread.top} − Q${data.spread.bottom}`, values: data.spread.cumulative_return.map((v) => (v == null ? null : v * 100)), color: "#111", dash: "3 3", width: 2 });
  }
  const chart = lineChartSvg({
    name: "quantile-curves",
    title: "Cumulative forward return by quantile (%)",
    yLabel: "Cumulative return (%)",
    dates: data.dates,
    series,
    format: (v) => `${fixed(v, 0)}%`,
    height: 230,
  });
  return [legendSvg(series), chart, note("Each curve compounds its quantile's weekly mean forward return over the bucketed weeks, Π(1 + m) − 1 (a week includes the return realised by the next rebalance); the spread compounds top minus bottom.", "caption")];
}

/** The year × month grid of the route's IC by calendar month, with the weeks behind each. */
export function icByMonthBlock(answer) {
  const months = answer.data.ic_by_month;
  if (!months || months.length === 0) return note("Not measurable: no week has an IC.", "not-measurable");
  const byKey = new Map(months.map((m) => [m.month, m]));
  const rows = [...new Set(months.map((m) => m.month.slice(0, 4)))].sort();
  const scale = Math.max(...months.map((m) => Math.abs(m.rebuilt_mean_ic ?? 0)), 1e-12);
  const cells = rows.map((year) =>
    MONTHS.map((_, i) => {
      const m = byKey.get(`${year}-${String(i + 1).padStart(2, "0")}`);
      return m && m.rebuilt_mean_ic != null ? { value: m.rebuilt_mean_ic, text: fixed(m.rebuilt_mean_ic, 3), fill: divergingFill(m.rebuilt_mean_ic, scale, POSITIVE) } : { value: null, text: DASH };
    }),
  );
  return [
    heatmapSvg({
      name: "sheet-ic-monthly",
      title: "Mean weekly rank IC by calendar month",
      rows,
      columns: MONTHS,
      cells,
      xLabel: "Calendar month (mean weekly rank IC, a correlation)",
      yLabel: "Year",
      labelWidth: 40,
      rowHeight: 28,
      key: [
        { text: `IC of ${fixed(scale, 3)} or more`, fill: divergingFill(scale, scale, POSITIVE) },
        { text: "above 0", fill: divergingFill(scale / 4, scale, POSITIVE) },
        { text: "below 0", fill: divergingFill(-scale / 4, scale, POSITIVE) },
        { text: `IC of ${fixed(-scale, 3)} or less`, fill: divergingFill(-scale, scale, POSITIVE) },
        { text: "no week", fill: divergingFill(null, scale) },
      ],
    }),
    note(`Each cell: the mean of the weekly rank ICs (the IC /metrics uses, ${answer.data.signal} signal) of the weeks dated in that month (ic_by_month). ${int(months.length)} months with a measurable IC.`, "caption"),
  ];
}

/** The weekly IC pooled by month of the year (seasonality). */
export function icByMonthOfYearBlock(answer) {
  const pooled = answer.data.ic_by_month_of_year;
  if (!pooled || pooled.length === 0) return note("Not measurable: no week has an IC.", "not-measurable");
  const byMonth = new Map(pooled.map((m) => [m.month, m]));
  return [
    barChartSvg({
      name: "ic-month-of-year",
      title: "Mean weekly rank IC by month of the year",
      labels: MONTHS,
      values: MONTHS.map((_, i) => (byMonth.has(i + 1) ? byMonth.get(i + 1).rebuilt_mean_ic : null)),
      format: (v) => fixed(v, 3),
      yLabel: "Mean rank IC (correlation)",
      xLabel: "Month of the year, pooled across years",
      height: 190,
      key: signKey("mean IC"),
    }),
    note(`Each bar pools the weeks of that month across the window's years (ic_by_month_of_year; a month seen in one year only is that year's).`, "caption"),
  ];
}

/** The rank IC within each sector, or why there is none. */
export function icBySectorBlock(answer) {
  const part = answer.data.ic_by_sector;
  if (part.status === "not_measurable") return notMeasurable("IC by sector", part.withheld_reason);
  const sectors = part.sectors || [];
  return [
    hbarChartSvg({
      name: "ic-sectors",
      title: "Mean weekly rank IC within each sector",
      labels: sectors.map((s) => s.sector),
      values: sectors.map((s) => s.sector_mean_ic.value),
      format: (v) => fixed(v, 3),
      xLabel: "Mean rank IC within the sector (correlation)",
      yLabel: "Sector",
      rowHeight: 16,
      labelWidth: 170,
      key: signKey("mean IC"),
    }),
    table(
      ["Sector", ...["sector_mean_ic", "weeks", "sector_mean_names"].map(figureColumn)],
      sectors.map((s) => [h("th", { scope: "row", "data-sector": s.sector }, s.sector), entryCell(s.sector_mean_ic, "sector_mean_ic"), figureCell(s.weeks, "weeks"), figureCell(s.sector_mean_names, "sector_mean_names")]),
      { className: "data compact ic-sector-table" },
    ),
  ];
}
