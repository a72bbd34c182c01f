// Promote preview on an alpha's page (GET /v1/alphas/{alpha}/analytics/promotion_preview, docs/dashboard.md
// "Promote preview"): what the alpha's next decision (approve, or retire when it stands approved) would record
// and change, as `alpha-results promote --dry-run` says it: the verdict, each failed check and why, the
// approved set every other alpha's reference set is drawn from (before and after), each check of the other
// alphas this key may read that moves or flips, how many others are not shown, and the command an operator
// runs. Read-only: the page draws what the server computed and offers no button that writes.

import { panelLoader } from "./analytics_panel.js";
import { fill, h, note, numberCell, table, warningList } from "./dom.js";
import { DASH } from "./format.js";
import { figureName, figureNameWithBasis, inUnit, labelMark, valueMark } from "./labels.js";
import { verdictBadge } from "./stat_entry.js";

const VERBS = { approved: "Approve", retired: "Retire" };

export const loadPromotionPreview = panelLoader("/analytics/promotion_preview", "The promote preview could not be read", renderPromotionPreview);

export function renderPromotionPreview(body, answer) {
  const data = answer.data;
  const units = Object.fromEntries((data.checks || []).map((check) => [check.id, check.unit]));
  const failed = (data.checks || []).filter((check) => check.verdict === "fail");
  const verdict = h(
    "p",
    { class: "summary", id: "promote-verdict", "data-verdict": data.verdict, "data-action": data.action },
    `${VERBS[data.action] || data.action} as of ${data.as_of} (build `,
    h("code", {}, data.build_id),
    "): checks ",
    verdictBadge(data.verdict),
    failed.length ? `, ${failed.length} failed` : "",
    data.approval_before ? `; its approval before: ${data.approval_before}` : "",
    ".",
  );
  const failures = failed.length
    ? h(
        "ul",
        { id: "promote-failed", class: "failed-checks" },
        failed.map((check) =>
          h("li", { "data-check": check.id }, h("strong", {}, figureName(check.id)), " ", h("code", {}, check.id), ": ", check.reason || DASH),
        ),
      )
    : null;
  const refused = data.refused ? h("p", { id: "promote-refused", class: "warning" }, data.refused) : null;
  const set = h(
    "p",
    { id: "promote-set" },
    "The approved set every other alpha's reference set is drawn from: ",
    h("span", { "data-set": "before" }, data.approved_before.length ? data.approved_before.join(", ") : "none"),
    " → ",
    h("span", { "data-set": "after" }, data.approved_after.length ? data.approved_after.join(", ") : "none"),
    ".",
  );
  const rows = data.others.flatMap((other) =>
    other.changes.length
      ? other.changes.map((change) => {
          const unit = units[change.check];
          return h(
            "tr",
            { "data-alpha": other.alpha_id, "data-check": change.check, "data-flips": String(change.flips), "data-live-book": String(other.live_book) },
            h("th", { scope: "row" }, other.alpha_id, other.live_book ? null : h("span", { class: "muted" }, " (not in the live book)")),
            h("td", labelMark(change.check), figureNameWithBasis(change.check), " ", h("code", {}, change.check)),
            checkValue(change, "value_before", unit),
            checkValue(change, "value_after", unit),
            h(
              "td",
              {},
              change.flips ? [h("strong", {}, "FLIPS "), verdictBadge(change.before), " → ", verdictBadge(change.after)] : ["still ", verdictBadge(change.after)],
            ),
          );
        })
      : [h("tr", { "data-alpha": other.alpha_id }, h("th", { scope: "row" }, other.alpha_id), h("td", { colspan: 4, class: "muted" }, "its checks do not move"))],
  );
  const others = rows.length
    ? table(["Other alpha", "Check", "Before", "After", "Verdict"], [], { className: "data promote-others" })
    : note("No other alpha this key may read: none of the live book, and no check of another flips.", "muted");
  if (rows.length) others.querySelector("tbody").append(...rows);
  others.id = "promote-others";
  const hidden = data.others_unchecked
    ? note(`${data.others_unchecked} further alpha${data.others_unchecked === 1 ? " was" : "s were"} not checked (a preview checks the first 500 outside the live book); the decision's events list every flip.`, "muted")
    : null;
  if (hidden) hidden.id = "promote-unchecked";
  fill(
    body,
    warningList(answer.meta && answer.meta.warnings),
    verdict,
    failures,
    refused,
    set,
    others,
    hidden,
    h("p", {}, "To record the decision, an operator runs (read-only here; fill in who and why):"),
    h("pre", { id: "promote-command", class: "command" }, h("code", {}, data.command)),
  );
}

/** A check's value before or after the promotion (`side`: value_before, value_after), in the unit
 * the checks serve it in, marked as the check's term, served under `changes.<side>`. */
function checkValue(change, side, unit) {
  const value = change[side];
  const cell = numberCell(value == null ? DASH : inUnit(value, unit), value);
  const marks = { ...valueMark(change.check, value, unit), "data-key": `changes.${side}` };
  for (const [attr, text] of Object.entries(marks)) cell.setAttribute(attr, text);
  return cell;
}
