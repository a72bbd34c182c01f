// Robust to where it trades (GET /v1/alphas/{alpha}/analytics/sub_universe, docs/analytics.md
// "Sub-universe test"; issue 62 item 6): the signal's weekly IC and ICIR on the liquid and the
// illiquid half of each week's names by the sealed adv, on seeded random halves, and on the whole
// cross-section, with WorldQuant's sub-universe test. The alpha page's panel and the tear sheet's
// page draw the same block; every number is a served figure, marked by its key; nothing is computed
// here.

import { panelLoader } from "./analytics_panel.js";
import { fill, h, note, table } from "./dom.js";
import { figureColumn } from "./labels.js";
import { figureCell, notMeasurable } from "./stat_entry.js";

const UNIVERSE = ["universe_mean_names", "universe_mean_ic", "universe_icir", "without_adv_mean_names"];
const HALF = ["weeks", "half_mean_names", "half_mean_ic", "half_icir", "required_icir", "sub_universe"];
const RANDOM = ["random_mean_ic", "random_mean_ic_p05", "random_mean_ic_p95", "random_icir", "random_icir_p05", "random_icir_p95", "random_pass_share"];

function passText(passes) {
  return passes === null || passes === undefined ? "not measurable" : passes ? "passes" : "fails";
}

/** The whole cross-section, the two halves by adv (with the test) and the random halves. */
export function subUniverseBlock(answer) {
  const data = answer.data;
  if (data.status === "not_measurable") return notMeasurable("Sub-universe test", data.withheld_reason);
  return [
    h(
      "p",
      { class: "summary", id: "sub-universe-summary" },
      `The liquid half ${passText(data.passes)} WorldQuant's sub-universe test (its ICIR at least ${data.pass_ratio} × √(n_sub / n) × the full ICIR; the IC's information ratio is the Sharpe tested).`,
    ),
    table(
      UNIVERSE.map((key) => figureColumn(key)),
      [UNIVERSE.map((key) => figureCell(data[key], key))],
      { className: "data compact sub-universe-full" },
    ),
    table(
      ["Half by adv", ...HALF.map((key) => figureColumn(key)), "Test"],
      data.halves.map((half) => [
        h("th", { scope: "row", "data-half": half.half }, half.half),
        ...HALF.map((key) => figureCell(half[key], key)),
        h("td", { class: "verdict" }, passText(half.passes)),
      ]),
      { className: "data compact sub-universe-halves" },
    ),
    table(
      RANDOM.map((key) => figureColumn(key)),
      [RANDOM.map((key) => figureCell(data.random[key], key))],
      { className: "data compact sub-universe-random" },
    ),
    note(`${data.split}. ${data.random.draws} random draws; percentiles over draws.`, "caption"),
  ];
}

export const loadSubUniverse = panelLoader("/analytics/sub_universe", "The sub-universe test could not be read", (body, answer) =>
  fill(body, subUniverseBlock(answer)),
);
