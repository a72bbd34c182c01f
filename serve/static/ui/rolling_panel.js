// Rolling figures (every page of GET /v1/alphas/{alpha}/analytics/rolling?window=13|26|52): the
// trailing mean weekly IC and the trailing information ratio of weekly returns, one chart each.

import { alphaPath, apiGetAll } from "./api.js";
import { COLORS, timeChart } from "./charts.js";
import { fill, h, note, showError, warningList } from "./dom.js";
import { dateSeconds, num } from "./format.js";
import { figureName } from "./labels.js";
import { NO_SPLIT } from "./live_split.js";

const WINDOWS = ["26", "13", "52"];

export function loadRolling(body, alpha, { signal, split = NO_SPLIT }) {
  const select = h(
    "select",
    { id: "rolling-window", name: "window" },
    WINDOWS.map((w) => h("option", { value: w }, `${w} weeks`)),
  );
  const content = h("div", {}, note("Loading…"));
  fill(body, h("div", { class: "controls" }, h("label", { for: "rolling-window" }, "Trailing window"), select), content);
  let latest = 0;
  select.addEventListener("change", () => load(select.value));
  return load(select.value);

  async function load(window) {
    const ticket = ++latest;
    fill(content, note("Loading…"));
    let answer;
    try {
      answer = await apiGetAll(alphaPath(alpha, "/analytics/rolling"), { book: "long_short", window }, { limit: 500, signal });
    } catch (error) {
      if (ticket === latest) showError(content, error, "The rolling figures could not be read");
      return null;
    }
    if (ticket !== latest) return null;
    if (answer.data.length === 0) {
      fill(content, warningList(answer.meta.warnings), note("No week has a full trailing window."));
      return answer;
    }
    const x = answer.data.map((r) => dateSeconds(r.date));
    const charts = h("div", { class: "chart-grid" });
    fill(
      content,
      warningList(answer.meta.warnings),
      charts,
      note(`${answer.data.length} weeks; each point is over the ${answer.meta.window_weeks} weeks up to its date (${answer.meta.signal} signal).`, "caption"),
    );
    const cell = () => charts.appendChild(h("div", { class: "chart-cell" }));
    const ic = timeChart(cell(), {
      name: "rolling-ic",
      title: `${figureName("rebuilt_mean_ic")}, rolling (${window} weeks)`,
      x,
      series: [{ label: figureName("rebuilt_mean_ic"), values: answer.data.map((r) => r.rebuilt_mean_ic), color: COLORS.ic }],
      format: num,
      height: 200,
    });
    const ir = timeChart(cell(), {
      name: "rolling-ir",
      title: `Rolling information ratio (${window} weeks, annualised)`,
      x,
      series: [{ label: "information ratio", values: answer.data.map((r) => r.information_ratio), color: COLORS.alpha }],
      format: num,
      height: 200,
    });
    split.follow(ic);
    split.follow(ir);
    return answer;
  }
}
