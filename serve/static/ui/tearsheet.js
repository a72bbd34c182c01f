// A printable tear sheet of one alpha (#/alphas/{alpha}/tearsheet): headline metrics, the
// cumulative return against the market benchmark (shaded after the alpha's split), live against
// backtest, the drawdown episodes, risk, checks, significance and costs on one page. Its charts are SVG, so the page prints (print CSS in dashboard.css: no navigation, page
// breaks between blocks, dashes on the second line for black and white) and "Download HTML" saves
// it as one self-contained file (tearsheet_export.js). Each block that fails shows its error.

import { alphaPath, apiGet, apiGetAll, isAbort } from "./api.js";
import { renderChecks } from "./checks_panel.js";
import { costFigures } from "./costs_panel.js";
import { add, errorBox, fill, h, note } from "./dom.js";
import { DEEPEST, drawdownTable } from "./drawdowns_panel.js";
import { pct, pp } from "./format.js";
import { LIVE_LABEL } from "./labels.js";
import { renderLive } from "./live_panel.js";
import { renderRisk } from "./risk_panel.js";
import { renderSignificance } from "./significance_panel.js";
import { entryTable, unreproducedBadge } from "./stat_entry.js";
import { legendSvg, lineChartSvg } from "./svg.js";
import { downloadTearsheet } from "./tearsheet_export.js";
import { BENCHMARK } from "./market.js";

const HEADLINE = ["information_ratio", "excess_sharpe", "ic", "icir", "max_drawdown_pct", "turnover"];

export async function renderTearsheet(main, alpha, { signal }) {
  const id = encodeURIComponent(alpha);
  const sheet = h("article", { class: "tearsheet", id: "tearsheet", "data-alpha": alpha });
  const download = h("button", { type: "button", id: "download-tearsheet", disabled: true }, "Download HTML");
  fill(
    main,
    h(
      "div",
      { class: "tearsheet-actions no-print" },
      h("a", { href: `#/alphas/${id}`, class: "back" }, `‹ ${alpha}`),
      h("button", { type: "button", id: "print-tearsheet", onclick: () => window.print() }, "Print"),
      download,
    ),
    sheet,
  );
  const get = (suffix, params = {}) => apiGet(alphaPath(alpha, suffix), params, { signal });
  const asked = {
    description: get(""),
    metrics: get("/metrics", { granularity: "overall" }),
    equity: apiGetAll(alphaPath(alpha, "/equity-curve"), { book: "long_short" }, { limit: 500, signal }),
    drawdowns: apiGetAll(alphaPath(alpha, "/analytics/drawdowns"), { book: "long_short" }, { limit: 500, signal }),
    risk: get("/analytics/risk", { book: "long_short" }),
    checks: get("/analytics/checks", { book: "long_short" }),
    significance: get("/analytics/significance"),
    costs: get("/analytics/costs", { book: "long_short" }),
    live: get("/analytics/live", { book: "long_short" }),
  };
  const names = Object.keys(asked);
  const settled = await Promise.allSettled(Object.values(asked));
  if (settled.some((s) => s.status === "rejected" && isAbort(s.reason))) return;
  const got = Object.fromEntries(names.map((n, i) => [n, settled[i]]));
  let benchmark = null;
  const equity = got.equity.status === "fulfilled" ? got.equity.value : null;
  if (equity && equity.data.length) {
    const [first, last] = [equity.data[0].date, equity.data[equity.data.length - 1].date];
    try {
      benchmark = { status: "fulfilled", value: await apiGetAll(`/v1/benchmarks/${BENCHMARK}/daily`, { from: first, to: last }, { limit: 500, signal }) };
    } catch (error) {
      if (isAbort(error)) return;
      benchmark = { status: "rejected", reason: error };
    }
  }
  const embedded = {}; // the answers the sheet shows, saved with it
  for (const [name, outcome] of Object.entries({ ...got, benchmark })) {
    if (outcome && outcome.status === "fulfilled") embedded[name] = outcome.value;
  }
  drawSheet(sheet, alpha, got, benchmark);
  download.disabled = false;
  download.addEventListener("click", () => downloadTearsheet(sheet, alpha, embedded));
}

function block(id, title, outcome, draw) {
  const body = h("div", { class: "block-body" });
  const section = h("section", { class: "sheet-block", id: `sheet-${id}` }, h("h2", {}, title), body);
  if (!outcome) body.append(note("Not available."));
  else if (outcome.status === "rejected") body.append(errorBox(outcome.reason, `${title} could not be read`));
  else draw(body, outcome.value);
  return section;
}

