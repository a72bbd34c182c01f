// The decision analytics on an alpha's page: significance, uncertainty, overfitting, the family tests, drawdown episodes, rolling figures,
// costs, regimes, decay, monitoring, risk, checks and the promote preview, each a panel of its own that loads on its own (a refusal, say a key
// without `analytics.risk`, shows the server's message in that panel and the others still draw).

import { h, panel } from "./dom.js";
import { loadAttribution } from "./attribution_panel.js";
import { loadQuantiles } from "./quantiles_panel.js";
import { loadCapacity } from "./capacity_panel.js";
import { loadFactors } from "./factors_panel.js";
import { loadChecks } from "./checks_panel.js";
import { loadPromotionPreview } from "./promotion_panel.js";
import { loadCosts } from "./costs_panel.js";
import { loadRegimes } from "./regimes_panel.js";
import { loadDecay } from "./decay_panel.js";
import { loadMmc } from "./mmc_panel.js";
import { loadSubUniverse } from "./sub_universe_panel.js";
import { loadMonitoring } from "./monitoring_panel.js";
import { loadDrawdowns } from "./drawdowns_panel.js";
import { loadRisk } from "./risk_panel.js";
import { loadRolling } from "./rolling_panel.js";
import { loadSignificance } from "./significance_panel.js";
import { loadCatalogueBound } from "./catalogue_bound_panel.js";
import { loadUncertainty } from "./uncertainty_panel.js";
import { loadOverfitting } from "./overfitting_panel.js";
import { loadFamilyTests } from "./family_tests_panel.js";
import { BENCHMARK } from "./market.js";

const PANELS = [
  ["significance", "Significance", "GET /v1/alphas/{alpha}/analytics/significance", loadSignificance],
  ["catalogue-bound", "A bound over the whole catalogue (Rademacher anti-serum)", "GET /v1/alphas/{alpha}/analytics/catalogue_bound", loadCatalogueBound],
  ["uncertainty", "Uncertainty of the headline figures", "GET /v1/alphas/{alpha}/analytics/uncertainty?book=long_short", loadUncertainty],
  ["overfitting", "Backtest overfitting of the trial family", "GET /v1/alphas/{alpha}/analytics/overfitting", loadOverfitting],
  ["family-tests", "Family tests: which variants are indistinguishable from the best", "GET /v1/alphas/{alpha}/analytics/family_tests", loadFamilyTests],
  ["checks", "Checks against the policy", "GET /v1/alphas/{alpha}/analytics/checks", loadChecks],
  ["promote-preview", "Promote preview", "GET /v1/alphas/{alpha}/analytics/promotion_preview (read-only: what alpha-results promote would record and change)", loadPromotionPreview],
  ["risk", `Risk against ${BENCHMARK}`, "GET /v1/alphas/{alpha}/analytics/risk", loadRisk],
  ["drawdown-episodes", "Drawdown episodes", "GET /v1/alphas/{alpha}/analytics/drawdowns, every page", loadDrawdowns],
  ["rolling", "Rolling IC and information ratio", "GET /v1/alphas/{alpha}/analytics/rolling?window=…, every page", loadRolling],
  ["costs", "Costs", "GET /v1/alphas/{alpha}/analytics/costs", loadCosts],
  ["regimes", `By regime of ${BENCHMARK}`, "GET /v1/alphas/{alpha}/analytics/regimes", loadRegimes],
  ["decay", "Decay and the expected live haircut", "GET /v1/alphas/{alpha}/analytics/decay", loadDecay],
  ["monitoring", "Is it still working? (CUSUM)", "GET /v1/alphas/{alpha}/analytics/monitoring", loadMonitoring],
  ["attribution", "Where the P&L came from", "GET /v1/alphas/{alpha}/analytics/attribution?top=10&drop=5", loadAttribution],
  ["quantiles", "Quantile returns", "GET /v1/alphas/{alpha}/analytics/quantiles?quantiles=5", loadQuantiles],
  ["sub-universe", "Robust to where it trades (sub-universe test)", "GET /v1/alphas/{alpha}/analytics/sub_universe", loadSubUniverse],
  ["factors", "Factor attribution", "GET /v1/alphas/{alpha}/analytics/factors", loadFactors],
  ["capacity", "Capacity", "GET /v1/alphas/{alpha}/analytics/capacity", loadCapacity],
  ["mmc", "Contribution to the approved book", "GET /v1/alphas/{alpha}/analytics/mmc and GET /v1/analytics/crowding (the approved alphas you may read)", loadMmc],
];

/** The panels, in a container to place on the page; each starts loading at once. */
export function decisionPanels(alpha, context) {
  const container = h("div", { id: "decisions" });
  for (const [id, title, intro, load] of PANELS) {
    const { section, body } = panel(id, title, intro);
    container.append(section);
    load(body, alpha, context);
  }
  return container;
}

/**
 * Links from an alpha's page to its tear sheet, the comparison page, the combination page with
 * the alpha as the one added (the combination page chooses its partner: combine_page.js), and its
 * events on the activity page.
 */
export function alphaActions(alpha) {
  const id = encodeURIComponent(alpha);
  return h(
    "p",
    { class: "alpha-actions" },
    h("a", { href: `#/alphas/${id}/tearsheet`, class: "button-link", id: "open-tearsheet" }, "Tear sheet"),
    h("a", { href: `#/compare?a=${id}`, class: "button-link", id: "open-compare" }, "Compare with…"),
    h("a", { href: `#/combine?add=${id}`, class: "button-link", id: "open-combine" }, "Combine…"),
    h("a", { href: `#/activity?alpha=${id}`, class: "button-link", id: "open-activity" }, "Activity"),
  );
}
