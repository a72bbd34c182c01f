// Drawdown episodes of the long_short book (every page of GET /v1/alphas/{alpha}/analytics/drawdowns,
// deepest first as served): peak, trough, recovery (a dash while not recovered), depth, durations.
// The ten deepest are shown, and a button shows them all.

import { alphaPath, apiGetAll } from "./api.js";
import { fill, h, note, showError, table, warningList } from "./dom.js";
import { int } from "./format.js";
import { figureColumn } from "./labels.js";
import { figureCell } from "./stat_entry.js";

export const DEEPEST = 10;

export async function loadDrawdowns(body, alpha, { signal }) {
  let answer;
  try {
    answer = await apiGetAll(alphaPath(alpha, "/analytics/drawdowns"), { book: "long_short" }, { limit: 500, signal });
  } catch (error) {
    showError(body, error, "The drawdown episodes could not be read");
    return null;
  }
  const episodes = answer.data;
  const list = h("div", { id: "drawdown-list" }, drawdownTable(episodes, DEEPEST));
  const caption = (shown) =>
    `${int(answer.total)} episodes of the ${answer.meta.book} book${shown < episodes.length ? `; the ${shown} deepest shown` : ""}.`;
  const said = note(caption(Math.min(DEEPEST, episodes.length)), "caption");
  const all = h("button", { type: "button", id: "drawdowns-show-all" }, `Show all ${int(episodes.length)} episodes`);
  all.addEventListener("click", () => {
    fill(list, drawdownTable(episodes));
    said.textContent = caption(episodes.length);
    all.remove();
  });
  fill(body, warningList(answer.meta.warnings), list, said, episodes.length > DEEPEST ? all : null);
  return answer;
}

// An episode's figures, each under its term (schemas/terms.py), named, united and marked by the
// shared helpers: a dash while not recovered.
const EPISODE_FIGURES = ["depth_pct", "sessions_to_trough", "sessions_to_recovery"];

export function drawdownTable(rows, limit) {
  if (rows.length === 0) return note("No drawdown: the book never fell below a peak.");
  const shown = limit ? rows.slice(0, limit) : rows;
  return table(
    ["Peak", "Trough", "Recovery", ...EPISODE_FIGURES.map((key) => figureColumn(key))],
    shown.map((r) => [
      h("th", { scope: "row" }, r.peak_date),
      r.trough_date,
      r.recovery_date ?? "not recovered",
      ...EPISODE_FIGURES.map((key) => figureCell(r[key], key)),
    ]),
    { className: "data drawdowns" },
  );
}
