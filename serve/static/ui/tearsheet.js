// A printable tear sheet of one alpha (#/alphas/{alpha}/tearsheet), to attach to an investment memo:
// one topic a printed page (print_pages.js), each page ending with the provenance (the alpha, its
// build, data as of, the checks policy) and "page n of m". It opens with the decision
// (decision_summary.js): the standing and since when, the checks' verdict with each failed check
// and its reason, the part after the split against the backtest (live only after an approval),
// capacity at the reference capital, fragility, the costs and the correlation to the reference set.
// Then: the headline figures and the cumulative return against the market benchmark; the underwater
// curve and the deepest drawdowns; the monthly returns as a year × month heatmap; the rolling
// information ratio and beta; where the P&L came from (names, legs, sectors, fragility,
// concentration); factor attribution and exposures (one small chart a style factor); quantile
// returns; the signal's IC by month and by sector; live against backtest; the expected live
// information ratio and the IC's half-life by horizon (decay); risk; checks with the
// reason of every verdict; significance; the bootstrap intervals of the headline figures; the
// catalogue-wide Rademacher bound; the overfitting of the trial family and its family tests (SPA, StepM, the model confidence set); costs;
// capacity; the contribution to the approved book (meta-model contribution) and the crowding of the
// approved books. Its charts are SVG with axes, units and a
// legend, so the page prints as shown (print CSS in dashboard.css) and "Download HTML" saves it as
// one self-contained file (tearsheet_export.js). A page whose request fails shows the error in its place.

import { alphaPath, apiGet, apiGetAll, isAbort } from "./api.js";
import { concentrationBlock, fragilityBlock, legsBlock, namesBlock, sectorsBlock } from "./attribution_panel.js";
import { renderChecks } from "./checks_panel.js";
import { capacityBlock, capacityGridBlock } from "./capacity_panel.js";
import { residualBlock } from "./residual_panel.js";
import { crowdingBlock, mmcBlock } from "./mmc_panel.js";
import { subUniverseBlock } from "./sub_universe_panel.js";
import { overfittingBlock } from "./overfitting_panel.js";
import { familyTestsBlock } from "./family_tests_panel.js";
import { costCapitalBlock, costCurveBlock, costFigures } from "./costs_panel.js";
import { haircutBlock, icDecayBlock } from "./decay_panel.js";
import { monitoringLine } from "./monitoring_panel.js";
import { decisionSummary, summaryRequests } from "./decision_summary.js";
import { factorExposuresBlock, factorReturnsBlock } from "./factors_panel.js";
import { regimesBlock } from "./regimes_panel.js";
import { add, errorBox, fill, h, note, warningList } from "./dom.js";
import { DEEPEST, drawdownTable } from "./drawdowns_panel.js";
import { DASH, fixed, int, MONTHS, pct, pp } from "./format.js";
import { figureName, figureNameWithBasis, figureValue, outOfSample } from "./labels.js";
import { renderLive } from "./live_panel.js";
import { icByMonthBlock, icByMonthOfYearBlock, icBySectorBlock, quantileBarsBlock, quantileCurvesBlock, quantileParams } from "./quantiles_panel.js";
import { BENCHMARK } from "./market.js";
import { answered, buildOf, generatedAt, paginate, policyOf, sheetPage } from "./print_pages.js";
import { renderRisk } from "./risk_panel.js";
import { renderSignificance, significanceTestsBlock } from "./significance_panel.js";
import { catalogueBoundBlock } from "./catalogue_bound_panel.js";
import { renderUncertainty } from "./uncertainty_panel.js";
import { entryTable, unreproducedBadge } from "./stat_entry.js";
import { divergingFill, heatmapSvg, legendSvg, lineChartSvg } from "./svg.js";
import { downloadTearsheet } from "./tearsheet_export.js";

