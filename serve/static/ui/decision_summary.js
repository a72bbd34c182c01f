// The decision first: what a head of research reads before signing, drawn from the routes' answers
// and nothing else (docs/dashboard.md "The decision summary"). The tear sheet's first page
// (`decisionSummary`) and the comparison report's first page, one row per alpha (`summaryRow`),
// show the same facts:
//
// - the standing and since when (GET /v1/alphas/{alpha}/promotions `standing`, `since`), and what
//   later builds restated of what it had published (GET .../restatements: how many, since when);
// - the checks' verdict, with every failed check and every one not measurable, each with the
//   reason the route words (/analytics/checks);
// - the part after the split against the backtest (/analytics/live): called live only after an
//   approval, else out of sample after the research cutoff or the first publish, as `split_origin`
//   says (labels.js `outOfSample`);
// - an alarm of the CUSUM watching the live weeks (/analytics/monitoring), when there is one;
// - capacity at the reference capital (/analytics/capacity `capital`, `net_information_ratio`,
//   `capacity`, `participation_capacity`);
// - fragility (/analytics/attribution `fragility`);
// - the costs (/analytics/costs: gross and net P&L, the execution cost, the information ratio before
//   and after costs, the break-even cost against the modelled one);
// - the correlation to the reference set the checks compare with, the approved alphas (the
//   checks' `production_correlation`: value, verdict, reason);
// - the headline figures with their 95% bootstrap intervals (/analytics/uncertainty);
// - the probability of backtest overfitting of its trial family, with the family's size
//   (/analytics/overfitting);
// - the expected live information ratio, its basis (shrunk toward the group, times decay's
//   retention) and its 90% interval (/analytics/expectation);
// - the weak spot: the regime of the market with the lowest information ratio over a quarter or
//   more, as /analytics/regimes names it (`weakest_regime`), against the whole window;
// - the specific information ratio (after the common factors, /analytics/factors) beside the
//   appraisal ratio (beyond the approved alphas and SPY, /analytics/residual), and why both hold;
// - the contribution to the approved book (/analytics/mmc).
//
// A figure a route does not measure is its reason; a refused route is its error, in its row only.

import { attributionParams } from "./attribution_panel.js";
import { money } from "./capacity_panel.js";
import { add, errorBox, h } from "./dom.js";
import { decisionRecord } from "./decision_record.js";
import { DASH, int, pct } from "./format.js";
import { figureName, inUnit, labelMark, outOfSample, unitMark, unitText } from "./labels.js";
import { ORIGINS } from "./live_panel.js";
import { monitoringLine } from "./monitoring_panel.js";
import { entryText, figureSpan, verdictBadge } from "./stat_entry.js";
import { TERMS } from "./vocabulary.js";

/**
 * The answers the summary is drawn from, by the names it reads them under, asked with `get(suffix,
 * params)` (a path under the alpha's): the tear sheet asks them among its own, the alpha page alone.
 */
export function summaryRequests(get) {
  return {
    promotions: get("/promotions"),
    // One row is enough: the page's total counts them, the first says since when.
    restatements: get("/restatements", { limit: 1 }),
    checks: get("/analytics/checks", { book: "long_short" }),
    live: get("/analytics/live", { book: "long_short" }),
    monitoring: get("/analytics/monitoring", { book: "long_short" }),
    capacity: get("/analytics/capacity", { book: "long_short" }),
    attribution: get("/analytics/attribution", attributionParams()),
    costs: get("/analytics/costs", { book: "long_short" }),
    uncertainty: get("/analytics/uncertainty", { book: "long_short" }),
    overfitting: get("/analytics/overfitting"),
    expectation: get("/analytics/expectation"),
    regimes: get("/analytics/regimes", { book: "long_short" }),
    factors: get("/analytics/factors", { book: "long_short" }),
    residual: get("/analytics/residual", { book: "long_short" }),
    mmc: get("/analytics/mmc"),
  };
}

