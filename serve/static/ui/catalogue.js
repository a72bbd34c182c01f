// The catalogue. With a key that may call the screener (GET /v1/analytics/screen, which also needs
// performance.metrics), it lists the alphas with their headline figures, sorted by a click on a
// column's header (`sort=<column>`, `-<column>` descending) and filtered on search, tags, complete
// runs and the bounds of a few figures. A key the screener refuses (403 endpoint_not_allowed), or a
// lake without a catalogue index (503 upstream_unavailable), gets the plain listing of /v1/alphas
// (search and complete runs only), as before. Paged either way.
// The ICIR column is the screener's, annualised for every alpha as /metrics core.icir is (a run that
// sealed it per week is converted: docs/analytics.md "Screener"); a mean IC (and the ICIR sealed with it) that the run's
// own cross-sections do not reproduce (`ic_reproduces` false) is flagged, never shown in green.

import { apiGet } from "./api.js";
import { fill, h, note, numberCell, showError, table } from "./dom.js";
import { DASH, int } from "./format.js";
import { figureNameWithBasis, inUnit, termUnit, valueTone } from "./labels.js";
import { SCREEN_TERMS } from "./vocabulary.js";

const PAGE_SIZE = 25;
const SCREEN = "/v1/analytics/screen";
const LISTING = "/v1/alphas";
// The screener's answers the plain listing stands in for: the key may not call it (or
// performance.metrics, whose figures it serves), or the lake has no catalogue index.
const FALLBACK_CODES = new Set(["endpoint_not_allowed", "upstream_unavailable"]);

// A screener field's name as a reader sees it: the label, with its basis, of the term the server
// declares for the field (SCREEN_TERMS, made from schemas/bodies/rows.py ScreenRow when it starts:
// `ic` is /metrics core.ic, `turnover` the run's sealed turnover). The page never picks a term itself.
const termOf = (field) => SCREEN_TERMS[field];
const named = (field) => figureNameWithBasis(termOf(field));

// A column of a figure: its field, its cell (drawn in the row's unit: the term's, or the unit the
// row serves beside it), and its first direction of a click.
const figureColumnOf = (field, cell) => [field, named(field), cell, "desc"];

// The screener's columns: [field, header, cell, first direction of a click (null: not sortable)].
// The name's cell also holds the thesis (`tldr`) and the tags. The tick boxes come first, so they
// stay in view however narrow the window (the table scrolls sideways past its width).
const COLUMNS = [
  ["pick", "Compare", (row) => pickCell(row.alpha_id), null],
  ["alpha_id", "Alpha", (row) => alphaLink(row.alpha_id), "asc"],
  ["name", "Name", (row) => nameCell(row), "asc"],
  figureColumnOf("information_ratio", (row) => figureCell(row, "information_ratio")),
  figureColumnOf("excess_sharpe", (row) => figureCell(row, "excess_sharpe")),
  figureColumnOf("ic", (row) => icCell(row, "ic")),
  figureColumnOf("icir", (row) => icCell(row, "icir")),
  figureColumnOf("max_drawdown_pct", (row) => figureCell(row, "max_drawdown_pct")),
  figureColumnOf("turnover", (row) => figureCell(row, "turnover", row.turnover_unit)),
  figureColumnOf("sessions", (row) => numberCell(int(row.sessions), row.sessions)),
  figureColumnOf("weeks", (row) => numberCell(int(row.weeks), row.weeks)),
];

// The figures whose bounds the form sends (`min_<figure>`, `max_<figure>`; schemas/query.py
// ScreenQuery), each named as its column, with the unit a bound is typed in where it is not a ratio.
const RANGES = ["information_ratio", "ic", "max_drawdown_pct", "excess_sharpe", "icir", "turnover", "sessions"].map(
  (field) => [field, boundLabel(field)],
);

function boundLabel(field) {
  const unit = termUnit(termOf(field));
  return unit === "percentage_points" ? `${named(field)} (%)` : named(field);
}

// Kept while the tab lives. `sort` is a screener sort (`column` or `-column`), or "" for its default
// (catalogue order, as /v1/alphas).
const state = { search: "", completeOnly: false, tag: "", icReproduces: "", bounds: {}, sort: "", offset: 0 };

// The choices of the screener's `ic_reproduces` filter: [value sent ("" = not sent), label].
const IC_REPRODUCES = [
  ["", "any"],
  ["true", "reproduces"],
  ["false", "does not reproduce"],
];
const UNREPRODUCED =
  "The weekly IC rebuilt from this run's cross-sections does not reproduce its sealed mean IC " +
  "(ic_reproduction_mismatch): the sealed mean IC and ICIR are not borne out by the run's own data.";

// The alphas ticked for a comparison (two at most; the oldest tick gives way to a third).
const picked = [];

