// A comparison report of up to ten alphas (#/report?alphas=a,b,c), printable as the tear sheet is:
// one topic a page (print_pages.js), each page ending with the provenance (the alphas and their
// builds, data as of, the checks policy) and "page n of m". It opens as the tear sheet does, with
// the decision: one summary row per alpha (decision_summary.js: standing and since when, the checks'
// verdict and what failed, the part after the split against the backtest, capacity at the reference
// capital, fragility, costs, the correlation to the reference set). Then the headline figures side
// by side (/metrics core, /analytics/risk, /analytics/checks of each alpha, whole histories), the
// cumulative returns compounded over the sessions every alpha holds, with the market benchmark over
// the same sessions (GET /v1/analytics/combine of the set, one request an alpha, each weighting that
// alpha alone: the route serves each curve on the set's common sessions; one alpha alone: its
// /equity-curve and SPY's daily series from its first session), and the correlation matrix of their daily returns (/analytics/correlation, each
// pair over its own common sessions). "Download HTML" saves it as one self-contained file.

import { alphaPath, apiGet, apiGetAll, isAbort } from "./api.js";
import { attributionParams } from "./attribution_panel.js";
import { SUMMARY_COLUMNS, summaryRows } from "./decision_summary.js";
import { fragmentQuery, readableAlphas } from "./alpha_picker.js";
import { errorBox, fill, h, note, numberCell, pageSection, readOrShowError, table } from "./dom.js";
import { DASH, fixed, int, pct } from "./format.js";
import { figureName, unitText } from "./labels.js";
import { BENCHMARK } from "./market.js";
import { answered, buildOf, generatedAt, paginate, policyOf, sheetPage } from "./print_pages.js";
import { entryCell, unreproducedBadge, verdictBadge } from "./stat_entry.js";
import { DASHES, divergingFill, heatmapSvg, legendSvg, lineChartSvg, PALETTE, POSITIVE } from "./svg.js";
import { downloadSheet } from "./tearsheet_export.js";

export const MAX_ALPHAS = 10;
const CORE = ["information_ratio", "excess_sharpe", "ic", "icir", "max_drawdown_pct", "annual_turnover"];
const RISK = [
  ["benchmark.beta", (d) => d.benchmark && d.benchmark.beta],
  ["benchmark.tracking_error", (d) => d.benchmark && d.benchmark.tracking_error],
  ["cagr", (d) => d.cagr],
  ["sortino", (d) => d.sortino],
];

export async function renderReport(main, context) {
  const { signal } = context;
  const chosen = [...new Set((fragmentQuery().get("alphas") || "").split(",").filter(Boolean))];
  const form = h("form", { id: "report-form", class: "no-print" }, note("Loading the alphas…"));
  const sheet = h("article", { class: "tearsheet report", id: "report", "data-alphas": chosen.join(",") });
  const download = h("button", { type: "button", id: "download-report", disabled: true }, "Download HTML");
  fill(
    main,
    pageSection(
      { class: "panel no-print", id: "report-choice" },
      "Comparison report",
      `Up to ${MAX_ALPHAS} alphas side by side, printable one topic a page (A4 or Letter).`,
      form,
      h("div", { class: "tearsheet-actions" }, h("button", { type: "button", id: "print-report", onclick: () => window.print() }, "Print"), download),
    ),
    sheet,
  );
  const listing = await readOrShowError(form, "The alphas could not be listed", () => readableAlphas(signal));
  if (!listing) return;
  drawPicker(form, listing, chosen);
  if (chosen.length === 0) {
    fill(sheet, note("Tick two alphas or more."));
    return;
  }
  if (chosen.length > MAX_ALPHAS) {
    fill(sheet, note(`A report compares at most ${MAX_ALPHAS} alphas; ${chosen.length} are asked for.`, "error"));
    return;
  }
  fill(sheet, note("Loading…"));
  const answers = await readAll(chosen, signal);
  if (!answers) return; // the user moved on
  const names = new Map(listing.map((a) => [a.alpha_id, a.name]));
  drawReport(sheet, chosen, names, answers);
  download.disabled = false;
  download.addEventListener("click", () =>
    downloadSheet(sheet, { fileName: `report-${chosen.length}-alphas.html`, title: `Comparison report · ${chosen.join(", ")}`, about: { alphas: chosen } }, answers),
  );
}

