// What a reader sees of a figure: its name, its unit as displayed, and whether a higher or a lower
// value is the better one. The one table of the dashboard (docs/dashboard.md "Names, units and
// colours"); every page and the tear sheet read it.
//
// Units are not listed per figure: each value carries the unit the API declares for it (a stat
// entry's `unit`, a check's `unit`, the screener's `turnover_unit`; /v1/.../_doc and the OpenAPI
// `x-unit` document the same), and UNITS says how a value in that unit is shown. A figure's name is
// its label in the vocabulary registry (vocabulary.js, made from schemas/terms.py when the server starts).

import { h } from "./dom.js";
import { DASH, fixed, int, num, pct, pp } from "./format.js";
import { BOOK_CURRENCY, GENERIC_KEYS, TERMS } from "./vocabulary.js";

const PER_YEAR = "per year";

// The out-of-sample part of a time chart (after the alpha's split, /analytics/live `split_date`):
// its label and its ground, a grey no series is drawn in, light enough for the lines over it to keep
// their colours (and pale on paper). The alpha page's charts (charts.js) and the tear sheet's (svg.js).
export const LIVE_LABEL = "live (out of sample)";
export const LIVE_SHADE = "rgba(96, 108, 122, 0.16)";

// "Live" only after an approval: the part after any other split is out of sample, named by what the
// split is (/analytics/live `split_origin`): the research cutoff, the first publish, a what-if.
const OUT_OF_SAMPLE = {
  approval: { part: "live (out of sample)", after: (date) => `${LIVE_LABEL} after ${date}`, column: "Out of sample (live)", title: "Live against backtest" },
  research_cutoff: {
    part: "out of sample after the research cutoff",
    after: (date) => `out of sample after the research cutoff (${date})`,
    column: "Out of sample (after the research cutoff)",
    title: "Out of sample after the research cutoff, against backtest",
  },
  first_published: {
    part: "out of sample after the first publish",
    after: (date) => `out of sample after the first publish (${date})`,
    column: "Out of sample (after the first publish)",
    title: "Out of sample after the first publish, against backtest",
  },
  request: {
    part: "out of sample after the what-if split",
    after: (date) => `out of sample after the what-if split (${date})`,
    column: "Out of sample (after the what-if split)",
    title: "Out of sample after a what-if split, against backtest",
  },
};
const UNNAMED_SPLIT = { part: "out of sample", after: (date) => `out of sample after ${date}`, column: "Out of sample", title: "Out of sample against backtest" };

/** How the part after a split of `origin` is named: `part` (in a sentence), `after(date)` (a chart's
 * caption or legend), `column` (the parts' table), `title` (a page or panel). */
export function outOfSample(origin) {
  return OUT_OF_SAMPLE[origin] || UNNAMED_SPLIT;
}

