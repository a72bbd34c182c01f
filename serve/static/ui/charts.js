// Charts drawn with the vendored uPlot (vendor/uplot, see vendor/README.md): time series and
// category bars. Each chart's wrapper carries `data-chart` (its name) and, once drawn,
// `data-drawn` and `data-series-colors` (the colours its series are stroked with).
//
// The legend reads without a pointer, so a printed page shows it too: with nothing hovered, a time
// chart's legend gives each series' latest value and the date of the last session, and a category
// chart's legend names its series alone (the values of the category hovered appear on hover).
//
// A time chart can shade its out-of-sample part (`shadeAfter`): everything after the alpha's split
// date (/analytics/live `split_date`, the last in-sample session) on a grey ground (labels.js), under the grid
// and the series, with the part's name and the date in its caption ("live (out of sample)" after an
// approval, else "out of sample after the research cutoff", ...: labels.js `outOfSample`). The wrapper then carries
// `data-live-after` (the split date) and, once painted, where the shading starts and the plot area
// in canvas pixels (`data-live-x`; `data-plot-left`, `-top`, `-width`, `-height`) and the x scale in
// seconds (`data-x-min`, `data-x-max`), which the browser tests check against the pixels.

import uPlot from "./vendor/uplot/uPlot.esm.js";
import { add, h } from "./dom.js";
import { DASH, dateSeconds } from "./format.js";
import { LIVE_SHADE, outOfSample } from "./labels.js";

export const COLORS = {
  alpha: "#1f5fbf",
  benchmark: "#e07b00",
  drawdown: "#c0392b",
  ic: "#2e8b57",
  deciles: "#6a3fb5",
  term: "#00838f",
  autocorrelation: "#b5179e",
};

const liveAfter = new WeakMap(); // plot -> the split date ("YYYY-MM-DD") it shades after

const HEIGHT = 240;
const AXIS = { stroke: "#39424e", grid: { stroke: "rgba(0,0,0,0.07)", width: 1 }, ticks: { show: false } };

function utc(seconds) {
  return uPlot.tzDate(new Date(seconds * 1e3), "Etc/UTC");
}

function widthOf(element) {
  return Math.max(280, Math.floor(element.clientWidth || element.parentElement?.clientWidth || 600));
}

/** Keep the chart as wide as its wrapper. */
function followWidth(plot, wrapper, height) {
  let width = widthOf(wrapper);
  new ResizeObserver(() => {
    const next = widthOf(wrapper);
    if (next !== width) {
      width = next;
      plot.setSize({ width, height });
    }
  }).observe(wrapper);
}

function wrapperFor(name, title, colors) {
  return h(
    "figure",
    { class: "chart", "data-chart": name, "data-series-colors": colors.join(",") },
    h("figcaption", {}, title),
  );
}

function mount(wrapper, container, options, data, height) {
  add(container, wrapper);
  const plot = new uPlot({ ...options, width: widthOf(wrapper), height }, data, wrapper);
  followWidth(plot, wrapper, height);
  wrapper.setAttribute("data-drawn", "");
  return plot;
}

/**
 * A time series chart. `x` in seconds (UTC); `series` = [{ label, values, color, bars, fill }].
 * `format` turns a y value into text (axis and legend); `sync` links cursors of several charts.
 */
export function timeChart(container, { name, title, x, series, format, height = HEIGHT, sync, zeroLine = true }) {
  const wrapper = wrapperFor(
    name,
    title,
    series.map((s) => s.color),
  );
  const day = (v) => utc(v).toISOString().slice(0, 10);
  const latest = series.map((s) => lastFinite(s.values)); // shown while nothing is hovered
  const options = {
    tzDate: utc,
    cursor: sync ? { sync: { key: sync } } : {},
    scales: { x: { time: true } },
    axes: [{ ...AXIS }, { ...AXIS, size: 64, values: (u, splits) => splits.map((v) => format(v)) }],
    series: [
      {
        label: "Date",
        value: (u, v, sidx, idx) => (idx == null ? (x.length ? `${day(x[x.length - 1])} (latest)` : "") : v == null ? "" : day(v)),
      },
      ...series.map((s, k) => ({
        label: s.label,
        stroke: s.color,
        width: s.bars ? 0 : 2,
        fill: s.bars ? s.color : s.fill,
        paths: s.bars ? uPlot.paths.bars({ size: [0.8, 12] }) : undefined,
        points: { show: false },
        spanGaps: true,
        value: (u, v, sidx, idx) => {
          const shown = idx == null ? latest[k] : v;
          return shown == null ? DASH : format(shown);
        },
      })),
    ],
    hooks: { drawClear: [drawLiveShade], ...(zeroLine ? { drawAxes: [drawZeroLine] } : {}) },
  };
  return mount(wrapper, container, options, [x, ...series.map((s) => s.values)], height);
}

