// Cumulative return of a book against the market benchmark, its drawdown beneath, and the table of
// monthly and yearly returns. Every row of /v1/alphas/{alpha}/equity-curve and of the benchmark's
// (over the same dates) is read, page by page; the table is /analytics/returns as served.

import { alphaPath, apiGet, apiGetAll, isAbort } from "./api.js";
import { COLORS, timeChart } from "./charts.js";
import { errorBox, fill, h, note, showError, warningList } from "./dom.js";
import { dateSeconds, pct, pp } from "./format.js";
import { NO_SPLIT } from "./live_split.js";
import { renderReturnsTable } from "./returns_table.js";
import { BENCHMARK } from "./market.js";

const BOOKS = ["long_short", "long_only"];
// The price a benchmark window's returns use (`meta.summary.return_basis`, docs/api.md): the
// adjusted close when every session of the window has one, else the close for all of them.
const BASES = {
  adjusted_close: { label: "adjusted close", meaning: "total return, dividends included" },
  close: {
    label: "close",
    meaning:
      "price return, without dividends: some session of the window has no adjusted close, so the whole window is on the unadjusted close",
  },
};

export function renderPerformance(body, alpha, { signal, split = NO_SPLIT }) {
  const book = h(
    "select",
    { id: "equity-book", name: "book" },
    BOOKS.map((b) => h("option", { value: b }, b)),
  );
  const content = h("div", {}, note("Loading…"));
  fill(body, h("div", { class: "controls" }, h("label", { for: "equity-book" }, "Book"), book), content);
  let latest = 0; // answers for a book no longer chosen are dropped
  book.addEventListener("change", () => load(book.value));
  load(book.value);

  async function load(bookName) {
    const ticket = ++latest;
    fill(content, note("Loading…"));
    // Asked at once; its refusal shows in the table's place only.
    const calendar = apiGet(alphaPath(alpha, "/analytics/returns"), { book: bookName }, { signal }).then(
      (answer) => ({ answer }),
      (error) => ({ error }),
    );
    let equity;
    try {
      equity = await apiGetAll(alphaPath(alpha, "/equity-curve"), { book: bookName }, { limit: 500, signal });
    } catch (error) {
      if (ticket === latest) showError(content, error, "The equity curve could not be read");
      return;
    }
    if (ticket !== latest) return;
    if (equity.data.length === 0) {
      fill(content, note("This run has no ledger for this book."), warningList(equity.meta.warnings));
      return;
    }
    const first = equity.data[0].date;
    const last = equity.data[equity.data.length - 1].date;
    let benchmark = null;
    let benchmarkError = null;
    try {
      benchmark = await apiGetAll(
        `/v1/benchmarks/${BENCHMARK}/daily`,
        { from: first, to: last },
        { limit: 500, signal },
      );
    } catch (error) {
      if (isAbort(error)) return;
      benchmarkError = error;
    }
    const returned = await calendar;
    if (returned.error && isAbort(returned.error)) return;
    if (ticket !== latest) return;
    draw(equity, benchmark, benchmarkError, bookName, returned);
  }

  function draw(equity, benchmark, benchmarkError, bookName, returned) {
    const summary = equity.meta.summary || {};
    const bench = benchmark ? benchmark.data : [];
    const dates = [...new Set([...equity.data.map((r) => r.date), ...bench.map((r) => r.date)])].sort();
    const byDate = (rows) => new Map(rows.map((r) => [r.date, r]));
    const alphaRows = byDate(equity.data);
    const benchRows = byDate(bench);
    const x = dates.map(dateSeconds);
    const column = (rows, pick) => dates.map((d) => (rows.has(d) ? pick(rows.get(d)) : null));
    const percent = (v) => (v == null ? null : v * 100);

    const charts = h("div", { class: "stacked-charts" });
    const returns = h("div", { class: "returns-table" });
    const benchSummary = benchmark ? benchmark.meta.summary || {} : null;
    const basis = benchSummary
      ? BASES[benchSummary.return_basis] || { label: String(benchSummary.return_basis ?? "not stated") }
      : null;
    const benchName = basis ? `${BENCHMARK} (${basis.label})` : BENCHMARK;
    fill(
      content,
      h(
        "p",
        { class: "summary", id: "equity-summary" },
        `${bookName}: ${pct(summary.total_return)} over ${summary.sessions} sessions (${summary.first_date} to ${summary.last_date}); `,
        `max drawdown ${pp(summary.max_drawdown_pct)} on ${summary.max_drawdown_date}.`,
        benchSummary
          ? ` ${BENCHMARK} over the same dates: ${pct(benchSummary.total_return)} on its ${basis.label}, max drawdown ${pp(benchSummary.max_drawdown_pct)}.`
          : "",
      ),
      basis
        ? h(
            "p",
            { class: "basis", id: "benchmark-basis" },
            `${BENCHMARK} price basis: `,
            h("strong", {}, basis.label),
            basis.meaning ? ` (${basis.meaning}).` : ".",
          )
        : null,
      benchmarkError ? errorBox(benchmarkError, `${BENCHMARK} could not be read`) : null,
      warningList(equity.meta.warnings),
      charts,
      h("h3", {}, "Monthly and yearly returns"),
      note(
        `The ${bookName} book's daily returns compounded by calendar month and year, and ${BENCHMARK}'s year over the book's sessions (GET /v1/alphas/{alpha}/analytics/returns).`,
        "muted",
      ),
      returns,
    );
    const series = [
      {
        label: `${alpha} (${bookName})`,
        values: column(alphaRows, (r) => percent(r.cumulative_return)),
        color: COLORS.alpha,
      },
    ];
    if (benchmark)
      series.push({
        label: benchName,
        values: column(benchRows, (r) => percent(r.cumulative_return)),
        color: COLORS.benchmark,
      });
    const sync = `equity-${alpha}`;
    const fmt = (v) => pp(v, 1);
    split.follow(timeChart(charts, { name: "cumulative-return", title: "Cumulative return (%)", x, series, format: fmt, sync }));
    const drawdowns = [
      {
        label: `${alpha} drawdown`,
        values: column(alphaRows, (r) => (r.drawdown_pct == null ? null : -r.drawdown_pct)),
        color: COLORS.drawdown,
        fill: "rgba(192,57,43,0.15)",
      },
    ];
    if (benchmark) {
      drawdowns.push({
        label: `${benchName} drawdown`,
        values: column(benchRows, (r) => (r.drawdown_pct == null ? null : -r.drawdown_pct)),
        color: COLORS.benchmark,
      });
    }
    const drawdown = timeChart(charts, {
      name: "drawdown",
      title: "Drawdown from peak (%)",
      x,
      series: drawdowns,
      format: fmt,
      sync,
      height: 170,
      zeroLine: false,
    });
    split.follow(drawdown);
    if (returned.error) showError(returns, returned.error, "The monthly and yearly returns could not be read");
    else {
      const served = returned.answer.data;
      // The basis of SPY's years as the route states it (it compounds SPY's daily returns of its whole history).
      const basis = served.return_basis ? (BASES[served.return_basis] || { label: served.return_basis }).label : null;
      renderReturnsTable(returns, served, basis);
    }
  }
}