function drawPicker(form, listing, chosen) {
  const boxes = listing.map((a) =>
    h("input", { type: "checkbox", class: "report-alpha", value: a.alpha_id, id: `report-${a.alpha_id}`, checked: chosen.includes(a.alpha_id) }),
  );
  const submit = h("button", { type: "submit" }, "Report");
  const said = h("span", { class: "muted", id: "report-count" });
  const count = () => {
    const ticked = boxes.filter((b) => b.checked).length;
    submit.disabled = ticked === 0 || ticked > MAX_ALPHAS;
    said.textContent = ticked > MAX_ALPHAS ? ` ${ticked} ticked: at most ${MAX_ALPHAS}.` : ` ${ticked} ticked.`;
  };
  boxes.forEach((b) => b.addEventListener("change", count));
  count();
  fill(
    form,
    h("ul", { class: "report-picks" }, listing.map((a, i) => h("li", {}, h("label", {}, boxes[i], " ", h("code", {}, a.alpha_id), ` ${a.name ?? ""}`)))),
    h("div", { class: "controls" }, submit, said),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    // In the catalogue's order, so a report is one address whatever order the boxes were ticked in.
    location.hash = `#/report?${new URLSearchParams({ alphas: boxes.filter((b) => b.checked).map((b) => b.value).join(",") })}`;
  });
}

const settle = (promise) => promise.then((value) => ({ status: "fulfilled", value }), (reason) => ({ status: "rejected", reason }));

/** Every answer the report shows, per alpha, then the benchmark over the common sessions; null if aborted. */
async function readAll(alphas, signal) {
  const perAlpha = await Promise.all(
    alphas.map(async (alpha) => {
      const get = (suffix, params) => settle(apiGet(alphaPath(alpha, suffix), params, { signal }));
      const [metrics, risk, checks, equity, correlation, promotions, live, capacity, attribution, costs] = await Promise.all([
        get("/metrics", { granularity: "overall" }),
        get("/analytics/risk", { book: "long_short" }),
        get("/analytics/checks", { book: "long_short" }),
        settle(apiGetAll(alphaPath(alpha, "/equity-curve"), { book: "long_short" }, { limit: 500, signal })),
        settle(correlationsWith(alpha, alphas.filter((other) => other !== alpha), signal)),
        // The decision summary's answers, as the tear sheet reads them.
        get("/promotions", {}),
        get("/analytics/live", { book: "long_short" }),
        get("/analytics/capacity", { book: "long_short" }),
        get("/analytics/attribution", attributionParams()),
        get("/analytics/costs", { book: "long_short" }),
      ]);
      return { alpha, metrics, risk, checks, equity, correlation, promotions, live, capacity, attribution, costs };
    }),
  );
  const outcomes = perAlpha.flatMap((a) => [a.metrics, a.risk, a.checks, a.equity, a.correlation, a.promotions, a.live, a.capacity, a.attribution, a.costs]);
  if (outcomes.some((o) => o.status === "rejected" && isAbort(o.reason))) return null;
  const books = perAlpha.filter((a) => answered(a.equity));
  let combined = [];
  let benchmark = null;
  if (books.length >= 2) {
    // Each alpha weighted alone over the set: the combined book is that alpha's, on the set's common sessions.
    const set = books.map((a) => a.alpha).join(",");
    combined = await Promise.all(
      books.map((_, k) => {
        const weights = books.map((__, j) => (j === k ? "1" : "0")).join(",");
        return settle(apiGetAll("/v1/analytics/combine", { alphas: set, weighting: "given", weights }, { limit: 500, signal }));
      }),
    );
    if (combined.some((o) => o.status === "rejected" && isAbort(o.reason))) return null;
  } else if (books.length === 1 && books[0].equity.value.data.length) {
    const rows = books[0].equity.value.data;
    benchmark = await settle(apiGetAll(`/v1/benchmarks/${BENCHMARK}/daily`, { from: rows[0].date, to: rows[rows.length - 1].date }, { limit: 500, signal }));
    if (benchmark.status === "rejected" && isAbort(benchmark.reason)) return null;
  }
  return { alphas: perAlpha, books: books.map((a) => a.alpha), combined, benchmark };
}

