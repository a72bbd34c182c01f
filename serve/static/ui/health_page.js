// The approved book's health (#/health): is every approved alpha still working? From GET
// /v1/analytics/approved_health alone (docs/analytics.md "The approved book's health"): one row per
// approved alpha this key may read, alarms first: its live information ratio against what it is
// expected to show live (/analytics/expectation: shrunk toward its family, with the 90% predictive
// range over as many sessions and its percentile), its CUSUM (state, statistic against the threshold, last alarm), the probability its approval was a false discovery, and what it adds
// (mmc). The chart's false-alarm rate and the prior are said once at the top, so every alarm is
// read with how often it would be wrong. Nothing is computed here: every number is served.

import { answeredPage } from "./answered_page.js";
import { fill, h, table } from "./dom.js";
import { fixed, int, num, pct } from "./format.js";
import { figureName, figureValue } from "./labels.js";

const STATES = { alarm: "ALARM", in_control: "in control", not_measurable: "not measurable" };

export function renderHealth(main, context) {
  answeredPage(
    main,
    context,
    {
      id: "health",
      heading: "Is it still working?",
      intro:
        "Every approved alpha this key may read, alarms first: its live track (first published after its approval was recorded) against what the approval expects, the CUSUM watching it, and the probability that its approval was a false discovery. GET /v1/analytics/approved_health.",
      loading: "Loading the approved book…",
      failure: "The approved book's health could not be read",
      path: "/v1/analytics/approved_health",
    },
    (answer, status, body) => {
      const data = answer.data;
      const rows = data.alphas || [];
      status.textContent = rows.length
        ? `${int(data.approved_count)} approved alpha${data.approved_count === 1 ? "" : "s"}, ${int(data.alarm_count)} in alarm.`
        : "No approved alpha this key may read.";
      const prior = data.false_discovery;
      const chart = h(
        "p",
        { id: "health-chart" },
        `Each alpha's CUSUM is designed to detect a fall of its information ratio by ${fixed(data.ir_fall_detected, 2)}, `,
        `with one false alarm every ${int(data.arl0_weeks)} weeks on average (${pct(data.false_alarm_probability_per_year, 1)} a year per alpha; `,
        h("strong", { id: "health-false-alarms" }, `${fixed(data.expected_false_alarms_per_year, 2)} false alarms a year`),
        " expected over this book if every alpha still works). ",
        `False-discovery prior: ${prior.basis === "paper" ? "the paper's (too few live records here)" : "this deployment's"}, `,
        `${pct(prior.prior_true_share, 1)} of ${int(prior.candidates)} candidates true, a true information ratio of ${fixed(prior.true_information_ratio, 2)}.`,
      );
      const grid = table(
        [
          "Alpha",
          figureName("live_information_ratio"),
          "Expected live (shrunk)",
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

function row(alpha) {
  const path = `#/alphas/${encodeURIComponent(alpha.alpha)}`;
  const alarmed = alpha.cusum_state === "alarm" || alpha.ic_cusum_state === "alarm";
  return h(
    "tr",
    { class: `health-alpha${alarmed ? " alarm" : ""}`, "data-alpha": alpha.alpha, "data-state": alarmed ? "alarm" : alpha.cusum_state },
    h(
      "th",
      { scope: "row" },
      h("a", { href: path }, alpha.alpha),
      h("div", { class: "muted" }, `approved ${String(alpha.approved_at).slice(0, 10)}, ${int(alpha.live_weeks)} live weeks`),
    ),
    h("td", { class: "num" }, fixed(alpha.live_information_ratio, 2)),
    h("td", { class: "num" }, fixed(alpha.expected_live, 2)),
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
