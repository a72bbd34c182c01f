// What the decisions recorded beyond the standing, in words, drawn from GET /v1/alphas/{alpha}/promotions
// alone (issue 64, item 6; issue 81, item 6): every decision oldest first, each with the override reason
// an approval of failing checks gave, the origin of an imported decision, when it was recorded (an
// approval's live part starts then; a retirement's ends it: the live part is what was published between
// the two), the build it was taken on when the catalogue serves another today; and a nomination
// waiting in the review queue. The alpha page's
// live panel and the tear sheet's decision summary both show it; nothing here computes a figure.

import { h } from "./dom.js";

/** The approval a retirement ended: the latest approval before it in `decisions` (oldest first). */
function approvalBefore(decisions, index) {
  for (let i = index - 1; i >= 0; i -= 1) if (decisions[i].action === "approved") return decisions[i];
  return null;
}

/** One decision of the history: what it was, when it was recorded and what that does to the live part,
 * the override an approval of failing checks gave, an import, the build it was taken on. */
function decisionEntry(decision, index, decisions) {
  const snapshot = decision.snapshot || {};
  const approved = decision.action === "approved";
  const approval = approved ? null : approvalBefore(decisions, index);
  const live = approved
    ? ` Recorded ${decision.recorded_at} (the live part starts with what was published after).`
    : approval
      ? ` Recorded ${decision.recorded_at}: the live part ends here (it is what was published after the approval was recorded, ${approval.recorded_at}, up to this retirement).`
      : ` Recorded ${decision.recorded_at} (no approval before it: no live part).`;
  return h(
    "span",
    { class: "decision-entry", "data-action": decision.action, "data-as-of": decision.as_of },
    ` ${index + 1}. `,
    h("strong", {}, approved ? "Approved" : "Retired"),
    ` on ${decision.as_of} by `,
    h("span", { class: "decided-by" }, decision.decided_by),
    decision.note ? [": “", h("span", { class: "decision-note" }, decision.note), "”."] : ".",
    h("span", { class: "decision-recorded" }, live),
    snapshot.override
      ? h("span", { class: "decision-override" }, " Approved with failing checks, the override given: “", h("span", { class: "override-reason" }, snapshot.override), "”.")
      : null,
    snapshot.imported_from ? h("span", { class: "decision-imported" }, ` Imported: taken elsewhere (${snapshot.imported_from}), effective ${decision.as_of}.`) : null,
    decision.served_build_id ? h("span", { class: "decision-other-build" }, ` Taken on build ${decision.build_id}; the catalogue serves ${decision.served_build_id} today.`) : null,
  );
}

/** Sentences (DOM nodes) of every decision recorded, oldest first (issue 81, item 6: a retirement
 * keeps the approval it ended, its date and its override in view), and a pending nomination. */
export function decisionRecord(data) {
  const out = [];
  const decisions = data.decisions || [];
  if (decisions.length) {
    out.push(
      h(
        "span",
        { class: "decision-history", "data-decisions": String(decisions.length) },
        " Decision history:",
        decisions.map((decision, index) => decisionEntry(decision, index, decisions)),
      ),
    );
  }
  const nominations = data.nominations || [];
  const nomination = nominations.length ? nominations[nominations.length - 1] : null;
  if (data.standing === "nominated" && nomination) {
    out.push(
      h(
        "span",
        { class: "decision-nominated" },
        ` Nominated by ${nomination.nominated_by} (${nomination.recorded_at})`,
        nomination.note ? [": “", h("span", { class: "nomination-note" }, nomination.note), "”"] : null,
        "; waiting in the review queue (alpha-results review).",
      ),
    );
  }
  return out;
}