const BASIS_LABELS = { adjusted_close: "adjusted close", close: "close" };

/** The curves the report draws, as served: { dates, lines: [{alpha, values}], benchmark: {label, values} | null, refused }. */
function alignedOf(answers) {
  const byAlpha = new Map(answers.alphas.map((a) => [a.alpha, a]));
  if (answers.books.length === 0) return { dates: [], lines: [], benchmark: null, refused: null };
  if (answers.books.length === 1) {
    const rows = byAlpha.get(answers.books[0]).equity.value.data;
    const dates = rows.map((r) => r.date);
    const bench = answered(answers.benchmark);
    const spy = bench ? new Map(bench.data.map((r) => [r.date, r.cumulative_return])) : null;
    const basis = bench && bench.meta.summary ? bench.meta.summary.return_basis : null;
    return {
      dates,
      lines: [{ alpha: answers.books[0], values: rows.map((r) => r.cumulative_return) }],
      benchmark: spy ? { label: `${BENCHMARK} (${BASIS_LABELS[basis] || basis})`, values: dates.map((d) => spy.get(d) ?? null) } : null,
      refused: answers.benchmark && answers.benchmark.status === "rejected" ? answers.benchmark.reason : null,
    };
  }
  const served = answers.combined.map(answered);
  const first = served.find(Boolean);
  const refusal = answers.combined.find((o) => o.status === "rejected");
  if (!first) return { dates: [], lines: [], benchmark: null, refused: refusal ? refusal.reason : null };
  const dates = first.data.map((r) => r.date);
  const lines = answers.books.map((alpha, k) => ({ alpha, values: served[k] ? served[k].data.map((r) => r.cumulative_return) : null })).filter((l) => l.values);
  const echo = first.meta.benchmark;
  const benchmark = echo ? { label: `${echo.symbol} (${BASIS_LABELS[echo.basis] || echo.basis})`, values: first.data.map((r) => r.benchmark_cumulative_return) } : null;
  return { dates, lines, benchmark, refused: refusal ? refusal.reason : null };
}

/**
 * The rows of /analytics/correlation (returns basis) of `alpha` with each of `others`, read page by
 * page until every one is found (the route lists every alpha the key may read, by |correlation|).
 */
async function correlationsWith(alpha, others, signal) {
  const found = new Map();
  let meta = {};
  for (let offset = 0; ; ) {
    const page = await apiGet(alphaPath(alpha, "/analytics/correlation"), { basis: "returns", limit: 5000, offset }, { signal });
    if (offset === 0) meta = page.meta;
    for (const row of page.data) if (others.includes(row.alpha)) found.set(row.alpha, row);
    offset += page.pagination.returned;
    if (!page.pagination.has_more || page.pagination.returned === 0 || found.size === others.length) break;
  }
  return { rows: found, meta };
}


function drawReport(sheet, chosen, names, answers) {
  const provenance = provenanceOf(answers);
  fill(
    sheet,
    sheetPage(
      "summary",
      `Decision summary of ${chosen.length} alphas`,
      h("p", { class: "subtitle" }, "One row an alpha: where it stands, what its checks say, and the figures a decision rests on (long_short books; each alpha's tear sheet gives every reason)."),
      h("section", { class: "sheet-block", id: "report-summary" }, summaryTable(answers)),
    ),
    sheetPage(
      "figures",
      `Comparison of ${chosen.length} alphas`,
      h("p", { class: "subtitle" }, "Whole histories, long_short books, each alpha over its own sessions."),
      provenanceTable(answers, names),
      h("section", { class: "sheet-block", id: "report-headline" }, h("h3", {}, "Headline figures (/metrics core)"), headlineTable(answers)),
    ),
    // A page of its own, so ten alphas' rows fit each page.
    sheetPage(
      "risk",
      `Against ${BENCHMARK}, and the checks`,
      h("section", { class: "sheet-block", id: "report-risk" }, h("h3", {}, "Beta, tracking error, CAGR and Sortino ratio (/analytics/risk), the checks' verdict (/analytics/checks)"), riskTable(answers)),
    ),
    sheetPage("curves", "Cumulative returns on common sessions", h("section", { class: "sheet-block", id: "report-curves" }, curves(answers))),
    sheetPage("correlation", "Correlation of daily returns", h("section", { class: "sheet-block", id: "report-correlation" }, correlationMatrix(answers))),
  );
  paginate(sheet, provenance);
}