/** Every summary answer, settled (a refusal is its row's only), by name. */
export async function settledSummary(get) {
  const asked = summaryRequests(get);
  const settled = await Promise.allSettled(Object.values(asked));
  return Object.fromEntries(Object.keys(asked).map((name, i) => [name, settled[i]]));
}

const CORRELATION_CHECK = "production_correlation";

/** A stat entry served as `key`: its value as shown and marked (stat_entry.js `figureSpan`), or
 * "not measurable (reason)". */
function measured(entry, key) {
  if (!entry) return "not served";
  if (entry.status === "not_measurable" || entry.value == null) return ["not measurable (", why(entry.withheld_reason), ")"];
  return figureSpan(key, entry);
}

/** `measured` for the figures of one sentence: a reason already given in it is not repeated. */
function measurer() {
  const given = new Set();
  return (entry, key) => {
    if (!entry || entry.value != null) return measured(entry, key);
    const reason = entry.withheld_reason || "no reason given";
    if (given.has(reason)) return "not measurable (as above)";
    given.add(reason);
    return measured(entry, key);
  };
}

/** A sentence of text and marked figures: say`IR ${span} over ${span}` is its parts in order. */
function say(strings, ...parts) {
  return strings.flatMap((text, i) => (i < parts.length ? [text, parts[i]] : [text]));
}

/** A number served bare as `key` (a count, a capital), shown in its term's unit and marked. */
const bare = (key, value, options) => figureSpan(key, value, options);

/** Text the route serves as words (names, labels): not a figure, whatever digits it holds. */
const words = (text) => h("span", { class: "words" }, text);

/** A reason the route words for a figure it did not measure. */
const why = (reason) => h("span", { class: "why" }, reason || "no reason given");

/** The figure column's figure served as `key`: the value, marked, or "not measurable" (its reason is
 * in the sentence beside it). */
const figured = (entry, key) => (entry && entry.value != null ? figureSpan(key, entry) : "not measurable");

/**
 * A cell carrying the exact value it shows (`data-value`, empty when not measured): the tests read
 * it. A figure of the term `key` is written with its unit beneath (`data-unit`): the served `unit`
 * (else the vocabulary's for the term) as the page names units (labels.js `unitText`), and the
 * term's basis, so no figure of the page is a bare number. `text` holds the figure as
 * stat_entry.js `figureSpan` marks it (tests/e2e/test_dashboard_vocabulary.py reads the mark).
 */
function figureCell(text, value, extra = {}, key = null, unit = null) {
  const term = key ? TERMS[key] : null;
  const code = unit || (term && term.unit) || null;
  const basis = term && term.basis ? `, ${BASIS_WORDS[term.basis] || term.basis}` : "";
  // The unit is marked as the term's (labels.js `unitMark`), its basis written after it.
  const shown = code ? h("div", { class: "figure-unit muted" }, key ? h("span", unitMark(key), unitText(code)) : unitText(code), basis) : null;
  return h("td", { class: "summary-figure", "data-value": Number.isFinite(value) ? String(value) : "", "data-unit": code || "", ...extra }, text, shown);
}

// How a term's basis is written under its unit ("ratio, annualised", "ratio, per week").
const BASIS_WORDS = { "per year": "annualised" };

const capitalised = (text) => text.charAt(0).toUpperCase() + text.slice(1);

// -- the facts, one function each --------------------------------------------------------------

function standingOf(answer) {
  const data = answer.data;
  const decisions = data.decisions || [];
  const last = decisions[decisions.length - 1];
  const word = { approved: "Approved", retired: "Retired", nominated: "Nominated", never: "Never approved" }[data.standing] || String(data.standing);
  const by = last ? [" by ", h("span", { class: "decided-by" }, last.decided_by), last.note ? [": “", h("span", { class: "decision-note" }, last.note), "”"] : null] : null;
  const since = data.since ? [` since ${data.since}`, by] : null;
  return { word, since, data };
}

