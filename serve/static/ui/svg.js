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

function niceTicks(min, max, count = 5) {
  const span = max - min || Math.abs(max) || 1;
  const raw = span / count;
  const step = 10 ** Math.floor(Math.log10(raw));
  const unit = [1, 2, 2.5, 5, 10].map((m) => m * step).find((m) => span / m <= count) || step * 10;
  const ticks = [];
  for (let v = Math.ceil(min / unit) * unit; v <= max + unit * 1e-9; v += unit) ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

/**
 * A line chart over dates: `dates` ("YYYY-MM-DD"), `series` = [{ label, values, color, dash }],
 * `format` for the y axis. Dashed series stay distinguishable in black and white. `liveAfter` (a
 * split date) shades what comes after it, as the alpha page's charts do (charts.js `shadeAfter`).
 */
export function lineChartSvg({ name, title, dates, series, format, width = 760, height = 240, liveAfter = null }) {
  const pad = { left: 64, right: 12, top: 12, bottom: 28 };
  const values = series.flatMap((x) => x.values).filter((v) => Number.isFinite(v));
  const low = Math.min(0, ...values);
  const high = Math.max(0, ...values);
  const times = dates.map((d) => Date.parse(`${d}T00:00:00Z`));
  const [t0, t1] = [times[0], times[times.length - 1]];
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
  for (const tick of niceTicks(low, high)) {
    svg.append(s("line", { x1: pad.left, x2: width - pad.right, y1: y(tick), y2: y(tick), stroke: tick === 0 ? "#555" : "#ddd", "stroke-width": 1 }));
    svg.append(s("text", { x: pad.left - 6, y: y(tick) + 4, "text-anchor": "end", "font-size": 11, fill: "#333" }, format(tick)));
  }
  const split = liveAfter ? Date.parse(`${liveAfter}T00:00:00Z`) : null;
  if (split !== null && t1 > split) {
    const from = x(Math.max(split, t0));
    svg.setAttribute("data-live-after", liveAfter);
    svg.append(
      s("rect", { class: "live-shade", x: from, y: pad.top, width: width - pad.right - from, height: height - pad.top - pad.bottom, fill: LIVE_SHADE }),
    );
  }
  const years = [...new Set(dates.map((d) => d.slice(0, 4)))];
  for (const year of years) {
    const first = dates.findIndex((d) => d.startsWith(year));
    svg.append(s("text", { x: x(times[first]), y: height - 8, "font-size": 11, fill: "#333" }, year));
  }
  series.forEach((line, k) => {
    let path = "";
    let pen = false;
    line.values.forEach((v, i) => {
      if (!Number.isFinite(v)) return;
      path += `${pen ? "L" : "M"}${x(times[i]).toFixed(1)},${y(v).toFixed(1)}`;
      pen = true;
    });
    svg.append(
      s("path", {
        d: path,
        fill: "none",
        stroke: line.color,
        "stroke-width": 1.6,
        "stroke-dasharray": line.dash || (k > 0 ? "6 3" : null),
        "data-series": line.label,
      }),
    );
  });
  return svg;
}

/** A legend for `lineChartSvg` as plain HTML-friendly SVG swatches (`shade`: the live part's ground). */
export function legendSvg(series) {
  const svg = s("svg", { class: "svg-legend", width: 760, height: 20, viewBox: "0 0 760 20" });
  let left = 4;
  series.forEach((line, k) => {
    if (line.shade) svg.append(s("rect", { x: left, y: 4, width: 24, height: 12, fill: LIVE_SHADE, stroke: "#888", "stroke-width": 0.5 }));
    else svg.append(s("line", { x1: left, x2: left + 24, y1: 10, y2: 10, stroke: line.color, "stroke-width": 2, "stroke-dasharray": line.dash || (k > 0 ? "6 3" : null) }));
    svg.append(s("text", { x: left + 30, y: 14, "font-size": 12, fill: "#222" }, line.label));
    left += 40 + line.label.length * 7;
  });
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