/** The footer of every page: the alphas with their builds, the data's last session, the policy. */
function provenanceOf(answers) {
  const parts = answers.alphas.map((a) => `${a.alpha} (build ${buildOf(answered(a.metrics)) || buildOf(answered(a.equity)) || DASH})`);
  const lasts = answers.alphas.map((a) => lastSession(a)).filter(Boolean).sort();
  const policies = [...new Set(answers.alphas.map((a) => policyOf(answered(a.checks))).filter(Boolean))];
  const bench = buildOf(answered(answers.benchmark));
  return [
    `Comparison report of ${answers.alphas.length} alphas:`,
    ...parts,
    `data as of ${lasts.length ? lasts[lasts.length - 1] : DASH}`,
    `checks policy: ${policies.length ? policies.join(", ") : DASH}`,
    bench ? `${BENCHMARK} build ${bench}` : null,
    `generated ${generatedAt()} from this server's /v1 API`,
  ];
}

function lastSession(a) {
  const equity = answered(a.equity);
  return equity && equity.meta.summary ? equity.meta.summary.last_date : null;
}

const refusal = (outcome) => h("span", { class: "error-inline", "data-error-code": outcome.reason.code || "error" }, `${outcome.reason.status || ""} ${outcome.reason.code || "error"}`.trim());

function alphaHeader(alpha) {
  return h("th", { scope: "row", "data-alpha": alpha }, h("code", {}, alpha));
}

function provenanceTable(answers, names) {
  return table(
    ["Alpha", "Name", "Build", "Sessions", "First", "Last (data as of)"],
    answers.alphas.map((a) => {
      const equity = answered(a.equity);
      const summary = equity && equity.meta.summary ? equity.meta.summary : {};
      return [
        alphaHeader(a.alpha),
        names.get(a.alpha) ?? DASH,
        h("span", { class: "build" }, buildOf(answered(a.metrics)) || buildOf(equity) || DASH),
        numberCell(int(summary.sessions), summary.sessions),
        summary.first_date ?? (a.equity.status === "rejected" ? refusal(a.equity) : DASH),
        summary.last_date ?? DASH,
      ];
    }),
    { className: "data compact report-alphas" },
  );
}

/** The summary's table: an alpha's figures on a row, the checks it failed beneath them. */
function summaryGrid(answers) {
  const grid = table(["Alpha", ...SUMMARY_COLUMNS], [], { className: "data compact report-summary" });
  grid.querySelector("tbody").append(...answers.alphas.flatMap((a) => summaryRows(a.alpha, alphaHeader(a.alpha), a)));
  return grid;
}

/** The decision summary, one row an alpha (decision_summary.js `summaryRows`). */
function summaryTable(answers) {
  return [
    summaryGrid(answers),
    note(
      "Standing: /promotions. Checks: /analytics/checks (each reason in the cell's title and on the tear sheet). After the split: /analytics/live, live only after an approval. Capacity: /analytics/capacity, the net information ratio at the reference capital K0 and the capital at which the modelled costs halve it. Fragility: /analytics/attribution, the share of the information ratio kept without the 5 best days. Costs: /analytics/costs, before and after costs, and the break-even cost over the modelled one. Correlation: the checks' production_correlation, with the alpha nearest. n/m: not measurable (the reason in the cell's title).",
      "caption",
    ),
  ];
}