function checksOf(answer) {
  const data = answer.data;
  const summary = data.summary || {};
  const listed = (data.checks || []).filter((c) => c.verdict === "fail" || c.verdict === "not_measurable");
  const policy = data.policy && data.policy.origin ? data.policy.origin : DASH;
  return { summary, listed, policy, correlation: (data.checks || []).find((c) => c.id === CORRELATION_CHECK) };
}

const counts = (summary) => say`${bare("summary.passed", summary.passed)} passed, ${bare("summary.failed", summary.failed)} failed, ${bare("summary.not_measurable", summary.not_measurable)} not measurable`;

/** The set the correlation check compared with, as its `reference` names it (approved: the production alphas, the only default). */
function referenceSet(check) {
  if (!check || !check.reference) return "the reference set";
  return check.reference === "approved" ? "the approved set" : `the ${check.reference} set`;
}

function liveTitle(data) {
  return data.split_date && data.split_origin === "approval" ? "Live against backtest" : "Out of sample against backtest";
}

function liveSentence(data, m) {
  if (!data.split_date) return "No split: the alpha was never approved, its seal names no research cutoff and no first publish is recorded, so its whole history is in sample (the backtest).";
  const part = outOfSample(data.split_origin);
  const inside = data.in_sample;
  const outside = data.out_of_sample;
  const where = `${capitalised(part.part)} (${data.split_date}: ${ORIGINS[data.split_origin] || data.split_origin})`;
  const insideSessions = bare("in_sample.sessions", inside.sessions);
  if (!outside.sessions) return say`${where}: no session is after it yet; the backtest holds ${insideSessions} sessions, information ratio ${measured(inside.information_ratio, "in_sample.information_ratio")}.`;
  return say`${where}: ${bare("out_of_sample.sessions", outside.sessions)} sessions, information ratio ${m(outside.information_ratio, "out_of_sample.information_ratio")} against ${m(inside.information_ratio, "in_sample.information_ratio")} over the backtest's ${insideSessions}; decay ratio ${m(data.decay_ratio, "decay_ratio")}.`;
}

const consistencyBadge = (consistency) => {
  const text = { consistent: "CONSISTENT", inconsistent: "INCONSISTENT" }[consistency.verdict] || "NOT MEASURABLE";
  const className = { consistent: "verdict-pass", inconsistent: "verdict-fail" }[consistency.verdict] || "verdict-not_measurable";
  return h("span", { class: `badge ${className}`, "data-verdict": consistency.verdict }, text);
};

function capacitySentence(data) {
  const m = measurer();
  // A capital measured is written with the book's currency after it (capacity_panel.js `money`).
  const currency = ` ${unitText("base_currency")}`;
  const capital = (entry, key) => (entry && entry.value != null ? [figureSpan(key, entry), currency] : m(entry, key));
  return say`At the reference capital K0 = ${bare("capital", data.capital)}${currency}: net information ratio ${m(data.net_information_ratio, "net_information_ratio")}; the modelled costs halve it at ${capital(data.capacity, "capacity")}; the 95th-percentile fill takes 10% of its name's average daily traded value at ${capital(data.participation_capacity, "participation_capacity")}.`;
}

function fragilitySentence(f) {
  const m = measurer();
  const names = words(f.best_names && f.best_names.length ? f.best_names.join(", ") : DASH);
  return [
    say`Information ratio ${m(f.information_ratio, "fragility.information_ratio")}; without the ${f.drop} best days ${m(f.without_best_days, "without_best_days")} (share kept ${m(f.best_days_kept, "best_days_kept")}), `,
    say`without the ${f.drop} best names (${names}) ${m(f.without_best_names, "without_best_names")}; `,
    say`share of the P&L made on the best 1% of days (${bare("top_1pct_days", f.top_1pct_days)} sessions) ${m(f.top_1pct_days_share, "top_1pct_days_share")}, on the best 5% ${m(f.top_5pct_days_share, "top_5pct_days_share")}.`,
  ];
}

/** The break-even multiple with its unit written ("2.262 × the modelled cost"), or why not measured. */
const timesModelled = (entry) => (entry && entry.value != null ? [figureSpan("break_even_multiple", entry), ` ${unitText(entry.unit)}`] : "not measurable");

