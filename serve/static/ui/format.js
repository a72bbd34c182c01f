// Number and date formatting. Ratios (0.01 = 1%) are shown as percentages, percentage points as
// percentages as they are; a null, missing or non-finite value is an em dash, never a zero. A value
// that rounds to zero is shown without a sign ("0.0%", never "-0.0%").

export const DASH = "—";

const finite = (value) => typeof value === "number" && Number.isFinite(value);

/** The text without its minus when every digit shown is a zero ("-0.00" → "0.00"). */
function unsignedZero(text) {
  return /^-[0.]*(?:$|[^0-9.e])/.test(text) ? text.slice(1) : text;
}

/** A ratio as a percentage: 0.0123 → "1.23%". */
export function pct(value, digits = 2) {
  return finite(value) ? `${unsignedZero((value * 100).toFixed(digits))}%` : DASH;
}

/** Percentage points as a percentage: 17.4 → "17.40%". */
export function pp(value, digits = 2) {
  return finite(value) ? `${unsignedZero(value.toFixed(digits))}%` : DASH;
}

/** A plain number with `digits` decimals. */
export function fixed(value, digits = 4) {
  return finite(value) ? unsignedZero(value.toFixed(digits)) : DASH;
}

/** A number to four significant digits, without exponent for ordinary magnitudes. */
export function num(value) {
  if (!finite(value)) return DASH;
  if (value === 0) return "0";
  const magnitude = Math.abs(value);
  if (magnitude >= 1e-3 && magnitude < 1e6) return Number(value.toPrecision(4)).toString();
  return value.toExponential(3);
}

export function int(value) {
  return finite(value) ? unsignedZero(Math.round(value).toLocaleString("en-US")) : DASH;
}

export function bytes(value) {
  if (!finite(value)) return DASH;
  if (value < 1024) return `${value} B`;
  if (value < 1024 * 1024) return `${(value / 1024).toFixed(1)} KiB`;
  return `${(value / 1024 / 1024).toFixed(1)} MiB`;
}

/** "YYYY-MM-DD" → seconds since the epoch at UTC midnight (uPlot's time unit). */
export function dateSeconds(date) {
  const [y, m, d] = date.split("-").map(Number);
  return Date.UTC(y, m - 1, d) / 1000;
}


export const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
