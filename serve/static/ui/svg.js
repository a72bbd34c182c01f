// Charts as SVG elements (presentation attributes only, no style attribute: the page's
// Content-Security-Policy has no 'unsafe-inline'). Used where a chart must survive printing and
// being saved into a self-contained file (the tear sheet), and for confidence-interval whiskers.

import { DASH } from "./format.js";
import { LIVE_SHADE } from "./labels.js";

// The SVG namespace, as the HTML parser assigns it (the modules name no address, not even this one).
const NS = (() => {
  const holder = document.createElement("template");
  holder.innerHTML = "<svg></svg>";
  return holder.content.firstChild.namespaceURI;
})();

export function s(tag, attrs = {}, ...children) {
  const element = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value !== undefined && value !== null) element.setAttribute(name, String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

export function niceTicks(min, max, count = 6) {
  const span = max - min || Math.abs(max) || 1;
  const raw = span / count;
  const step = 10 ** Math.floor(Math.log10(raw));
  const unit = [1, 2, 2.5, 5, 10].map((m) => m * step).find((m) => span / m <= count) || step * 10;
  const ticks = [];
  for (let v = Math.ceil(min / unit) * unit; v <= max + unit * 1e-9; v += unit) ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

/** Round ends around `values` (about four steps between them): a scale several charts share. */
export function roundEnds(values) {
  const [low, high] = [Math.min(...values), Math.max(...values)];
  const span = high - low || Math.abs(high) || 1;
  const raw = span / 4;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((m) => m >= raw);
  return [Math.floor(low / step) * step, Math.ceil(high / step) * step].map((v) => Number(v.toPrecision(12)));
}

/** Round ticks from 0 (or the least value below it) to a tick at or beyond the greatest value. */
export function ticksCovering(values, count) {
  const ticks = niceTicks(Math.min(0, ...values), Math.max(...values), count);
  const step = ticks.length > 1 ? ticks[1] - ticks[0] : 1;
  while (ticks[ticks.length - 1] < Math.max(...values) - 1e-9) ticks.push(Number((ticks[ticks.length - 1] + step).toPrecision(12)));
  return ticks;
}

/** [low, high] holding 0 and every value, with `share` of the span as room on a side with values. */
export function paddedRange(values, share = 0.08) {
  const [least, most] = [Math.min(0, ...values), Math.max(0, ...values)];
  const room = (most - least) * share;
  return [least - (least < 0 ? room : 0), most + (most > 0 ? room : 0)];
}

const INK = "#222";
const GRID = "#ddd";
const FONT = 11;

// Ten series stay apart in colour and, printed in black and white, in their dash.
export const PALETTE = ["#1f5fbf", "#e07b00", "#2e8b57", "#c0392b", "#6a3fb5", "#00838f", "#b5179e", "#8c564b", "#5f6b00", "#d4a017"];
export const DASHES = [null, "6 3", "2 2", "8 3 2 3", "10 4", "1 3", "6 2 2 2", "12 3", "4 4", "3 1"];

/** The date axis's ticks between times `t0` and `t1` (ms): each year's 1 January, and each quarter's
 * first day too for a history under three years; the first date is labelled with its year. */
function dateTicks(t0, t1) {
  const quarters = t1 - t0 < 3 * 366 * 86_400_000;
  const first = new Date(t0);
  const ticks = [{ time: t0, label: String(first.getUTCFullYear()) }];
  for (let year = first.getUTCFullYear(), month = first.getUTCMonth() + 1; ; month += 1) {
    if (month === 12) [year, month] = [year + 1, 0];
    if (!quarters && month !== 0) continue;
    if (month % 3 !== 0) continue;
    const time = Date.UTC(year, month, 1);
    if (time > t1) break;
    // A tick too close to the first one would print over its label.
    if (time - t0 < 25 * 86_400_000) ticks.shift();
    ticks.push({ time, label: month === 0 ? String(year) : `${year}-${String(month + 1).padStart(2, "0")}` });
  }
  return ticks;
}

/**
 * A line chart over dates: `dates` ("YYYY-MM-DD"), `series` = [{ label, values, color, dash }],
 * `format` for the y axis's ticks, `yLabel` its title with the unit ("Cumulative return (%)"),
 * `xLabel` the date axis's. Dashed series stay distinguishable in black and white. `liveAfter` (a
 * split date) shades what comes after it, as the alpha page's charts do (charts.js `shadeAfter`).
 * Each path carries its values (`data-values`, JSON), the figures the tests compare with the API.
 */
export function lineChartSvg({ name, title, dates, series, format, yLabel = title, xLabel = "Date", width = 760, height = 240, liveAfter = null, span = null, compact = false }) {
  // `compact`: the narrower margins of a small multiple, so its plot keeps the height its axis title needs.
  const pad = compact ? { left: 60, right: 8, top: 6, bottom: 34 } : { left: 78, right: 14, top: 12, bottom: 42 };
  const values = series.flatMap((x) => x.values).filter((v) => Number.isFinite(v));
  // Zero is always on the axis; the extremes keep a little room, so no line runs along the frame.
  const room = (Math.max(0, ...values) - Math.min(0, ...values)) * 0.04;
  const low = Math.min(0, ...values) - (Math.min(0, ...values) < 0 ? room : 0);
  const high = Math.max(0, ...values) + (Math.max(0, ...values) > 0 ? room : 0);
  const times = dates.map((d) => Date.parse(`${d}T00:00:00Z`));
  // `span` ([first, last] dates) sets the date axis, so charts of one book share it.
  const [t0, t1] = span ? span.map((d) => Date.parse(`${d}T00:00:00Z`)) : [times[0], times[times.length - 1]];
  const x = (t) => pad.left + ((t - t0) / (t1 - t0 || 1)) * (width - pad.left - pad.right);
  const y = (v) => pad.top + (1 - (v - low) / (high - low || 1)) * (height - pad.top - pad.bottom);
  const svg = s("svg", {
    class: "svg-chart",
    "data-chart": name,
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    role: "img",
    "aria-label": title,
  });
  svg.append(s("title", {}, title));
  const bottom = height - pad.bottom;
  for (const tick of niceTicks(low, high)) {
    svg.append(s("line", { x1: pad.left, x2: width - pad.right, y1: y(tick), y2: y(tick), stroke: tick === 0 ? "#555" : GRID, "stroke-width": 1 }));
    svg.append(s("text", { x: pad.left - 6, y: y(tick) + 4, "text-anchor": "end", "font-size": FONT, fill: INK }, format(tick)));
  }
  const split = liveAfter ? Date.parse(`${liveAfter}T00:00:00Z`) : null;
  if (split !== null && t1 > split) {
    const from = x(Math.max(split, t0));
    svg.setAttribute("data-live-after", liveAfter);
    svg.append(
      s("rect", { class: "live-shade", x: from, y: pad.top, width: width - pad.right - from, height: bottom - pad.top, fill: LIVE_SHADE }),
    );
  }
  for (const tick of dateTicks(t0, t1)) {
    const at = x(tick.time);
    svg.append(s("line", { x1: at, x2: at, y1: bottom, y2: bottom + 4, stroke: INK, "stroke-width": 1 }));
    svg.append(s("text", { x: at, y: bottom + 16, "font-size": FONT - 1, fill: INK, "text-anchor": "middle", class: "x-tick" }, tick.label));
  }
  svg.append(axes(pad, width, height, xLabel, yLabel));
  series.forEach((line, k) => {
    let path = "";
    let pen = false;
    line.values.forEach((v, i) => {
      if (!Number.isFinite(v)) {
        pen = pen && !line.gaps; // a series with `gaps` breaks its line where it has no value
        return;
      }
      path += `${pen ? "L" : "M"}${x(times[i]).toFixed(1)},${y(v).toFixed(1)}`;
      pen = true;
    });
    svg.append(
      s("path", {
        d: path,
        fill: "none",
        stroke: line.color,
        "stroke-width": line.width || 1.6,
        "stroke-dasharray": dashOf(line, k),
        "data-series": line.label,
        "data-values": JSON.stringify(line.values.map((v) => (Number.isFinite(v) ? v : null))),
      }),
    );
  });
  svg.setAttribute("data-dates", JSON.stringify(dates));
  return svg;
}

function dashOf(line, k) {
  return line.dash === undefined ? (k > 0 ? "6 3" : null) : line.dash;
}

/** The two axis lines and their titles (the y title turned, reading upwards). */
export function axes(pad, width, height, xLabel, yLabel) {
  const bottom = height - pad.bottom;
  const group = s("g", { class: "axes" });
  group.append(
    s("line", { x1: pad.left, x2: pad.left, y1: pad.top, y2: bottom, stroke: INK, "stroke-width": 1 }),
    s("line", { x1: pad.left, x2: width - pad.right, y1: bottom, y2: bottom, stroke: INK, "stroke-width": 1 }),
  );
  if (xLabel) group.append(s("text", { class: "axis-title x-title", x: (pad.left + width - pad.right) / 2, y: height - 4, "text-anchor": "middle", "font-size": FONT, fill: INK }, xLabel));
  if (yLabel) {
    const middle = (pad.top + bottom) / 2;
    group.append(s("text", { class: "axis-title y-title", x: 12, y: middle, transform: `rotate(-90 12 ${middle})`, "text-anchor": "middle", "font-size": FONT, fill: INK }, yLabel));
  }
  return group;
}

let ruler = null;

/** The width of `text` in the page's font at `size` px (the legend's labels are laid out by it). */
function textWidth(text, size) {
  ruler = ruler || document.createElement("canvas").getContext("2d");
  ruler.font = `${size}px ${getComputedStyle(document.body).fontFamily}`;
  return ruler.measureText(String(text)).width;
}

/**
 * A legend for `lineChartSvg`: a swatch and the label of each series (`shade`: the live part's
 * ground), on as many rows as the labels need.
 */
export function legendSvg(series, width = 760) {
  const svg = s("svg", { class: "svg-legend" });
  let [left, top] = [4, 0];
  series.forEach((line, k) => {
    const room = 46 + textWidth(line.label, 12);
    if (left > 4 && left + room > width) [left, top] = [4, top + 20];
    if (line.shade) svg.append(s("rect", { x: left, y: top + 4, width: 24, height: 12, fill: LIVE_SHADE, stroke: "#888", "stroke-width": 0.5 }));
    else svg.append(s("line", { x1: left, x2: left + 24, y1: top + 10, y2: top + 10, stroke: line.color, "stroke-width": 2, "stroke-dasharray": dashOf(line, k) }));
    svg.append(s("text", { x: left + 30, y: top + 14, "font-size": 12, fill: INK }, line.label));
    left += room;
  });
  const height = top + 20;
  for (const [name, value] of Object.entries({ width, height, viewBox: `0 0 ${width} ${height}` })) svg.setAttribute(name, String(value));
  return svg;
}

/** A fill between white and `rgb` ([r, g, b]) by `t` in [0, 1] (at most 75% of the colour, so black text reads on it). */
function tint(rgb, t) {
  const k = Math.max(0, Math.min(1, t)) * 0.75;
  return `rgb(${rgb.map((c) => Math.round(255 + (c - 255) * k)).join(",")})`;
}

export const GAIN = [30, 123, 70];
export const LOSS = [179, 38, 30];
export const POSITIVE = [31, 95, 191];

/** A diverging fill: `high` ([r, g, b]) above zero, `low` below, by |value| / `scale`. */
export function divergingFill(value, scale, high = GAIN, low = LOSS) {
  if (!Number.isFinite(value)) return "#f1f3f5";
  return tint(value >= 0 ? high : low, Math.abs(value) / (scale || 1));
}

/**
 * A grid of values (year × month, alpha × alpha): `rows` and `columns` label it, `cells[i][j]` is
 * `{ value, text, fill }` (text shown in the cell, so it reads in black and white; a null value is a
 * dash), `xLabel` and `yLabel` title the axes, `key` = [{ text, fill }] is its legend, beneath.
 * Each cell's rect carries `data-row`, `data-column` and `data-value` (the figure, exactly).
 */
export function heatmapSvg({ name, title, rows, columns, cells, xLabel, yLabel, key = [], width = 760, rowHeight = 26, labelWidth = 110 }) {
  const pad = { left: labelWidth + 22, right: 8, top: 30, bottom: key.length ? 40 : 8 };
  const cellWidth = (width - pad.left - pad.right) / Math.max(1, columns.length);
  const height = pad.top + rows.length * rowHeight + pad.bottom;
  const svg = s("svg", { class: "svg-chart svg-heatmap", "data-chart": name, viewBox: `0 0 ${width} ${height}`, width, height, role: "img", "aria-label": title });
  svg.append(s("title", {}, title));
  if (xLabel) svg.append(s("text", { class: "axis-title x-title", x: pad.left + (width - pad.left - pad.right) / 2, y: 10, "text-anchor": "middle", "font-size": FONT, fill: INK }, xLabel));
  if (yLabel) {
    const middle = pad.top + (rows.length * rowHeight) / 2;
    svg.append(s("text", { class: "axis-title y-title", x: 10, y: middle, transform: `rotate(-90 10 ${middle})`, "text-anchor": "middle", "font-size": FONT, fill: INK }, yLabel));
  }
  columns.forEach((column, j) => {
    svg.append(s("text", { class: "column-label", x: pad.left + (j + 0.5) * cellWidth, y: pad.top - 6, "text-anchor": "middle", "font-size": FONT - 1, fill: INK }, column));
  });
  rows.forEach((row, i) => {
    const top = pad.top + i * rowHeight;
    svg.append(s("text", { class: "row-label", x: pad.left - 6, y: top + rowHeight / 2 + 4, "text-anchor": "end", "font-size": FONT - 1, fill: INK }, row));
    columns.forEach((column, j) => {
      const cell = cells[i][j] || { value: null, text: DASH };
      const left = pad.left + j * cellWidth;
      svg.append(
        s("rect", {
          class: "cell",
          x: left + 0.5,
          y: top + 0.5,
          width: cellWidth - 1,
          height: rowHeight - 1,
          fill: cell.fill || "#f1f3f5",
          "data-row": row,
          "data-column": column,
          "data-value": Number.isFinite(cell.value) ? String(cell.value) : "",
        }),
        s("text", { class: "cell-text", x: left + cellWidth / 2, y: top + rowHeight / 2 + 4, "text-anchor": "middle", "font-size": FONT - 1, fill: INK }, cell.text ?? DASH),
      );
    });
  });
  drawKey(svg, key, pad.left, height - pad.bottom + 14);
  return svg;
}

/** A chart's key, one swatch and its words an entry, from (`left`, `top`): what its colours mean. */
function drawKey(svg, key, left, top) {
  for (const entry of key) {
    if (entry.line) svg.append(s("line", { x1: left, x2: left + 22, y1: top + 6, y2: top + 6, stroke: INK, "stroke-width": 1.2 }));
    else svg.append(s("rect", { x: left, y: top, width: 22, height: 12, fill: entry.fill, stroke: "#999", "stroke-width": 0.5 }));
    svg.append(s("text", { class: "key-text", x: left + 27, y: top + 10, "font-size": FONT - 1, fill: INK }, entry.text));
    left += 40 + textWidth(entry.text, FONT - 1);
  }
}

const BAR_GAIN = "rgb(60,140,95)";
const BAR_LOSS = "rgb(190,70,60)";
/** The key of bars coloured by sign (`what` names the measure: "contribution", "mean return"). */
export function signKey(what, whiskers = false) {
  return [{ text: `${what} above 0`, fill: BAR_GAIN }, { text: `${what} below 0`, fill: BAR_LOSS }, ...(whiskers ? [{ text: "± one standard error", line: true }] : [])];
}

/**
 * Bars over categories (quantiles, horizons): `labels`, `values` (null: no bar, a dash beneath),
 * `errors` (optional, ± one standard error as whiskers), `format` for the y ticks and the value
 * written over each bar, `yLabel` with its unit, `xLabel` the categories' title. Bars above zero
 * are green, below red; the value is written, so the chart reads in black and white.
 */
export function barChartSvg({ name, title, labels, values, errors = null, format, yLabel, xLabel, width = 760, height = 220, color = null, key = [] }) {
  const pad = { left: 78, right: 14, top: 16, bottom: key.length ? 64 : 42 };
  const ends = values.flatMap((v, i) => (Number.isFinite(v) ? [v, v + (errors && Number.isFinite(errors[i]) ? errors[i] : 0), v - (errors && Number.isFinite(errors[i]) ? errors[i] : 0)] : []));
  const room = (Math.max(0, ...ends) - Math.min(0, ...ends)) * 0.1;
  const low = Math.min(0, ...ends) - (Math.min(0, ...ends) < 0 ? room : 0);
  const high = Math.max(0, ...ends) + (Math.max(0, ...ends) > 0 ? room : 0);
  const y = (v) => pad.top + (1 - (v - low) / (high - low || 1)) * (height - pad.top - pad.bottom);
  const slot = (width - pad.left - pad.right) / Math.max(1, labels.length);
  const svg = s("svg", { class: "svg-chart svg-bars", "data-chart": name, viewBox: `0 0 ${width} ${height}`, width, height, role: "img", "aria-label": title });
  svg.append(s("title", {}, title));
  for (const tick of niceTicks(low, high)) {
    svg.append(s("line", { x1: pad.left, x2: width - pad.right, y1: y(tick), y2: y(tick), stroke: tick === 0 ? "#555" : GRID, "stroke-width": 1 }));
    svg.append(s("text", { x: pad.left - 6, y: y(tick) + 4, "text-anchor": "end", "font-size": FONT, fill: INK }, format(tick)));
  }
  labels.forEach((label, i) => {
    const middle = pad.left + (i + 0.5) * slot;
    const value = values[i];
    svg.append(s("text", { class: "x-tick", x: middle, y: height - pad.bottom + 16, "text-anchor": "middle", "font-size": FONT - 1, fill: INK }, label));
    if (!Number.isFinite(value)) {
      svg.append(s("text", { x: middle, y: y(0) - 4, "text-anchor": "middle", "font-size": FONT - 1, fill: INK }, DASH));
      return;
    }
    const top = Math.min(y(value), y(0));
    svg.append(
      s("rect", {
        class: "bar",
        x: middle - slot * 0.3,
        y: top,
        width: slot * 0.6,
        height: Math.max(1, Math.abs(y(value) - y(0))),
        fill: color || (value >= 0 ? BAR_GAIN : BAR_LOSS),
        "data-label": label,
        "data-value": String(value),
      }),
    );
    const error = errors ? errors[i] : null;
    if (Number.isFinite(error)) {
      svg.append(s("line", { class: "whisker", x1: middle, x2: middle, y1: y(value - error), y2: y(value + error), stroke: INK, "stroke-width": 1 }));
      for (const end of [value - error, value + error]) svg.append(s("line", { x1: middle - 5, x2: middle + 5, y1: y(end), y2: y(end), stroke: INK, "stroke-width": 1 }));
    }
    const above = value >= 0;
    const reach = Number.isFinite(error) ? value + (above ? error : -error) : value;
    svg.append(s("text", { class: "bar-value", x: middle + (Number.isFinite(error) ? 8 : 0), y: above ? y(reach) - 4 : y(reach) + 12, "text-anchor": Number.isFinite(error) ? "start" : "middle", "font-size": FONT - 1, fill: INK }, format(value)));
  });
  svg.append(axes({ ...pad, bottom: pad.bottom - (key.length ? 22 : 0) }, width, height - (key.length ? 22 : 0), xLabel, yLabel));
  drawKey(svg, key, pad.left, height - 16);
  return svg;
}

/**
 * Horizontal bars, one a row, labelled on the left (names, sectors): `labels`, `values`, `format` for
 * the value written at each bar's end and the axis's ticks, `xLabel` the value axis with its unit.
 */
export function hbarChartSvg({ name, title, labels, values, format, xLabel, yLabel = null, width = 760, rowHeight = 18, labelWidth = 150, key = [] }) {
  const pad = { left: labelWidth + (yLabel ? 22 : 6), right: 70, top: 8, bottom: key.length ? 60 : 38 };
  const height = pad.top + labels.length * rowHeight + pad.bottom;
  const finite = values.filter(Number.isFinite);
  // Room left of the lowest bar for its value, written outside it (the right margin holds the highest's).
  const span = Math.max(0, ...finite) - Math.min(0, ...finite);
  const low = Math.min(0, ...finite) - (Math.min(0, ...finite) < 0 ? span * 0.12 : 0);
  const high = Math.max(0, ...finite) + (Math.max(0, ...finite) > 0 ? span * 0.02 : 0);
  const x = (v) => pad.left + ((v - low) / (high - low || 1)) * (width - pad.left - pad.right);
  const svg = s("svg", { class: "svg-chart svg-hbars", "data-chart": name, viewBox: `0 0 ${width} ${height}`, width, height, role: "img", "aria-label": title });
  svg.append(s("title", {}, title));
  const bottom = height - pad.bottom;
  for (const tick of niceTicks(low, high)) {
    svg.append(s("line", { x1: x(tick), x2: x(tick), y1: pad.top, y2: bottom, stroke: tick === 0 ? "#555" : GRID, "stroke-width": 1 }));
    svg.append(s("text", { class: "x-tick", x: x(tick), y: bottom + 14, "text-anchor": "middle", "font-size": FONT - 1, fill: INK }, format(tick)));
  }
  labels.forEach((label, i) => {
    const top = pad.top + i * rowHeight;
    const value = values[i];
    svg.append(s("text", { class: "row-label", x: pad.left - 6, y: top + rowHeight / 2 + 4, "text-anchor": "end", "font-size": FONT - 1, fill: INK }, label));
    if (!Number.isFinite(value)) {
      svg.append(s("text", { x: x(0) + 4, y: top + rowHeight / 2 + 4, "font-size": FONT - 1, fill: INK }, DASH));
      return;
    }
    const left = Math.min(x(value), x(0));
    svg.append(
      s("rect", {
        class: "bar",
        x: left,
        y: top + 2,
        width: Math.max(1, Math.abs(x(value) - x(0))),
        height: rowHeight - 4,
        fill: value >= 0 ? BAR_GAIN : BAR_LOSS,
        "data-label": label,
        "data-value": String(value),
      }),
    );
    const outside = value >= 0 ? x(value) + 4 : x(value) - 4;
    svg.append(s("text", { class: "bar-value", x: outside, y: top + rowHeight / 2 + 4, "text-anchor": value >= 0 ? "start" : "end", "font-size": FONT - 1, fill: INK }, format(value)));
  });
  const shift = key.length ? 22 : 0;
  svg.append(axes({ ...pad, bottom: pad.bottom - shift }, width, height - shift, xLabel, yLabel));
  drawKey(svg, key, pad.left, height - 16);
  return svg;
}

/** A whisker of [lower, upper] with the point estimate, on the scale [min, max] shared by a table. */
export function intervalSvg(value, lower, upper, [min, max], width = 180) {
  const height = 18;
  const x = (v) => 6 + ((v - min) / (max - min || 1)) * (width - 12);
  const svg = s("svg", { class: "interval", width, height, viewBox: `0 0 ${width} ${height}`, role: "img" });
  if (![lower, upper].every(Number.isFinite)) {
    svg.setAttribute("aria-label", DASH);
    return svg;
  }
  svg.setAttribute("aria-label", `${lower} to ${upper}`);
  if (min < 0 && max > 0) svg.append(s("line", { x1: x(0), x2: x(0), y1: 1, y2: height - 1, stroke: "#888", "stroke-dasharray": "2 2" }));
  svg.append(s("line", { x1: x(lower), x2: x(upper), y1: 9, y2: 9, stroke: "#1f5fbf", "stroke-width": 2 }));
  for (const end of [lower, upper]) svg.append(s("line", { x1: x(end), x2: x(end), y1: 4, y2: 14, stroke: "#1f5fbf", "stroke-width": 2 }));
  if (Number.isFinite(value)) svg.append(s("circle", { cx: x(value), cy: 9, r: 3.5, fill: "#111" }));
  return svg;
}

/**
 * Points on two value axes (a figure against a parameter): `points`, each `{x, y, label}` as served
 * (a point without a finite x or y is left out), `xLabel` and `yLabel` with their units, `formatX`
 * and `formatY` for the ticks. Each point is a circle carrying its served `data-x`, `data-y` and
 * `data-label`, titled with its label; the y axis holds 0.
 */
export function scatterSvg({ name, title, points, formatX, formatY, xLabel, yLabel, width = 760, height = 230, color = "#1f5fbf" }) {
  const pad = { left: 78, right: 18, top: 12, bottom: 42 };
  const shown = points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
  const xs = shown.map((p) => p.x);
  const [xLow, xHigh] = xs.length ? [Math.min(...xs), Math.max(...xs)] : [0, 1];
  const xRoom = (xHigh - xLow || Math.abs(xHigh) || 1) * 0.05;
  const [x0, x1] = [xLow - xRoom, xHigh + xRoom];
  const [y0, y1] = paddedRange(shown.map((p) => p.y));
  const x = (v) => pad.left + ((v - x0) / (x1 - x0 || 1)) * (width - pad.left - pad.right);
  const y = (v) => pad.top + (1 - (v - y0) / (y1 - y0 || 1)) * (height - pad.top - pad.bottom);
  const svg = s("svg", { class: "svg-chart svg-scatter", "data-chart": name, viewBox: `0 0 ${width} ${height}`, width, height, role: "img", "aria-label": title });
  svg.append(s("title", {}, title));
  const bottom = height - pad.bottom;
  for (const tick of niceTicks(y0, y1)) {
    svg.append(s("line", { x1: pad.left, x2: width - pad.right, y1: y(tick), y2: y(tick), stroke: tick === 0 ? "#555" : GRID, "stroke-width": 1 }));
    svg.append(s("text", { x: pad.left - 6, y: y(tick) + 4, "text-anchor": "end", "font-size": FONT, fill: INK }, formatY(tick)));
  }
  for (const tick of niceTicks(x0, x1).filter((t) => t >= x0 && t <= x1)) {
    svg.append(s("line", { x1: x(tick), x2: x(tick), y1: bottom, y2: bottom + 4, stroke: INK, "stroke-width": 1 }));
    svg.append(s("text", { class: "x-tick", x: x(tick), y: bottom + 16, "text-anchor": "middle", "font-size": FONT - 1, fill: INK }, formatX(tick)));
  }
  svg.append(axes(pad, width, height, xLabel, yLabel));
  for (const p of shown) {
    svg.append(
      s(
        "circle",
        { class: "point", cx: x(p.x).toFixed(1), cy: y(p.y).toFixed(1), r: 4, fill: color, stroke: "#fff", "stroke-width": 1, "data-x": String(p.x), "data-y": String(p.y), "data-label": p.label },
        s("title", {}, `${p.label}: ${formatX(p.x)}, ${formatY(p.y)}`),
      ),
    );
  }
  return svg;
}