function costsSentence(data) {
  const ir = data.information_ratio || {};
  const m = measurer();
  return [
    say`The break-even cost, ${m(data.break_even_bps, "break_even_bps")}, is ${timesModelled(data.break_even_multiple)} (${m(data.modelled_cost_bps, "modelled_cost_bps")}): `,
    say`the execution cost took ${m(data.execution_cost, "execution_cost")} × starting equity of a gross P&L of ${m(data.gross_pnl, "gross_pnl")} (net ${m(data.net_pnl, "net_pnl")}); `,
    say`information ratio ${m(ir.gross, "information_ratio.gross")} before costs, ${m(ir.net, "information_ratio.net")} after.`,
  ];
}

/** A figure served as `key` with its interval as the route serves it ("0.55 [-1.51, 2.36]", bounds
 * in its unit, marked as the figure's, served under `key.lower` and `key.upper`), or `m`'s words. */
function spanned(entry, key, m = measured) {
  if (!entry || entry.value == null) return m(entry, key);
  const figure = figureSpan(key, entry);
  if (entry.lower == null || entry.upper == null) return figure;
  const bound = (side) => figureSpan(key, entry[side], { unit: entry.unit, servedAs: `${key}.${side}` });
  return say`${figure} [${bound("lower")}, ${bound("upper")}]`;
}

/** The headline figures of /analytics/uncertainty on page 1, in the route's order. */
const INTERVAL_FIGURES = ["information_ratio", "excess_sharpe", "rebuilt_mean_ic", "max_drawdown_pct"];

function intervalsSentence(data) {
  const m = measurer();
  const level = pct(data.confidence, 0);
  const figures = INTERVAL_FIGURES.map((key, i) => [i ? "; " : "", `${capitalised(figureName(key))} `, spanned(data[key], key, m)]);
  return say`${figures} (${level} block-bootstrap intervals, ${bare("resamples", data.resamples)} resamples).`;
}

function overfittingSentence(data) {
  const m = measurer();
  if (data.pbo.value == null) return ["Not measurable: ", why(data.pbo.withheld_reason), "."];
  return [
    say`Probability of backtest overfitting of its trial family ${words(data.family)} (${bare("family_trials", data.family_trials)} trials this key reads; `,
    say`${bare("splits", data.splits)} CSCV blocks, ${bare("combinations", data.combinations)} combinations over ${bare("cscv_sessions", data.cscv_sessions)} sessions): ${figureSpan("pbo", data.pbo)}; `,
    say`probability of a loss out of sample ${m(data.probability_of_loss, "probability_of_loss")}.`,
  ];
}

/** /analytics/expectation's information ratio series (the first figure it serves). */
const expectedIr = (data) => (data.series || []).find((s) => s.series === "information_ratio");

function expectationSentence(data, series) {
  if (!series || series.expected_live == null) return ["Not measurable: ", why((series && series.withheld_reason) || "no expectation served"), "."];
  const group = data.group ? ["its family ", words(data.group)] : `the ${data.group_kind}`;
  const retention = data.live_haircut && data.live_haircut.retention ? data.live_haircut.retention : null;
  const level = pct(data.credible_level, 0);
  return [
    say`Backtest ${bare("backtest_value", series.backtest_value)} shrunk toward ${group}'s mean ${bare("group_mean", series.group_mean)} (${bare("group_members", data.group_members)} alphas; `,
    say`weight ${bare("shrinkage_weight", series.shrinkage_weight)} on its own), times retention ${measured(retention, "live_haircut.retention")} (${words(data.live_haircut ? data.live_haircut.calibration : DASH)}); `,
    say`${level} interval [${bare("expected_live_lower", series.expected_live_lower)}, ${bare("expected_live_upper", series.expected_live_upper)}].`,
  ];
}

