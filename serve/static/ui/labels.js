// What a reader sees of a figure: its name, its unit as displayed, and whether a higher or a lower
// value is the better one. The one table of the dashboard (docs/dashboard.md "Names, units and
// colours"); every page and the tear sheet read it.
//
// Units are not listed per figure: each value carries the unit the API declares for it (a stat
// entry's `unit`, a check's `unit`, the screener's `turnover_unit`; /v1/.../_doc and the OpenAPI
// `x-unit` document the same), and UNITS says how a value in that unit is shown. The API declares
// no display names, so FIGURES names them here, once.

import { DASH, fixed, int, num, pct, pp } from "./format.js";
import { BENCHMARK } from "./market.js";

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
  fraction: { show: (v) => pct(v), text: "%" },
  return: { show: (v) => pct(v), text: "%" },
  percentage_points: { show: (v) => pp(v), text: "% of peak" },
  bps: { show: (v) => `${num(v)} bps`, text: "bps" },
  ratio: { show: num, text: "ratio" },
  correlation: { show: num, text: "correlation" },
  t_statistic: { show: (v) => fixed(v, 2), text: "t-statistic" },
  probability: { show: num, text: "probability (0 to 1)" },
  multiple: { show: num, text: "× the modelled cost" },
  equity: { show: num, text: "× starting equity" },
  sessions: { show: int, text: "sessions" },
  weeks: { show: num, text: "weeks" },
  names: { show: num, text: "names" },
  base_currency: { show: money, text: "the book's currency" },
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

/** A value in its unit as the page shows it (a dash when null or not finite). */
export function inUnit(value, unit) {
  if (!finite(value)) return DASH;
  const known = UNITS[unit];
  return known ? known.show(value) : num(value);
}

/** The unit beside a value, as shown ("%", "per year"); the code itself when the table lacks it. */
export function unitText(unit) {
  if (!unit) return DASH;
  return UNITS[unit] ? UNITS[unit].text : String(unit).replaceAll("_", " ");
}

