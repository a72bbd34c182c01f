// Significance of an alpha (GET /v1/alphas/{alpha}/analytics/significance, docs/analytics.md):
// PSR, MinTRL, the minimum backtest length (MinBTL) of the trials, the critical Sharpe ratio, the power and DSR (the 2025 standard: non-normal, AR(1) returns) with the trials they deflate by (the catalogue's, the family's; and the DSRs of the effective number of trials: V over every trial, and V over the clusters as López de Prado and Lewis 2019), the bootstrap's 95% intervals drawn as
// whiskers on one scale per row, the multiple-testing adjustments of the IC's p-value, and (when served)
// Harvey and Liu's haircut Sharpe ratios by adjustment.

import { panelLoader, windowText } from "./analytics_panel.js";
import { fill, h, note, table, warningList } from "./dom.js";
import { int, num } from "./format.js";
import { figureColumn, figureNameWithBasis, labelMark } from "./labels.js";
import { entryCell, entryTable, figureCell, figureSpan, intervalRow, namedEntries } from "./stat_entry.js";

const HEADLINE = [
  "sharpe",
  "sharpe_standard_error",
  "skewness",
  "kurtosis",
  "serial_correlation",
  "psr",
  "min_track_record",
  "min_backtest_length",
  "critical_sharpe",
  "power",
  "dsr",
  "dsr_family",
  "effective_dsr",
  "clustered_dsr",
];
// Named by the vocabulary registry (labels.js), with the basis where it is a period.
const BOOTSTRAP = ["rebuilt_mean_ic", "rebuilt_icir", "information_ratio"].map((key) => [key, figureNameWithBasis(key)]);
const ADJUSTED = [
  ["p_value", `${figureNameWithBasis("p_value")} of nwt.ic`],
  ["holm", figureNameWithBasis("holm")],
  ["benjamini_hochberg", figureNameWithBasis("benjamini_hochberg")],
];

export const loadSignificance = panelLoader("/analytics/significance", "The significance could not be read", renderSignificance);

/** The panel (and the tear sheet's page); `tests: false` leaves the multiple testing and the haircut
 * to a page of their own (`significanceTestsBlock`), so each prints on one page. */
export function renderSignificance(body, answer, { tests = true } = {}) {
  const data = answer.data;
  const named = namedEntries(data, HEADLINE);
  const trl = data.min_track_record;
  const trials = data.dsr && data.dsr.trials;
  const family = data.dsr_family && data.dsr_family.trials;
  const clustered = data.clustered_dsr && data.clustered_dsr.trials;
  fill(
    body,
    warningList(answer.meta && answer.meta.warnings),
    h("p", { class: "summary" }, `${data.book}, ${int(data.sessions)} sessions${windowText(data.window)}.`),
    entryTable(named, { className: "data entries significance-headline" }),
    h(
      "p",
      { class: "caption", id: "significance-notes" },
      trl && Number.isFinite(trl.years) ? `MinTRL at ${trl.confidence * 100}%: ${num(trl.years)} years. ` : "",
      data.power && Number.isFinite(data.power.sr_alternative) ? `Power at a true Sharpe ratio of ${num(data.power.sr_alternative)} (sr_benchmark + 1). ` : "",
      data.min_backtest_length && Number.isInteger(data.min_backtest_length.trial_count)
        ? `Minimum backtest length for ${int(data.min_backtest_length.trial_count)} trials. `
        : "",
      trials
        ? `DSR deflates by ${int(trials.count)} trials (${trials.count_source}); variance of their Sharpe ratios ${num(trials.sharpe_variance)} over ${int(trials.sharpe_variance_alphas)} alphas; expected maximum Sharpe ${num(trials.expected_max_sharpe)} (annualised).`
        : "",
      family && family.count > 0
        ? ` The family's DSR deflates by the ${int(family.count)} trials of the alpha's own trial family the key may read (variance of their Sharpe ratios ${num(family.sharpe_variance)}).`
        : "",
      trials && trials.effective_count != null
        ? ` The effective DSR deflates by the ${int(trials.effective_count)} effective trials (the trials clustered by the correlation of their returns).`
        : "",
      clustered && clustered.sharpe_variance != null
        ? ` The clustered DSR deflates by those ${int(clustered.count)} clusters with the variance of the clusters' Sharpe ratios (${num(clustered.sharpe_variance)} over ${int(clustered.sharpe_variance_alphas)} clusters); effective rank of the trials' correlation matrix ${num(clustered.effective_rank)}.`
        : "",
    ),
    h("h3", {}, "Bootstrap 95% intervals"),
    bootstrapTable(data.bootstrap || {}),
    data.bootstrap ? note(`${data.bootstrap.method}; ${int(data.bootstrap.resamples)} resamples, seed ${data.bootstrap.seed}.`, "caption") : null,
    tests ? significanceTestsBlock(answer) : null,
  );
}