// The API's unit codes: how a value is shown (`show`) and the unit written beside it (`text`).
// Turnover has one basis on every page, per year: the page draws the turnover the API serves per
// year (/metrics `core.annual_turnover`, the checks', the costs route's); a value in another unit is
// shown in that unit, as served, never rescaled here.
export const UNITS = {
  // `digits`: the decimals a figure is shown to where it says so (labels.js FIGURES `digits`).
  fraction: { show: (v, digits) => pct(v, digits), text: "%" },
  return: { show: (v, digits) => pct(v, digits), text: "%" },
  percentage_points: { show: (v) => pp(v), text: "% of peak" },
  bps: { show: (v) => `${num(v)} bps`, text: "bps" },
  ratio: { show: num, text: "ratio" },
  correlation: { show: num, text: "correlation" },
  t_statistic: { show: (v) => fixed(v, 2), text: "t-statistic" },
  // "probability, 0 to 1": a header adds it in brackets ("p-value (probability, 0 to 1)"), so no brackets of its own.
  probability: { show: num, text: "probability, 0 to 1" },
  multiple: { show: num, text: "× the modelled cost" },
  equity: { show: num, text: "× starting equity" },
  sessions: { show: int, text: "sessions" },
  // A count of observations, or their mean (a bootstrap's block length): a whole count in full.
  observations: { show: (v) => (Number.isInteger(v) ? int(v) : num(v)), text: "observations" },
  weeks: { show: num, text: "weeks" },
  // Whole counts of things the routes count (a trial family's trials, CSCV blocks and combinations,
  // alphas, bootstrap resamples, checks): in full with thousands separators ("1,000 resamples").
  trials: { show: int, text: "trials" },
  blocks: { show: int, text: "blocks" },
  combinations: { show: int, text: "combinations" },
  alphas: { show: int, text: "alphas" },
  resamples: { show: int, text: "resamples" },
  checks: { show: int, text: "checks" },
  // A trial family's members compared, and a parameter's distinct values among them (/analytics/family_tests).
  members: { show: int, text: "members" },
  values: { show: int, text: "values" },
  // The haircut's tests adjusted for, its months and its simulations (/analytics/significance `sharpe_haircut`).
  hypotheses: { show: int, text: "hypotheses" },
  months: { show: int, text: "months" },
  simulations: { show: int, text: "simulations" },
  // The Rademacher anti-serum's Monte Carlo draws (/analytics/catalogue_bound).
  draws: { show: int, text: "draws" },
  names: { show: num, text: "names" },
  // The currency the service declares for every book (schemas.conventions.BOOK_CURRENCY, served in
  // vocabulary.js and as capacity's and costs' `currency`): written beside an amount, never in it,
  // so an axis of capitals keeps short ticks under a title naming it.
  base_currency: { show: money, text: BOOK_CURRENCY },
  years: { show: num, text: "years" },
  per_year: { show: (v) => `${num(v)} ${PER_YEAR}`, text: PER_YEAR },
  per_session: { show: (v) => `${num(v)} per session`, text: "per session" },
  per_week: { show: (v) => `${num(v)} per week`, text: "per week" },
};

const finite = (value) => typeof value === "number" && Number.isFinite(value);

/** An amount of the book's currency, in thousands, millions or billions ("316 m", "1.5 bn"). */
function money(v) {
  const [scale, word] = [[1e12, "tn"], [1e9, "bn"], [1e6, "m"], [1e3, "k"]].find(([s]) => Math.abs(v) >= s) || [1, ""];
  return `${num(v / scale)}${word ? ` ${word}` : ""}`;
}

/** A value in its unit as the page shows it (a dash when null or not finite); `digits` for a figure
 * shown to fewer decimals than its unit's (FIGURES `digits`: `figureDigits`). */
export function inUnit(value, unit, digits = undefined) {
  if (!finite(value)) return DASH;
  const known = UNITS[unit];
  return known ? known.show(value, digits) : num(value);
}

/** The unit beside a value, as shown ("%", "per year"); the code itself when the table lacks it. */
export function unitText(unit) {
  if (!unit) return DASH;
  return UNITS[unit] ? UNITS[unit].text : String(unit).replaceAll("_", " ");
}

