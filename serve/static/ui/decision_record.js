// What a decision recorded beyond its standing, in words, drawn from GET /v1/alphas/{alpha}/promotions
// alone (issue 64, item 6): the override reason an approval of failing checks gave, the origin of an
// imported decision, when it was recorded (the live part starts then), the build it was taken on when
// the catalogue serves another today, and a nomination waiting in the review queue. The alpha page's
// live panel and the tear sheet's decision summary both show it; nothing here computes a figure.

import { h } from "./dom.js";

/** The latest decision of a /promotions answer's data, or null. */
export function lastDecision(data) {
  const decisions = data.decisions || [];
  return decisions.length ? decisions[decisions.length - 1] : null;
}

/** Sentences (DOM nodes) of what the latest decision and a pending nomination recorded. */
export function decisionRecord(data) {
  const out = [];
  const last = lastDecision(data);
  if (last) {
    const snapshot = last.snapshot || {};
    out.push(h("span", { class: "decision-recorded" }, ` Recorded ${last.recorded_at} (the live part starts with what was published after).`));
    if (snapshot.override) {
      out.push(
        h("span", { class: "decision-override" }, " Approved with failing checks, the override given: “", h("span", { class: "override-reason" }, snapshot.override), "”."),
      );
    }
    if (snapshot.imported_from) {
      out.push(h("span", { class: "decision-imported" }, ` Imported: taken elsewhere (${snapshot.imported_from}), effective ${last.as_of}.`));
    }
    if (last.served_build_id) {
      out.push(
        h("span", { class: "decision-other-build" }, ` Taken on build ${last.build_id}; the catalogue serves ${last.served_build_id} today.`),
      );
    }
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