/**
 * Shade `plot` (a time chart) after `split` ("YYYY-MM-DD", the last in-sample session), or remove
 * the shading (`split` null). Nothing is shaded, and no label is shown, when no session of the
 * chart is after the split.
 */
export function shadeAfter(plot, split, origin = null) {
  const wrapper = plot.root.closest("figure.chart");
  const xs = plot.data[0];
  const shaded = split && xs.length > 0 && xs[xs.length - 1] > dateSeconds(split) ? split : null;
  if (shaded) liveAfter.set(plot, shaded);
  else liveAfter.delete(plot);
  wrapper.querySelector(".live-key")?.remove();
  for (const name of ["data-live-after", "data-live-x"]) wrapper.removeAttribute(name);
  if (shaded) {
    wrapper.setAttribute("data-live-after", shaded);
    wrapper
      .querySelector("figcaption")
      .append(
        h("span", { class: "live-key" }, h("span", { class: "live-swatch", "aria-hidden": "true" }), outOfSample(origin).after(shaded)),
      );
  }
  plot.redraw(false, false);
}

/** The grey ground from the split to the right edge of the plot area (a uPlot drawClear hook). */
function drawLiveShade(u) {
  const wrapper = u.root.closest("figure.chart");
  const { left, top, width, height } = u.bbox;
  const measures = {
    "data-plot-left": left,
    "data-plot-top": top,
    "data-plot-width": width,
    "data-plot-height": height,
    "data-x-min": u.scales.x.min,
    "data-x-max": u.scales.x.max,
  };
  for (const [name, value] of Object.entries(measures)) wrapper?.setAttribute(name, String(value));
  const split = liveAfter.get(u);
  if (!split) return;
  const from = Math.max(left, Math.round(u.valToPos(dateSeconds(split), "x", true)));
  if (from >= left + width) return;
  const { ctx } = u;
  ctx.save();
  ctx.fillStyle = LIVE_SHADE;
  ctx.fillRect(from, top, left + width - from, height);
  ctx.restore();
  wrapper?.setAttribute("data-live-x", String(from));
}

/**
 * Bars (or a line with points) over categories. `labels` name the categories; `values` their heights.
 */
export function categoryChart(
  container,
  { name, title, labels, values, color, format, axis, line = false, height = HEIGHT },
) {
  const wrapper = wrapperFor(name, title, [color]);
  const x = labels.map((_, i) => i + 1);
  const label = (v) => (Number.isInteger(v) && v >= 1 && v <= labels.length ? labels[v - 1] : "");
  const options = {
    cursor: { points: { show: line } },
    legend: { show: true },
    scales: {
      x: { time: false, range: () => [0.4, labels.length + 0.6] },
      y: { range: (u, min, max) => paddedIncludingZero(min, max) },
    },
    axes: [
      { ...AXIS, splits: () => x, values: (u, splits) => splits.map(label) },
      { ...AXIS, size: 64, values: (u, splits) => splits.map((v) => format(v)) },
    ],
    series: [
      { label: axis, value: (u, v) => label(v) },
      {
        label: title,
        stroke: color,
        width: line ? 2 : 0,
        fill: line ? undefined : color,
        paths: line ? undefined : uPlot.paths.bars({ size: [0.6, 80], align: 0 }),
        points: { show: line, size: 7, fill: color },
        value: (u, v) => (v == null ? DASH : format(v)),
      },
    ],
    hooks: { drawAxes: [drawZeroLine], setLegend: [markIdle] },
  };
  return mount(wrapper, container, options, [x, values], height);
}

/** The legend without values while no category is hovered (styled in dashboard.css). */
function markIdle(u) {
  u.root.querySelector(".u-legend")?.classList.toggle("idle", u.legend.idx == null);
}

function lastFinite(values) {
  for (let i = values.length - 1; i >= 0; i -= 1) if (Number.isFinite(values[i])) return values[i];
  return null;
}

function paddedIncludingZero(min, max) {
  const low = Math.min(0, min ?? 0);
  const high = Math.max(0, max ?? 0);
  const span = high - low || 1;
  return [low < 0 ? low - span * 0.08 : 0, high > 0 ? high + span * 0.08 : low < 0 ? 0 : 1];
}

/** A thin line at y = 0, so the sign of bars and returns reads at a glance. */
function drawZeroLine(u) {
  const [min, max] = [u.scales.y.min, u.scales.y.max];
  if (!(min < 0 && max > 0)) return;
  const y = Math.round(u.valToPos(0, "y", true));
  const { ctx } = u;
  ctx.save();
  ctx.strokeStyle = "rgba(0,0,0,0.35)";
  ctx.lineWidth = 1;
  ctx.beginPath();
  ctx.moveTo(u.bbox.left, y + 0.5);
  ctx.lineTo(u.bbox.left + u.bbox.width, y + 0.5);
  ctx.stroke();
  ctx.restore();
}