function drawSheet(sheet, alpha, got, benchmark) {
  const described = got.description.status === "fulfilled" ? got.description.value.data : null;
  fill(
    sheet,
    h(
      "header",
      { class: "sheet-header" },
      h("h1", {}, described && described.name ? described.name : alpha),
      h("p", { class: "subtitle" }, h("code", { class: "sheet-alpha" }, alpha), described && described.tldr ? ` · ${described.tldr}` : ""),
      h("p", { class: "muted" }, `Tear sheet generated ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC from this server's /v1 API.`),
    ),
    block("headline", "Headline metrics", got.metrics, (body, answer) => add(body, headlineTable(answer))),
    block("equity", `Cumulative return against ${BENCHMARK}`, got.equity, (body, equity) => drawEquity(body, alpha, equity, benchmark, splitOf(got.live))),
    block("live", "Live against backtest", got.live, (body, answer) => renderLive(body, answer, { charts: "the chart above is shaded after it" })),
    block("drawdowns", "Deepest drawdown episodes", got.drawdowns, (body, answer) =>
      add(body, drawdownTable(answer.data, DEEPEST), note(`${answer.data.length} episodes in all; the ${Math.min(DEEPEST, answer.data.length)} deepest shown.`, "caption")),
    ),
    block("risk", `Risk against ${BENCHMARK}`, got.risk, (body, answer) => renderRisk(body, answer)),
    block("checks", "Checks against the policy", got.checks, (body, answer) => renderChecks(body, answer)),
    block("significance", "Significance", got.significance, (body, answer) => renderSignificance(body, answer)),
    block("costs", "Costs", got.costs, (body, answer) => add(body, entryTable(costFigures(answer.data), { className: "data entries costs" }))),
  );
}

// /metrics core figures: the ICIR labelled with the basis the run sealed it on, and the sealed IC figures
// flagged when the cross-sections do not reproduce the sealed mean IC.
function headlineTable(answer) {
  const core = answer.data.core;
  const grid = entryTable(HEADLINE.map((key) => [key, core[key]]), { className: "data entries headline" });
  const flag = unreproducedBadge(answer.meta.warnings);
  for (const key of flag ? ["ic", "icir"] : []) {
    grid.querySelector(`th[data-figure='${key}']`).append(" ", flag.cloneNode(true));
    const cell = grid.querySelector(`th[data-figure='${key}'] + td`); // a flagged figure is not coloured as a gain
    cell.classList.remove("better", "worse");
    cell.classList.add("ic-unreproduced");
  }
  return grid;
}

/** The split date of the live answer, when it was read. */
function splitOf(live) {
  return live.status === "fulfilled" ? live.value.data.split_date : null;
}

function drawEquity(body, alpha, equity, benchmark, split) {
  if (equity.data.length === 0) {
    body.append(note("This run has no long_short ledger."));
    return;
  }
  const bench = benchmark && benchmark.status === "fulfilled" ? benchmark.value : null;
  const market = new Map((bench ? bench.data : []).map((r) => [r.date, r.cumulative_return]));
  const dates = equity.data.map((r) => r.date);
  const basis = bench && bench.meta.summary ? bench.meta.summary.return_basis : null;
  const series = [{ label: `${alpha} (long_short)`, values: equity.data.map((r) => (r.cumulative_return == null ? null : r.cumulative_return * 100)), color: "#1f5fbf" }];
  if (bench) series.push({ label: `${BENCHMARK} (${basis === "adjusted_close" ? "adjusted close" : "close"})`, values: dates.map((d) => (market.has(d) && market.get(d) != null ? market.get(d) * 100 : null)), color: "#e07b00", dash: "6 3" });
  const summary = equity.meta.summary || {};
  const chart = lineChartSvg({ name: "sheet-equity", title: "Cumulative return (%)", dates, series, format: (v) => `${v.toFixed(0)}%`, liveAfter: split });
  const shaded = chart.getAttribute("data-live-after");
  add(
    body,
    h(
      "p",
      { class: "summary", id: "sheet-equity-summary" },
      `${pct(summary.total_return)} over ${summary.sessions} sessions (${summary.first_date} to ${summary.last_date}); max drawdown ${pp(summary.max_drawdown_pct)}.`,
      bench && bench.meta.summary ? ` ${BENCHMARK}: ${pct(bench.meta.summary.total_return)}.` : "",
    ),
    legendSvg(shaded ? [...series, { label: `${LIVE_LABEL} after ${shaded}`, shade: true }] : series),
    chart,
    benchmark && benchmark.status === "rejected" ? errorBox(benchmark.reason, `${BENCHMARK} could not be read`) : null,
  );
}