// How a figure is shown, by the key the API serves it under (a full path like `benchmark.alpha`
// first, then its shorter tails, `newey_west.lag` of `panel.ic_term_structure.newey_west.lag`, down
// to the last segment): presentation only. Its name is its term's label in the vocabulary
// registry (schemas/terms.py, served as vocabulary.js): the key's own term, or the one
// `term` names where the key is a path to a generic name (`information_ratio.gross`, `benchmark.alpha`);
// `name` only for a key the registry has no term for (a row's field). `better`: "higher" or "lower"
// when one direction is better, so a difference or a change is coloured; `signed`: the value's own
// sign is a gain or a loss (green above zero, red below). A figure with neither is never coloured
// (kurtosis, beta, volatility, turnover, costs).
export const FIGURES = {
  ic: { better: "higher", signed: true },
  mean_ic: { better: "higher", signed: true },
  sector_mean_ic: { better: "higher", signed: true },
  attributed_mean_ic: { better: "higher", signed: true },
  icir: { better: "higher", signed: true },
  icir_per_week: { better: "higher", signed: true },
  information_ratio: { better: "higher", signed: true },
  "information_ratio.gross": { term: "gross", better: "higher", signed: true },
  "information_ratio.net": { term: "net", better: "higher", signed: true },
  recent_information_ratio: { better: "higher", signed: true },
  stressed_net_information_ratio: { better: "higher", signed: true },
  net_information_ratio: { better: "higher", signed: true },
  excess_sharpe: { better: "higher", signed: true },
  sharpe: { better: "higher", signed: true },
  sortino: { better: "higher", signed: true },
  calmar: { better: "higher", signed: true },
  pnl: { better: "higher", signed: true },
  // /metrics serves these names with another meaning than the generic name's (schemas/vocabulary.py
  // STILL_TWO_MEANINGS): the page names each by the term its field declares.
  "core.pnl": { term: "sealed_pnl", better: "higher", signed: true },
  "core.turnover": { term: "sealed_turnover" },
  "rank_ic.raw.ic": { term: "raw_mean_ic", better: "higher", signed: true },
  "rank_ic.raw.icir": { term: "raw_icir", better: "higher", signed: true },
  gross_pnl: { better: "higher", signed: true },
  net_pnl: { better: "higher", signed: true },
  annualised_return: { better: "higher", signed: true },
  period_return: { name: "Return", better: "higher", signed: true },
  cagr: { better: "higher", signed: true },
  "benchmark.alpha": { term: "alpha", better: "higher", signed: true },
  "benchmark.beta": { term: "beta" },
  "benchmark.tracking_error": { term: "tracking_error" },
  max_drawdown: { better: "lower" },
  max_drawdown_pct: { better: "lower" },
  depth_pct: { better: "lower" },
  volatility: {},
  turnover: {},
  annual_turnover: {},
  tail_ratio: { better: "higher" },
  var_95: { better: "higher" },
  cvar_95: { better: "higher" },
  best_day: {},
  worst_day: {},
  best_week: {},
  worst_week: {},
  best_month: {},
  worst_month: {},
  skewness: {},
  kurtosis: {},
  psr: { better: "higher" },
  dsr: { better: "higher" },
  family_sharpe: { better: "higher", signed: true },
  deflated_sharpe: { better: "higher" },
  min_track_record: { better: "lower" },
  ic_t_statistic: { better: "higher", signed: true },
  max_weight: {},
  yearly_consistency: { better: "higher" },
  production_correlation: { better: "lower" },
  diversification_ratio: { better: "higher" },
  break_even_bps: { better: "higher" },
  modelled_cost_bps: {},
  break_even_multiple: { better: "higher" },
  execution_cost: {},
  traded_notional: {},
  holding_period: {},
  hit_rate: { better: "higher" },
  // Rebuilt from the rebalance cross-sections: not the run's sealed figures /metrics serves (issue 46).
  rebuilt_mean_ic: { better: "higher", signed: true },
  rebuilt_icir: { better: "higher", signed: true },
  rebuilt_hit_rate: { better: "higher" },
  // Where the P&L came from (/analytics/attribution).
  return_contribution: { better: "higher", signed: true },
  share: { better: "higher", signed: true },
  names_pnl: { better: "higher", signed: true },
  cash_carry: { better: "higher", signed: true },
  rounding_adjustment: {},
  sum_of_daily_returns: { better: "higher", signed: true },
  names_return_contribution: { better: "higher", signed: true },
  cash_carry_return_contribution: { better: "higher", signed: true },
  rounding_return_contribution: {},
  "fragility.information_ratio": { term: "information_ratio", better: "higher", signed: true },
  without_best_days: { better: "higher", signed: true },
  best_days_kept: { better: "higher" },
  without_best_names: { better: "higher", signed: true },
  top_1pct_days_share: { better: "lower" },
  top_5pct_days_share: { better: "lower" },
  names_held: {},
  mean_names_per_session: {},
  effective_names: { better: "higher" },
  weight: {},
  day_return: { better: "higher", signed: true },
  // Factor attribution (/analytics/factors).
  book_return: { better: "higher", signed: true },
  sum_of_weekly_returns: { better: "higher", signed: true },
  sum_of_weekly_common_returns: { signed: true },
  sum_of_weekly_specific_returns: { better: "higher", signed: true },
  common_return: { signed: true },
  specific_return: { better: "higher", signed: true },
  specific_information_ratio: { better: "higher", signed: true },
  variance_explained: {},
  mean_exposure: {},
  factor_return: {},
  part: { signed: true },
  mean_neutral_ic: { better: "higher", signed: true },
  // Capacity (/analytics/capacity).
  capacity: { better: "higher" },
  participation_capacity: { better: "higher" },
  "participation.median": { term: "median", better: "lower" },
  "participation.p95": { term: "p95", better: "lower" },
  "participation.max": { term: "max", better: "lower" },
  above_1pct: { better: "lower" },
  above_5pct: { better: "lower" },
  above_10pct: { better: "lower" },
  cost_drag: { better: "lower" },
  participation_p95: { better: "lower" },
  top_contribution: { better: "higher", signed: true },
  dispersion: {},
  coverage: {},
  p_value: { better: "lower" },
  decay_ratio: { better: "higher" },
  fragility: { better: "higher" },
  // /analytics/residual's own figures: another definition, another name (issue 46).
  appraisal_ratio: { better: "higher", signed: true },
  partial_beta: { signed: true },
  // /analytics/residual serves each reference alpha's coefficient as partial_beta too (STILL_TWO_MEANINGS).
  "betas.partial_beta": { term: "reference_partial_beta" },
  // /analytics/live serves a part's weeks with a measurable IC as weeks (STILL_TWO_MEANINGS).
  "in_sample.weeks": { term: "ic_weeks" },
  "out_of_sample.weeks": { term: "ic_weeks" },
  // /metrics' Newey-West tests: their mean and standard error under the terms the struct names; a
  // lag and an n count weeks in the weekly tests (NeweyWest), sessions in nwt.ir's (DailyNeweyWest):
  // the served names `lag` and `n` mean either (STILL_TWO_MEANINGS).
  "nwt.ic.mean": { term: "newey_west_mean" },
  "nwt.ic_score_panel.mean": { term: "newey_west_mean" },
  "nwt.ir.mean": { term: "newey_west_mean" },
  "newey_west.mean": { term: "newey_west_mean" },
  "nwt.ic.standard_error": { term: "newey_west_standard_error" },
  "nwt.ic_score_panel.standard_error": { term: "newey_west_standard_error" },
  "nwt.ir.standard_error": { term: "newey_west_standard_error" },
  "newey_west.standard_error": { term: "newey_west_standard_error" },
  "nwt.ic.lag": { term: "newey_west_lag_weeks" },
  "nwt.ic_score_panel.lag": { term: "newey_west_lag_weeks" },
  "newey_west.lag": { term: "newey_west_lag_weeks" },
  "nwt.ir.lag": { term: "newey_west_lag" },
  "nwt.ic.n": { term: "newey_west_weeks" },
  "nwt.ic_score_panel.n": { term: "newey_west_weeks" },
  "newey_west.n": { term: "newey_west_weeks" },
  "nwt.ir.n": { term: "newey_west_sessions" },
  "ic_term_structure.weeks": { term: "horizon_ic_weeks" },
  "ic_deciles.buckets.ic": { term: "decile_ic", better: "higher", signed: true },
  "ic_weekly.ic": { term: "weekly_ic", better: "higher", signed: true },
  // /analytics/returns: a calendar month's and year's return (not the factors' weekly book_return).
  // A month to one decimal: the grid's twelve months side by side (its year, SPY's, to two).
  "months.book_return": { term: "monthly_return", better: "higher", signed: true, digits: 1 },
  "years.book_return": { term: "calendar_year_return", better: "higher", signed: true },
  benchmark_return: { better: "higher", signed: true },
  intercept_t_statistic: { better: "higher", signed: true },
  mmc_mean: { better: "higher", signed: true },
  mmc_t_stat: { better: "higher", signed: true },
  t_statistic: { signed: true },
  residual_information_ratio: { better: "higher" },
  residual_t_statistic: { name: "t-statistic of the intercept beyond the reference set and SPY", better: "higher", signed: true },
};

