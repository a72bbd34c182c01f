// Is it still working? (GET /v1/alphas/{alpha}/analytics/monitoring): the CUSUM of each live week of
// the book's return and of the IC against the level the approval expects, each chart's state with
// its statistic against the threshold and its alarms, and how often the chart would be wrong. The
// alpha page's panel and the tear sheet summary's row draw the same sentence. Every number is served,
// and written as its term (stat_entry.js `figureSpan`: marked, named in its title).

import { panelLoader } from "./analytics_panel.js";
import { fill, h, warningList } from "./dom.js";
import { figureSpan } from "./stat_entry.js";

const SERIES = { book_return: "Book return", ic: "IC" };
const STATES = { alarm: "ALARM", in_control: "in control", not_measurable: "not measurable" };

/** One chart as a sentence: its state, its statistic against the threshold, its alarms (`brief`: the
 * last alarm alone, and no reason for a chart not measured: the page's panel gives it). */
function chartLine(data, chart, brief) {
  const name = SERIES[chart.series] || chart.series;
  // A chart's own figure, served in its entry of `charts` (picked by its series).
  const own = (key) => figureSpan(key, chart[key], { servedAs: `charts[series=${chart.series}].${key}` });
  const threshold = figureSpan("cusum_threshold", data.cusum_threshold);
  if (chart.state === "not_measurable")
    return [h("strong", {}, name), brief ? ": not measurable." : `: not measurable (${chart.withheld_reason || "no reason given"}).`];
  const alarms = chart.alarms || [];
  const last = alarms.at(-1);
  return [
    h("strong", {}, name),
    ": ",
    h("span", { class: chart.state === "alarm" ? "fail" : "" }, STATES[chart.state] || chart.state),
    " (statistic ",
    own("cusum_statistic"),
    " of ",
    threshold,
    ...(brief
      ? [", ", own("live_weeks"), ` weeks${last ? `, last alarm ${last}` : ""}).`]
      : [" after ", own("live_weeks"), data.live ? " live weeks" : " weeks after the split (not live: no approval)", alarms.length ? `; alarms ${alarms.join(", ")}` : "", ")."]),
  ];
}

/**
 * The monitoring sentence: both charts, then the design's error rates (the panel), or with `brief`
 * the false-alarm rate alone (the tear sheet's first page, which holds one printed page).
 */
export function monitoringLine(answer, { brief = false } = {}) {
  const data = answer.data;
  const since = data.split_date ? `since ${data.split_date} (${data.live ? "the approval: live" : data.split_origin})` : "with no split";
  const figure = (key) => figureSpan(key, data[key]);
  const rate = (one) => [`${one} false alarm every `, figure("arl0_weeks"), " weeks of an alpha that still works (a probability of ", figure("false_alarm_probability_per_year"), " within a year)."];
  return h(
    "div",
    { class: "monitoring-line", id: "monitoring-line", "data-states": data.charts.map((c) => c.state).join(",") },
    h("p", {}, `CUSUM ${since}: `, data.charts.map((c, i) => [i ? " " : "", chartLine(data, c, brief)]), brief ? [" ", rate("One")] : null),
    brief
      ? null
      : h(
          "p",
          { class: "caption" },
          "Designed to detect a fall of the information ratio by ",
          figure("ir_fall_detected"),
          ": ",
          rate("one"),
          " On average ",
          figure("arl1_weeks"),
          " weeks to an alarm once it has fallen. Expected level: ",
          data.expected_live_information_ratio == null
            ? "none (not measurable)."
            : [figureSpan("expected_live_information_ratio", data.expected_live_information_ratio), " (/analytics/expectation's, as the decision summary shows it)."],
        ),
  );
}

export const loadMonitoring = panelLoader("/analytics/monitoring", "The monitoring could not be read", (body, answer) =>
  fill(body, warningList(answer.meta.warnings), monitoringLine(answer)),
  { book: "long_short" },
);
