// Figures the pages derive from series the API serves, where no route serves them: monthly returns
// compounded from the equity curve, a trailing beta to the market benchmark, and several books'
// returns compounded over the sessions they all share. One
// home for each (the alpha page's returns table, the tear sheet and the comparison report read
// them), and docs/dashboard.md states each convention. Every function takes plain rows and returns
// plain numbers; a value that cannot be measured is null, never a zero.

/** "YYYY-MM" → growth factor Π(1 + period_return) of the rows of that calendar month (nulls skipped). */
export function monthlyGrowth(rows) {
  const totals = new Map();
  for (const row of rows) {
    if (row.period_return == null) continue;
    const key = row.date.slice(0, 7);
    totals.set(key, (totals.get(key) ?? 1) * (1 + row.period_return));
  }
  return totals;
}

/** "YYYY" → growth factor of a year, from the months of `monthlyGrowth`. */
export function yearlyGrowth(monthly) {
  const years = new Map();
  for (const [month, growth] of monthly) {
    const year = month.slice(0, 4);
    years.set(year, (years.get(year) ?? 1) * growth);
  }
  return years;
}

// The trailing beta: over the last 126 sessions (half a year of 252, the span of the rolling route's
// default 26 weeks), at least half of them with both returns, as the rolling route asks half its window.
export const BETA_WINDOW = 126;
export const BETA_MIN_OBSERVATIONS = 63;

/**
 * Beta of the book's daily returns `r` to the benchmark's `b` (same dates, null where missing) over
 * each trailing `window` sessions: cov(r, b) / var(b) over the sessions where both exist, the OLS slope
 * with an intercept, as /analytics/risk `benchmark.beta` over a window. Null before the window is full,
 * with fewer than `least` common sessions, or when the benchmark does not vary (its sum of squared
 * deviations at or below float rounding, the API's "no measurable variance" rule).
 */
export function rollingBeta(r, b, window = BETA_WINDOW, least = BETA_MIN_OBSERVATIONS) {
  const out = new Array(r.length).fill(null);
  for (let end = window - 1; end < r.length; end += 1) {
    const pairs = [];
    for (let i = end - window + 1; i <= end; i += 1) {
      if (Number.isFinite(r[i]) && Number.isFinite(b[i])) pairs.push([r[i], b[i]]);
    }
    out[end] = beta(pairs, least);
  }
  return out;
}

/** The OLS slope of [r, b] pairs: cov / var (ddof cancels), null below `least` pairs or without variance. */
export function beta(pairs, least = 2) {
  const n = pairs.length;
  if (n < Math.max(2, least)) return null;
  const meanR = pairs.reduce((s, [x]) => s + x, 0) / n;
  const meanB = pairs.reduce((s, [, y]) => s + y, 0) / n;
  let cov = 0;
  let varB = 0;
  let squares = 0;
  for (const [x, y] of pairs) {
    cov += (x - meanR) * (y - meanB);
    varB += (y - meanB) ** 2;
    squares += y * y;
  }
  // analytics.variance: a sum of squared deviations at or below 64 ε n mean(x²) is float rounding.
  if (!(varB > 64 * Number.EPSILON * squares)) return null;
  return cov / varB;
}

/**
 * Books compounded over the sessions every one of them holds: `books` = [[{date, period_return}]].
 * Returns { dates, curves }: the common dates (sorted) and, per book, Π(1 + r) − 1 from the first
 * common session (its own return included), as /analytics/compare's `equity` compounds two books.
 */
export function alignedCurves(books) {
  const maps = books.map((rows) => new Map(rows.filter((row) => Number.isFinite(row.period_return)).map((row) => [row.date, row.period_return])));
  if (maps.length === 0) return { dates: [], curves: [] };
  const dates = [...maps[0].keys()].filter((d) => maps.every((m) => m.has(d))).sort();
  const curves = maps.map((m) => {
    let growth = 1;
    return dates.map((d) => {
      growth *= 1 + m.get(d);
      return growth - 1;
    });
  });
  return { dates, curves };
}
