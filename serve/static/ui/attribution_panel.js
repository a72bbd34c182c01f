// Where the long_short book's P&L came from (GET /v1/alphas/{alpha}/analytics/attribution,
// docs/analytics.md "Attribution"): the contributors and detractors by name, the long leg against the
// short leg, the P&L by sector, the fragility of the information ratio (without the best days, without
// the best names, the share of the P&L made on the best days) and the realised concentration. The
// alpha page's panel and the tear sheet's two pages draw the same blocks. A part the route could not
// measure (a seal without sectors, a key without the P&L rows) shows its reason, never zeros; names
// and sectors come from the seal and are set as text.

import { panelLoader, titledBlocks } from "./analytics_panel.js";
import { fill, h, note, table, warningList } from "./dom.js";
import { DASH, int, pct } from "./format.js";
import { figureColumn } from "./labels.js";
import { entryCell, entryTable, entryText, figureCell, namedEntries, notMeasurable } from "./stat_entry.js";
import { hbarChartSvg, signKey } from "./svg.js";

export const TOP = 10; // contributors and detractors listed, each (the route's default)
export const DROP = 5; // best days and names the fragility figures leave out (the route's default)

// The figures of a leg's and a sector's row, in order: named and united by the registry.
const PART_COLUMNS = ["pnl", "return_contribution", "share", "names"];

export function attributionParams() {
  return { book: "long_short", top: TOP, drop: DROP };
}

export const loadAttribution = panelLoader("/analytics/attribution", "The attribution could not be read", (body, answer) =>
  fill(
    body,
    warningList(answer.meta.warnings),
    titledBlocks(answer, [
      ["Contributors and detractors", namesBlock],
      ["Long leg against short leg", legsBlock],
      ["By sector", sectorsBlock],
      ["Fragility", fragilityBlock],
      ["Concentration", concentrationBlock],
    ]),
  ),
  attributionParams(),
);

const contribution = (v) => pct(v, 1);

/** `rows` in the order of the value their bars show, highest first, a row without one last. */
function byValue(rows, value) {
  const key = (row) => (Number.isFinite(value(row)) ? value(row) : -Infinity);
  return [...rows].sort((a, b) => key(b) - key(a));
}

/** A part the route could not measure: its reason, as served. */
const withheld = (part, what) => notMeasurable(what, part.withheld_reason);

function totalsLine(data) {
  const t = data.totals;
  return h(
    "p",
    { class: "summary attribution-totals" },
    `${data.book}, ${int(data.sessions)} sessions. The book's P&L ${entryText(t.pnl)} × starting equity: the names' ${entryText(t.names_pnl)}, the cash carry ${entryText(t.cash_carry)}, rounding ${entryText(t.rounding_adjustment)}. `,
    `Return contributions add up to the sum of the daily returns, ${entryText(t.sum_of_daily_returns)} (not the compounded return): the names' ${entryText(t.names_return_contribution)}, the cash carry's ${entryText(t.cash_carry_return_contribution)}.`,
  );
}

function nameRows(list) {
  return list.map((n) => [h("th", { scope: "row", "data-symbol": n.symbol }, n.symbol), entryCell(n.pnl, "pnl"), entryCell(n.return_contribution, "return_contribution"), entryCell(n.share, "share")]);
}

/** Contributors and detractors: a chart of their return contributions and their two tables. */
export function namesBlock(answer) {
  const data = answer.data;
  const byName = data.by_name;
  if (byName.status === "not_measurable") return [totalsLine(data), withheld(byName, "By name")];
  // The bars show the return contribution, so they stand in its order: the largest at the top, the
  // largest loss at the bottom (the route ranks the names by P&L, the tables keep its order).
  const shown = byValue([...byName.contributors, ...byName.detractors], (n) => n.return_contribution.value);
  // One set of header elements a table; the caption below the chart states the units.
  const headers = () => ["Name", ...PART_COLUMNS.slice(0, 3).map((key) => figureColumn(key, { unit: false }))];
  return [
    totalsLine(data),
    shown.length
      ? hbarChartSvg({
          name: "attribution-names",
          title: "Return contribution of the contributors and detractors (%)",
          labels: shown.map((n) => n.symbol),
          values: shown.map((n) => n.return_contribution.value),
          format: contribution,
          xLabel: "Return contribution over the window (% of equity, summed over sessions)",
          yLabel: "Name",
          rowHeight: 11,
          labelWidth: 90,
          key: signKey("contribution"),
        })
      : null,
    h(
      "div",
      { class: "two-columns" },
      h("div", {}, h("h4", {}, `Top ${byName.contributors.length} contributors`), table(headers(), nameRows(byName.contributors), { className: "data compact attribution-contributors" })),
      h("div", {}, h("h4", {}, `Top ${byName.detractors.length} detractors`), table(headers(), nameRows(byName.detractors), { className: "data compact attribution-detractors" })),
    ),
    note(
      `${int(byName.names)} names with P&L in the window, ranked in the tables by their window P&L (the sum of their net_pnl: market P&L, execution cost and borrow), in × starting equity, and in the bars by what they show; contribution: the return contribution, % of equity summed over the sessions; share: of the names' P&L (a ratio).`,
      "caption",
    ),
  ];
}

