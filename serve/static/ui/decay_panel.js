// Decay and the live haircut (GET /v1/alphas/{alpha}/analytics/decay): the book's backtest
// information ratio, what the haircut alone leaves of it (not the expected live information ratio,
// which is the decision summary's: /analytics/expectation, shrunk then cut) and the haircut between them with where it was calibrated
// (the catalogue's approved alphas, or the literature's prior) and its error; the IC's half-life by
// forecast horizon, the term structure measured and fitted. Every number drawn is a served figure.

import { panelLoader, titledBlocks } from "./analytics_panel.js";
import { fill, h, note, table, warningList } from "./dom.js";
import { fixed, int } from "./format.js";
import { figureColumn } from "./labels.js";
import { entryTable, figureCell, namedEntries, notMeasurable } from "./stat_entry.js";
import { barChartSvg, signKey } from "./svg.js";

const HAIRCUT_FIGURES = [
  "haircut_information_ratio",
  "backtest_information_ratio",
  "live_haircut.retention",
  "live_haircut.haircut",
  "live_haircut.haircut_standard_error",
  "live_haircut.calibration_rmse",
];
const DECAY_FIGURES = ["ic_decay.half_life_weeks", "ic_decay.decay_rate", "ic_decay.ic_1"];

/** Where the haircut comes from, in a sentence of the served figures. */
function calibrationText(data) {
  const cut = data.live_haircut;
  const split = data.split_date ? `the backtest ends at ${data.split_date} (${data.split_origin})` : "the whole history is the backtest";
  if (cut.retention.value == null) return `No haircut: ${cut.retention.withheld_reason}.`;
  const kept = `${fixed(cut.retention.value * 100, 1)}% of the backtest information ratio expected live`;
  if (cut.calibration === "catalogue")
    return `Calibrated on the catalogue: ${int(cut.calibration_alphas)} approved alphas with ${int(cut.min_live_sessions)} sessions live (this one excepted) keep ${kept}; ${split}.`;
  return `The literature's prior (McLean and Pontiff 2016: 26% lower out of sample), ${kept}: ${int(cut.calibration_alphas)} approved alphas with ${int(cut.min_live_sessions)} sessions live, fewer than the ${int(cut.min_alphas)} the catalogue's own calibration needs; ${split}.`;
}

/** The backtest after the haircut and the haircut (a tear-sheet page and the panel). */
export function haircutBlock(answer) {
  const data = answer.data;
  return [
    h("p", { class: "summary", id: "decay-calibration", "data-calibration": data.live_haircut.calibration }, calibrationText(data)),
    entryTable(namedEntries(data, HAIRCUT_FIGURES), { className: "data entries decay-haircut" }),
    note("After the haircut = backtest × retention, the backtest not shrunk toward its group. The expected live information ratio is /analytics/expectation's (the decision summary's): the backtest shrunk toward its group, then × retention. The calibration error is the leave-one-out RMSE of the prediction over the calibration alphas (the prior's error over them under the literature).", "caption"),
  ];
}

/** The IC's decay by horizon: measured and fitted (a tear-sheet page and the panel). */
export function icDecayBlock(answer) {
  const fit = answer.data.ic_decay;
  const points = fit.term_structure || [];
  const label = (p) => `${p.horizon_weeks} w`;
  const measured = points.some((p) => p.mean_ic != null);
  return [
    entryTable(namedEntries(answer.data, DECAY_FIGURES), { className: "data entries decay-fit" }),
    measured
      ? barChartSvg({
          name: "ic-decay",
          title: "Mean IC by horizon (the h-week IC of /metrics' term structure)",
          labels: points.map(label),
          values: points.map((p) => p.mean_ic),
          format: (v) => fixed(v, 3),
          yLabel: "Mean IC (rank correlation, per week)",
          xLabel: "Horizon (weeks)",
          height: 220,
          key: signKey("mean IC"),
        })
      : notMeasurable("The IC term structure", fit.decay_rate.withheld_reason, { id: "ic-decay-withheld" }),
    table(
      ["Horizon", ...["mean_ic", "fitted_ic", "marginal_ic"].map(figureColumn)],
      points.map((p) => [
        h("th", { scope: "row", "data-horizon": String(p.horizon_weeks) }, label(p)),
        figureCell(p.mean_ic, "mean_ic"),
        figureCell(p.fitted_ic, "fitted_ic"),
        figureCell(p.marginal_ic, "marginal_ic"),
      ]),
      { className: "data compact ic-decay" },
    ),
    note("The IC of week k's return alone is fitted as ic_1 · exp(−λ (k − 1)); the h-week IC is the sum over weeks 1..h over √h. Half-life = ln 2 / λ.", "caption"),
  ];
}

export const loadDecay = panelLoader("/analytics/decay", "The decay could not be read", (body, answer) =>
  fill(body, warningList(answer.meta.warnings), titledBlocks(answer, [["The live haircut", haircutBlock], ["The IC's half-life by horizon", icDecayBlock]])),
  { book: "long_short" },
);
