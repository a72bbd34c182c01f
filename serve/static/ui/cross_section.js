// The cross-section browser: pick a rebalance week from /v1/alphas/{alpha}/rebalances, then page
// through /v1/alphas/{alpha}/rebalances/{date} with direction, sort, order and book.

import { alphaPath, apiGet, apiGetAll } from "./api.js";
import { pager } from "./catalogue.js";
import { clear, fill, h, note, numberCell, readOrShowError, showError, table, warningList } from "./dom.js";
import { DASH } from "./format.js";
import { figureColumn } from "./labels.js";
import { figureCell } from "./stat_entry.js";

const PAGE_SIZES = [25, 50, 100];
// A name's figures that week, each a column named by its term (the row's direction, tradeability and
// decision are words or a sign, not figures).
const FIGURES = ["score", "score_z", "average_rank", "long_short_target_weight", "long_only_target_weight"];
const DIRECTIONS = [
  ["", "all"],
  ["long", "long"],
  ["short", "short"],
  ["flat", "flat"],
];
const SORTS = ["score", "rank", "weight", "symbol"];
const ORDERS = [
  ["", "default"],
  ["desc", "descending"],
  ["asc", "ascending"],
];
const BOOKS = ["long_short", "long_only"];
// Each control's label, in the order they stand.
const LABELS = { week: "Week", direction: "Direction", sort: "Sort", order: "Order", book: "Weight column", limit: "Rows" };

function select(id, options, selected) {
  return h(
    "select",
    { id, name: id },
    options.map((option) => {
      const [value, label] = Array.isArray(option) ? option : [String(option), String(option)];
      return h("option", { value, selected: value === String(selected) }, label);
    }),
  );
}

export async function renderCrossSection(body, alpha, { signal }) {
  const index = await readOrShowError(body, "The rebalance index could not be read", () => apiGetAll(alphaPath(alpha, "/rebalances"), {}, { limit: 5000, signal }));
  if (!index) return;
  if (index.data.length === 0) {
    fill(body, note("This run sealed no rebalance weeks."), warningList(index.meta.warnings));
    return;
  }
  const weeks = index.data;
  const traded = weeks.filter((w) => w.week_status === "traded");
  const initial = (traded.length ? traded[traded.length - 1] : weeks[weeks.length - 1]).date;
  const controls = {
    week: select(
      "cs-week",
      weeks.map((w) => [w.date, `${w.date} · ${w.week_status} · ${w.n_symbols} names`]),
      initial,
    ),
    direction: select("cs-direction", DIRECTIONS, ""),
    sort: select("cs-sort", SORTS, "score"),
    order: select("cs-order", ORDERS, ""),
    book: select("cs-book", BOOKS, "long_short"),
    limit: select("cs-limit", PAGE_SIZES, 25),
  };
  const status = h("p", { class: "week-status", id: "cs-status" });
  const results = h("div", { id: "cs-results" });
  fill(
    body,
    h(
      "div",
      { class: "controls" },
      Object.entries(LABELS).map(([key, text]) => [h("label", { for: controls[key].id }, text), controls[key]]),
    ),
    status,
    results,
  );
  let offset = 0;
  let latest = 0; // answers to earlier requests (the user changed a control meanwhile) are dropped
  for (const control of Object.values(controls)) {
    control.addEventListener("change", () => {
      offset = 0;
      load();
    });
  }

  async function load() {
    const ticket = ++latest;
    const date = controls.week.value;
    const limit = Number(controls.limit.value);
    fill(results, note("Loading…"));
    try {
      const page = await apiGet(
        alphaPath(alpha, `/rebalances/${date}`),
        {
          direction: controls.direction.value,
          sort: controls.sort.value,
          order: controls.order.value,
          book: controls.book.value,
          limit,
          offset,
        },
        { signal },
      );
      if (ticket === latest) render(page, limit);
    } catch (error) {
      if (ticket !== latest) return;
      clear(status);
      showError(results, error, "The cross-section could not be read");
    }
  }

  function render(page, limit) {
    const { meta, pagination } = page;
    fill(
      status,
      "Week ",
      h("strong", {}, meta.date),
      ": status ",
      h("code", { class: "week-status-value" }, meta.week_status ?? DASH),
      ` · ${meta.n_symbols ?? DASH} names in the cross-section · ${pagination.total} after filters`,
    );
    const rows = page.data.map((r) => [
      h("th", { scope: "row" }, r.symbol ?? DASH),
      numberCell(r.direction == null ? DASH : String(r.direction), r.direction),
      ...FIGURES.map((key) => figureCell(r[key], key)),
      r.next_open_tradeable == null ? DASH : r.next_open_tradeable ? "yes" : `no (${r.unavailability_reason ?? "?"})`,
      figureCell(r.forward_return, "forward_return"),
      r.decision_reason ?? DASH,
    ]);
    fill(
      results,
      warningList(meta.warnings),
      pagination.total === 0
        ? note("No name matches these filters.")
        : table(
            ["Symbol", "Dir.", ...FIGURES.map((key) => figureColumn(key)), "Tradeable", figureColumn("forward_return"), "Decision"],
            rows,
            {
              className: "data cross-section",
            },
          ),
      pager(
        pagination.offset,
        pagination.returned,
        pagination.total,
        pagination.has_more,
        (next) => {
          offset = next;
          load();
        },
        limit,
      ),
    );
  }

  load();
}
