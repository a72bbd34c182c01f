// The approved book's health (#/health): is every approved alpha still working? From GET
// /v1/analytics/approved_health alone (docs/analytics.md "The approved book's health"): one row per
// approved alpha this key may read, failing first: its one verdict (the served rule, `verdict_rule`,
// applied in analytics/approved_health.py: failing when a live check fails, the live part is
// inconsistent with the backtest or a CUSUM is in alarm) with every signal it is made of, its live information ratio against what it is
// expected to show live (/analytics/expectation: shrunk toward its family, with the 90% predictive
// range over as many sessions and its percentile), its CUSUM (state, statistic against the threshold, last alarm), the probability its approval was a false discovery, and what it adds
// (mmc). The chart's false-alarm rate and the prior are said once at the top, so every alarm is
// read with how often it would be wrong. Nothing is computed here: every number is served.

import { answeredPage } from "./answered_page.js";
import { fill, h, table } from "./dom.js";
import { fixed, int, num, pct } from "./format.js";
import { figureName, figureValue } from "./labels.js";
import { figureCell } from "./stat_entry.js";

const STATES = { alarm: "ALARM", in_control: "in control", not_measurable: "not measurable" };

export function renderHealth(main, context) {
  answeredPage(
    main,
    context,
    {
      id: "health",
      heading: "Is it still working?",
      intro:
        "Every approved alpha this key may read, failing first: one verdict from every signal its tear sheet reads (the live checks, the consistency test, the CUSUM), its live track (first published after its approval was recorded) against what the approval expects, the CUSUM watching it, and the probability that its approval was a false discovery. GET /v1/analytics/approved_health.",
      loading: "Loading the approved book…",
      failure: "The approved book's health could not be read",
      path: "/v1/analytics/approved_health",
    },
    (answer, status, body) => {
      const data = answer.data;
      const rows = data.alphas || [];
      status.textContent = rows.length
        ? `${int(data.approved_count)} approved alpha${data.approved_count === 1 ? "" : "s"}, ${int(data.failing_count)} failing (${int(data.alarm_count)} with a CUSUM in alarm).`
        : "No approved alpha this key may read.";
      const prior = data.false_discovery;
      const chart = h(
        "p",
        { id: "health-chart" },
        `Each alpha's CUSUM is designed to detect a fall of its information ratio by ${fixed(data.ir_fall_detected, 2)}, `,
        `with one false alarm every ${int(data.arl0_weeks)} weeks on average (${pct(data.false_alarm_probability_per_year, 1)} a year per alpha; `,
        h("strong", { id: "health-false-alarms" }, `${fixed(data.expected_false_alarms_per_year, 2)} false alarms a year`),
        " expected over this book if every alpha still works); ",
        h("strong", { id: "health-delay" }, `it takes ${fixed(data.arl1_weeks, 0)} weeks on average to see that fall`),
        ": a chart in control is no proof that an alpha still works, so the verdict reads every signal. ",
        h("span", { id: "health-rule" }, `Verdict: ${data.verdict_rule}.`),
        " ",
        `False-discovery prior: ${prior.basis === "paper" ? "the paper's (too few live records here)" : "this deployment's"}, `,
        `${pct(prior.prior_true_share, 1)} of ${int(prior.candidates)} candidates true, a true information ratio of ${fixed(prior.true_information_ratio, 2)}.`,
      );
      const grid = table(
        [
          "Alpha",
          "Verdict",
          figureName("live_information_ratio"),
          figureName("expected_live_information_ratio"),
          "Predictive range (90%)",
          "Percentile",
          "CUSUM (return, IC)",
          figureName("false_discovery_probability"),
          figureName("mmc_mean"),
        ],
        [],
        { className: "data health-book" },
      );
      grid.querySelector("tbody").append(...rows.map(row));
      fill(body, chart, rows.length ? h("div", { class: "table-scroll" }, grid) : null);
    },
  );
}

const VERDICTS = { failing: "FAILING", in_control: "in control", not_measurable: "not measurable" };
const SIGNALS = { live_information_ratio: "live IR check", decay_ratio: "decay ratio check", consistency: "consistency", book_return_cusum: "return CUSUM", ic_cusum: "IC CUSUM" };
const SIGNAL_STATES = { pass: "pass", fail: "FAIL", not_measurable: "not measurable" };

/** The verdict, as served, and every signal it is made of (each its state and served value). */
function verdictCell(alpha) {
  const signals = alpha.signals || [];
  return h(
    "td",
    { class: "health-verdict", "data-verdict": alpha.verdict || "" },
    h("strong", { class: alpha.verdict === "failing" ? "fail" : "" }, VERDICTS[alpha.verdict] || "withheld"),
    h(
      "ul",
      { class: "health-signals muted" },
      signals.map((s) =>
        h("li", { "data-signal": s.signal, "data-state": s.state, title: s.reason || "" }, `${SIGNALS[s.signal] || s.signal}: ${SIGNAL_STATES[s.state] || s.state}${s.value == null ? "" : ` (${num(s.value)})`}`),
      ),
    ),
  );
}

function row(alpha) {
  const path = `#/alphas/${encodeURIComponent(alpha.alpha)}`;
  const alarmed = alpha.cusum_state === "alarm" || alpha.ic_cusum_state === "alarm";
  const failing = alpha.verdict === "failing";
  return h(
    "tr",
    { class: `health-alpha${failing || alarmed ? " alarm" : ""}`, "data-alpha": alpha.alpha, "data-state": alarmed ? "alarm" : alpha.cusum_state, "data-verdict": alpha.verdict || "" },
    h(
      "th",
      { scope: "row" },
      h("a", { href: path }, alpha.alpha),
      h("div", { class: "muted" }, `approved ${String(alpha.approved_at).slice(0, 10)}, ${int(alpha.live_weeks)} live weeks`),
    ),
    verdictCell(alpha),
    h("td", { class: "num" }, fixed(alpha.live_information_ratio, 2)),
    figureCell(alpha.expected_live_information_ratio, "expected_live_information_ratio"),
    h("td", { class: "num" }, `${fixed(alpha.predictive_lower, 2)} to ${fixed(alpha.predictive_upper, 2)}`),
    h("td", { class: "num" }, num(alpha.percentile)),
    h(
      "td",
      {},
      h("strong", { class: alarmed ? "fail" : "" }, `${STATES[alpha.cusum_state] || alpha.cusum_state}, ${STATES[alpha.ic_cusum_state] || alpha.ic_cusum_state}`),
      h("div", { class: "muted" }, `statistic ${fixed(alpha.cusum_statistic, 2)}`, alpha.last_alarm ? `, last alarm ${alpha.last_alarm}` : ""),
    ),
    h("td", { class: "num" }, pct(alpha.false_discovery_probability, 1)),
    h("td", { class: "num" }, figureValue("mmc_mean", alpha.mmc_mean)),
  );
}