const HEADLINE = ["information_ratio", "excess_sharpe", "ic", "icir", "max_drawdown_pct", "annual_turnover"];
const ROLLING_WEEKS = 26; const COLORS = { alpha: "#1f5fbf", benchmark: "#e07b00", drawdown: "#c0392b", ic: "#2e8b57", beta: "#6a3fb5" };

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
      note("One topic a page, A4 or Letter, portrait; each page's footer names the build and the page.", "muted print-hint"),
    ),
    sheet,
  );
  const get = (suffix, params = {}) => apiGet(alphaPath(alpha, suffix), params, { signal });
  const all = (suffix, params) => apiGetAll(alphaPath(alpha, suffix), params, { limit: 500, signal });
  const asked = {
    ...summaryRequests(get), // page 1's, the answers the alpha page's summary asks too
    description: get(""),
    metrics: get("/metrics", { granularity: "overall" }),
    equity: all("/equity-curve", { book: "long_short" }),
    returns: get("/analytics/returns", { book: "long_short" }),
    drawdowns: all("/analytics/drawdowns", { book: "long_short" }),
    rolling: all("/analytics/rolling", { book: "long_short", window: ROLLING_WEEKS }),
    risk: get("/analytics/risk", { book: "long_short" }),
    significance: get("/analytics/significance"),
    familyTests: get("/analytics/family_tests"),
    catalogueBound: get("/analytics/catalogue_bound"),
    decay: get("/analytics/decay", { book: "long_short" }),
    quantiles: get("/analytics/quantiles", quantileParams()),
    sub_universe: get("/analytics/sub_universe"),
    crowding: apiGet("/v1/analytics/crowding", {}, { signal }),
  };
  const names = Object.keys(asked);
  const settled = await Promise.allSettled(Object.values(asked));
  if (settled.some((s) => s.status === "rejected" && isAbort(s.reason))) return;
  const got = Object.fromEntries(names.map((n, i) => [n, settled[i]]));
  let benchmark = null;
  const equity = answered(got.equity);
  if (equity && equity.data.length) {
    const [first, last] = [equity.data[0].date, equity.data[equity.data.length - 1].date];
    try {
      // From the book's first session: the route serves its cumulative return and drawdown from there (its base, 0).
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
  drawSheet(sheet, alpha, { ...got, benchmark });
  download.disabled = false;
  download.addEventListener("click", () => downloadTearsheet(sheet, alpha, embedded));
}



/** A titled block of a page: the drawing of its answer, or the error that stopped it. */
function block(id, title, outcome, draw) {
  const body = h("div", { class: "block-body" });
  const section = h("section", { class: "sheet-block", id: `sheet-${id}` }, title ? h("h3", {}, title) : null, body);
  if (!outcome) body.append(note("Not available."));
  else if (outcome.status === "rejected") body.append(errorBox(outcome.reason, `${title || "This block"} could not be read`));
  else draw(body, outcome.value);
  return section;
}

/** The benchmark's rows on the book's sessions, and its label: its cumulative return and drawdown
 * as /v1/benchmarks/{symbol}/daily serves them for the window from the book's first session. */
function marketOf(equity, benchmark) {
  const bench = answered(benchmark);
  const dates = equity.data.map((r) => r.date);
  const rows = new Map((bench ? bench.data : []).map((r) => [r.date, r]));
  const basis = bench && bench.meta.summary ? bench.meta.summary.return_basis : null;
  const label = `${BENCHMARK} (${basis === "adjusted_close" ? "adjusted close" : "close"})`;
  const column = (field) => dates.map((d) => (rows.has(d) ? rows.get(d)[field] : null));
  return { bench, dates, label, cumulative: column("cumulative_return"), drawdown: column("drawdown_pct") };
}

function drawSheet(sheet, alpha, got) {
  const described = answered(got.description);
  const equity = answered(got.equity);
  const live = answered(got.live);
  const split = live ? live.data.split_date : null;
  const origin = live ? live.data.split_origin : null; // names the part after the split: live only after an approval
  const market = equity && equity.data.length ? marketOf(equity, got.benchmark) : null;
  const provenance = provenanceOf(alpha, got, equity);
  const span = market ? [market.dates[0], market.dates[market.dates.length - 1]] : null; // the rolling charts' date axis
  const pages = [
    sheetPage(
      "summary",
      "Decision summary",
      h(
        "header",
        { class: "sheet-header" },
        h("h1", {}, described && described.data.name ? described.data.name : alpha),
        h("p", { class: "subtitle" }, h("code", { class: "sheet-alpha" }, alpha), described && described.data.tldr ? ` · ${described.data.tldr}` : ""),
        provenanceList(provenance),
      ),
      h("section", { class: "sheet-block", id: "sheet-summary" }, decisionSummary(alpha, got)),
    ),
    sheetPage(
      "overview",
      `Performance against ${BENCHMARK}`,
      block("headline", "Headline metrics", got.metrics, (body, answer) => add(body, headlineTable(answer))),
      block("equity", `Cumulative return against ${BENCHMARK}`, got.equity, (body) => drawEquity(body, alpha, equity, market, got.benchmark, split, origin)),
    ),
    sheetPage(
      "drawdowns",
      "Drawdowns",
      block("underwater", "Underwater curve", got.equity, (body) => drawUnderwater(body, alpha, equity, market, split, origin)),
      block("drawdowns", "Deepest drawdown episodes", got.drawdowns, (body, answer) =>
        add(body, drawdownTable(answer.data, DEEPEST), note(`${int(answer.data.length)} episodes in all; the ${Math.min(DEEPEST, answer.data.length)} deepest shown (GET …/analytics/drawdowns).`, "caption")),
      ),
    ),
    sheetPage(
      "monthly",
      "Monthly returns",
      block("monthly", null, got.returns, (body, answer) => drawMonthly(body, answer)),
    ),
    sheetPage(
      "rolling",
      `Rolling information ratio and beta to ${BENCHMARK}`,
      block("rolling-ir", `Information ratio, trailing ${ROLLING_WEEKS} weeks`, got.rolling, (body, answer) => drawRollingIr(body, answer, split, origin, span)),
      block("rolling-beta", `Beta to ${BENCHMARK} over a trailing window`, got.returns, (body, answer) => drawRollingBeta(body, alpha, answer, split, origin)),
    ),
    sheetPage(
      "attribution",
      "Where the P&L came from",
      block("attribution-names", "Contributors and detractors", got.attribution, (body, answer) => add(body, namesBlock(answer))),
      block("attribution-legs", "Long leg against short leg", got.attribution, (body, answer) => add(body, legsBlock(answer))),
    ),
    sheetPage("sectors", "P&L by sector", block("attribution-sectors", null, got.attribution, (body, answer) => add(body, sectorsBlock(answer)))),
    sheetPage(
      "fragility",
      "Fragility and concentration",
      block("attribution-fragility", "Fragility", got.attribution, (body, answer) => add(body, fragilityBlock(answer))),
      block("attribution-concentration", "Concentration", got.attribution, (body, answer) => add(body, concentrationBlock(answer))),
    ),
    sheetPage("factors", "Factor attribution", block("factors", null, got.factors, (body, answer) => add(body, factorReturnsBlock(answer)))),
    sheetPage("factor-exposures", "Factor exposures over time", block("factor-exposures", null, got.factors, (body, answer) => add(body, factorExposuresBlock(answer)))),
    sheetPage(
      "quantiles",
      "Quantile returns",
      block("quantile-returns", "Mean forward return by score quantile", got.quantiles, (body, answer) => add(body, quantileBarsBlock(answer))),
      block("quantile-curves", "Cumulative return by quantile", got.quantiles, (body, answer) => add(body, quantileCurvesBlock(answer))),
    ),
    sheetPage(
      "signal",
      "Signal: IC by month",
      block("ic-monthly", "By calendar month", got.quantiles, (body, answer) => add(body, icByMonthBlock(answer))),
      block("ic-month-of-year", "By month of the year", got.quantiles, (body, answer) => add(body, icByMonthOfYearBlock(answer))),
      block("rolling-ic", `Mean IC, trailing ${ROLLING_WEEKS} weeks`, got.rolling, (body, answer) => drawRollingIc(body, answer, split, origin, span)),
    ),
    sheetPage("sub-universe", "Signal: robust to where it trades (sub-universe test)", block("sub-universe", null, got.sub_universe, (body, answer) => add(body, subUniverseBlock(answer)))),
    sheetPage("sector-ic", "Signal: IC by sector", block("ic-sectors", null, got.quantiles, (body, answer) => add(body, icBySectorBlock(answer)))),
    sheetPage("live", live && split ? outOfSample(origin).title : "Live against backtest", block("live", null, got.live, (body, answer) => renderLive(body, answer, { charts: "the charts of this sheet are shaded after it" }))),
    sheetPage(
      "decay",
      "The live haircut and the CUSUM",
      block("decay", null, got.decay, (body, answer) => add(body, haircutBlock(answer))),
      block("monitoring", "Is it still working? (CUSUM)", got.monitoring, (body, answer) => add(body, monitoringLine(answer))),
    ),
    sheetPage("ic-decay", "Signal: the IC's half-life by horizon", block("ic-decay", null, got.decay, (body, answer) => add(body, icDecayBlock(answer)))),
    sheetPage("risk", `Risk against ${BENCHMARK}`, block("risk", null, got.risk, (body, answer) => renderRisk(body, answer))),
    sheetPage("regimes", `By regime of ${BENCHMARK}`, block("regimes", null, got.regimes, (body, answer) => add(body, regimesBlock(answer)))),
    sheetPage("residual", "What is new against the catalogue", block("residual", null, got.residual, (body, answer) => add(body, residualBlock(answer)))),
    sheetPage("mmc", "Contribution to the approved book (meta-model contribution)", block("mmc", null, got.mmc, (body, answer) => add(body, mmcBlock(answer)))),
    sheetPage("crowding", "Crowding of the approved books", block("crowding", null, got.crowding, (body, answer) => add(body, crowdingBlock(answer)))),
    sheetPage("checks", "Checks against the policy", block("checks", null, got.checks, (body, answer) => renderChecks(body, answer, { reasonRows: true }))),
    sheetPage("significance", "Significance", block("significance", null, got.significance, (body, answer) => renderSignificance(body, answer, { tests: false }))),
    // The same answer's multiple testing and haircut on a page of their own: each page prints on one.
    sheetPage("significance-tests", "Significance: multiple testing and haircut Sharpe ratios", block("significance-tests", null, got.significance, (body, answer) => add(body, significanceTestsBlock(answer)))),
    sheetPage("catalogue-bound", "A bound over the whole catalogue (Rademacher anti-serum)", block("catalogue-bound", null, got.catalogueBound, (body, answer) => add(body, catalogueBoundBlock(answer)))),
    sheetPage("uncertainty", "Uncertainty: 95% bootstrap intervals", block("uncertainty", null, got.uncertainty, (body, answer) => renderUncertainty(body, answer))),
    sheetPage("overfitting", "Backtest overfitting of the trial family", block("overfitting", null, got.overfitting, (body, answer) => add(body, overfittingBlock(answer)))),
    sheetPage("family-tests", "Family tests: which variants are indistinguishable from the best", block("family-tests", null, got.familyTests, (body, answer) => add(body, familyTestsBlock(answer, { part: "members" })))),
    sheetPage("family-parameters", "Family tests: the Sharpe ratio across each parameter", block("family-parameters", null, got.familyTests, (body, answer) => add(body, familyTestsBlock(answer, { part: "parameters" })))),
    sheetPage("costs", "Costs", block("costs", null, got.costs, (body, answer) => add(body, entryTable(costFigures(answer.data), { className: "data entries costs" })))),
    sheetPage("cost-curve", "Costs: the net information ratio against the cost", block("cost-curve", null, got.costs, (body, answer) => add(body, costCurveBlock(answer)))),
    sheetPage("cost-capital", "Costs rising with participation", block("cost-capital", null, got.costs, (body, answer) => add(body, costCapitalBlock(answer)))),
    sheetPage("capacity", "Capacity", block("capacity", null, got.capacity, (body, answer) => add(body, capacityBlock(answer)))),
    sheetPage("capacity-grid", "Capacity over a grid of capitals", block("capacity-grid", null, got.capacity, (body, answer) => add(body, capacityGridBlock(answer)))),
  ];
  fill(sheet, pages);
  paginate(sheet, provenance.footer);
}

/**
 * What every printed page says it is: the alpha, the build its answers were served from (all of
 * them, should the alpha be republished while the sheet loaded), the last session of its data,
 * the policy the checks applied, and when the sheet was drawn.
 */
function provenanceOf(alpha, got, equity) {
  const builds = [...new Set(["description", "metrics", "equity", "returns", "risk", "checks", "costs", "live", "attribution", "capacity", "factors", "quantiles"].map((n) => buildOf(answered(got[n]))).filter(Boolean))];
  const summary = equity && equity.meta.summary ? equity.meta.summary : {};
  const checks = answered(got.checks);
  const policy = policyOf(checks) || (got.checks && got.checks.status === "rejected" ? `not read (${got.checks.reason.code})` : null);
  const benchmarkBuild = buildOf(answered(got.benchmark));
  const when = generatedAt();
  const facts = {
    alpha,
    build: builds.length ? builds.join(", ") : DASH,
    asOf: summary.last_date || DASH,
    policy: policy || DASH,
    benchmarkBuild,
    when,
  };
  const footer = [
    alpha,
    `build ${facts.build}`,
    `data as of ${facts.asOf}`,
    `checks policy: ${facts.policy}`,
    benchmarkBuild ? `${BENCHMARK} build ${benchmarkBuild}` : null,
    `generated ${when} from this server's /v1 API`,
  ];
  return { ...facts, footer };
}

function provenanceList(p) {
  const row = (term, value, key) => [h("dt", {}, term), h("dd", { "data-provenance": key }, value)];
  return h(
    "dl",
    { class: "provenance-list" },
    row("Alpha", h("code", {}, p.alpha), "alpha"),
    row("Build", p.build, "build"),
    row("Data as of", p.asOf, "as-of"),
    row("Checks policy", p.policy, "policy"),
    p.benchmarkBuild ? row(`${BENCHMARK} build`, p.benchmarkBuild, "benchmark-build") : null,
    row("Generated", `${p.when} from this server's /v1 API`, "generated"),
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

/** A chart and its legend (the part after the split named, by its origin, when the chart shades it). */
function chartWithLegend(chart, series, origin) {
  const shaded = chart.getAttribute("data-live-after");
  return [legendSvg(shaded ? [...series, { label: outOfSample(origin).after(shaded), shade: true }] : series), chart];
}

const percent = (v) => (v == null ? null : v * 100);
const axisPercent = (v) => `${fixed(v, Math.abs(v) < 10 && v !== Math.round(v) ? 1 : 0)}%`;

function drawEquity(body, alpha, equity, market, benchmark, split, origin) {
  if (equity.data.length === 0) {
    body.append(note("This run has no long_short ledger."));
    return;
  }
  const series = [{ label: `${alpha} (long_short)`, values: equity.data.map((r) => percent(r.cumulative_return)), color: COLORS.alpha, dash: null }];
  if (market.bench) series.push({ label: market.label, values: market.cumulative.map(percent), color: COLORS.benchmark, dash: "6 3" });
  const summary = equity.meta.summary || {};
  const chart = lineChartSvg({ name: "sheet-equity", title: "Cumulative return (%)", yLabel: "Cumulative return (%)", dates: market.dates, series, format: axisPercent, liveAfter: split });
  const benchTotal = market.bench && market.bench.meta.summary ? market.bench.meta.summary.total_return : null;
  add(
    body,
    h(
      "p",
      { class: "summary", id: "sheet-equity-summary" },
      `${pct(summary.total_return)} over ${summary.sessions} sessions (${summary.first_date} to ${summary.last_date}); max drawdown ${pp(summary.max_drawdown_pct)}.`,
      market.bench ? ` ${market.label} over the same sessions: ${pct(benchTotal)}.` : "",
    ),
    chartWithLegend(chart, series, origin),
    note("Each line compounds its daily returns from the book's first session: the book's cumulative_return of /equity-curve, the benchmark's of /v1/benchmarks daily, from that session (its base, 0).", "caption"),
    benchmark && benchmark.status === "rejected" ? errorBox(benchmark.reason, `${BENCHMARK} could not be read`) : null,
  );
}

function drawUnderwater(body, alpha, equity, market, split, origin) {
  if (equity.data.length === 0) {
    body.append(note("This run has no long_short ledger."));
    return;
  }
  const series = [{ label: `${alpha} (long_short)`, values: equity.data.map((r) => (r.drawdown_pct == null ? null : -r.drawdown_pct)), color: COLORS.drawdown, dash: null }];
  if (market.bench) series.push({ label: market.label, values: market.drawdown.map((v) => (v == null ? null : -v)), color: COLORS.benchmark, dash: "6 3" });
  const chart = lineChartSvg({ name: "sheet-underwater", title: "Drawdown from the running peak (% of the peak)", yLabel: "Drawdown (% of peak)", dates: market.dates, series, format: axisPercent, liveAfter: split, height: 220 });
  const summary = equity.meta.summary || {};
  add(
    body,
    chartWithLegend(chart, series, origin),
    note(`How far each book stands below its highest equity so far (drawdown_pct of /equity-curve, drawn below zero). Deepest: ${pp(summary.max_drawdown_pct)} on ${summary.max_drawdown_date ?? DASH}.`, "caption"),
  );
}

const BASIS_LABELS = { adjusted_close: "adjusted close", close: "close" };

/** The year × month grid of the book's compounded monthly returns, its year, and the benchmark's
 * year over the book's sessions: /analytics/returns as served. */
function drawMonthly(body, answer) {
  const data = answer.data;
  if (data.months.length === 0) {
    body.append(note("This run has no long_short ledger."));
    return;
  }
  const benchName = data.return_basis ? `${data.benchmark} (${BASIS_LABELS[data.return_basis] || data.return_basis})` : data.benchmark;
  const months = new Map(data.months.map((m) => [m.month, m.book_return]));
  // The colour scale only: the largest monthly move shown, so the strongest cell is fully tinted.
  const scale = Math.max(...data.months.map((m) => Math.abs(m.book_return)), 1e-12);
  // Each written as its term is on the alpha page's table (labels.js `figureValue`: a month to one decimal).
  const cell = (value, key) => (value == null ? { value: null, text: DASH } : { value, text: figureValue(key, value), fill: divergingFill(value, scale) });
  const rows = data.years.map((y) => String(y.year));
  const cells = data.years.map((y) => [
    ...MONTHS.map((_, i) => cell(months.get(`${y.year}-${String(i + 1).padStart(2, "0")}`), "months.book_return")),
    cell(y.book_return, "years.book_return"),
    data.return_basis ? cell(y.benchmark_return, "years.benchmark_return") : { value: null, text: DASH },
  ]);
  add(
    body,
    heatmapSvg({
      name: "sheet-monthly",
      // The terms' names: a month's, the year's ("Year") and SPY's columns.
      title: `${figureName("months.book_return")} of the long_short book (%); Year: ${figureName("years.book_return").toLowerCase()}`,
      rows,
      columns: [...MONTHS, "Year", benchName],
      cells,
      xLabel: "Calendar month (return in %, compounded)",
      yLabel: "Year",
      labelWidth: 40,
      rowHeight: 30,
      key: [
        { text: `gain of ${pct(scale, 1)} or more`, fill: divergingFill(scale, scale) },
        { text: "a small gain", fill: divergingFill(scale / 4, scale) },
        { text: "a small loss", fill: divergingFill(-scale / 4, scale) },
        { text: `loss of ${pct(scale, 1)} or more`, fill: divergingFill(-scale, scale) },
        { text: "no session", fill: divergingFill(null, scale) },
      ],
    }),
    note(
      `Each cell is the book's return over the calendar month: its daily returns (after costs) compounded, Π(1 + r) − 1, which equals the month's last ending_equity over its first starting_equity, minus 1. "Year" compounds the year's sessions; ${benchName} compounds its daily returns over the book's sessions of the year. A month is dated by its sessions (UTC dates); the first and last months may be partial (GET …/analytics/returns, months and years).`,
      "caption",
    ),
  );
}

function drawRollingIr(body, answer, split, origin, span) {
  const rows = answer.data;
  if (rows.length === 0) {
    add(body, note(`No week has ${ROLLING_WEEKS} trailing weeks yet.`));
    return;
  }
  const series = [{ label: `information ratio, trailing ${answer.meta.window_weeks} weeks`, values: rows.map((r) => r.information_ratio), color: COLORS.alpha, dash: null }];
  const chart = lineChartSvg({ name: "sheet-rolling-ir", title: `Rolling ${figureNameWithBasis("information_ratio").toLowerCase()}`, yLabel: figureNameWithBasis("information_ratio"), dates: rows.map((r) => r.date), series, format: (v) => fixed(v, 1), liveAfter: split, height: 220, span });
  add(
    body,
    chartWithLegend(chart, series, origin),
    note(`Each point: the mean over the standard deviation of the book's weekly returns over the ${answer.meta.window_weeks} weeks up to its date, × √52 (GET …/analytics/rolling; null with fewer than half the window's weeks). ${int(rows.length)} weeks.`, "caption"),
  );
}

function drawRollingIc(body, answer, split, origin, span) {
  const rows = answer.data;
  if (rows.length === 0) {
    add(body, note(`No week has ${ROLLING_WEEKS} trailing weeks yet.`));
    return;
  }
  const series = [{ label: `${figureName("rebuilt_mean_ic")}, trailing ${answer.meta.window_weeks} weeks (${answer.meta.signal} signal)`, values: rows.map((r) => r.rebuilt_mean_ic), color: COLORS.ic, dash: null }];
  const chart = lineChartSvg({ name: "sheet-rolling-ic", title: `${figureName("rebuilt_mean_ic")}, rolling`, yLabel: "Mean rank IC (correlation)", dates: rows.map((r) => r.date), series, format: (v) => fixed(v, 2), liveAfter: split, height: 200, span });
  add(body, chartWithLegend(chart, series, origin), note("The mean weekly rank IC over the trailing weeks (GET …/analytics/rolling).", "caption"));
}

function drawRollingBeta(body, alpha, answer, split, origin) {
  const data = answer.data;
  const trailing = data.beta;
  if (data.months.length === 0) {
    body.append(note("This run has no long_short ledger."));
    return;
  }
  if (trailing.points == null) {
    add(body, warningList(answer.meta.warnings), note(`${data.benchmark} was not read: the key may not read its daily series.`));
    return;
  }
  const betas = trailing.points.map((p) => p.beta);
  if (!betas.some((v) => v != null)) {
    add(body, note(`Not measurable: the history holds ${int(trailing.points.length)} sessions; a trailing beta needs ${int(trailing.window_sessions)}.`, "not-measurable"));
    return;
  }
  const benchName = data.return_basis ? `${data.benchmark} (${BASIS_LABELS[data.return_basis] || data.return_basis})` : data.benchmark;
  const series = [{ label: `beta of ${alpha} to ${benchName}, trailing ${trailing.window_sessions} sessions`, values: betas, color: COLORS.beta, dash: null }];
  const chart = lineChartSvg({ name: "sheet-rolling-beta", title: `Rolling beta to ${data.benchmark}`, yLabel: `${figureName("beta")} (ratio)`, dates: trailing.points.map((p) => p.date), series, format: (v) => fixed(v, 2), liveAfter: split, height: 220 });
  add(
    body,
    chartWithLegend(chart, series, origin),
    note(
      `Each point: the OLS slope, with an intercept, of the book's daily returns on ${benchName}'s over the ${int(trailing.window_sessions)} sessions up to its date, cov(r, b) / var(b), as /analytics/risk's benchmark.beta over a window (at least ${int(trailing.min_observations)} sessions with both returns; GET …/analytics/returns, beta). The whole history's beta is on the risk page.`,
      "caption",
    ),
  );
}
