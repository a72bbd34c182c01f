// What adding one alpha does to a reference set (GET /v1/alphas/{alpha}/analytics/contribution
// ?reference=…): the set's figures before and after, the change, the alpha's weight and its
// correlation to the set. The reference is the combination built above: the alphas ticked, with its
// weighting, weights and window, so "Before" is that combination's figures (over the sessions the
// added alpha trades, said when fewer). Nothing ticked: every production alpha, equally weighted.
// With `added` (the combination page's `add=`), the reference is the rest of the combination and
// `added` is chosen and shown at once.

import { alphaPath, apiGet } from "./api.js";
import { alphaSelect } from "./alpha_picker.js";
import { fill, h, note, numberCell, showError, table, warningList } from "./dom.js";
import { DASH, num } from "./format.js";
import { changeTone } from "./labels.js";
import { entryCell, entryText, figureHeader, isEntry } from "./stat_entry.js";

export function renderContribution(section, alphas, reference, { signal }, combination = null, added = "") {
  // An alpha of the combination cannot be added to it: only the others are offered.
  const select = alphaSelect("contribution-alpha", alphas.filter((a) => !reference.includes(a.alpha_id)), added);
  const results = h("div", { id: "contribution-results" });
  const asked = reference.length ? { reference: reference.join(","), ...(combination || {}) } : {};
  const shown = reference.length ? new URLSearchParams(asked).toString().replaceAll("%2C", ",") : "reference=(every production alpha)";
  fill(
    section,
    h(
      "h2",
      {},
      added
        ? `Before and after adding ${added} to the rest of this combination`
        : reference.length
          ? "Before and after adding one alpha to this combination"
          : "Before and after adding one alpha",
    ),
    note(`GET /v1/alphas/{alpha}/analytics/contribution?${shown}`, "intro"),
    h("form", { class: "controls", id: "contribution-form", onsubmit: (event) => { event.preventDefault(); load(); } }, h("label", { for: "contribution-alpha" }, "Add"), select, h("button", { type: "submit" }, "Show")),
    results,
  );
  if (added) load();

  async function load() {
    if (!select.value) return;
    fill(results, note("Loading…"));
    let answer;
    try {
      answer = await apiGet(alphaPath(select.value, "/analytics/contribution"), asked, { signal });
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
      sessionsNote(data, select.value, added ? `the combination above without ${added}` : "the combination above"),
      table(
        ["Figure", "Before", "After", "Change"],
        names.map((name) => {
          const change = (data.change || {})[name];
          return [
            figureHeader(name),
            entryCell(data.before[name], name),
            entryCell((data.after || {})[name], name),
            isEntry(change)
              ? entryCell(change, name, { change: true })
              : numberCell(change == null ? DASH : num(valueOf(change)), valueOf(change), { tone: changeTone(name, valueOf(change)) }),
          ];
        }),
        { className: "data contribution" },
      ),
    );
  }
}

/** With a combination: whether Before is the combination's figures, or over fewer of its sessions. */
function sessionsNote(data, added, before) {
  const combined = data.reference.combination;
  if (!combined) return null;
  const text =
    data.sessions === combined.sessions
      ? `Before is ${before} (${combined.weighting} weights), over its ${combined.sessions} sessions.`
      : `Before is ${before} (${combined.weighting} weights) over the ${data.sessions} of its ${combined.sessions} sessions on which ${added} has a return, so its figures differ from those above.`;
  return h("p", { class: "summary", id: "contribution-sessions", "data-sessions": String(data.sessions), "data-combined-sessions": String(combined.sessions) }, text);
}
