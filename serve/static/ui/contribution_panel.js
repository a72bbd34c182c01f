// What adding one alpha does to a reference set (GET /v1/alphas/{alpha}/analytics/contribution
// ?reference=…): the set's figures before and after, the change, the alpha's weight and its
// correlation to the set. The reference is the alphas ticked above (absent: every production alpha).

import { alphaPath, apiGet } from "./api.js";
import { alphaSelect } from "./alpha_picker.js";
import { fill, h, note, numberCell, showError, table, warningList } from "./dom.js";
import { DASH, num } from "./format.js";
import { entryCell, entryText, isEntry, labelOf } from "./stat_entry.js";

export function renderContribution(section, alphas, reference, { signal }) {
  const select = alphaSelect("contribution-alpha", alphas, "");
  const results = h("div", { id: "contribution-results" });
  fill(
    section,
    h("h2", {}, "Before and after adding one alpha"),
    note(`GET /v1/alphas/{alpha}/analytics/contribution?reference=${reference.length ? reference.join(",") : "(every production alpha)"}`, "intro"),
    h("form", { class: "controls", id: "contribution-form", onsubmit: (event) => { event.preventDefault(); load(); } }, h("label", { for: "contribution-alpha" }, "Add"), select, h("button", { type: "submit" }, "Show")),
    results,
  );

  async function load() {
    if (!select.value) return;
    fill(results, note("Loading…"));
    const set = reference.filter((a) => a !== select.value);
    let answer;
    try {
      answer = await apiGet(alphaPath(select.value, "/analytics/contribution"), { reference: set.join(",") }, { signal });
    } catch (error) {
      showError(results, error, "The contribution could not be read");
      return;
    }
    const data = answer.data;
    const names = Object.keys(data.before || {}).filter((k) => isEntry(data.before[k]));
    const valueOf = (x) => (isEntry(x) ? x.value : x);
    fill(
      results,
      warningList(answer.meta.warnings),
      h(
        "p",
        { class: "summary", id: "contribution-summary" },
        `Weight of ${select.value} after: ${num(data.weight.value)} (${data.weight.chosen}); correlation to the set: ${entryText(data.correlation_to_set)}.`,
      ),
      h(
        "p",
        { class: "summary", id: "contribution-reference" },
        `${data.reference.members_in_window} of ${data.reference.count} reference alphas (${data.reference.source}) trade over the ${data.sessions} sessions` +
          (data.reference.without_returns.count ? `; ${data.reference.without_returns.count} have no return there` : "") +
          ".",
      ),
      table(
        ["Figure", "Before", "After", "Change"],
        names.map((name) => {
          const change = (data.change || {})[name];
          return [
            h("th", { scope: "row", "data-figure": name }, labelOf(name)),
            entryCell(data.before[name]),
            entryCell((data.after || {})[name]),
            isEntry(change) ? entryCell(change) : numberCell(change == null ? DASH : num(valueOf(change)), valueOf(change), { signed: true }),
          ];
        }),
        { className: "data contribution" },
      ),
    );
  }
}