// Words written in capitals in a name the table does not hold (a figure added later).
const ACRONYMS = { ic: "IC", icir: "ICIR", ir: "IR", cagr: "CAGR", var: "VaR", cvar: "CVaR", psr: "PSR", dsr: "DSR", pnl: "P&L", nw: "NW" };

/** The key FIGURES lists for `key`: the key itself, else its longest tail listed
 * (`ic_term_structure.newey_west.lag` → `newey_west.lag`), else none. */
function listed(key) {
  const parts = String(key).split(".");
  for (let i = 0; i < parts.length; i++) {
    const tail = parts.slice(i).join(".");
    if (FIGURES[tail]) return tail;
  }
  return null;
}

function figure(key) {
  const name = listed(key);
  return name ? FIGURES[name] : null;
}

/** The decimals a figure served as `key` is shown to where FIGURES says so (else its unit's). */
export function figureDigits(key) {
  const known = figure(key);
  return known ? known.digits : undefined;
}

/** The registry's term of a figure served under `key`: for a key FIGURES lists (a full path first,
 * then its last segment), the term its entry names or the key's own; else the key's own, never a
 * generic key's (a stat's `value`, a side `alpha` or `with`, a bound `min` or `max`: positions, not
 * figures). */
function termOf(key) {
  const name = termNameOf(key);
  return name ? TERMS[name] : null;
}

