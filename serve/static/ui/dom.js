// Small DOM helpers: build elements, show an API error, show a note. Text is always set as text
// (never parsed as HTML), so nothing the API returns can inject markup, and it is isolated
// (`isolated`), so no bidirectional control in it can reorder the text shown beside it.

import { isAbort } from "./api.js";

/** `h("a", { href: "#/", class: "x", onclick: fn }, "text", child, [more])` */
export function h(tag, attrs = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") element.className = value;
    else if (name.startsWith("on") && typeof value === "function") element.addEventListener(name.slice(2), value);
    else if (name in element && typeof value !== "string") element[name] = value;
    else element.setAttribute(name, value === true ? "" : value);
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(element, child);
    else element.append(child instanceof Node ? child : document.createTextNode(isolated(child)));
  }
}

// Bidirectional formatting characters: ALM, LRM, RLM, LRE, RLE, PDF, LRO, RLO, LRI, RLI, FSI, PDI
// (sealkit/src/alpha_results_seal/arrow_schemas.py BIDI_CONTROLS, which the build refuses in seal text).
const BIDI_CONTROL = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const BIDI_CONTROLS = new RegExp(BIDI_CONTROL.source, "g");

/**
 * Text as the page shows it. Text holding a bidirectional control (a seal built before the build
 * refused them) is shown without the controls, between FSI and PDI: its own direction is kept and
 * it cannot reverse or reorder what stands beside it (a name turning the figures after it around).
 * The controls are dropped, not kept inside the isolate, because a PDI of the text's own would
 * close the isolate early and let an override after it run on. Plain text is returned as it is.
 * Works wherever text goes, `<option>` labels and `textContent` included, where no `<bdi>` fits.
 */
export function isolated(value) {
  const text = String(value);
  return BIDI_CONTROL.test(text) ? `\u2068${text.replace(BIDI_CONTROLS, "")}\u2069` : text;
}

export function clear(element) {
  element.replaceChildren();
  return element;
}

/** Replace `element`'s children (null, undefined and false are skipped, arrays flattened). */
export function fill(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

/** Append children to `element`, skipping null, undefined and false. */
export function add(element, ...children) {
  append(element, children);
  return element;
}

/** The error envelope as the user should see it: code, message and the request id to quote. */
export function errorBox(error, what) {
  const status = error.status ? `${error.status} ` : "";
  return h(
    "div",
    { class: "error", role: "alert", "data-error-code": error.code || "error" },
    h("p", {}, h("strong", {}, what ? `${what}: ` : ""), error.message),
    h(
      "p",
      { class: "error-meta" },
      h("span", {}, `${status}`, h("code", { class: "error-code" }, error.code || "error")),
      error.requestId ? h("span", {}, " · request id ", h("code", { class: "request-id" }, error.requestId)) : null,
    ),
  );
}

/** Put `error` into `target` unless the request was aborted because the user moved on. */
export function showError(target, error, what) {
  if (isAbort(error)) return;
  clear(target).append(errorBox(error, what));
}

/** What `request()` answers, or null with the refusal shown in `target` as `what` (`showError`). */
export async function readOrShowError(target, what, request) {
  try {
    return await request();
  } catch (error) {
    showError(target, error, what);
    return null;
  }
}

export function note(text, className = "muted") {
  return h("p", { class: className }, text);
}

/** A page's section: its title (the page's heading), what it asks the API (`intro`), then `children`;
 * `attrs` names it (`id`, and a `class` other than "panel"). */
export function pageSection(attrs, title, intro, ...children) {
  return h("section", { class: "panel", ...attrs }, h("h1", {}, title), note(intro, "intro"), children);
}

/** A titled panel: returns the section and its body. */
export function panel(id, title, intro) {
  const body = h("div", { class: "panel-body" }, note("Loading…"));
  const section = h("section", { id, class: "panel" }, h("h2", {}, title), intro ? note(intro, "intro") : null, body);
  return { section, body };
}

/** A table from column headers and rows of cells (strings, numbers or nodes). */
export function table(headers, rows, { className = "data", caption } = {}) {
  return h(
    "table",
    { class: className },
    caption ? h("caption", {}, caption) : null,
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        headers.map((header) => h("th", { scope: "col" }, header)),
      ),
    ),
    h(
      "tbody",
      {},
      rows.map((cells) => h("tr", {}, cells.map(asCell))),
    ),
  );
}

function asCell(cell) {
  return cell instanceof Element && (cell.tagName === "TD" || cell.tagName === "TH") ? cell : h("td", {}, cell);
}

/**
 * A table cell right-aligned for numbers. `tone` ("better" or "worse", from labels.js) colours it,
 * unless the text shown is a zero: only a figure whose better direction is declared is coloured.
 */
export function numberCell(text, value, { tone = "" } = {}) {
  const shown = tone && /[1-9]/.test(String(text)) ? ` ${tone}` : "";
  return h("td", { class: `number${shown}` }, text);
}

/** Warnings of a response's meta, one line each (`code: message`). */
export function warningList(warnings) {
  if (!warnings || warnings.length === 0) return null;
  return h(
    "ul",
    { class: "warnings" },
    warnings.map((w) =>
      h(
        "li",
        {},
        h("code", {}, w.code),
        w.block ? ` (${w.block})` : w.kind ? ` (${w.kind})` : "",
        w.message ? `: ${w.message}` : "",
      ),
    ),
  );
}