/** The multiple-testing adjustments of the IC's p-value and, when served, the haircut Sharpe ratios. */
export function significanceTestsBlock(answer) {
  const data = answer.data;
  return [
    h("h3", {}, "Multiple testing"),
    table(
      ["Figure", "Value", figureColumn("family_size")], // the hypotheses adjusted together: not the trial family
      ADJUSTED.map(([key, label]) => {
        const entry = (data.multiple_testing || {})[key];
        const path = `multiple_testing.${key}`;
        return [h("th", { scope: "row", "data-figure": key, ...labelMark(path) }, label), entryCell(entry, path), figureCell(entry ? entry.family_size : null, `${path}.family_size`)];
      }),
      { className: "data compact multiple-testing" },
    ),
    data.sharpe_haircut ? sharpeHaircutBlock(data.sharpe_haircut) : null,
  ];
}

// Harvey and Liu's (2015) haircut Sharpe ratios (`sharpe_haircut`): each adjustment's p-value, its Monte
// Carlo error beside it (issue 81) and the Sharpe ratio it implies, as served.
const HAIRCUT_METHODS = [
  ["bonferroni_haircut", "Bonferroni"],
  ["holm_haircut", "Holm"],
  ["bhy_haircut", "BHY"],
  ["average_haircut", "Average of the three"],
];
const HAIRCUT_FIGURES = ["adjusted_p_value", "adjusted_p_value_monte_carlo_error", "haircut_sharpe", "haircut_share"];

/** The haircut block of a significance answer's `sharpe_haircut`. */
export function sharpeHaircutBlock(haircut) {
  const at = (key) => `sharpe_haircut.${key}`;
  const served = (key) => (Number.isFinite(haircut[key]) ? figureSpan(at(key), haircut[key]) : "—");
  return [
    h("h3", {}, "Haircut Sharpe ratios"),
    h(
      "p",
      { class: "caption", id: "significance-haircut" },
      `${haircut.method}; ${haircut.frequency} t-ratio over `,
      served("observed_months"),
      " months, adjusted for ",
      served("tests"),
      " tests the key may see, their returns' correlation taken as ",
      served("test_correlation"),
      "; ",
      served("simulations"),
      ` simulations, seed ${haircut.seed}.`,
    ),
    entryTable(namedEntries(haircut, ["tested_sharpe", "sharpe_t_ratio", "sharpe_p_value"]).map(([key, entry]) => [at(key), entry]), { className: "data entries significance-haircut-tested" }),
    table(
      ["Adjustment", ...HAIRCUT_FIGURES.map((key) => figureColumn(key))],
      HAIRCUT_METHODS.map(([method, label]) => [
        h("th", { scope: "row", "data-method": method }, label),
        ...HAIRCUT_FIGURES.map((key) => entryCell((haircut[method] || {})[key], at(`${method}.${key}`))),
      ]),
      { className: "data compact significance-haircut" },
    ),
  ];
}

function bootstrapTable(bootstrap) {
  return table(
    ["Statistic", "Estimate", "Lower", "Upper", "Interval", figureColumn("observations"), figureColumn("block_length")],
    BOOTSTRAP.map(([key, label]) => {
      const entry = bootstrap[key] || null;
      const ends = [entry && entry.lower, entry && entry.upper, entry && entry.value, 0].filter(Number.isFinite);
      const scale = [Math.min(...ends), Math.max(...ends)];
      return intervalRow(h("th", { scope: "row", "data-figure": key, ...labelMark(key) }, label), entry, key, scale);
    }),
    { className: "data bootstrap" },
  );
}
