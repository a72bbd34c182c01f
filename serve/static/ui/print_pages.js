// Printed pages of the tear sheet and the comparison report: one topic a page, each page a
// <section class="sheet-page"> sized to the printable area both A4 and Letter share (dashboard.css
// "Printed pages": 186 mm wide, 251 mm high inside 12 mm margins), so no topic runs over and no page
// is left blank. Every page ends with a footer holding the provenance (what was printed, from which
// build, data as of when, under which checks policy) and "page n of m", counted from the pages
// themselves: Chromium's print dialog numbers pages only in its own header and footer, which a
// reader may have turned off, so the count is written into each page instead.

import { fill, h } from "./dom.js";

/** A page of one topic: its title, its content, and a footer `paginate` fills. */
export function sheetPage(id, title, ...content) {
  return h(
    "section",
    { class: "sheet-page", id: `page-${id}`, "data-topic": id },
    h("h2", { class: "page-title" }, title),
    h("div", { class: "page-body" }, content),
    h("footer", { class: "page-footer" }),
  );
}

/**
 * Write the footer of every page of `sheet`: `provenance` (an array of text parts, joined by " · ")
 * and "page n of m". Returns m.
 */
export function paginate(sheet, provenance) {
  const pages = [...sheet.querySelectorAll(":scope > .sheet-page")];
  pages.forEach((page, i) => {
    page.setAttribute("data-page", String(i + 1));
    fill(
      page.querySelector(":scope > .page-footer"),
      // Each fact stays on one line (a build id is not split at its hyphen), the facts wrap between them.
      h("span", { class: "provenance" }, provenance.filter(Boolean).flatMap((fact, k) => [k ? " · " : null, h("span", { class: "fact" }, fact)])),
      h("span", { class: "page-number" }, `page ${i + 1} of ${pages.length}`),
    );
  });
  return pages.length;
}

/** The build an answer was served from: `meta.source` is `lake:<table>@<build_id>`. */
export function buildOf(answer) {
  const source = answer && answer.meta ? String(answer.meta.source || "") : "";
  const at = source.lastIndexOf("@");
  return at < 0 ? null : source.slice(at + 1);
}

/** The moment the page was drawn, as the footers write it (UTC, to the minute). */
export function generatedAt() {
  return `${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** The checks policy an answer of /analytics/checks applied: "defaults" or "operator" (its origin). */
export function policyOf(checks) {
  if (!checks) return null;
  const policy = checks.data && checks.data.policy;
  return policy && policy.origin ? policy.origin : null;
}

// What the tear sheet and the comparison report both need of their answers and dates.

/** The benchmark is read from two weeks before a book's first session, so that session has the
 * benchmark's return too (its first row in a window has none), as /analytics/risk pairs them. */
export const BENCHMARK_LEAD_DAYS = 14;

/** The value of a settled request, or null when it failed. */
export const answered = (outcome) => (outcome && outcome.status === "fulfilled" ? outcome.value : null);

/** "YYYY-MM-DD" moved by `days` calendar days. */
export function shiftDays(date, days) {
  const at = new Date(`${date}T00:00:00Z`);
  at.setUTCDate(at.getUTCDate() + days);
  return at.toISOString().slice(0, 10);
}
