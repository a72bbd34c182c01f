// One alpha: its description, performance against the market benchmark, signal quality, metrics, cross-sections and
// downloads. The description is asked for first: a key that may not read the alpha (403
// alpha_not_allowed) or an unknown alpha (404) stops there with the server's refusal. Each panel
// then loads on its own, so a refusal of one endpoint shows in its panel and the others still draw.
// A bar that stays at the top of the window links every panel, as the page is long.
// Live against backtest follows the performance: its split is shared with every time chart of the
// page (live_split.js), which shade the out-of-sample part. The decision summary, the tear sheet's
// first page, follows the description: what a head of research weighs before signing, first.

import { alphaPath, apiGet, isAbort } from "./api.js";
import { renderCrossSection } from "./cross_section.js";
import { alphaActions, decisionPanels } from "./decision_panels.js";
import { decisionSummary, settledSummary } from "./decision_summary.js";
import { renderDescription } from "./description.js";
import { renderDownloads } from "./downloads.js";
import { loadLive } from "./live_panel.js";
import { splitFollower } from "./live_split.js";
import { add, errorBox, fill, h, isolated, note, panel, showError } from "./dom.js";
import { renderMetrics } from "./metrics_table.js";
import { renderPerformance } from "./performance.js";
import { renderSignal } from "./signal_charts.js";
import { BENCHMARK } from "./market.js";

const STOP_CODES = new Set(["alpha_not_allowed", "alpha_not_found", "run_not_allowed", "run_not_found"]);
const METRICS_GRANULARITY = "yearly";

export async function renderAlpha(main, alpha, context) {
  const title = h("h1", {}, alpha);
  const subtitle = h("p", { class: "subtitle" });
  const header = h(
    "div",
    { class: "alpha-header" },
    h("a", { href: "#/", class: "back" }, "‹ All alphas"),
    title,
    subtitle,
    alphaActions(alpha),
  );
  const description = panel("description", "Description", "GET /v1/alphas/{alpha}");
  const sections = h("nav", { class: "section-nav", id: "section-nav", "aria-label": "Sections of this page" });
  fill(main, header, sections, description.section);

  let described = null;
  try {
    described = await apiGet(alphaPath(alpha), {}, context);
  } catch (error) {
    if (isAbort(error)) return;
    if (STOP_CODES.has(error.code) || error.status === 401) {
      fill(main, header, errorBox(error, `${alpha} cannot be shown`));
      return;
    }
    fill(description.body, errorBox(error, "No description"));
  }
  if (described) {
    title.textContent = isolated(described.data.name || alpha);
    fill(subtitle, h("code", {}, alpha));
    renderDescription(description.body, described.data);
  }

  const performance = panel(
    "performance",
    `Performance against ${BENCHMARK}`,
    `GET /v1/alphas/{alpha}/equity-curve and /v1/benchmarks/${BENCHMARK}/daily, every page`,
  );
  const live = panel(
    "live",
    "Live against backtest",
    "GET /v1/alphas/{alpha}/analytics/live and /v1/alphas/{alpha}/promotions",
  );
  const signalQuality = panel("signal", "Signal quality", "GET /v1/alphas/{alpha}/metrics?panel=true");
  const metrics = panel("metrics", "Metrics", "GET /v1/alphas/{alpha}/metrics?granularity=…");
  const crossSection = panel(
    "cross-section",
    "Cross-section by week",
    "GET /v1/alphas/{alpha}/rebalances and /rebalances/{date}",
  );
  const downloads = panel(
    "downloads",
    "Downloads",
    "GET /v1/alphas/{alpha}/source/download, /exports and /exports/{dataset}",
  );
  const summary = panel("decision", "Decision summary", "The tear sheet's first page: GET /v1/alphas/{alpha}/promotions and the analytics each row names");
  add(main, summary.section, performance.section, live.section, signalQuality.section, metrics.section);
  const page = { ...context, split: splitFollower() }; // the charts shade after the live panel's split
  add(main, decisionPanels(alpha, page), crossSection.section, downloads.section);
  fill(sections, sectionLinks(main, alpha));

  loadSummary(summary.body, alpha, context);
  renderPerformance(performance.body, alpha, page);
  loadLive(live.body, alpha, page);
  loadMetrics(alpha, signalQuality.body, metrics.body, page);
  renderCrossSection(crossSection.body, alpha, context);
  renderDownloads(downloads.body, alpha, context);
}

/** The decision summary, drawn once every answer it reads has settled. */
async function loadSummary(body, alpha, context) {
  const got = await settledSummary((suffix, params = {}) => apiGet(alphaPath(alpha, suffix), params, context));
  if (Object.values(got).some((s) => s.status === "rejected" && isAbort(s.reason))) return;
  fill(body, decisionSummary(alpha, got));
}

/** One link per panel of the page, scrolling to it (the fragment stays the alpha's route). */
function sectionLinks(main, alpha) {
  return [...main.querySelectorAll("section.panel[id]")].map((section) =>
    h(
      "a",
      {
        href: `#/alphas/${encodeURIComponent(alpha)}`,
        "data-section": section.id,
        onclick: (event) => {
          event.preventDefault();
          section.scrollIntoView({ block: "start" });
        },
      },
      section.querySelector("h2").textContent,
    ),
  );
}

async function loadMetrics(alpha, signalBody, metricsBody, context) {
  let answer;
  try {
    answer = await apiGet(alphaPath(alpha, "/metrics"), { granularity: METRICS_GRANULARITY, panel: "true" }, context);
  } catch (error) {
    showError(signalBody, error, "The metrics could not be read");
    showError(metricsBody, error, "The metrics could not be read");
    return;
  }
  try {
    renderSignal(signalBody, answer, context.split);
  } catch (error) {
    fill(signalBody, note(`The signal charts could not be drawn: ${error.message}`, "error"));
  }
  renderMetrics(metricsBody, alpha, answer, METRICS_GRANULARITY, context);
}