function headlineTable(answers) {
  const headers = CORE.map((key) => (key === "icir" ? "ICIR (annualised)" : figureName(key)));
  const rows = answers.alphas.map((a) => {
    const metrics = answered(a.metrics);
    if (!metrics) return [alphaHeader(a.alpha), h("td", { colspan: CORE.length }, refusal(a.metrics))];
    const core = metrics.data.core;
    // The sealed IC figures flagged when /metrics warns that the cross-sections do not reproduce them.
    const flag = unreproducedBadge(metrics.meta.warnings);
    return [
      alphaHeader(a.alpha),
      ...CORE.map((key) => {
        const cell = entryCell(core[key], key);
        cell.setAttribute("data-figure", key);
        if (flag && (key === "ic" || key === "icir")) {
          cell.classList.remove("better", "worse"); // a flagged figure is not coloured as a gain
          cell.classList.add("ic-unreproduced");
          cell.append(" ", flag.cloneNode(true));
        }
        return cell;
      }),
    ];
  });
  const units = answers.alphas.map((a) => answered(a.metrics)).find(Boolean);
  const caption = units ? `Units: ${CORE.map((key) => `${figureName(key)} ${unitText(units.data.core[key] && units.data.core[key].unit)}`).join("; ")}.` : null;
  return [table(["Alpha", ...headers], rows, { className: "data compact report-figures" }), caption ? note(caption, "caption") : null];
}

function riskTable(answers) {
  const rows = answers.alphas.map((a) => {
    const risk = answered(a.risk);
    const checks = answered(a.checks);
    const figures = risk
      ? RISK.map(([key, pick]) => {
          const cell = entryCell(pick(risk.data), key);
          cell.setAttribute("data-figure", key);
          return cell;
        })
      : [h("td", { colspan: RISK.length }, refusal(a.risk))];
    const summary = checks ? checks.data.summary : null;
    const verdict = summary
      ? h("td", { "data-figure": "checks" }, verdictBadge(summary.verdict), ` ${summary.passed} passed, ${summary.failed} failed, ${summary.not_measurable} not measurable`)
      : h("td", {}, refusal(a.checks));
    return [alphaHeader(a.alpha), ...figures, verdict];
  });
  const units = answers.alphas.map((a) => answered(a.risk)).find(Boolean);
  const caption = units ? `Units: ${RISK.map(([key, pick]) => `${figureName(key)} ${unitText(pick(units.data) && pick(units.data).unit)}`).join("; ")}; annualised over 252 sessions where a figure is.` : null;
  return [table(["Alpha", ...RISK.map(([key]) => figureName(key)), "Checks"], rows, { className: "data compact report-risk" }), caption ? note(caption, "caption") : null];
}

function curves(answers) {
  const left = answers.alphas.filter((a) => !answered(a.equity));
  const { dates, lines, benchmark, refused } = alignedOf(answers);
  if (dates.length === 0) {
    return refused ? errorBox(refused, "The common sessions could not be read") : note("No session is common to every alpha: there is no aligned curve.", "not-measurable");
  }
  const percent = (v) => (v == null ? null : v * 100); // the chart's unit
  const drawn = lines.map((line, k) => ({ ...line, label: line.alpha, color: PALETTE[k % PALETTE.length], dash: DASHES[k % DASHES.length] }));
  if (benchmark) drawn.push({ ...benchmark, color: "#111", dash: "3 3", width: 1.2 });
  const series = drawn.map((line) => ({ label: line.label, values: line.values.map(percent), color: line.color, dash: line.dash, width: line.width }));
  const chart = lineChartSvg({
    name: "report-curves",
    title: "Cumulative return on the common sessions (%)",
    yLabel: "Cumulative return (%)",
    dates,
    series,
    format: (v) => `${fixed(v, 0)}%`,
    height: 300,
  });
  const totals = table(
    ["Alpha", "Cumulative return over the common sessions"],
    drawn.map((line) => {
      const last = line.values[line.values.length - 1];
      const cell = numberCell(pct(last), last);
      cell.setAttribute("data-value", last == null ? "" : String(last));
      return [h("th", { scope: "row", "data-alpha": line.label }, line.label), cell];
    }),
    { className: "data compact report-totals" },
  );
  const many = answers.books.length > 1;
  return [
    h("p", { class: "summary", id: "report-common" }, `${int(dates.length)} sessions common to ${many ? `all ${answers.books.length} alphas` : "the alpha"}, ${dates[0]} to ${dates[dates.length - 1]}.`),
    legendSvg(series),
    chart,
    note(
      many
        ? `Each curve compounds its book's daily long_short returns (after costs) over the sessions every alpha holds, from the first of them: Π(1 + r) − 1, as /analytics/compare compounds two; a session one alpha lacks is left out of every curve. Served by GET /v1/analytics/combine of the set with each alpha weighted alone (weighting=given), its cumulative_return${benchmark ? `; ${benchmark.label} its benchmark_cumulative_return over the same sessions` : ""}.`
        : `The book's cumulative_return of /equity-curve (long_short, after costs), from its first session${benchmark ? `; ${benchmark.label} from that session (its base, 0), as /v1/benchmarks daily serves it` : ""}.`,
      "caption",
    ),
    left.length ? h("p", { class: "error" }, `Left out (their equity curve could not be read): ${left.map((a) => `${a.alpha} (${a.equity.reason.code})`).join(", ")}.`) : null,
    totals,
    refused ? errorBox(refused, many ? "A curve could not be read" : `${BENCHMARK} could not be read`) : null,
  ];
}

