// What adding one alpha does to the combination on screen (GET /v1/alphas/{alpha}/analytics/contribution):
// the book's figures before and after, the change, the alpha's weight and its correlation to the
// set. One combination is shown, so the panel asks about it at the weights on screen:
//
// - an alpha the combination does not hold: Before is the combination above (the alphas ticked,
//   its weighting, weights, fit_to and window), After adds the alpha at the weight typed beside it
//   (`weight=`), and nothing after is shown until a weight is on screen;
// - the alpha the combination page was opened for (`add=`, ticked): Before is the combination
//   without it and After is the combination above, asked at the weights the combination route
//   served (weighting=given&weights=<meta.weights>, the alpha named in `reference`: its own weight
//   is its weight after, the others' over 1 - w are the book before) over the combination's sessions.
//
// The weight that maximises the information ratio after (the route's answer without `weight`) is
// a separate suggestion, named as one, with the information ratio it gives; it is never used
// unless chosen ("Use this weight"). Nothing ticked: the set is the default reference set, every
// approved alpha the key may read (the production alphas), equally weighted as the book grew; none
// approved, the route's 400 says why.

import { alphaPath, apiGet, isAbort } from "./api.js";
import { alphaSelect } from "./alpha_picker.js";
import { fill, h, note, numberCell, showError, table, warningList } from "./dom.js";
import { DASH, num, pct } from "./format.js";
import { changeTone } from "./labels.js";
import { entryCell, entryText, figureHeader, isEntry } from "./stat_entry.js";

/**
 * The panel in `section`. `chosen`: the combination's alphas in order (empty: the approved set, the route's default);
 * `combination`: its parameters (weighting, weights, fit_to, from, to; null without one); `added`:
 * the alpha the page was opened for when the combination holds it; `combined`: a promise of the
 * combination route's answer (its served weights and sessions), or null.
 */
export function renderContribution(section, alphas, { chosen, combination, added = "", combined = null, rest = null }, { signal }) {
  // An alpha of the combination cannot be added to it again: only the others, and `added` itself.
  const offered = alphas.filter((a) => !chosen.includes(a.alpha_id) || a.alpha_id === added);
  const select = alphaSelect("contribution-alpha", offered, added);
  const weight = h("input", { type: "number", id: "contribution-weight", min: "0", max: "1", step: "any", placeholder: "0 to 1" });
  const weightLabel = h("label", { for: "contribution-weight" }, "at weight");
  const results = h("div", { id: "contribution-results" });
  const held = () => Boolean(added) && select.value === added; // the alpha the combination holds
  const showWeight = () => {
    weight.hidden = held();
    weightLabel.hidden = held();
  };
  select.addEventListener("change", () => {
    weight.value = "";
    showWeight();
  });
  showWeight();
  fill(
    section,
    h("h2", {}, added ? `Before and after adding ${added} to this combination` : chosen.length ? "Before and after adding one alpha to this combination" : "Before and after adding one alpha"),
    note(
      chosen.length
        ? "GET /v1/alphas/{alpha}/analytics/contribution with the combination above at the weights on screen; the weight that maximises the information ratio after is only a suggestion, shown apart."
        : "GET /v1/alphas/{alpha}/analytics/contribution without reference (the default set: every approved alpha you may read), at the weight typed; the weight that maximises the information ratio after is a suggestion, shown apart.",
      "intro",
    ),
    h(
      "form",
      { class: "controls", id: "contribution-form", onsubmit: (event) => { event.preventDefault(); load(); } },
      h("label", { for: "contribution-alpha" }, "Add"),
      select,
      weightLabel,
      weight,
      h("button", { type: "submit" }, "Show"),
    ),
    results,
  );
  let latest = 0; // an answer to a choice no longer current is dropped
  if (added) load();

  async function load() {
    const alpha = select.value;
    if (!alpha) return;
    const ticket = ++latest;
    fill(results, note("Loading…"));
    const typed = weight.value.trim();
    let asked;
    let suggestion;
    try {
      if (held()) {
        // The combination as served: the alpha named in the reference at the weights on screen.
        const answer = combined ? await combined : null;
        if (!answer) {
          fill(results, note("The combination above could not be read, so its weights are not known."));
          return;
        }
        asked = onScreen(answer);
        // The suggestion: the rest of the combination, weighted as above, with the alpha at its optimal weight.
        suggestion = rest ? { reference: rest.reference.join(","), ...rest.params } : null;
      } else {
        asked = chosen.length ? { reference: chosen.join(","), ...(combination || {}) } : {};
        suggestion = asked;
        if (typed !== "") asked = { ...asked, weight: typed };
      }
      const [main, suggested] = await Promise.all([
        held() || typed !== "" ? apiGet(alphaPath(alpha, "/analytics/contribution"), asked, { signal }) : null,
        suggestion ? apiGet(alphaPath(alpha, "/analytics/contribution"), suggestion, { signal }).catch((error) => ({ error })) : null,
      ]);
      if (ticket !== latest) return;
      draw(alpha, asked, main, suggested);
    } catch (error) {
      if (isAbort(error) || ticket !== latest) return;
      showError(results, error, "The contribution could not be read");
    }
  }

  function draw(alpha, asked, main, suggested) {
    const shown = new URLSearchParams(asked).toString().replaceAll("%2C", ",");
    const optimal = suggested && !suggested.error ? suggested.data : null;
    fill(
      results,
      main ? warningList(main.meta.warnings) : null,
      main ? summaryLine(main.data, alpha, held()) : h("p", { class: "summary", id: "contribution-summary", "data-weight": "" }, `Weight of ${alpha} after: none on screen yet. Type one beside it, or use the suggested one below, to see the book after.`),
      main ? referenceLine(main.data) : optimal ? referenceLine(optimal) : null,
      main ? sessionsNote(main.data, alpha, held()) : null,
      suggestionBox(alpha, optimal, suggested && suggested.error, main, held(), (value) => {
        weight.value = String(value);
        load();
      }),
      main ? figuresTable(main.data) : optimal ? beforeTable(optimal) : null,
      h("p", { class: "muted request" }, h("code", {}, `GET /v1/alphas/${alpha}/analytics/contribution?${shown}`)),
    );
  }

  /** The request that asks about the combination as served: every alpha at its served weight. */
  function onScreen(answer) {
    const meta = answer.meta || {};
    const weights = meta.weights || [];
    const rows = answer.data || [];
    const params = { reference: weights.map((w) => w.alpha).join(","), weighting: "given", weights: weights.map((w) => String(w.weight)).join(",") };
    // Over the combination's own sessions (after fit_to, when its weights were fitted up to a date).
    if (rows.length) Object.assign(params, { from: rows[0].date, to: rows[rows.length - 1].date });
    return params;
  }
}

