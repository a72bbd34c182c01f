// Which members of the alpha's trial family are indistinguishable from the best
// (GET /v1/alphas/{alpha}/analytics/family_tests, docs/analytics.md "Family tests"): the members the
// key may read compared, Hansen's SPA p-values against the family's average, the members StepM finds
// better than that average and those in the model confidence set, each member's Sharpe ratio over the
// common sessions with its MCS p-value, and per parameter the Sharpe ratio's Spearman correlation
// with it and the neighbour deviation, with the members' Sharpe ratios against the parameter's
// values drawn as served. Nothing is computed here: a figure not measured (no family, one readable
// member, a parameter of one value) shows its reason as served.

import { panelLoader } from "./analytics_panel.js";
import { fill, h, note, table, warningList } from "./dom.js";
import { num } from "./format.js";
import { figureColumn, figureName, figureNameWithBasis } from "./labels.js";
import { entryTable, figureCell, figureSpan, namedEntries } from "./stat_entry.js";
import { scatterSvg } from "./svg.js";

const SPA = ["spa_p_value", "spa_p_value_lower", "spa_p_value_upper"];

export const loadFamilyTests = panelLoader("/analytics/family_tests", "The family tests could not be read", (body, answer) => fill(body, familyTestsBlock(answer)));

/** A served yes/no (null: not measured) as a cell: its word, the served value in `data-flag`; a
 * verdict the answer marks within Monte Carlo error of its cut-off (`within`) says "at cut-off", and
 * its p-value with its served Monte Carlo standard error is the cell's title. */
function flagCell(value, name, within, p = null, error = null) {
  const word = value === true ? "yes" : value === false ? "no" : "—";
  const attributes = {
    class: "flag",
    "data-flag": value === null || value === undefined ? "" : String(value),
    "data-flag-of": name,
    "data-within-monte-carlo-error": within === true ? "true" : within === false ? "false" : "",
  };
  if (Number.isFinite(p) && Number.isFinite(error)) attributes.title = `p-value ${num(p)}, Monte Carlo standard error ${num(error)}`;
  return h("td", attributes, within === true ? `${word}, at cut-off` : word);
}

/** The members whose served `flag` is true, by id, or `none` in words. */
function membersWhere(members, flag, none) {
  const ids = members.filter((m) => m[flag] === true).map((m) => m.alpha_id);
  return ids.length ? ids.join(", ") : none;
}

/** The panel's content (also the tear sheet's two pages: `part` "members", the sentence, the SPA
 * p-values, the sets and the members; "parameters", the parameters' table and charts; "all"). */