/** The registry's name of that term ("core.pnl" → "sealed_pnl"), null when it has none. */
function termNameOf(key) {
  const name = String(key);
  const last = name.split(".").pop();
  const found = listed(name);
  if (found) {
    const term = FIGURES[found].term || found;
    return TERMS[term] ? term : null;
  }
  if (GENERIC_KEYS.includes(last)) return null;
  return TERMS[name] ? name : TERMS[last] ? last : null;
}

// Marks of a shown figure, read by tests/e2e/test_dashboard_vocabulary.py (docs/dashboard.md "Every
// figure is marked"): the element showing a value carries its term, the key it is served under, the
// number as served (unformatted, empty when null) and the unit the answer serves it in; the element
// naming it carries the term too. The test holds each against schemas/terms.py and the route's
// answer, so a name, unit or basis written here that is not the registry's fails, and so does a
// number in a figure cell without a mark.

/** The attributes of the element showing the value of the figure served as `key` (in `unit`). */
export function valueMark(key, value, unit) {
  return {
    "data-term": termNameOf(key) || "",
    "data-key": String(key),
    "data-value": finite(value) ? String(value) : "",
    "data-unit": unit || "",
  };
}

/** The attributes of the element naming the figure served as `key`. */
export function labelMark(key) {
  return { "data-term": termNameOf(key) || "", "data-label-of": String(key) };
}

/** The attributes of the element writing the unit of the figure served as `key` beside its value. */
export function unitMark(key) {
  return { "data-unit-of": termNameOf(key) || "" };
}

