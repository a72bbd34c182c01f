// Checks of the long_short book against the operator's policy (GET /v1/alphas/{alpha}/analytics/checks):
// one row per check with its value, threshold, a verdict badge (PASS, FAIL, NOT MEASURABLE, in words so it
// reads in black and white) and why (the check's `reason`), and the summary's overall verdict.

import { panelLoader } from "./analytics_panel.js";
import { fill, h, numberCell, table, warningList } from "./dom.js";
import { DASH } from "./format.js";
import { figureNameWithBasis, inUnit, labelMark, valueMark } from "./labels.js";
import { verdictBadge } from "./stat_entry.js";

export const loadChecks = panelLoader("/analytics/checks", "The checks could not be read", renderChecks, { book: "long_short" });

function thresholdText(threshold, unit) {
  if (threshold === null || threshold === undefined) return DASH;
  if (typeof threshold === "number") return inUnit(threshold, unit);
  if (typeof threshold === "object") {
    const parts = [];
    if ("min" in threshold && threshold.min != null) parts.push(`≥ ${inUnit(threshold.min, unit)}`);
    if ("max" in threshold && threshold.max != null) parts.push(`≤ ${inUnit(threshold.max, unit)}`);
    if ("value" in threshold && threshold.op) parts.push(`${threshold.op} ${inUnit(threshold.value, unit)}`);
    return parts.length ? parts.join(", ") : JSON.stringify(threshold);
  }
  return String(threshold);
}

/**
 * The checks as a table. `reasonRows` (the printed tear sheet) puts each check's *Why* on a row of
 * its own beneath it, the table's full width, so thirteen reasons fit one page.
 */
export function renderChecks(body, answer, { reasonRows = false } = {}) {
  const data = answer.data;
  const summary = data.summary || {};
  const rows = (data.checks || []).flatMap((check) => {
    const cell = numberCell(check.value == null ? DASH : inUnit(check.value, check.unit), check.value);
    // Marked as its check's figure, served in the checks' list under its id (labels.js valueMark).
    const marks = { ...valueMark(check.id, check.value, check.unit), "data-key": `checks[id=${check.id}].value` };
    for (const [attr, text] of Object.entries(marks)) cell.setAttribute(attr, text);
    // Why: the server's words for the verdict (the comparison that decided it and what the value means, or
    // why there is no value), as the API serves them; then the route the figure comes from.
    const why = [h("span", { class: "why" }, check.reason || DASH), check.source ? h("div", { class: "muted" }, `source: ${check.source}`) : null];
    const head = [
      h("th", { scope: "row", ...labelMark(check.id) }, figureNameWithBasis(check.id), " ", h("code", {}, check.id)),
      cell,
      h("td", { class: "threshold" }, thresholdText(check.threshold, check.unit)),
      h("td", {}, verdictBadge(check.verdict)),
    ];
    if (!reasonRows) return [h("tr", { "data-check": check.id, "data-verdict": check.verdict }, head, h("td", { class: "reason" }, why))];
    return [
      h("tr", { "data-check": check.id, "data-verdict": check.verdict, class: "check-row" }, head),
      h("tr", { class: "reason-row", "data-reason-of": check.id }, h("td", { class: "reason", colspan: 4 }, why)),
    ];
  });
  const headers = reasonRows ? ["Check (why beneath)", "Value", "Threshold", "Verdict"] : ["Check", "Value", "Threshold", "Verdict", "Why"];
  const grid = table(headers, [], { className: `data checks${reasonRows ? " reasons-below" : ""}` });
  grid.querySelector("tbody").append(...rows);
  fill(
    body,
    warningList(answer.meta && answer.meta.warnings),
    h(
      "p",
      { class: "summary checks-summary", id: "checks-summary" },
      "Overall: ",
      verdictBadge(summary.verdict),
      ` ${summary.passed ?? DASH} passed, ${summary.failed ?? DASH} failed, ${summary.not_measurable ?? DASH} not measurable`,
      data.policy ? ` (policy: ${typeof data.policy === "string" ? data.policy : data.policy.origin || data.policy.name || "as configured"})` : "",
      ".",
    ),
    grid,
  );
}
