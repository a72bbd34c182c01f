// The alpha's written description (GET /v1/alphas/{alpha}): thesis, signal, parameters, data
// requirements and source papers. Unsealed values are null and shown as a dash.

import { fill, h, note, table } from "./dom.js";
import { DASH } from "./format.js";

const text = (value) => (value === null || value === undefined || value === "" ? DASH : String(value));

function definitionList(pairs) {
  return h(
    "dl",
    { class: "facts" },
    pairs.filter(([, value]) => value !== undefined).map(([term, value]) => [h("dt", {}, term), h("dd", {}, value)]),
  );
}

function codeLines(lines) {
  return lines && lines.length ? h("pre", { class: "pseudocode" }, lines.join("\n")) : DASH;
}

function bulletList(items) {
  return items && items.length
    ? h(
        "ul",
        {},
        items.map((item) => h("li", {}, text(item))),
      )
    : DASH;
}

export function renderDescription(body, data) {
  const c = data.classification || {};
  const thesis = data.thesis || {};
  const signal = data.signal || {};
  const req = data.data_requirements || {};
  const parameters = data.parameters || [];
  const papers = data.source_papers || [];
  fill(
    body,
    data.tldr ? h("p", { class: "tldr" }, data.tldr) : null,
    definitionList([
      ["Structure", text(c.structure)],
      ["Method", text(c.method)],
      ["Frequency", c.frequency && c.frequency.length ? c.frequency.join(", ") : DASH],
      ["Tags", c.tags && c.tags.length ? c.tags.join(", ") : DASH],
    ]),
    h("h3", {}, "Thesis"),
    definitionList([
      ["Hypothesis", text(thesis.hypothesis)],
      ["Mechanism", text(thesis.mechanism)],
      ["Who loses", text(thesis.who_loses)],
      ["Economic rationale", text(thesis.economic_rationale)],
      [
        "Falsification criteria",
        thesis.falsification_criteria && thesis.falsification_criteria.length
          ? bulletList(thesis.falsification_criteria.map((f) => `${f.metric} ${f.threshold} over ${f.horizon}`))
          : "none pre-committed",
      ],
    ]),
    h("h3", {}, "Signal"),
    definitionList([
      ["Score direction", text(signal.score_direction)],
      ["Decision timing", text(signal.decision_timing)],
      ["Core maths", text(signal.core_math_framework)],
      ["Logic", text(signal.signal_logic)],
      ["Pseudocode", codeLines(signal.pseudocode)],
      ["Validity rules", bulletList(signal.validity_rules)],
      ["Output contract", text(signal.output_contract)],
    ]),
    h("h3", {}, "Parameters"),
    parameters.length
      ? table(
          ["Name", "Type", "Default", "Range", "Unit", "Tunable", "Selected by test year", "Description"],
          parameters.map((p) => [
            h("code", {}, p.name),
            text(p.type),
            text(p.default),
            p.range ? `${p.range[0]} – ${p.range[1]}` : DASH,
            text(p.unit),
            p.tunable ? "yes" : "no",
            Object.entries(p.selected_value_by_test_year || {})
              .map(([year, value]) => `${year}: ${value}`)
              .join(", ") || DASH,
            text(p.description),
          ]),
        )
      : note("No parameters sealed."),
    h("h3", {}, "Data requirements"),
    definitionList([
      ["Universe", text(req.universe)],
      ["Granularity", text(req.granularity)],
      ["Lookback / warm-up bars", req.lookback_bars != null ? `${req.lookback_bars} / ${text(req.warmup_bars)}` : DASH],
      ["History requirement", text(req.history_requirement)],
      ["Adjustment", text(req.adjustment)],
      [
        "Fields",
        req.fields && req.fields.length
          ? req.fields.map((f) => `${f.name} (${f.category}${f.required ? "" : ", optional"})`).join(", ")
          : DASH,
      ],
    ]),
    h("h3", {}, "Source papers"),
    papers.length
      ? table(
          ["Title", "Published", "Role", "Rationale"],
          papers.map((p) => [text(p.title), text(p.published_date), text(p.role), text(p.rationale)]),
        )
      : note("None sealed."),
    data.copyright ? h("p", { class: "muted copyright" }, data.copyright) : null,
  );
}