/** The name a reader sees for a figure served under `key` ("core.icir" → "ICIR"): its term's label. */
export function figureName(key) {
  const known = figure(key);
  if (known && known.name) return known.name;
  const term = termOf(key);
  if (term) return term.label;
  const words = String(key).split(".").pop().split("_").map((w) => ACRONYMS[w] || w);
  const text = words.join(" ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

// How a term's basis is written beside its name: an annualised figure says so; a figure of the
// sessions is "daily" (the page keeps "per session" out of its text: one turnover basis, per year).
const BASIS_TEXT = { "per year": "annualised", "per month": "per month", "per week": "per week", "per session": "daily" };
// A count of the basis's own periods says its basis in its name ("Sessions in the regime").
const COUNTS_ITS_BASIS = { "per session": "sessions", "per week": "weeks" };

/** A value of the figure served under `key`, shown in its term's unit (`inUnit`): for a value served
 * bare, without a stat entry's `unit` beside it (a row's field, a weekly series). */
export function figureValue(key, value) {
  const term = termOf(key);
  return inUnit(value, term ? term.unit : null, figureDigits(key));
}

/** The name with the basis the registry states for it ("Information ratio (annualised)", "Mean IC
 * (as sealed, per week)", "ICIR per week" and "Turnover per year" as they are): for a label that
 * must say what period the value is per. */
export function figureNameWithBasis(key) {
  const term = termOf(key);
  const name = figureName(key);
  const basis = term && BASIS_TEXT[term.basis];
  if (!basis || name.includes(basis) || name.includes(term.basis) || COUNTS_ITS_BASIS[term.basis] === term.unit) return name;
  return name.endsWith(")") ? `${name.slice(0, -1)}, ${basis})` : `${name} (${basis})`;
}

/** The unit the registry states for the figure served as `key` (null when it has no term): for a
 * value served bare, not as a stat entry carrying its own unit. */
export function termUnit(key) {
  const term = termOf(key);
  return term ? term.unit : null;
}

/** The header of a column of figures served as `key`: its name with its basis and, when the unit
 * table knows it, the unit its values are written in ("P&L (× starting equity)"), from the registry
 * and marked (`labelMark`, `unitMark`), so no panel writes a figure's name or unit itself. `unit:
 * false` where the table's caption states the units (the attribution's two side-by-side name tables);
 * a name that says its unit already ("Newey-West lag (weeks)", "Weeks tested") does not write it
 * again. `detail`: words the column adds in the brackets before the unit ("SPY's return (adjusted
 * close, %)": the price basis the route names). */
export function figureColumn(key, { unit: withUnit = true, detail = null } = {}) {
  const term = termOf(key);
  const name = figureNameWithBasis(key);
  const text = term && UNITS[term.unit] ? UNITS[term.unit].text : null;
  const said = text && /^[a-z -]+$/i.test(text) && new RegExp(`\\b${text}\\b`, "i").test(name);
  const unit = withUnit && text && !said ? text : null;
  const inside = [detail, unit ? h("span", unitMark(key), unit) : null].filter(Boolean);
  if (!inside.length) return h("span", labelMark(key), name);
  // "Return contribution (daily, %)": the unit joins what the name says in brackets.
  const [before, after] = name.endsWith(")") ? [name.slice(0, -1), ", "] : [name, " ("];
  return h("span", labelMark(key), before, after, inside.flatMap((part, i) => (i ? [", ", part] : [part])), ")");
}

/** "better", "worse" or "" for a value of `key`: only for a figure whose sign is a gain or a loss. */
export function valueTone(key, value) {
  const known = figure(key);
  return known && known.signed ? toneBy(known.better, value) : "";
}

/** "better", "worse" or "" for a difference or a change of `key` (a smaller drawdown is better). */
export function changeTone(key, value) {
  const known = figure(key);
  return known ? toneBy(known.better, value) : "";
}

function toneBy(better, value) {
  if (!better || !finite(value) || value === 0) return "";
  return (value > 0) === (better === "higher") ? "better" : "worse";
}
