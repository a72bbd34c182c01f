// Two alphas side by side (#/compare?a=X&b=Y&window=63): GET /v1/alphas/{a}/analytics/compare?with=b.
// Both cumulative returns over their common sessions and the difference beneath them, the rolling
// correlations of returns and of weekly IC, and the table of figures with the test of each
// difference (Jobson-Korkie-Memmel for the information ratio, a paired t-test for means).

import { alphaPath, apiGet } from "./api.js";
import { alphaSelect, fragmentQuery, readableAlphas } from "./alpha_picker.js";
import { COLORS, timeChart } from "./charts.js";
import { fill, h, note, numberCell, pageSection, readOrShowError, table, warningList } from "./dom.js";
import { DASH, dateSeconds, fixed, int, num, pct, pp } from "./format.js";
import { changeTone, inUnit } from "./labels.js";
import { entryCell, entryText, figureHeader, unreproducedBadge } from "./stat_entry.js";

const WINDOWS = ["63", "21", "126", "252"];

export async function renderCompare(main, { signal }) {
  const query = fragmentQuery();
  const [a, b, window] = [query.get("a") || "", query.get("b") || "", query.get("window") || WINDOWS[0]];
  const pickers = h("form", { class: "controls", id: "compare-form" }, note("Loading the alphas…"));
  const results = h("div", { id: "compare-results" });
  fill(main, pageSection({ id: "compare" }, "Compare two alphas", "GET /v1/alphas/{a}/analytics/compare?with={b}&window=…: both over the sessions they share.", pickers, results));
  const alphas = await readOrShowError(pickers, "The alphas could not be listed", () => readableAlphas(signal));
  if (!alphas) return;
  const first = alphaSelect("compare-a", alphas, a);
  const second = alphaSelect("compare-b", alphas, b);
  const windows = h("select", { id: "compare-window" }, WINDOWS.map((w) => h("option", { value: w, selected: w === window }, `${w} sessions`)));
  fill(
    pickers,
    h("label", { for: "compare-a" }, "Alpha"),
    first,
    h("label", { for: "compare-b" }, "with"),
    second,
    h("label", { for: "compare-window" }, "Rolling window"),
    windows,
    h("button", { type: "submit" }, "Compare"),
  );
  pickers.addEventListener("submit", (event) => {
    event.preventDefault();
    const next = new URLSearchParams({ a: first.value, b: second.value, window: windows.value });
    location.hash = `#/compare?${next}`; // the router draws the page of the new pair
  });
  if (!a || !b) {
    fill(results, note("Choose two alphas."));
    return;
  }
  fill(results, note("Loading…"));
  // Each alpha's /metrics warnings: whether its sealed mean IC is reproduced by its cross-sections (a
  // refusal leaves the flag out, never the comparison).
  const sealed = [a, b].map((alpha) => apiGet(alphaPath(alpha, "/metrics"), { granularity: "overall" }, { signal }).catch(() => null));
  const answer = await readOrShowError(results, "The comparison could not be read", () => apiGet(alphaPath(a, "/analytics/compare"), { with: b, window }, { signal }));
  if (!answer) return;
  const metrics = await Promise.all(sealed);
  drawComparison(results, answer, metrics.map((m) => (m ? m.meta.warnings : null)));
}