function regimeSentence(data) {
  const rows = data.by_regime || [];
  const all = rows.find((r) => r.regime === "all");
  const weak = rows.find((r) => r.regime === data.weakest_regime);
  const window = all ? say` against ${measured(all.information_ratio, "by_regime.information_ratio")} over all ${bare("by_regime.regime_sessions", all.regime_sessions)} sessions` : "";
  if (!weak) return say`No regime of ${words(data.benchmark)} holds a quarter of sessions with a measurable information ratio${window}.`;
  return say`${words(`${data.benchmark} ${weak.dimension} ${weak.label}`)}: information ratio ${figureSpan("by_regime.information_ratio", weak.information_ratio)} over ${bare("by_regime.regime_sessions", weak.regime_sessions)} sessions${window}.`;
}

/** The two ratios under their vocabulary names (the residual one is the appraisal ratio), and what
 * each removes: the set the appraisal ratio is beyond is the route's `reference`. */
function specificSentence(factors, residual) {
  const m = measurer();
  const alphas = residual && residual.reference ? residual.reference.alphas || [] : [];
  const set = alphas.length ? ["set: ", words(alphas.join(", "))] : "no alpha in the set";
  return [
    say`${figureName("specific_information_ratio")} ${m(factors.specific_information_ratio, "specific_information_ratio")} (the common factors removed); `,
    say`${figureName("appraisal_ratio")} ${residual ? m(residual.appraisal_ratio, "appraisal_ratio") : "not read"} (${set}): so both can hold.`,
  ];
}

function contributionSentence(data) {
  const m = measurer();
  const approved = data.approved || {};
  return say`${figureName("mmc_mean")}, the weekly mean (t ${m(data.mmc_t_stat, "mmc_t_stat")}) over ${bare("mmc_weeks", data.mmc_weeks)} weeks against ${bare("approved_count", approved.approved_count)} approved alpha${approved.approved_count === 1 ? "" : "s"} (${words((approved.alphas || []).join(", ") || DASH)}).`;
}

// -- the tear sheet's page ---------------------------------------------------------------------

/** A row of the summary: its topic, the figure that sums it up, and what the route says. */
function row(id, topic, outcome, draw) {
  const th = h("th", { scope: "row" }, topic);
  if (!outcome) return h("tr", { "data-summary": id }, th, figureCell(DASH, null), h("td", { class: "summary-says" }, "Not read."));
  if (outcome.status === "rejected") {
    return h("tr", { "data-summary": id, class: "refused" }, th, figureCell(DASH, null), h("td", { class: "summary-says" }, errorBox(outcome.reason, `${topic} could not be read`)));
  }
  const [figure, says, title] = draw(outcome.value);
  if (title) th.textContent = title;
  return h("tr", { "data-summary": id }, th, figure, h("td", { class: "summary-says" }, says));
}

/** What later builds changed of what this alpha had published (GET .../restatements): how many
 * values and since when, or that none was; nothing when the key may not read them. */
function restatedSentence(outcome) {
  if (outcome?.status !== "fulfilled") return null;
  const { data, pagination } = outcome.value;
  const total = pagination?.total ?? data.length;
  if (!total) return h("span", { class: "restatements", "data-restated": "0" }, " No published value has been restated.");
  const first = data[0];
  return h(
    "span",
    { class: "restatements", "data-restated": String(total) },
    ` Restated: ${int(total)} published value${total === 1 ? "" : "s"} changed by later builds since ${first.restated_at.slice(0, 10)} (build `,
    h("span", { class: "build" }, first.build_id),
    "; both values on the restatements route).",
  );
}

/** Whether /analytics/monitoring answered with a chart in alarm. */
function alarmed(outcome) {
  return outcome?.status === "fulfilled" && outcome.value.data.charts.some((c) => c.state === "alarm");
}

