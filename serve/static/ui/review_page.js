// The review queue (#/review): the nominated alphas the key may read, oldest nomination first, from
// GET /v1/review alone (docs/events.md "Promotions"), each with who nominated it and why, when,
// the build nominated against the one served now, and its checks' verdict now with every failed
// check; then where a head of research goes from there: the alpha's page (the decision summary, the
// promotion preview, live against backtest) and its tear sheet, and the command that records the
// decision. The operator's written approval policy is said once at the top. Nothing is computed
// here; every text a seal or a person wrote is shown as text (dom.js `h`).

import { answeredPage } from "./answered_page.js";
import { fill, h, table } from "./dom.js";
import { figureName } from "./labels.js";
import { verdictBadge } from "./stat_entry.js";

const POLICIES = {
  never: "never: only an operator's decision (alpha-results promote) approves",
  every_check_passes: "every_check_passes: the policy approves a nominated alpha whose checks all pass, at the next build run",
};

export function renderReview(main, context) {
  answeredPage(
    main,
    context,
    {
      id: "review",
      heading: "Review queue",
      intro:
        "The alphas nominated for a decision (a seal's run asking for review, or an operator's alpha-results review --nominate) that this key may read, oldest first. A nomination decides nothing: only a recorded decision approves, and the live part starts with what is published after it. GET /v1/review.",
      loading: "Loading the queue…",
      failure: "The review queue could not be read",
      path: "/v1/review",
    },
    (answer, status, body) => {
      const data = answer.data;
      const entries = data.entries || [];
      status.textContent = entries.length
        ? `${entries.length} alpha${entries.length === 1 ? "" : "s"} waiting for a decision.`
        : "No alpha this key may read is waiting for a decision.";
      const policy = h(
        "p",
        { id: "review-policy", "data-policy": data.approval_policy },
        "Approval policy: ",
        h("strong", {}, POLICIES[data.approval_policy] || String(data.approval_policy)),
        ".",
      );
      const grid = table(["Alpha", "Nominated", "Checks now", "Next"], [], { className: "data review-queue" });
      grid.querySelector("tbody").append(...entries.map(entryRow));
      fill(body, policy, entries.length ? grid : null);
    },
  );
}

function entryRow(entry) {
  const path = `#/alphas/${encodeURIComponent(entry.alpha)}`;
  const moved = entry.build_id !== entry.nominated_build_id;
  return h(
    "tr",
    { class: "review-entry", "data-alpha": entry.alpha, "data-verdict": entry.verdict || "" },
    h("th", { scope: "row" }, h("a", { href: path }, entry.alpha)),
    h(
      "td",
      {},
      h("div", {}, `by ${entry.nominated_by}, ${String(entry.nominated_at).replace("T", " ").slice(0, 19)} UTC`),
      entry.note ? h("div", { class: "nomination-note" }, "“", entry.note, "”") : null,
      h(
        "div",
        { class: "muted" },
        "build ",
        h("code", {}, entry.nominated_build_id),
        moved ? [" (the catalogue serves ", h("code", { class: "served-build" }, entry.build_id), " now: the checks are of it)"] : null,
      ),
    ),
    h(
      "td",
      {},
      entry.verdict ? verdictBadge(entry.verdict) : h("span", { class: "muted" }, `not shown: ${entry.reason || "no reason given"}`),
      entry.failed && entry.failed.length
        ? h("div", { class: "review-failed" }, "Failed: ", entry.failed.map((id, i) => [i ? ", " : "", figureName(id), " ", h("code", {}, id)]), ".")
        : null,
    ),
    h(
      "td",
      {},
      h("div", {}, h("a", { href: path }, "Alpha page"), " · ", h("a", { href: `${path}/tearsheet` }, "Tear sheet")),
      h("div", { class: "muted" }, h("code", {}, `alpha-results promote ${entry.alpha} --dry-run`), " says what approving it would record and change."),
    ),
  );
}