// Figures by the key the API serves them under (a full path like `benchmark.alpha` first, else the
// last segment). `better`: "higher" or "lower" when one direction is better, so a difference or a
// change is coloured; `signed`: the value's own sign is a gain or a loss (green above zero, red
// below). A figure with neither is never coloured (kurtosis, beta, volatility, turnover, costs).
export const FIGURES = {
  ic: { name: "Mean IC", better: "higher", signed: true },
  mean_ic: { name: "Mean IC", better: "higher", signed: true },
  icir: { name: "ICIR", better: "higher", signed: true },
  icir_per_week: { name: "ICIR per week", better: "higher", signed: true },
  information_ratio: { name: "Information ratio", better: "higher", signed: true },
  "information_ratio.gross": { name: "Information ratio before costs", better: "higher", signed: true },
  "information_ratio.net": { name: "Information ratio after costs", better: "higher", signed: true },
  recent_information_ratio: { name: "Information ratio, last 504 sessions", better: "higher", signed: true },
  stressed_net_information_ratio: { name: "Information ratio at twice the modelled cost", better: "higher", signed: true },
  excess_sharpe: { name: "Excess Sharpe ratio", better: "higher", signed: true },
  sharpe: { name: "Sharpe ratio", better: "higher", signed: true },
  sortino: { name: "Sortino ratio", better: "higher", signed: true },
  calmar: { name: "Calmar ratio", better: "higher", signed: true },
  pnl: { name: "P&L", better: "higher", signed: true },
  gross_pnl: { name: "Gross P&L", better: "higher", signed: true },
  net_pnl: { name: "Net P&L", better: "higher", signed: true },
  annualised_return: { name: "Annualised return", better: "higher", signed: true },
  period_return: { name: "Return", better: "higher", signed: true },
  cagr: { name: "CAGR", better: "higher", signed: true },
  "benchmark.alpha": { name: `Alpha against ${BENCHMARK}`, better: "higher", signed: true },
  "benchmark.beta": { name: `Beta to ${BENCHMARK}` },
  "benchmark.tracking_error": { name: "Tracking error" },
  max_drawdown: { name: "Max drawdown (fraction of the peak)", better: "lower" },
  max_drawdown_pct: { name: "Max drawdown", better: "lower" },
  depth_pct: { name: "Depth", better: "lower" },
  volatility: { name: "Volatility" },
  turnover: { name: "Turnover" },
  annual_turnover: { name: "Turnover per year" },
  tail_ratio: { name: "Tail ratio", better: "higher" },
  var_95: { name: "VaR 95 %", better: "higher" },
  cvar_95: { name: "CVaR 95 %", better: "higher" },
  best_day: { name: "Best day" },
  worst_day: { name: "Worst day" },
  best_week: { name: "Best week" },
  worst_week: { name: "Worst week" },
  best_month: { name: "Best month" },
  worst_month: { name: "Worst month" },
  skewness: { name: "Skewness" },
  kurtosis: { name: "Kurtosis (not excess)" },
  psr: { name: "Probabilistic Sharpe ratio", better: "higher" },
  dsr: { name: "Deflated Sharpe ratio", better: "higher" },
  deflated_sharpe: { name: "Deflated Sharpe ratio", better: "higher" },
  min_track_record: { name: "Minimum track record length", better: "lower" },
  ic_t_statistic: { name: "t-statistic of mean IC", better: "higher", signed: true },
  max_weight: { name: "Largest weight" },
  yearly_consistency: { name: "Share of years with a gain", better: "higher" },
  production_correlation: { name: "Largest correlation to a production alpha", better: "lower" },
  diversification_ratio: { name: "Diversification ratio", better: "higher" },
  break_even_bps: { name: "Break-even cost", better: "higher" },
  modelled_cost_bps: { name: "Modelled cost" },
  break_even_multiple: { name: "Break-even cost over the modelled cost", better: "higher" },
  execution_cost: { name: "Execution cost" },
  traded_notional: { name: "Traded notional" },
  holding_period: { name: "Holding period" },
  hit_rate: { name: "Hit rate (share of weeks with IC above 0)", better: "higher" },
  // Rebuilt from the rebalance cross-sections: not the run's sealed figures /metrics serves (issue 46).
  rebuilt_mean_ic: { name: "Rebuilt mean IC", better: "higher", signed: true },
  rebuilt_icir: { name: "Rebuilt ICIR (annualised)", better: "higher", signed: true },
  rebuilt_hit_rate: { name: "Rebuilt hit rate (share of weeks with IC above 0)", better: "higher" },
  // Where the P&L came from (/analytics/attribution).
  return_contribution: { name: "Return contribution", better: "higher", signed: true },
  share: { name: "Share of the names' P&L", better: "higher", signed: true },
  names_pnl: { name: "P&L of the names", better: "higher", signed: true },
  cash_carry: { name: "Cash carry", better: "higher", signed: true },
  rounding_adjustment: { name: "Rounding adjustment" },
  sum_of_daily_returns: { name: "Sum of daily returns", better: "higher", signed: true },
  names_return_contribution: { name: "Return contribution of the names", better: "higher", signed: true },
  cash_carry_return_contribution: { name: "Return contribution of the cash carry", better: "higher", signed: true },
  rounding_return_contribution: { name: "Return contribution of the rounding" },
  "fragility.information_ratio": { name: "Information ratio", better: "higher", signed: true },
  without_best_days: { name: "Information ratio without the best days", better: "higher", signed: true },
  best_days_kept: { name: "Share of the information ratio kept without the best days", better: "higher" },
  without_best_names: { name: "Information ratio without the best names", better: "higher", signed: true },
  top_1pct_days_share: { name: "Share of the P&L made on the best 1% of days", better: "lower" },
  top_5pct_days_share: { name: "Share of the P&L made on the best 5% of days", better: "lower" },
  names_held: { name: "Names held" },
  mean_names_per_session: { name: "Names held at a close, on average" },
  effective_names: { name: "Effective number of names", better: "higher" },
  weight: { name: "Largest realised weight" },
  day_return: { name: "Return that day", better: "higher", signed: true },
  // Factor attribution (/analytics/factors).
  book_return: { name: "Book's return that week", better: "higher", signed: true },
  sum_of_weekly_returns: { name: "Sum of the book's weekly returns (attributed weeks)", better: "higher", signed: true },
  sum_of_weekly_common_returns: { name: "Sum of the weekly common returns (the factors' parts)", signed: true },
  sum_of_weekly_specific_returns: { name: "Sum of the weekly specific returns", better: "higher", signed: true },
  common_return: { name: "Common return: the factors' part", signed: true },
  specific_return: { name: "Specific return: what the factors leave", better: "higher", signed: true },
  specific_information_ratio: { name: "Specific information ratio", better: "higher", signed: true },
  variance_explained: { name: "Share of the variance the factors explain" },
  mean_exposure: { name: "Mean exposure" },
  factor_return: { name: "Factor return" },
  part: { name: "Part of the book's return", signed: true },
  mean_neutral_ic: { name: "Mean feature-neutral IC", better: "higher", signed: true },
  // Capacity (/analytics/capacity).
  capacity: { name: "Capacity: capital at which costs halve the net information ratio", better: "higher" },
  participation_capacity: { name: "Capital at which the 95th-percentile fill takes 10% of adv", better: "higher" },
  "participation.median": { name: "Participation of the median fill (of adv)", better: "lower" },
  "participation.p95": { name: "Participation of the 95th-percentile fill (of adv)", better: "lower" },
  "participation.max": { name: "Largest participation of a fill (of adv)", better: "lower" },
  above_1pct: { name: "Share of fills above 1% of adv", better: "lower" },
  above_5pct: { name: "Share of fills above 5% of adv", better: "lower" },
  above_10pct: { name: "Share of fills above 10% of adv", better: "lower" },
  cost_drag: { name: "Cost drag", better: "lower" },
  participation_p95: { name: "Participation of the 95th-percentile fill (of adv)", better: "lower" },
  top_contribution: { name: "Its top name's return contribution", better: "higher", signed: true },
  dispersion: { name: "IC dispersion" },
  coverage: { name: "Coverage" },
  p_value: { name: "p-value", better: "lower" },
  decay_ratio: { name: "Decay ratio", better: "higher" },
  fragility: { name: "Information ratio kept without the best 5 days", better: "higher" },
  // /analytics/residual's own figures: another definition, another name (issue 46).
  appraisal_ratio: { name: "Appraisal ratio (beyond SPY and the reference set)", better: "higher", signed: true },
  partial_beta: { name: `Partial beta to ${BENCHMARK} (the reference set held fixed)`, signed: true },
  intercept_t_statistic: { name: "t-statistic of the intercept (Newey-West)", better: "higher", signed: true },
  t_statistic: { name: "t-statistic (Newey-West)", signed: true },
  residual_information_ratio: { name: "Information ratio beyond the reference set and SPY", better: "higher" },
  residual_t_statistic: { name: "t-statistic of the intercept beyond the reference set and SPY", better: "higher", signed: true },
};

// Words written in capitals in a name the table does not hold (a figure added later).
const ACRONYMS = { ic: "IC", icir: "ICIR", ir: "IR", cagr: "CAGR", var: "VaR", cvar: "CVaR", psr: "PSR", dsr: "DSR", pnl: "P&L", nw: "NW" };

function figure(key) {
  const name = String(key);
  return FIGURES[name] || FIGURES[name.split(".").pop()] || null;
}

/** The name a reader sees for a figure served under `key` ("core.icir" → "ICIR"). */
export function figureName(key) {
  const known = figure(key);
  if (known) return known.name;
  const words = String(key).split(".").pop().split("_").map((w) => ACRONYMS[w] || w);
  const text = words.join(" ");
  return text.charAt(0).toUpperCase() + text.slice(1);
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