/** The tear sheet's first page: the decision's facts, one row each (`got`: the settled answers). */
export function decisionSummary(alpha, got) {
  const checks = got.checks;
  const rows = [
    row("standing", "Standing", got.promotions, (answer) => {
      const { word, since, data } = standingOf(answer);
      const decisions = data.decisions || [];
      return [
        figureCell(h("strong", {}, word), null, { "data-standing": data.standing, "data-since": data.since || "" }),
        [
          since ? [word, since, "."] : "No promotion is recorded for this alpha.",
          decisions.length ? ` ${decisions.length} decision${decisions.length === 1 ? "" : "s"} recorded.` : "",
          decisionRecord(data),
          restatedSentence(got.restatements),
          " ",
          h("span", { class: "muted operator-hint" }, "The operator records a decision: ", h("code", {}, `alpha-results ${data.standing === "approved" ? "retire" : "promote"} ${alpha} --dry-run`), " says what it would change."),
        ],
      ];
    }),
    row("checks", "Checks against the policy", checks, (answer) => {
      const { summary, listed, policy } = checksOf(answer);
      return [
        figureCell([verdictBadge(summary.verdict), h("div", { class: "muted" }, counts(summary), "; policy: ", words(policy))], null, { "data-verdict": summary.verdict || "" }),
        [
          listed.length ? null : "Every check passed.",
          listed.length
            ? h(
                "ul",
                { class: "summary-checks" },
                listed.map((c) => h("li", { "data-check": c.id, "data-verdict": c.verdict }, verdictBadge(c.verdict), " ", h("strong", labelMark(c.id), figureName(c.id)), ": ", h("span", { class: "why" }, c.reason || DASH))),
              )
            : null,

        ],
      ];
    }),
    row("live", "Live against backtest", got.live, (answer) => {
      const data = answer.data;
      const outside = data.out_of_sample || {};
      const m = measurer(); // a reason given once in the row
      return [
        figureCell(figured(outside.information_ratio, "out_of_sample.information_ratio"), outside.information_ratio ? outside.information_ratio.value : null, { "data-origin": data.split_origin || "", "data-split": data.split_date || "" }, "information_ratio", outside.information_ratio && outside.information_ratio.unit),
        [liveSentence(data, m), data.split_date && outside.sessions ? [" Consistency: ", consistencyBadge(data.consistency), ", PSR ", m(data.consistency.probability, "consistency.probability"), "."] : null],
        liveTitle(data),
      ];
    }),
    // An alarm only (the page is the decision's, one printed page): a quiet chart is on the sheet's
    // page of the expected live information ratio.
    alarmed(got.monitoring) &&
    row("monitoring", "Is it still working?", got.monitoring, (answer) => [
      figureCell(h("strong", { class: "fail" }, "ALARM"), null, { "data-monitoring": "ALARM" }),
      monitoringLine(answer, { brief: true }),
    ]),
    row("capacity", "Capacity at the reference capital", got.capacity, (answer) => [
      figureCell(figured(answer.data.net_information_ratio, "net_information_ratio"), answer.data.net_information_ratio.value, {}, "net_information_ratio", answer.data.net_information_ratio.unit),
      capacitySentence(answer.data),
    ]),
    row("fragility", "Fragility", got.attribution, (answer) => {
      const f = answer.data.fragility;
      return [figureCell(figured(f.best_days_kept, "best_days_kept"), f.best_days_kept.value, {}, "best_days_kept", f.best_days_kept.unit), fragilitySentence(f)];
    }),
    row("costs", "Costs", got.costs, (answer) => [figureCell(figured(answer.data.break_even_multiple, "break_even_multiple"), answer.data.break_even_multiple.value, {}, "break_even_multiple", answer.data.break_even_multiple.unit), costsSentence(answer.data)]),
    row("intervals", "Headline figures with their intervals", got.uncertainty, (answer) => {
      const ir = answer.data.information_ratio;
      return [figureCell(spanned(ir, "information_ratio", figured), ir ? ir.value : null, {}, "information_ratio", ir && ir.unit), intervalsSentence(answer.data)];
    }),
    row("overfitting", "Overfitting of the trial family", got.overfitting, (answer) => [
      figureCell(figured(answer.data.pbo, "pbo"), answer.data.pbo.value, { "data-family-trials": String(answer.data.family_trials) }, "pbo", answer.data.pbo.unit),
      overfittingSentence(answer.data),
    ]),
    row("expectation", "Expected live information ratio", got.expectation, (answer) => {
      // The one expected live information ratio (analytics.expectation.expected_levels): the IR series' expected_live.
      const series = expectedIr(answer.data);
      const value = series ? series.expected_live : null;
      const shown = value == null ? "not measurable" : bare("expected_live_information_ratio", value, { servedAs: "series[series=information_ratio].expected_live" });
      return [figureCell(shown, value, {}, "expected_live_information_ratio"), expectationSentence(answer.data, series)];
    }),
    row("regimes", "Weakest regime", got.regimes, (answer) => {
      const weak = (answer.data.by_regime || []).find((r) => r.regime === answer.data.weakest_regime);
      return [figureCell(weak ? figureSpan("by_regime.information_ratio", weak.information_ratio) : DASH, weak ? weak.information_ratio.value : null, { "data-regime": answer.data.weakest_regime || "" }, "information_ratio", weak && weak.information_ratio.unit), regimeSentence(answer.data)];
    }),
    row("specific", "Specific and appraisal ratios", got.factors, (answer) => {
      const specific = answer.data.specific_information_ratio;
      const residual = got.residual && got.residual.status === "fulfilled" ? got.residual.value.data : null;
      return [figureCell(figured(specific, "specific_information_ratio"), specific.value, {}, "specific_information_ratio", specific.unit), specificSentence(answer.data, residual)];
    }),
    row("contribution", "Contribution to the approved book", got.mmc, (answer) => [figureCell(figured(answer.data.mmc_mean, "mmc_mean"), answer.data.mmc_mean.value, {}, "mmc_mean", answer.data.mmc_mean.unit), contributionSentence(answer.data)]),
    row("correlation", "Correlation to the approved set", checks, (answer) => {
      const check = checksOf(answer).correlation;
      if (!check) return [figureCell(DASH, null), "The checks served no production_correlation.", null];
      return [
        figureCell([figureSpan(CORRELATION_CHECK, check.value, { unit: check.unit, servedAs: `checks[id=${CORRELATION_CHECK}].value` }), " ", verdictBadge(check.verdict)], check.value, {}, CORRELATION_CHECK, check.unit),
        h("span", { class: "why" }, check.reason || DASH),
        `Correlation to ${referenceSet(check)}`,
      ];
    }),
  ];
  const grid = h(
    "table",
    { class: "data decision-summary", id: "decision-summary" },
    h("thead", {}, h("tr", {}, ["", "Figure", "What the routes say"].map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, rows.filter(Boolean)),
  );
  return grid;
}

// -- the report's row ---------------------------------------------------------------------------

/** A stat entry's value as shown, or "n/m" (not measurable): the report's cells are narrow, the
 * reason stands in the cell's title and on the alpha's tear sheet. */
function brief(entry) {
  if (!entry || entry.status === "not_measurable" || entry.value == null) return "n/m";
  return entryText(entry);
}

/** A cell of the report's summary row: the figure, or the refusal of the route it comes from. */
function cell(id, outcome, draw) {
  if (!outcome) return h("td", { "data-summary": id }, DASH);
  if (outcome.status === "rejected") {
    const e = outcome.reason;
    return h("td", { "data-summary": id, class: "refused" }, h("span", { class: "error-inline", "data-error-code": e.code || "error" }, `${e.status || ""} ${e.code || "error"}`.trim()));
  }
  const td = h("td", { "data-summary": id });
  const [content, value, why] = draw(outcome.value);
  td.setAttribute("data-value", Number.isFinite(value) ? String(value) : "");
  if (why) td.title = why;
  return add(td, content);
}

/** The report's summary columns, in order. */
export const SUMMARY_COLUMNS = ["Standing", "Checks", "After the split: information ratio against before it", "Capacity at K0", "Fragility", "Costs: information ratio", "Correlation to the reference set"];

/** Why an entry is not measured, for a cell's title. */
const whyNot = (...entries) => entries.filter((e) => e && e.status === "not_measurable").map((e) => e.withheld_reason).filter(Boolean).join("; ");

/**
 * One alpha's rows of the report's summary page (`got`: its settled answers, as the tear sheet's):
 * its figures, then beneath them, the table's width, the checks that failed and those not measurable.
 */
export function summaryRows(alpha, alphaHeader, got) {
  const facts = h("tr", { class: "summary-facts", "data-alpha": alpha }, summaryCells(alphaHeader, got));
  const checks = answeredChecks(got.checks);
  if (!checks) return [facts];
  const { listed } = checksOf(checks);
  if (!listed.length) return [facts];
  const named = (verdict) => listed.filter((c) => c.verdict === verdict).map((c) => figureName(c.id)).join("; ");
  return [
    facts,
    h(
      "tr",
      { class: "summary-unpassed", "data-alpha": alpha },
      h("td", {}),
      h(
        "td",
        { colspan: SUMMARY_COLUMNS.length, class: "summary-failed" },
        named("fail") ? [h("strong", {}, "Failed: "), named("fail"), ". "] : null,
        named("not_measurable") ? [h("strong", {}, "Not measurable: "), named("not_measurable"), "."] : null,
      ),
    ),
  ];
}

const answeredChecks = (outcome) => (outcome && outcome.status === "fulfilled" ? outcome.value : null);

function summaryCells(alphaHeader, got) {
  return [
    alphaHeader,
    cell("standing", got.promotions, (answer) => {
      const { word, data } = standingOf(answer);
      return [[h("strong", {}, word), data.since ? ` since ${data.since}` : null], null];
    }),
    cell("checks", got.checks, (answer) => {
      const { summary, listed } = checksOf(answer);
      const brief = `${summary.passed ?? DASH} passed, ${summary.failed ?? DASH} failed, ${summary.not_measurable ?? DASH} n/m`;
      return [[verdictBadge(summary.verdict), ` ${brief}`], null, listed.map((c) => `${c.id}: ${c.reason}`).join("\n")];
    }),
    cell("live", got.live, (answer) => {
      const data = answer.data;
      if (!data.split_date) return ["No split: all in sample", null];
      const inside = data.in_sample;
      const outside = data.out_of_sample;
      return [
        [
          h("div", {}, `${capitalised(outOfSample(data.split_origin).part)} (${data.split_date})`),
          outside.sessions ? `${int(outside.sessions)} sessions: ${brief(outside.information_ratio)} against ${brief(inside.information_ratio)}` : "no session after it yet",
        ],
        outside.information_ratio ? outside.information_ratio.value : null,
        whyNot(outside.information_ratio, inside.information_ratio),
      ];
    }),
    cell("capacity", got.capacity, (answer) => {
      const d = answer.data;
      return [`${brief(d.net_information_ratio)} at ${money(d.capital)}; halved at ${d.capacity.value != null ? money(d.capacity.value) : brief(d.capacity)}`, d.net_information_ratio.value, whyNot(d.net_information_ratio, d.capacity)];
    }),
    cell("fragility", got.attribution, (answer) => {
      const f = answer.data.fragility;
      return [`${brief(f.best_days_kept)} kept`, f.best_days_kept.value, whyNot(f.best_days_kept)];
    }),
    cell("costs", got.costs, (answer) => {
      const d = answer.data;
      const ir = d.information_ratio || {};
      return [`${brief(ir.gross)} before, ${brief(ir.net)} after; break-even ${brief(d.break_even_multiple)} ×`, ir.net ? ir.net.value : null, whyNot(ir.gross, ir.net, d.break_even_multiple)];
    }),
    cell("correlation", got.checks, (answer) => {
      const check = checksOf(answer).correlation;
      if (!check) return ["not served", null];
      return [
        [check.value == null ? DASH : inUnit(check.value, check.unit), " ", verdictBadge(check.verdict), check.nearest ? h("div", { class: "muted" }, `with ${check.nearest}`) : null],
        check.value,
        check.reason,
      ];
    }),
  ];
}
