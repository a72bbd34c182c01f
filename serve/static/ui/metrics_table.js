// The metrics table of /v1/alphas/{alpha}/metrics: core statistics, rank IC, Newey-West t-stats with
// their lags (nwt), and per-period statistics at the chosen granularity (periods). Names, units and
// colours are labels.js's; turnover is drawn per year, the page's one turnover basis, as served
// (`core.annual_turnover`, and a period's over its sessions, `periods[].core.annual_turnover`).

import { alphaPath, apiGet } from "./api.js";
import { fill, h, note, numberCell, showError, table, warningList } from "./dom.js";
import { DASH, fixed, int } from "./format.js";
import { figureColumn, figureNameWithBasis, labelMark, unitMark, unitText } from "./labels.js";
import { entryCell, figureCell, icirLabel, unreproducedBadge } from "./stat_entry.js";

const CORE = ["ic", "icir", "icir_per_week", "information_ratio", "excess_sharpe", "sharpe", "pnl", "max_drawdown", "max_drawdown_pct", "annual_turnover"];
// core.sharpe is the information ratio under its former name (docs/api.md).
const ALIASES = { sharpe: "deprecated alias of the information ratio" };
// The tests by what their series counts: a lag and an n are weeks of a weekly series, sessions of
// a daily one (each its own term, `nwt.ic.lag` against `nwt.ir.lag`), so each kind is its own table.
const NWT = {
  weekly: [
    ["ic", "Mean IC (conditioned)"],
    ["ic_score_panel", "Mean IC of the raw score panel"],
  ],
  daily: [["ir", "Mean daily return of the long/short book"]],
};
const NWT_FIGURES = ["mean", "standard_error", "t_statistic", "p_value", "lag", "n"];
const PERIOD_COLUMNS = ["ic", "icir", "information_ratio", "excess_sharpe", "pnl", "max_drawdown_pct", "annual_turnover"];

function statusText(entry) {
  if (!entry) return "not served";
  if (entry.status === "not_measurable")
    return `not measurable${entry.withheld_reason ? `: ${entry.withheld_reason}` : ""}`;
  return entry.status;
}

// The sealed IC figures, flagged when the cross-sections do not reproduce the sealed mean IC.
const SEALED_IC = new Set(["ic", "icir", "icir_per_week"]);

function coreTable(core, warnings) {
  return table(
    ["Statistic", "Value", "Unit", "Annualisation", "Signal", "Status"],
    CORE.map((key) => {
      const entry = core[key];
      const name = ALIASES[key] ? `${figureNameWithBasis(`core.${key}`)} (${ALIASES[key]})` : figureNameWithBasis(`core.${key}`);
      return [
        h(
          "span",
          { "data-figure": `core.${key}`, ...labelMark(`core.${key}`) },
          key === "icir" ? icirLabel(entry) : name,
          " ",
          h("code", {}, `core.${key}`),
          SEALED_IC.has(key) ? unreproducedBadge(warnings) : null,
        ),
        entryCell(entry, `core.${key}`),
        h("td", unitMark(`core.${key}`), entry ? unitText(entry.unit) : DASH),
        entry && entry.annualisation ? entry.annualisation.replaceAll("_", " ") : DASH,
        entry && entry.signal ? entry.signal : DASH,
        statusText(entry),
      ];
    }),
    { className: "data metrics-core" },
  );
}

function tenureLine(tenure) {
  if (!tenure) return note("Tenure: not served.");
  const weeks = tenure.weeks != null ? `${tenure.weeks} weeks (${tenure.traded_weeks} traded), ` : "";
  const span = tenure.first_rebalance ? `${tenure.first_rebalance} to ${tenure.last_rebalance}, ` : "";
  return note(
    `Tenure: ${weeks}${span}${int(tenure.calendar_days)} days, ${fixed(tenure.years, 2)} years (source: ${tenure.source}).`,
  );
}

/** A rank IC figure's name with the score it is of, unless its name says it ("Raw ICIR"). */
function scoreLabel(name, family) {
  return name.toLowerCase().includes(family.toLowerCase()) ? name : `${name} (${family} score)`;
}