/** The long leg against the short leg (and the rows in neither), each with its P&L and names. */
export function legsBlock(answer) {
  const legs = answer.data.by_leg;
  const row = (key, label) => {
    const part = legs[key];
    return [h("th", { scope: "row", "data-leg": key }, label), entryCell(part.pnl, "pnl"), entryCell(part.return_contribution, "return_contribution"), entryCell(part.share, "share"), figureCell(part.names, "names")];
  };
  return [
    table(["Leg", ...PART_COLUMNS.map(figureColumn)], [row("long", "Long"), row("short", "Short"), row("neither", "Neither")], {
      className: "data compact attribution-legs",
    }),
    note(`A P&L row's leg: ${legs.rule}.`, "caption"),
  ];
}

/** The P&L by sector, or why there is none. */
export function sectorsBlock(answer) {
  const sectors = answer.data.by_sector;
  if (sectors.status === "not_measurable") return [withheld(sectors, "By sector")];
  const label = (s) => (s.sector == null ? "no sector sealed" : s.sector);
  const bars = byValue(sectors.sectors, (s) => s.return_contribution.value); // in the order of what they show
  return [
    hbarChartSvg({
      name: "attribution-sectors",
      title: "Return contribution by sector (%)",
      labels: bars.map(label),
      values: bars.map((s) => s.return_contribution.value),
      format: contribution,
      xLabel: "Return contribution over the window (% of equity, summed over sessions)",
      yLabel: "Sector",
      rowHeight: 16,
      labelWidth: 170,
      key: signKey("contribution"),
    }),
    table(
      ["Sector", ...PART_COLUMNS.map(figureColumn)],
      sectors.sectors.map((s) => [h("th", { scope: "row", "data-sector": s.sector ?? "" }, label(s)), entryCell(s.pnl, "pnl"), entryCell(s.return_contribution, "return_contribution"), entryCell(s.share, "share"), figureCell(s.names, "names")]),
      { className: "data compact attribution-sectors" },
    ),
    note(`A P&L row's sector: ${sectors.rule}.`, "caption"),
  ];
}

/** The information ratio without the best days and names, and the share of the P&L of the best days. */
export function fragilityBlock(answer) {
  const f = answer.data.fragility;
  const entries = [
    ...namedEntries(answer.data, ["fragility.information_ratio"]),
    ...namedEntries(f, ["without_best_days", "best_days_kept", "without_best_names", "top_1pct_days_share", "top_5pct_days_share"]),
  ];
  const grid = entryTable(entries, { className: "data entries fragility" });
  return [
    grid,
    note(
      `Without the ${f.drop} best days (the sessions of largest return) and without the ${f.drop} best names (${f.best_names.length ? f.best_names.join(", ") : DASH}: their return contribution taken out of each session). The best 1% of days are ${int(f.top_1pct_days)} sessions, the best 5% ${int(f.top_5pct_days)}; a share above 1 means the other days lost in sum.`,
      "caption",
    ),
    f.best_days.length
      ? table(
          ["Best day", figureColumn("day_return"), figureColumn("pnl"), "Its top name", figureColumn("top_contribution")],
          f.best_days.map((d) => [h("th", { scope: "row" }, d.date), entryCell(d.day_return, "day_return"), entryCell(d.pnl, "pnl"), d.top_symbol ?? DASH, entryCell(d.top_contribution, "top_contribution")]),
          { className: "data compact attribution-best-days" },
        )
      : null,
  ];
}

/** The largest realised weight (its name, date and side) and how many names the book held. */
export function concentrationBlock(answer) {
  const c = answer.data.concentration;
  const largest = c.largest_weight;
  return [
    h(
      "p",
      { class: "summary", id: "attribution-largest-weight" },
      "Largest realised weight: ",
      h("strong", {}, entryText(largest.weight)),
      largest.symbol ? `, ${largest.side} ${largest.symbol} at the close of ${largest.date} (the weight held, not a target).` : ` (${largest.weight.withheld_reason || "not measurable"}).`,
    ),
    entryTable(namedEntries(c, ["names_held", "mean_names_per_session", "effective_names"]), { className: "data entries concentration" }),
    note(`Over the ${int(c.sessions_held)} sessions with a position at the close; the effective number of names is 1 / Σ w² of the gross-normalised weights (N for N equal positions), averaged over them.`, "caption"),
  ];
}
