// Stat entries of the analytics routes (`{value, unit, status, withheld_reason, ...}`, the shape of
// /metrics core entries) as table rows, whatever figures a route serves: a figure the server could
// not measure is a dash with its reason, never a zero. Verdicts of /analytics/checks as badges.

import { h, numberCell, table } from "./dom.js";
import { DASH, num } from "./format.js";
import { changeTone, figureDigits, figureNameWithBasis, inUnit, labelMark, termUnit, unitMark, unitText, valueMark, valueTone } from "./labels.js";
import { intervalSvg } from "./svg.js";

const finite = (value) => typeof value === "number" && Number.isFinite(value);

/** Is `value` a stat entry (an object with `value` and `status`)? */
export function isEntry(value) {
  return value !== null && typeof value === "object" && "value" in value && "status" in value;
}

/** An entry's value in its unit (a dash when not measured); `key`, the figure it is served as, for
 * a figure shown to its own decimals (labels.js `figureDigits`). */
export function entryText(entry, key = null) {
  if (!entry || entry.status === "not_measurable" || !finite(entry.value)) return DASH;
  return inUnit(entry.value, entry.unit, key ? figureDigits(key) : undefined);
}

/**
 * The value of the figure `name`, right-aligned, titled with its withheld reason when not measured.
 * Coloured as labels.js declares the figure; `change`: the entry is a difference or a change.
 */
export function entryCell(entry, name, { change = false } = {}) {
  const value = entry ? entry.value : null;
  const tone = change ? changeTone(name, value) : valueTone(name, value);
  const cell = numberCell(entryText(entry, name), value, { tone });
  const shown = entry && entry.status !== "not_measurable" ? value : null;
  for (const [attr, text] of Object.entries(valueMark(name, shown, entry ? entry.unit : null))) cell.setAttribute(attr, text);
  if (entry && entry.status === "not_measurable") cell.title = entry.withheld_reason || "not measurable";
  return cell;
}

/** The cell of a figure served bare (a number, not a stat entry) as `key`: shown in the unit the
 * registry states for it, marked like `entryCell`'s. */
export function figureCell(value, key, { change = false } = {}) {
  const unit = termUnit(key);
  return entryCell(finite(value) ? { value, unit, status: "available" } : { value: null, unit, status: "available" }, key, { change });
}

/**
 * A figure written in a sentence (the decision summary's): its value in its unit, marked like
 * `entryCell`'s, its name with its basis as the registry states it in its title (the sentence's words
 * around it are prose, not the figure's name). `entry`: a stat entry, or a number served bare as
 * `key` (shown in the registry's unit, or `unit`); `servedAs`: where the answer serves it when that is
 * not `key` (an interval's bound, `information_ratio.lower`; a check's value). Only for a value shown:
 * a figure not measured is its reason, in words.
 */
export function figureSpan(key, entry, { unit = null, servedAs = null } = {}) {
  const e = isEntry(entry) ? entry : { value: entry, unit: unit || termUnit(key), status: "available" };
  const shown = e.status !== "not_measurable" && finite(e.value) ? e.value : null;
  const marks = { ...valueMark(key, shown, e.unit), ...(servedAs ? { "data-key": servedAs } : {}) };
  return h("span", { class: "figure", title: figureNameWithBasis(key), ...marks }, entryText(e, key));
}

export function statusText(entry) {
  if (!entry) return "not served";
  if (entry.status === "not_measurable") return `not measurable${entry.withheld_reason ? `: ${entry.withheld_reason}` : ""}`;
  return entry.status;
}

/** Every stat entry of `object` (one level, or nested one level as `parent.child`), in served order. */
export function entriesOf(object, prefix = "") {
  const rows = [];
  for (const [name, value] of Object.entries(object || {})) {
    if (isEntry(value)) rows.push([`${prefix}${name}`, value]);
    else if (value && typeof value === "object" && !Array.isArray(value) && !prefix)
      rows.push(...entriesOf(value, `${name}.`));
  }
  return rows;
}

/** The entries of `object` named in `names`, each `[name, entry]` in that order; a dotted name
 * reads a nested entry (`live_haircut.retention`), a missing one is undefined (shown as not served). */
