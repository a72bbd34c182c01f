// Signal quality from /v1/alphas/{alpha}/metrics?panel=true: the weekly IC series (panel.ic_weekly),
// IC deciles as bars (ic_deciles.buckets), the IC term structure (panel.ic_term_structure) and the
// rank autocorrelation (panel.rank_autocorrelation).

import { categoryChart, COLORS, timeChart } from "./charts.js";
import { add, fill, h, note, numberCell, table, warningList } from "./dom.js";
import { dateSeconds, fixed, int, num, pct, pp } from "./format.js";
import { valueTone } from "./labels.js";
import { NO_SPLIT } from "./live_split.js";

const BLOCKS = new Set(["panel", "ic_deciles"]);
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
      title: "Weekly rank IC (conditioned score)",
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
        `Mean of the ${int(plotted.length)} weekly ICs shown: ${num(panelData.rebuilt_mean_ic)}.`,
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
          ["Decile", "Mean score", "Mean z", "Mean forward return", "IC", "Return obs."],
          buckets.map((b) => [
            b.bucket,
            numberCell(num(b.mean_score), b.mean_score),
            numberCell(fixed(b.mean_score_z, 2), b.mean_score_z),
            numberCell(pct(b.mean_forward_return, 3), b.mean_forward_return),
            numberCell(num(b.ic), b.ic, { tone: valueTone("ic", b.ic) }),
            numberCell(int(b.n_return_obs), b.n_return_obs),
          ]),
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
        ["Horizon", "Mean IC", "Weeks", "NW t-stat", "p-value", "NW lag"],
        terms.map((t) => {
          const nw = t.newey_west || {};
          return [
            `${t.horizon_weeks} w`,
            numberCell(num(t.mean_ic), t.mean_ic, { tone: valueTone("mean_ic", t.mean_ic) }),
            numberCell(int(t.weeks), t.weeks),
            numberCell(fixed(nw.t_statistic, 2), nw.t_statistic),
            numberCell(fixed(nw.p_value, 3), nw.p_value),
            numberCell(int(nw.lag), nw.lag),
          ];
        }),
        { className: "data compact" },
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