function summaryLine(data, alpha, held) {
  const how = held ? "its weight in the combination above" : data.weight.chosen === "given" ? "the weight on screen" : data.weight.chosen;
  return h(
    "p",
    { class: "summary", id: "contribution-summary", "data-weight": String(data.weight.value), "data-chosen": data.weight.chosen },
    `Weight of ${alpha} after: ${pct(data.weight.value)} (${how}); correlation to the set: ${entryText(data.correlation_to_set)}.`,
  );
}

function referenceLine(data) {
  return h(
    "p",
    { class: "summary", id: "contribution-reference" },
    `${data.reference.members_in_window} of ${data.reference.count} reference alphas (${data.reference.source}) trade over the ${data.sessions} sessions` +
      (data.reference.without_returns.count ? `; ${data.reference.without_returns.count} have no return there` : "") +
      ".",
  );
}

/** What Before and After are: the combination above (or without the alpha), over which sessions. */
function sessionsNote(data, alpha, held) {
  const combined = data.reference.combination;
  if (!combined) return null;
  const attrs = { class: "summary", id: "contribution-sessions", "data-sessions": String(data.sessions), "data-combined-sessions": String(combined.sessions) };
  if (held) {
    const others = combined.weights.map((w) => `${w.alpha} ${pct(w.weight)}`).join(", ");
    return h(
      "p",
      attrs,
      `After is the combination above, at its weights, over its ${data.sessions} sessions; Before is it without ${alpha}: the others at their weights over 1 − w (${others}).`,
    );
  }
  const text =
    data.sessions === combined.sessions
      ? `Before is the combination above (${combined.weighting} weights), over its ${combined.sessions} sessions; After adds ${alpha} at the weight on screen, the others' weights scaled by 1 − w.`
      : `Before is the combination above (${combined.weighting} weights) over the ${data.sessions} of its ${combined.sessions} sessions on which ${alpha} has a return, so its figures differ from those above.`;
  return h("p", attrs, text);
}

/** The optimal weight, apart and named as a suggestion, with the information ratio it would give. */
function suggestionBox(alpha, optimal, error, main, held, use) {
  if (error) return h("p", { class: "muted", id: "contribution-suggestion", "data-error-code": error.code || "error" }, `No suggested weight: ${error.message}`);
  if (!optimal) return null;
  const after = optimal.after.information_ratio;
  const atScreen = main ? main.data.after.information_ratio : null;
  return h(
    "div",
    { class: "suggestion", id: "contribution-suggestion", "data-weight": String(optimal.weight.value), "data-information-ratio": after && after.value != null ? String(after.value) : "" },
    h("strong", {}, "Suggestion: "),
    `${alpha} at ${pct(optimal.weight.value)}, the weight in [0, 1] that maximises the information ratio after (${optimal.weight.chosen})` +
      (held ? ", the rest of the combination at its weights scaled by 1 − w" : "") +
      `: information ratio after ${entryText(after)}` +
      (atScreen ? `, against ${entryText(atScreen)} at ${held ? "its weight in the combination above" : "the weight on screen"}.` : `, against ${entryText(optimal.before.information_ratio)} before.`),
    held ? null : [" ", h("button", { type: "button", id: "contribution-use-suggestion", onclick: () => use(optimal.weight.value) }, `Use ${num(optimal.weight.value)}`)],
  );
}

function figureNames(data) {
  return Object.keys(data.before || {}).filter((k) => isEntry(data.before[k]));
}

function figuresTable(data) {
  const valueOf = (x) => (isEntry(x) ? x.value : x);
  return table(
    ["Figure", "Before", "After", "Change"],
    figureNames(data).map((name) => {
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
  );
}

/** Before alone: no weight on screen yet, so no book after is shown. */
function beforeTable(data) {
  return table(
    ["Figure", "Before"],
    figureNames(data).map((name) => [figureHeader(name), entryCell(data.before[name], name)]),
    { className: "data contribution before-only" },
  );
}