function rankIcTable(rankIc) {
  if (!rankIc) return note("Rank IC: not served.");
  const rows = [];
  for (const [family, entries] of Object.entries(rankIc)) {
    for (const [key, entry] of Object.entries(entries || {})) {
      rows.push([
        h(
          "span",
          { "data-figure": `rank_ic.${family}.${key}`, ...labelMark(`rank_ic.${family}.${key}`) },
          scoreLabel(figureNameWithBasis(`rank_ic.${family}.${key}`), family),
          " ",
          h("code", {}, `rank_ic.${family}.${key}`),
        ),
        entryCell(entry, `rank_ic.${family}.${key}`),
        h("td", unitMark(`rank_ic.${family}.${key}`), entry ? unitText(entry.unit) : DASH),
        statusText(entry),
      ]);
    }
  }
  return table(["Statistic", "Value", "Unit", "Status"], rows, { className: "data compact" });
}

/** The Newey-West tests of one kind (`weekly` or `daily`): each figure a column named by its term,
 * the first test's keys naming them (the terms are the kind's: `nwt.ic.lag` counts weeks). */
function nwtTable(nwt, warnings, kind) {
  const tests = NWT[kind];
  const [first] = tests[0];
  return table(
    ["Newey-West test of", ...NWT_FIGURES.map((name) => figureColumn(`nwt.${first}.${name}`)), kind === "weekly" ? "Signal" : "Frequency", "Source"],
    tests.map(([key, label]) => {
      const block = nwt ? nwt[key] : null;
      if (!block) {
        const why = warnings.find((w) => w.block === `nwt.${key}`);
        return [
          h("span", {}, label, " ", h("code", {}, `nwt.${key}`)),
          h("td", { colspan: String(NWT_FIGURES.length + 2), class: "muted" }, why ? `not published: ${why.message}` : "not published"),
        ];
      }
      return [
        h("span", {}, label, " ", h("code", {}, `nwt.${key}`)),
        ...NWT_FIGURES.map((name) => figureCell(block[name], `nwt.${key}.${name}`)),
        block.signal || block.frequency || DASH,
        block.source || DASH,
      ];
    }),
    { className: `data nwt nwt-${kind}` },
  );
}

function periodsTable(periods) {
  if (!periods || periods.length === 0) return note("No periods at this granularity.");
  return table(
    [
      "Period",
      ...PERIOD_COLUMNS.map((key) =>
        h("span", labelMark(`core.${key}`), key === "icir" ? icirLabel(periods[0].core.icir) : figureNameWithBasis(`core.${key}`)),
      ),
      "Weeks",
    ],
    periods.map((p) => [
      h("th", { scope: "row" }, p.period),
      ...PERIOD_COLUMNS.map((key) => entryCell(p.core[key], `core.${key}`)),
      numberCell(p.core.tenure && p.core.tenure.weeks != null ? int(p.core.tenure.weeks) : DASH, null),
    ]),
    { className: "data periods" },
  );
}

/**
 * Render the table from the first metrics answer (`granularity`), with a selector that asks the
 * server again for another granularity's periods.
 */
export function renderMetrics(body, alpha, metrics, granularity, { signal }) {
  const data = metrics.data;
  const warnings = metrics.meta.warnings || [];
  const select = h(
    "select",
    { id: "metrics-granularity", name: "granularity" },
    ["yearly", "monthly", "overall"].map((g) => h("option", { value: g, selected: g === granularity }, g)),
  );
  const periods = h("div", { id: "metrics-periods" }, periodsTable(data.periods));
  let latest = 0; // answers to an earlier choice are dropped
  select.addEventListener("change", async () => {
    const ticket = ++latest;
    fill(periods, note("Loading…"));
    try {
      const answer = await apiGet(alphaPath(alpha, "/metrics"), { granularity: select.value }, { signal });
      if (ticket === latest) fill(periods, periodsTable(answer.data.periods));
    } catch (error) {
      if (ticket === latest) showError(periods, error, "The metrics could not be read");
    }
  });
  fill(
    body,
    warningList(warnings),
    h("h3", {}, "Core statistics (long/short book, whole run)"),
    coreTable(data.core || {}, warnings),
    tenureLine(data.core ? data.core.tenure : null),
    h("h3", {}, "Rank IC"),
    rankIcTable(data.rank_ic),
    h("h3", {}, "Newey-West t-statistics"),
    note("HAC (Bartlett kernel) tests that the mean is zero; the lag is the one each test used, in the periods of its series.", "muted"),
    h("h4", {}, "Weekly series (lag and observations in weeks)"),
    nwtTable(data.nwt, warnings, "weekly"),
    h("h4", {}, "Daily series (lag and observations in sessions)"),
    nwtTable(data.nwt, warnings, "daily"),
    h("h3", {}, "By period"),
    h("div", { class: "controls" }, h("label", { for: "metrics-granularity" }, "Granularity"), select),
    periods,
  );
}
