// Monthly and yearly returns as GET /v1/alphas/{alpha}/analytics/returns serves them: each month's
// and year's compounded return of the book, and SPY's year over the book's sessions. Drawn only.

import { fill, h, numberCell, table } from "./dom.js";
import { DASH, MONTHS, pct } from "./format.js";
import { valueTone } from "./labels.js";

const returnCell = (value, digits) =>
  value == null ? numberCell(DASH, null) : numberCell(pct(value, digits), value, { tone: valueTone("period_return", value) });

/** The year × month table of `returns` (the data of /analytics/returns), `benchmarkName` heading SPY's year. */
export function renderReturnsTable(target, returns, benchmarkName) {
  const months = new Map(returns.months.map((m) => [m.month, m.book_return]));
  const rows = returns.years.map((year) => [
    h("th", { scope: "row" }, String(year.year)),
    ...MONTHS.map((_, i) => returnCell(months.get(`${year.year}-${String(i + 1).padStart(2, "0")}`), 1)),
    returnCell(year.book_return, 2),
    returnCell(year.benchmark_return, 2),
  ]);
  fill(target, table(["Year", ...MONTHS, "Full year", benchmarkName], rows, { className: "data returns" }));
}