export function namedEntries(object, names) {
  const pick = (name) => {
    let found = object;
    for (const key of name.split(".")) found = found ? found[key] : undefined;
    return found;
  };
  return names.map((name) => [name, pick(name)]);
}

/** The row header of a figure: its name (labels.js) and the key the API serves it under. */
export function figureHeader(name, entry) {
  // An ICIR says its basis, read off its entry (annualised on every route).
  const label = entry && name.split(".").pop() === "icir" ? icirLabel(entry) : figureNameWithBasis(name);
  return h("th", { scope: "row", "data-figure": name, ...labelMark(name) }, label, " ", h("code", {}, name));
}

/** A table of named entries: figure, value, unit (as shown), status (with the reason when withheld). */
export function entryTable(named, { className = "data entries" } = {}) {
  return table(
    ["Figure", "Value", "Unit", "Status"],
    named.map(([name, entry]) => [
      figureHeader(name, entry),
      entryCell(entry, name),
      h("td", unitMark(name), entry ? unitText(entry.unit) : DASH),
      [statusText(entry), detailOf(entry)].filter(Boolean).join(" · "),
    ]),
    { className },
  );
}

/**
 * A row of an entry served with its interval (`lower`, `upper`: a bootstrap's): `header`, the
 * estimate, the bounds as `bound` writes them, the interval drawn on `scale` (`[min, max]`, `width`
 * pixels), the observations and the mean block length.
 */
export function intervalRow(header, entry, name, scale, { bound = num, width } = {}) {
  const lower = entry ? entry.lower : null;
  const upper = entry ? entry.upper : null;
  return [
    header,
    entryCell(entry, name),
    boundCell(bound, lower, name, "lower", entry),
    boundCell(bound, upper, name, "upper", entry),
    h("td", {}, intervalSvg(entry && entry.value, lower, upper, scale, width)),
    figureCell(entry ? entry.observations : null, `${name}.observations`),
    figureCell(entry ? entry.block_length : null, `${name}.block_length`),
  ];
}

/** A bound of an interval, in its figure's unit: marked as that figure, served under `name.side`. */
export function boundCell(bound, value, name, side, entry) {
  const cell = numberCell(bound(value), value);
  const marks = { ...valueMark(name, value, entry ? entry.unit : null), "data-key": `${name}.${side}` };
  for (const [attr, text] of Object.entries(marks)) cell.setAttribute(attr, text);
  return cell;
}

/** What an entry adds beyond its value: the day of a best/worst period, the annualisation. */
function detailOf(entry) {
  if (!entry) return "";
  if (entry.date) return `on ${entry.date}`;
  if (entry.annualisation === "annualised") return "annualised";
  return "";
}

/** A verdict as a badge: pass, fail or not_measurable (readable without colour: the word is shown). */
export function verdictBadge(verdict) {
  const known = ["pass", "fail", "not_measurable"].includes(verdict) ? verdict : "unknown";
  const text = { pass: "PASS", fail: "FAIL", not_measurable: "NOT MEASURABLE" }[known] || String(verdict);
  return h("span", { class: `badge verdict-${known}`, "data-verdict": verdict }, text);
}

/** "ICIR" with its basis, read off the entry: every route serves it annualised (/metrics
 * `core.icir_per_week` is the per-week ratio, its `annualisation` per_period). */
export function icirLabel(entry) {
  const basis = { annualised: "annualised", per_period: "per week" }[entry ? entry.annualisation : ""];
  return basis ? `ICIR (${basis})` : "ICIR";
}

export const IC_MISMATCH = "ic_reproduction_mismatch";

/** A badge flagging the sealed mean IC (and the ICIR sealed with it) when /metrics warns that the weekly
 * IC rebuilt from the cross-sections does not reproduce it; null otherwise. */
export function unreproducedBadge(warnings) {
  const found = (warnings || []).find((w) => w.code === IC_MISMATCH);
  if (!found) return null;
  return h("span", { class: "badge ic-unreproduced", title: found.message || IC_MISMATCH }, "not reproduced");
}

/** A part of an answer the route could not measure, with its reason as served (never a zero):
 * `attrs` names it for the page (`data-withheld`, or an `id`). */
export function notMeasurable(what, reason, attrs = { "data-withheld": what }) {
  return h("p", { class: "not-measurable", ...attrs }, `${what}: not measurable: ${reason || "no reason given"}.`);
}