export function familyTestsBlock(answer, { part = "all" } = {}) {
  const data = answer.data;
  const members = data.members || [];
  const summary = data.family
    ? h(
        "p",
        { class: "summary", id: "family-tests-summary" },
        `Family ${data.family}: `,
        figureSpan("compared_members", data.compared_members),
        " members this key may read compared over ",
        figureSpan("compared_sessions", data.compared_sessions),
        " common sessions; ",
        figureSpan("comparison_resamples", data.comparison_resamples),
        " stationary-bootstrap resamples shared by every member",
        Number.isFinite(data.comparison_block_length) ? [" (mean block length ", figureSpan("comparison_block_length", data.comparison_block_length), ")"] : "",
        "; StepM and the model confidence set at ",
        figureSpan("test_size", data.test_size),
        ". The benchmark of SPA and StepM is the family's average: each session's equal-weighted mean return of the members compared.",
      )
    : h("p", { class: "summary", id: "family-tests-summary" }, "The alpha's seal names no trial family.");
  const measured = members.some((m) => m.stepm_superior !== null || m.in_confidence_set !== null);
  const sets = measured
    ? h(
        "p",
        { class: "caption", id: "family-tests-sets" },
        h("strong", {}, "StepM, better than the family's average: "),
        h("span", { "data-set": "stepm" }, membersWhere(members, "stepm_superior", "none")),
        ". ",
        h("strong", {}, "Model confidence set (indistinguishable from the best): "),
        h("span", { "data-set": "mcs" }, membersWhere(members, "in_confidence_set", "none")),
        ".",
      )
    : null;
  const memberRows = members.map((m) => {
    const text = Object.entries(m.parameters || {}).map(([k, v]) => `${k}=${v}`).join(", ");
    const row = [
      h("th", { scope: "row", "data-member": m.alpha_id }, m.alpha_id),
      h("td", {}, text || "—"),
      figureCell(m.family_sharpe, "family_sharpe"),
      figureCell(m.mcs_p_value, "mcs_p_value"),
      flagCell(m.stepm_superior, "stepm_superior", m.stepm_within_monte_carlo_error, m.stepm_p_value, m.stepm_p_value_monte_carlo_error),
      flagCell(m.in_confidence_set, "in_confidence_set", m.mcs_within_monte_carlo_error, m.mcs_p_value, m.mcs_p_value_monte_carlo_error),
    ];
    return row;
  });
  const parameters = data.parameters || [];
  const parameterRows = parameters.map((p) => [
    h("th", { scope: "row", "data-parameter": p.parameter }, p.parameter),
    figureCell(p.members_with_parameter, "members_with_parameter"),
    figureCell(p.distinct_values, "distinct_values"),
    figureCell(p.sharpe_spearman, "sharpe_spearman"),
    figureCell(p.neighbour_deviation, "neighbour_deviation"),
    h("td", { class: "reason" }, p.reason || ""),
  ]);
  // One chart a parameter taking two values or more (as served): each member's Sharpe ratio at its value.
  const charts = parameters
    .filter((p) => p.distinct_values >= 2)
    .map((p) => [
      h("p", { class: "caption chart-title" }, `${figureNameWithBasis("family_sharpe")} of each member against ${p.parameter}`),
      scatterSvg({
        name: `family-sharpe-${p.parameter}`,
        title: `${figureName("family_sharpe")} against ${p.parameter}`,
        points: members.map((m) => ({ x: (m.parameters || {})[p.parameter], y: m.family_sharpe, label: m.alpha_id })),
        formatX: num,
        formatY: num,
        xLabel: p.parameter,
        yLabel: "Sharpe ratio (annualised)",
        height: 240,
      }),
    ]);
  const membersPart = [
    warningList(answer.meta && answer.meta.warnings),
    summary,
    entryTable(namedEntries(data, SPA), { className: "data entries family-tests-spa" }),
    // The panel's alone: the sheet's members page is full (a line more overflows it when printed)
    part === "all" && Number.isFinite(data.spa_p_value_monte_carlo_error)
      ? h(
          "p",
          { class: "caption", id: "family-tests-monte-carlo" },
          "Monte Carlo standard errors of the SPA p-values (another draw of the resamples moves them by this much): ",
          figureSpan("spa_p_value_monte_carlo_error", data.spa_p_value_monte_carlo_error),
          " (consistent), ",
          figureSpan("spa_p_value_lower_monte_carlo_error", data.spa_p_value_lower_monte_carlo_error),
          " (lower), ",
          figureSpan("spa_p_value_upper_monte_carlo_error", data.spa_p_value_upper_monte_carlo_error),
          " (upper).",
          data.spa_within_monte_carlo_error === true ? " The consistent p-value is within two of them of the test size: its verdict is at the cut-off." : "",
        )
      : null,
    sets,
    memberRows.length
      ? table(
          ["Member", "Parameters", figureColumn("family_sharpe"), figureColumn("mcs_p_value"), "StepM: above the family's average", "In the confidence set"],
          memberRows,
          { className: "data family-tests-members" },
        )
      : null,
    data.family && !members.length ? note("No member of the family is readable with this key.", "muted") : null,
  ];
  const parametersPart = [
    parameterRows.length
      ? table(
          ["Parameter", figureColumn("members_with_parameter"), figureColumn("distinct_values"), figureColumn("sharpe_spearman"), figureColumn("neighbour_deviation"), "Why not measured"],
          parameterRows,
          { className: "data family-tests-parameters" },
        )
      : null,
    charts.length ? h("div", { class: "family-tests-charts" }, charts) : null,
  ];
  if (part === "parameters" && !parametersPart.some(Boolean)) parametersPart.push(note(data.family ? "The members' seals name no parameter." : "The alpha's seal names no trial family.", "muted"));
  const shown = part === "members" ? membersPart : part === "parameters" ? parametersPart : [...membersPart, ...parametersPart];
  return shown.filter(Boolean);
}
