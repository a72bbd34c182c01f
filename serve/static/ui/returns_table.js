// Monthly and yearly returns as GET /v1/alphas/{alpha}/analytics/returns serves them: each month's
// and year's compounded return of the book, and SPY's year over the book's sessions. Drawn only.
// Each value is marked as its term (a month's `monthly_return`, a year's `calendar_year_return`,
// SPY's `benchmark_return`), named by the header over its column: the months' under one header
// spanning them, the month's name beneath it.

import { fill, h } from "./dom.js";
import { DASH, MONTHS } from "./format.js";
import { figureColumn } from "./labels.js";
import { figureCell } from "./stat_entry.js";

const MONTH = "months.book_return";
const YEAR = "years.book_return";
const BENCHMARK_YEAR = "years.benchmark_return";

/** The year × month table of `returns` (the data of /analytics/returns), `basis` naming the price
 * SPY's year is on ("adjusted close"), as the route states it. */
export function renderReturnsTable(target, returns, basis) {
  const months = new Map(returns.months.map((m) => [m.month, m.book_return]));
  const spanned = (content) => h("th", { scope: "col", rowspan: "2" }, content);
  const head = h(
    "thead",
    {},
    h(
      "tr",
      {},
      spanned("Year"),
      h("th", { scope: "colgroup", colspan: String(MONTHS.length), class: "months" }, figureColumn(MONTH)),
      spanned(figureColumn(YEAR)),
      spanned(figureColumn(BENCHMARK_YEAR, { detail: basis })),
    ),
    h("tr", {}, MONTHS.map((name) => h("th", { scope: "col" }, name))),
  );
  const rows = returns.years.map((year) =>
    h(
      "tr",
      {},
      h("th", { scope: "row" }, String(year.year)),
      MONTHS.map((_, i) => {
        const key = `${year.year}-${String(i + 1).padStart(2, "0")}`;
        // A month without a session is not served: a dash, no figure.
        return months.has(key) ? figureCell(months.get(key), MONTH) : h("td", { class: "number" }, DASH);
      }),
      figureCell(year.book_return, YEAR),
      figureCell(year.benchmark_return, BENCHMARK_YEAR),
    ),
  );
  fill(target, h("table", { class: "data returns" }, head, h("tbody", {}, rows)));
}