function pickCell(alpha) {
  const box = h("input", {
    type: "checkbox",
    class: "pick",
    value: alpha,
    "aria-label": `compare ${alpha}`,
    checked: picked.includes(alpha),
  });
  box.addEventListener("change", () => {
    const at = picked.indexOf(alpha);
    if (box.checked && at < 0) picked.push(alpha);
    if (!box.checked && at >= 0) picked.splice(at, 1);
    if (picked.length > 2) {
      const dropped = picked.shift();
      const other = box.closest("tbody").querySelector(`input.pick[value="${CSS.escape(dropped)}"]`);
      if (other) other.checked = false;
    }
    box.closest("#catalogue").dispatchEvent(new CustomEvent("picked"));
  });
  return h("td", { class: "pick" }, box);
}

function alphaLink(alpha) {
  return h("a", { href: `#/alphas/${encodeURIComponent(alpha)}`, class: "alpha-link" }, alpha);
}

function nameCell(row) {
  return h(
    "td",
    { class: "name" },
    row.name ?? DASH,
    row.tldr ? h("div", { class: "tldr-line muted" }, row.tldr) : null,
    row.tags && row.tags.length ? h("div", { class: "tags muted" }, `tags: ${row.tags.join(", ")}`) : null,
  );
}

/** A screener figure in its unit: its term's, or `unit` where the row serves one beside it (the
 * sealed turnover's `turnover_unit`); coloured as its term is (schemas/bodies/rows.py ScreenRow). */
function figureCell(row, field, unit = termUnit(termOf(field))) {
  const cell = numberCell(inUnit(row[field], unit), row[field], { tone: valueTone(termOf(field), row[field]) });
  cell.setAttribute("data-value", row[field] == null ? "" : String(row[field]));
  return cell;
}

// A figure of the sealed IC: flagged, and not coloured as a gain, when the run's cross-sections do not
// reproduce it (`ic_reproduces` false); a null flag (nothing to check, or withheld) shows the figure as is.
function icCell(row, field) {
  if (row.ic_reproduces !== false) return figureCell(row, field);
  const flag = h("span", { class: "badge ic-unreproduced", title: UNREPRODUCED }, "not reproduced");
  const cell = h("td", { class: "number ic-unreproduced", title: UNREPRODUCED }, inUnit(row[field], termUnit(termOf(field))), " ", flag);
  cell.setAttribute("data-value", row[field] == null ? "" : String(row[field]));
  return cell;
}

function numberInput(id, name, value, placeholder) {
  return h("input", { type: "number", step: "any", id, name, value: value ?? "", placeholder, class: "bound" });
}