function drawComparison(results, answer, sealedWarnings = [null, null]) {
  const data = answer.data;
  const charts = h("div", { class: "stacked-charts" });
  const rolling = h("div", { class: "chart-grid" });
  fill(
    results,
    warningList(answer.meta.warnings),
    h(
      "p",
      { class: "summary", id: "compare-summary" },
      `${data.alpha} against ${data.with}, ${data.book}: ${int(data.sessions)} common sessions, ${int(data.weeks)} common weeks. `,
      `Correlation of daily returns ${entryText(data.return_correlation)}, of weekly IC ${entryText(data.ic_correlation)}. `,
      `Mean IC and ICIR here are rebuilt from the cross-sections over the ${int(data.weeks)} common weeks only: they differ on purpose from each alpha's /metrics and catalogue figures (the run's sealed ones, over all its weeks). `,
      h("a", { href: `#/report?${new URLSearchParams({ alphas: `${data.alpha},${data.with}` })}`, id: "compare-report" }, "Printable report of the two"),
    ),
    figuresTable(data, sealedWarnings),
    charts,
    h("h3", {}, "Rolling correlations"),
    rolling,
  );
  const equity = data.equity || [];
  if (equity.length) {
    const x = equity.map((r) => dateSeconds(r.date));
    const percent = (v) => (v == null ? null : v * 100);
    const fmt = (v) => pp(v, 1);
    const sync = "compare";
    timeChart(charts, {
      name: "compare-curves",
      title: "Cumulative return over the common sessions (%)",
      x,
      series: [
        { label: data.alpha, values: equity.map((r) => percent(r.cumulative_return_alpha)), color: COLORS.alpha },
        { label: data.with, values: equity.map((r) => percent(r.cumulative_return_with)), color: COLORS.benchmark },
      ],
      format: fmt,
      sync,
    });
    timeChart(charts, {
      name: "compare-difference",
      title: `Difference, ${data.alpha} minus ${data.with} (percentage points)`,
      x,
      series: [{ label: "difference", values: equity.map((r) => percent(r.difference)), color: COLORS.drawdown, fill: "rgba(192,57,43,0.12)" }],
      format: fmt,
      sync,
      height: 170,
    });
  } else {
    charts.append(note(data.equity === null ? "The curves are withheld from this key (see the warnings)." : "No common session."));
  }
  const sessions = data.rolling_window ? data.rolling_window.sessions : null;
  const weeks = data.rolling_window ? data.rolling_window.weeks : null;
  for (const [key, name, title, color] of [
    ["rolling_return_correlation", "compare-rolling-returns", `Daily returns, trailing ${sessions ?? "?"} sessions`, COLORS.term],
    ["rolling_ic_correlation", "compare-rolling-ic", `Weekly IC, trailing ${weeks ?? "?"} weeks`, COLORS.ic],
  ]) {
    const cell = rolling.appendChild(h("div", { class: "chart-cell" }));
    const rows = data[key] || [];
    if (!rows.some((r) => r.correlation != null)) {
      cell.append(note(`${title}: ${data[key] === null ? "withheld from this key" : "no full window"}.`));
      continue;
    }
    timeChart(cell, {
      name,
      title,
      x: rows.map((r) => dateSeconds(r.date)),
      series: [{ label: "correlation", values: rows.map((r) => r.correlation), color }],
      format: (v) => fixed(v, 2),
      height: 190,
    });
  }
}

/** The sides whose sealed mean IC /metrics flags as not reproduced: a badge naming each, or null. */
function unreproducedNote(data, sealedWarnings) {
  const flagged = [data.alpha, data.with].filter((_, i) => unreproducedBadge(sealedWarnings[i]));
  if (!flagged.length) return null;
  const badge = unreproducedBadge(sealedWarnings[[data.alpha, data.with].indexOf(flagged[0])]);
  badge.title = `${flagged.join(" and ")}: the sealed mean IC of /metrics is not reproduced by the cross-sections (ic_reproduction_mismatch); the figure here is rebuilt from them`;
  badge.setAttribute("data-alphas", flagged.join(","));
  return badge;
}

function figuresTable(data, sealedWarnings = [null, null]) {
  const figures = Object.entries(data.figures || {});
  const flag = unreproducedNote(data, sealedWarnings);
  const grid = table(
    ["Figure", data.alpha, data.with, "Difference", "Over", "Test", "Statistic", "p-value", "Significant"],
    [],
    { className: "data compare-figures" },
  );
  grid.querySelector("tbody").append(
    ...figures.map(([name, figure]) => {
      const test = figure.test;
      const unit = figure.alpha ? figure.alpha.unit : null;
      const significant = test && test.p_value != null ? (test.significant ? "yes" : "no") : DASH;
      const diff = numberCell(figure.difference == null ? DASH : inUnit(figure.difference, unit), figure.difference, { tone: changeTone(name, figure.difference) });
      diff.setAttribute("data-value", figure.difference == null ? "" : String(figure.difference));
      const header = figureHeader(name, figure.alpha);
      if (flag && "common_weeks" in figure) header.append(" ", flag.cloneNode(true));
      const over =
        "common_weeks" in figure
          ? `${figure.common_weeks == null ? DASH : int(figure.common_weeks)} common weeks (rebuilt IC)`
          : `${figure.common_sessions == null ? DASH : int(figure.common_sessions)} common sessions`;
      return h(
        "tr",
        { "data-figure": name },
        header,
        entryCell(figure.alpha, name),
        entryCell(figure.with, name),
        diff,
        h("td", { class: "over" }, over),
        h("td", {}, test ? test.name : "no test stated"),
        numberCell(test && test.statistic != null ? `${test.statistic_kind} = ${num(test.statistic)}` : DASH, null),
        numberCell(test ? num(test.p_value) : DASH, null),
        h("td", { class: `significance sig-${significant}`, title: test && test.withheld_reason ? test.withheld_reason : "" }, test && test.level ? `${significant} (at ${pct(test.level, 0)})` : significant),
      );
    }),
  );
  return h("div", { class: "table-scroll" }, grid);
}
