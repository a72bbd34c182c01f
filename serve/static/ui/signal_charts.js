// Signal quality from /v1/alphas/{alpha}/metrics?panel=true: the weekly IC series (panel.ic_weekly),
// IC deciles as bars (ic_deciles.buckets), the IC term structure (panel.ic_term_structure) and the
// rank autocorrelation (panel.rank_autocorrelation).

import { categoryChart, COLORS, timeChart } from "./charts.js";
import { add, fill, h, note, table, warningList } from "./dom.js";
import { DASH, dateSeconds, fixed, int, num, pct, pp } from "./format.js";
import { figureColumn, figureName } from "./labels.js";
import { figureCell, figureSpan } from "./stat_entry.js";
import { NO_SPLIT } from "./live_split.js";

const BLOCKS = new Set(["panel", "ic_deciles"]);
// The figures of a decile's row and of a horizon's, each a column named by its term.
const DECILE_FIGURES = ["mean_score", "mean_score_z", "mean_forward_return", "ic", "n_return_obs"];
const TERM_FIGURES = ["mean_ic", "weeks", "newey_west.t_statistic", "newey_west.p_value", "newey_west.lag"];
const IC_MISMATCH = "ic_reproduction_mismatch"; // the weekly IC does not reproduce core.ic

export function renderSignal(body, metrics, split = NO_SPLIT) {
  const data = metrics.data;
  const warnings = (metrics.meta.warnings || []).filter((w) => BLOCKS.has(w.block));
  const panelData = data.panel;
  const deciles = data.ic_deciles;
  fill(body);
  if (!panelData && !deciles) {
    add(
      body,
      note("No signal panel for this alpha: the server published no weekly IC, deciles or autocorrelation."),
      warningList(warnings),
    );
    return;
  }
  const grid = h("div", { class: "chart-grid" });
  add(body, warningList(warnings), grid);

  if (panelData && panelData.ic_weekly && panelData.ic_weekly.length) {
    const cell = h("div", { class: "chart-cell" });
    add(grid, cell);
    const series = panelData.ic_weekly;
    const plotted = series.filter((r) => Number.isFinite(r.ic));
    const weekly = timeChart(cell, {
      name: "ic-weekly",
      title: figureName("ic_weekly.ic"),
      x: series.map((r) => dateSeconds(r.date)),
      series: [{ label: "IC", values: series.map((r) => r.ic), color: COLORS.ic, bars: true }],
      format: (v) => fixed(v, 2),
    });
    split.follow(weekly);
    // The caption is what the bars show. core.ic is the run's sealed mean IC: when the weekly IC
    // rebuilt from the cross-sections does not reproduce it, the server says so
    // (ic_reproduction_mismatch), and that warning stands beside the chart.
    const mismatch = (metrics.meta.warnings || []).filter((w) => w.code === IC_MISMATCH);
    add(
      cell,
      h(
        "p",
        { class: "caption", id: "ic-weekly-caption" },
        `Mean of the ${int(plotted.length)} weekly ICs shown: `,
        figureSpan("rebuilt_mean_ic", panelData.rebuilt_mean_ic, { servedAs: "panel.rebuilt_mean_ic" }),
        ".",
      ),
      mismatch.length ? h("div", { id: "ic-weekly-warning" }, warningList(mismatch)) : null,
    );
  }

  if (deciles && deciles.buckets && deciles.buckets.length) {
    const cell = h("div", { class: "chart-cell" });
    add(grid, cell);
    const buckets = deciles.buckets;
    categoryChart(cell, {
      name: "ic-deciles",
      title: "Mean forward return by score decile (raw score)",
      labels: buckets.map((b) => b.bucket),
      values: buckets.map((b) => (b.mean_forward_return == null ? null : b.mean_forward_return * 100)),
      color: COLORS.deciles,
      format: (v) => pp(v),
      axis: "Decile",
    });
    const m = deciles.monotonicity || {};
    add(
      cell,
      note(
        `${deciles.weeks} weeks (${deciles.weeks_skipped} skipped); Spearman of decile vs mean forward return ${num(m.spearman_bucket_vs_mean_forward_return)}; top − bottom ${pct(m.top_minus_bottom, 3)} a week.`,
        "caption",
      ),
      h(
        "details",
        {},
        h("summary", {}, "Decile table"),
        table(
          ["Decile", ...DECILE_FIGURES.map((name) => figureColumn(`ic_deciles.buckets.${name}`))],
          buckets.map((b) => [b.bucket, ...DECILE_FIGURES.map((name) => figureCell(b[name], `ic_deciles.buckets.${name}`))]),
          { className: "data deciles" },
        ),
      ),
    );
  }

  if (panelData && panelData.ic_term_structure && panelData.ic_term_structure.length) {
    const cell = h("div", { class: "chart-cell" });
    add(grid, cell);
    const terms = panelData.ic_term_structure;
    categoryChart(cell, {
      name: "ic-term-structure",
      title: "IC term structure (raw score, by horizon)",
      labels: terms.map((t) => `${t.horizon_weeks}w`),
      values: terms.map((t) => t.mean_ic),
      color: COLORS.term,
      format: (v) => fixed(v, 3),
      axis: "Horizon",
    });
    add(
      cell,
      table(
        ["Horizon", ...TERM_FIGURES.map((key) => figureColumn(`panel.ic_term_structure.${key}`))],
        terms.map((t) => {
          const nw = t.newey_west || {};
          return [
            `${t.horizon_weeks} w`,
            // A test not run (fewer weeks than it needs) is a dash: no figure is served there.
            ...TERM_FIGURES.map((key) => {
              const [field, inner] = key.split(".");
              return inner && !t.newey_west ? h("td", { class: "number" }, DASH) : figureCell(inner ? nw[inner] : t[field], `panel.ic_term_structure.${key}`);
            }),
          ];
        }),
        { className: "data compact term-structure" },
      ),
    );
  }

  if (panelData && panelData.rank_autocorrelation && panelData.rank_autocorrelation.length) {
    const cell = h("div", { class: "chart-cell" });
    add(grid, cell);
    const lags = panelData.rank_autocorrelation;
    categoryChart(cell, {
      name: "rank-autocorrelation",
      title: "Rank autocorrelation (raw score, by lag)",
      labels: lags.map((l) => `${l.lag_weeks}w`),
      values: lags.map((l) => l.rho),
      color: COLORS.autocorrelation,
      format: (v) => fixed(v, 2),
      axis: "Lag",
      line: true,
    });
    add(
      cell,
      note(
        `Spearman correlation of a week's ranks with those ${lags[0].lag_weeks} to ${lags[lags.length - 1].lag_weeks} weeks later; ${lags[0].weeks} week pairs at lag ${lags[0].lag_weeks}.`,
        "caption",
      ),
    );
  }
}
