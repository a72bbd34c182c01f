// Monthly and yearly returns: the daily `period_return` of the equity curve compounded per
// calendar month and year, Π(1 + r) − 1 (nulls skipped), beside the benchmark's year.

import { fill, h, numberCell, table } from "./dom.js";
import { DASH, MONTHS, pct } from "./format.js";
import { valueTone } from "./labels.js";
import { monthlyGrowth as compound, yearlyGrowth as yearly } from "./series_figures.js";

const returnCell = (growth, digits) => numberCell(pct(growth - 1, digits), growth - 1, { tone: valueTone("period_return", growth - 1) });

export function renderReturnsTable(target, equityRows, benchmarkRows, benchmarkName) {
  const months = compound(equityRows);
  const years = yearly(months);
  const benchmarkYears = yearly(compound(benchmarkRows));
  const rows = [...years.keys()].sort().map((year) => [
    h("th", { scope: "row" }, year),
    ...MONTHS.map((_, i) => {
      const growth = months.get(`${year}-${String(i + 1).padStart(2, "0")}`);
      return growth === undefined
        ? numberCell(DASH, null)
        : returnCell(growth, 1);
    }),
    returnCell(years.get(year), 2),
    benchmarkYears.has(year)
      ? returnCell(benchmarkYears.get(year), 2)
      : numberCell(DASH, null),
  ]);
  fill(target, table(["Year", ...MONTHS, "Full year", benchmarkName], rows, { className: "data returns" }));
}
