// Stat entries of the analytics routes (`{value, unit, status, withheld_reason, ...}`, the shape of
// /metrics core entries) as table rows, whatever figures a route serves: a figure the server could
// not measure is a dash with its reason, never a zero. Verdicts of /analytics/checks as badges.

import { h, numberCell, table } from "./dom.js";
import { DASH, num, pct, pp } from "./format.js";

const finite = (value) => typeof value === "number" && Number.isFinite(value);

/** Is `value` a stat entry (an object with `value` and `status`)? */
export function isEntry(value) {
  return value !== null && typeof value === "object" && "value" in value && "status" in value;
}

/** A value in its unit: percentage points and ratios of returns with a % sign, the rest 4 digits. */
export function inUnit(value, unit) {
  if (!finite(value)) return DASH;
  if (unit === "percentage_points") return pp(value);
  if (unit === "fraction" || unit === "return") return pct(value);
  if (unit === "bps") return `${num(value)} bps`;
  return num(value);
}

export function entryText(entry) {
  if (!entry || entry.status === "not_measurable" || !finite(entry.value)) return DASH;
  return inUnit(entry.value, entry.unit);
}

/** The entry's value, right-aligned and signed, titled with its withheld reason when not measured. */
export function entryCell(entry, { signed = true } = {}) {
  const cell = numberCell(entryText(entry), entry ? entry.value : null, { signed });
  cell.setAttribute("data-value", entry && finite(entry.value) ? String(entry.value) : "");
  if (entry && entry.status === "not_measurable") cell.title = entry.withheld_reason || "not measurable";
  return cell;
}

export function statusText(entry) {
  if (!entry) return "not served";
  if (entry.status === "not_measurable") return `not measurable${entry.withheld_reason ? `: ${entry.withheld_reason}` : ""}`;
  return entry.status;
}

/** "snake_case_name" → "Snake case name"; a trailing "_pct" (percentage points) → " (%)". */
export function labelOf(name) {
  const words = String(name).split(".").pop().replace(/_pct$/, " (%)").replaceAll("_", " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
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

/** Figures that are sizes, not gains or losses: their sign is not coloured (max_drawdown_pct is
 * positive percentage points of the peak). */
const MAGNITUDES = /(drawdown|volatility|turnover|tracking_error)/;

/** A table of named entries: figure, value, unit, status (with the reason when withheld). */
export function entryTable(named, { className = "data entries", labels = {} } = {}) {
  return table(
    ["Figure", "Value", "Unit", "Status"],
    named.map(([name, entry]) => [
      h("th", { scope: "row", "data-figure": name }, labels[name] || labelOf(name), " ", h("code", {}, name)),
      entryCell(entry, { signed: !MAGNITUDES.test(name) }),
      entry && entry.unit ? entry.unit : DASH,
      [statusText(entry), detailOf(entry)].filter(Boolean).join(" · "),
    ]),
    { className },
  );
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

/** "ICIR" with its basis, read off the entry: the screener and compare serve it annualised, /metrics
 * `core.icir` as the run sealed it (`annualisation` says which; per_period is per week). */
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