function correlationMatrix(answers) {
  const alphas = answers.alphas.map((a) => a.alpha);
  const refused = answers.alphas.filter((a) => a.correlation.status === "rejected");
  if (refused.length === answers.alphas.length) return errorBox(refused[0].correlation.reason, "The correlations could not be read");
  // Pearson is symmetric: each pair is read from the first of its two alphas whose list answered.
  const value = (i, j) => {
    if (i === j) return { value: 1, overlap: null };
    for (const [from, to] of [[i, j], [j, i]]) {
      const got = answered(answers.alphas[from].correlation);
      if (got) {
        const row = got.rows.get(alphas[to]);
        return row ? { value: row.pearson, overlap: row.overlap } : { value: null, overlap: null };
      }
    }
    return { value: null, overlap: null };
  };
  const cells = alphas.map((_, i) =>
    alphas.map((__, j) => {
      const { value: v, overlap } = value(i, j);
      return { value: v, text: Number.isFinite(v) ? fixed(v, 2) : DASH, fill: divergingFill(v, 1, POSITIVE), overlap };
    }),
  );
  const longest = Math.max(...alphas.map((a) => a.length));
  return [
    heatmapSvg({
      name: "report-correlation",
      title: "Pearson correlation of daily long_short returns",
      rows: alphas,
      columns: alphas.map((a, i) => String(i + 1)),
      cells,
      xLabel: "Alpha (numbered as the rows)",
      yLabel: "Alpha",
      labelWidth: Math.min(220, 24 + longest * 7),
      rowHeight: 28,
      key: [
        { text: "+1", fill: divergingFill(1, 1, POSITIVE) },
        { text: "+0.5", fill: divergingFill(0.5, 1, POSITIVE) },
        { text: "0", fill: divergingFill(0, 1, POSITIVE) },
        { text: "−0.5", fill: divergingFill(-0.5, 1, POSITIVE) },
        { text: "−1", fill: divergingFill(-1, 1, POSITIVE) },
        { text: "not measurable", fill: divergingFill(null, 1) },
      ],
    }),
    h("ol", { class: "report-numbers" }, alphas.map((a) => h("li", {}, h("code", {}, a)))),
    note(
      "Each cell: the Pearson correlation of the two alphas' daily long_short returns over the sessions both hold (GET /v1/alphas/{alpha}/analytics/correlation?basis=returns), so each pair is over its own common sessions, not only those every alpha shares. A dash: fewer than 3 common sessions or a constant side.",
      "caption",
    ),
    overlapTable(alphas, cells),
    refused.map((a) => errorBox(a.correlation.reason, `${a.alpha}'s correlations could not be read`)),
  ];
}

/** The common sessions behind each pair's correlation. */
function overlapTable(alphas, cells) {
  const pairs = [];
  alphas.forEach((a, i) => alphas.forEach((b, j) => j > i && pairs.push([a, b, cells[i][j]])));
  if (pairs.length > 15) return null; // ten alphas make 45 pairs: the matrix says enough
  return table(
    ["Pair", "Correlation", "Common sessions"],
    pairs.map(([a, b, cell]) => [h("th", { scope: "row" }, `${a} · ${b}`), numberCell(cell.text, cell.value), numberCell(int(cell.overlap), cell.overlap)]),
    { className: "data compact report-overlap" },
  );
}

