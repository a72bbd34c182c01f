// What the alpha adds to the approved book and how crowded the approved books are (issue 50, item 8):
// GET /v1/alphas/{alpha}/analytics/mmc (its meta-model contribution, Numerai's MMC: the covariance of
// its scores neutralised against the approved alphas' combined scores with its forward return, in the
// return's units, per week and in total, and its own overlap with the approved books) and GET /v1/analytics/crowding (the approved books' weekly name and weight overlap
// and their shared factor loadings). Both count only the approved alphas the key may read. Every
// number drawn is a served figure; nothing is computed here.

import { alphaPath, apiGet, isAbort } from "./api.js";
import { fill, h, note, numberCell, showError, table, warningList } from "./dom.js";
import { fixed, int } from "./format.js";
import { entryTable, namedEntries } from "./stat_entry.js";
import { figureValue } from "./labels.js";
import { legendSvg, lineChartSvg } from "./svg.js";

const COLORS = { mmc: "#2e8b57", overlap: "#1f5fbf", jaccard: "#e07b00" };

const MMC_FIGURES = ["mmc_mean", "mmc_t_stat", "correlation_to_combined_mean", "weight_overlap_with_approved"];
const CROWDING_FIGURES = ["weight_overlap_mean", "name_jaccard_mean"];

function approvedText(approved, alpha) {
  if (!approved.approved_count) return "No approved alpha you may read";
  const excluded = approved.alpha_excluded && alpha ? ` (${alpha} is approved itself and left out)` : "";
  return `${int(approved.approved_count)} approved alpha${approved.approved_count === 1 ? "" : "s"} you may read: ${approved.alphas.join(", ")}${excluded}`;
}

/** The weekly `series` (one value a row of `weekly`, as served) as lines, their legend above, each
 * value written by `format`. */
function weeklyChart(weekly, series, name, title, yLabel, format) {
  return [
    legendSvg(series),
    lineChartSvg({ name, title, yLabel, dates: weekly.map((w) => w.date), series, format, height: 220 }),
  ];
}

/** The meta-model contribution: the set, the totals, the weekly mmc and the alpha's own overlap. */
export function mmcBlock(answer) {
  const data = answer.data;
  // A covariance with the forward return, in the return's units (not a correlation bounded by 1):
  // written in its term's unit, as the entries above it.
  const series = [{ label: "mmc (covariance of the neutralised score with the forward return)", values: data.weekly.map((w) => w.mmc), color: COLORS.mmc }];
  const chart = data.weekly.length
    ? weeklyChart(data.weekly, series, "mmc-weekly", "Weekly meta-model contribution", "mmc (forward return, %)", (v) => figureValue("mmc", v))
    : note(`No weekly mmc: ${data.mmc_mean.withheld_reason || "none in the window"}.`, "muted mmc-empty");
  return [
    warningList(answer.meta && answer.meta.warnings),
    h("p", { class: "summary", id: "mmc-summary" }, `${approvedText(data.approved, data.alpha)}; ${int(data.mmc_weeks)} weeks with an mmc.`),
    entryTable(namedEntries(data, MMC_FIGURES), { className: "data entries mmc" }),
    chart,
    note(data.method, "caption"),
  ];
}

/** The approved books' crowding: totals, weekly overlap and the shared factor loadings. */
export function crowdingBlock(answer) {
  const data = answer.data;
  const series = [
    { label: "weight overlap", values: data.weekly.map((w) => w.weight_overlap), color: COLORS.overlap },
    { label: "name Jaccard", values: data.weekly.map((w) => w.name_jaccard), color: COLORS.jaccard },
  ];
  const chart = data.weekly.length
    ? weeklyChart(data.weekly, series, "crowding-weekly", "Approved books: mean pairwise overlap each week", "Overlap (fraction)", (v) => fixed(v, 2))
    : note(`No weekly overlap: ${data.weight_overlap_mean.withheld_reason || "none in the window"}.`, "muted crowding-empty");
  const factors = data.factors.length
    ? table(
        ["Factor", "Combined exposure", "Exposure dispersion", "Weeks"],
        data.factors.map((f) => [
          h("th", { scope: "row", "data-factor": f.factor }, f.factor),
          numberCell(fixed(f.combined_exposure, 3), f.combined_exposure),
          numberCell(fixed(f.exposure_dispersion, 3), f.exposure_dispersion),
          numberCell(int(f.factor_weeks), f.factor_weeks),
        ]),
        { className: "data compact crowding-factors" },
      )
    : note("No shared factor loadings: fewer than two approved books with factor exposures.", "muted crowding-no-factors");
  return [
    warningList(answer.meta && answer.meta.warnings),
    h("p", { class: "summary", id: "crowding-summary" }, `${approvedText(data.approved)}; ${int(data.overlap_weeks)} weeks with a pair of books.`),
    entryTable(namedEntries(data, CROWDING_FIGURES), { className: "data entries crowding" }),
    chart,
    factors,
    note("Each book's long_short target weights at unit gross; weight overlap Σ min(|w_i|, |w_j|), name Jaccard of held names, averaged over pairs; per factor, the books' mean exposure and its cross-book standard deviation, averaged over weeks.", "caption"),
  ];
}

export async function loadMmc(body, alpha, { signal }) {
  const [mmc, crowding] = await Promise.allSettled([
    apiGet(alphaPath(alpha, "/analytics/mmc"), {}, { signal }),
    apiGet("/v1/analytics/crowding", {}, { signal }),
  ]);
  if ([mmc, crowding].some((s) => s.status === "rejected" && isAbort(s.reason))) return null;
  const own = h("div", { id: "mmc-own" });
  const crowded = h("div", { id: "mmc-crowding" });
  fill(body, own, h("h3", {}, "Crowding of the approved books"), crowded);
  if (mmc.status === "fulfilled") fill(own, ...mmcBlock(mmc.value));
  else showError(own, mmc.reason, "The meta-model contribution could not be read");
  if (crowding.status === "fulfilled") fill(crowded, ...crowdingBlock(crowding.value));
  else showError(crowded, crowding.reason, "The crowding could not be read");
  return mmc.status === "fulfilled" ? mmc.value : null;
}