export function renderCatalogue(main, { signal }) {
  const search = h("input", {
    type: "search",
    id: "catalogue-search",
    name: "search",
    value: state.search,
    placeholder: "id, name or thesis",
  });
  const completeOnly = h("input", {
    type: "checkbox",
    id: "catalogue-complete-only",
    name: "complete_only",
    checked: state.completeOnly,
  });
  const tag = h("input", {
    type: "search",
    id: "catalogue-tag",
    name: "tag",
    value: state.tag,
    placeholder: "tag, or tags comma-separated",
  });
  const icReproduces = h(
    "select",
    { id: "catalogue-ic-reproduces", name: "ic_reproduces" },
    IC_REPRODUCES.map(([value, label]) => h("option", { value, selected: value === state.icReproduces }, label)),
  );
  const bounds = Object.fromEntries(
    RANGES.map(([figure]) => [
      figure,
      {
        min: numberInput(`catalogue-min-${figure}`, `min_${figure}`, state.bounds[`min_${figure}`], "min"),
        max: numberInput(`catalogue-max-${figure}`, `max_${figure}`, state.bounds[`max_${figure}`], "max"),
      },
    ]),
  );
  // Shown only when the screener answers: its filters mean nothing to /v1/alphas.
  const screenFilters = h(
    "div",
    { class: "controls screen-filters", id: "catalogue-screen-filters", hidden: true },
    h("label", { for: "catalogue-tag" }, "Tags"),
    tag,
    h("label", { for: "catalogue-ic-reproduces" }, "Sealed IC"),
    icReproduces,
    RANGES.map(([figure, label]) =>
      h(
        "span",
        { class: "range-filter" },
        h("label", { for: `catalogue-min-${figure}` }, label),
        bounds[figure].min,
        "–",
        bounds[figure].max,
      ),
    ),
  );
  const intro = note("", "intro");
  const compare = h("button", { type: "button", id: "compare-picked", disabled: picked.length !== 2 }, "Compare the two ticked");
  compare.addEventListener("click", () => {
    location.hash = `#/compare?${new URLSearchParams({ a: picked[0], b: picked[1] })}`;
  });
  const results = h("div", { id: "catalogue-results" }, note("Loading…"));
  const form = h(
    "form",
    { class: "catalogue-form", id: "catalogue-form" },
    h(
      "div",
      { class: "controls" },
      h("label", { for: "catalogue-search" }, "Search"),
      search,
      h("label", { class: "checkbox" }, completeOnly, " complete runs only"),
      h("button", { type: "submit" }, "Search"),
    ),
    screenFilters,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    state.search = search.value.trim();
    state.completeOnly = completeOnly.checked;
    state.tag = tag.value.trim();
    state.icReproduces = icReproduces.value;
    state.bounds = {};
    for (const [figure, inputs] of Object.entries(bounds)) {
      for (const [side, input] of Object.entries(inputs)) {
        if (input.value.trim() !== "") state.bounds[`${side}_${figure}`] = input.value.trim();
      }
    }
    state.offset = 0;
    load();
  });
  completeOnly.addEventListener("change", () => form.requestSubmit());
  fill(
    main,
    h("section", { class: "panel", id: "catalogue" }, h("h1", {}, "Alphas"), intro, form, h("div", { class: "controls" }, compare), results),
  );
  main.querySelector("#catalogue").addEventListener("picked", () => {
    compare.disabled = picked.length !== 2;
  });

  let latest = 0; // answers to earlier searches are dropped
  let plain = null; // the screener's refusal once met: the plain listing from then on in this view

  function describe() {
    if (plain) {
      fill(
        intro,
        "Every alpha your key may read (GET /v1/alphas), newest run first. ",
        h(
          "span",
          { id: "catalogue-plain-reason" },
          `Figures, sorting and figure filters need GET ${SCREEN}, which answered ${plain.status} ${plain.code}: ${plain.message}`,
        ),
      );
    } else {
      fill(
        intro,
        `Every alpha your key may read, with its headline figures over the whole history (GET ${SCREEN}); click a column's header to sort by it.`,
      );
    }
    screenFilters.hidden = Boolean(plain);
    compare.hidden = Boolean(plain); // the plain listing has no figures to pick by
  }

  async function load() {
    const ticket = ++latest;
    fill(results, note("Loading…"));
    const page = { limit: PAGE_SIZE, offset: state.offset };
    const common = { search: state.search, complete_only: state.completeOnly ? "true" : "" };
    try {
      if (!plain) {
        try {
          const answer = await apiGet(
            SCREEN,
            { ...common, tag: state.tag, ic_reproduces: state.icReproduces, ...state.bounds, sort: state.sort, ...page },
            { signal },
          );
          if (ticket === latest) {
            describe();
            renderScreen(answer);
          }
          return;
        } catch (error) {
          if (!FALLBACK_CODES.has(error.code)) throw error;
          plain = error;
        }
      }
      const answer = await apiGet(LISTING, { ...common, ...page }, { signal });
      if (ticket === latest) {
        describe();
        renderPlain(answer);
      }
    } catch (error) {
      if (ticket !== latest) return;
      describe(); // the filters stay on screen to mend a refused bound
      showError(results, error, "The catalogue could not be read");
    }
  }

  function go(next) {
    state.offset = next;
    load();
  }

  function sortBy(field, first) {
    const [current, descending] = [state.sort.replace(/^-/, ""), state.sort.startsWith("-")];
    const desc = current === field ? !descending : first === "desc";
    state.sort = `${desc ? "-" : ""}${field}`;
    state.offset = 0;
    load();
  }

  function header([field, label, , first]) {
    if (!first) return label;
    const active = state.sort.replace(/^-/, "") === field;
    const arrow = active ? (state.sort.startsWith("-") ? " ▼" : " ▲") : "";
    return h(
      "button",
      {
        type: "button",
        class: `sort${active ? " active" : ""}`,
        "data-sort": field,
        title: `Sort by ${label}`,
        onclick: () => sortBy(field, first),
      },
      label,
      arrow,
    );
  }

  function renderScreen(answer) {
    const { offset, returned, total, has_more: hasMore } = answer.pagination;
    const grid = table(
      COLUMNS.map(header),
      answer.data.map((row) => COLUMNS.map(([, , cell]) => cell(row))),
      { className: "data catalogue screen" },
    );
    const active = state.sort.replace(/^-/, "");
    grid.querySelectorAll("thead th").forEach((th, i) => {
      if (COLUMNS[i][0] === active) th.setAttribute("aria-sort", state.sort.startsWith("-") ? "descending" : "ascending");
    });
    fill(
      results,
      total === 0 ? note("No alpha matches.") : h("div", { class: "table-scroll" }, grid),
      pager(offset, returned, total, hasMore, go),
    );
  }

  function renderPlain(answer) {
    const { offset, returned, total, has_more: hasMore } = answer.pagination;
    const rows = answer.data.map((row) => [alphaLink(row.alpha_id), row.name, row.tldr ?? DASH]);
    fill(
      results,
      total === 0 ? note("No alpha matches.") : table(["Alpha", "Name", "Thesis"], rows, { className: "data catalogue" }),
      pager(offset, returned, total, hasMore, go),
    );
  }

  load();
}

/** "rows 1–25 of 60" with previous and next buttons. */
export function pager(offset, returned, total, hasMore, go, pageSize = PAGE_SIZE) {
  const first = total === 0 ? 0 : offset + 1;
  return h(
    "div",
    { class: "pager" },
    h(
      "button",
      { type: "button", class: "previous", disabled: offset === 0, onclick: () => go(Math.max(0, offset - pageSize)) },
      "‹ Previous",
    ),
    h("span", { class: "range" }, `rows ${first}–${offset + returned} of ${total}`),
    h("button", { type: "button", class: "next", disabled: !hasMore, onclick: () => go(offset + returned) }, "Next ›"),
  );
}
