// The catalogue: /v1/alphas with `search` and `complete_only`, paged.

import { apiGet } from "./api.js";
import { fill, h, note, showError, table } from "./dom.js";
import { DASH } from "./format.js";

const PAGE_SIZE = 25;
const state = { search: "", completeOnly: false, offset: 0 }; // kept while the tab lives

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
  const results = h("div", { id: "catalogue-results" }, note("Loading…"));
  const form = h(
    "form",
    { class: "controls", id: "catalogue-form" },
    h("label", { for: "catalogue-search" }, "Search"),
    search,
    h("label", { class: "checkbox" }, completeOnly, " complete runs only"),
    h("button", { type: "submit" }, "Search"),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    state.search = search.value.trim();
    state.completeOnly = completeOnly.checked;
    state.offset = 0;
    load();
  });
  completeOnly.addEventListener("change", () => form.requestSubmit());
  fill(
    main,
    h(
      "section",
      { class: "panel", id: "catalogue" },
      h("h1", {}, "Alphas"),
      note("Every alpha your key may read (GET /v1/alphas), newest run first.", "intro"),
      form,
      results,
    ),
  );

  let latest = 0; // answers to earlier searches are dropped

  async function load() {
    const ticket = ++latest;
    fill(results, note("Loading…"));
    try {
      const page = await apiGet(
        "/v1/alphas",
        {
          search: state.search,
          complete_only: state.completeOnly ? "true" : "",
          limit: PAGE_SIZE,
          offset: state.offset,
        },
        { signal },
      );
      if (ticket === latest) render(page);
    } catch (error) {
      if (ticket === latest) showError(results, error, "The catalogue could not be read");
    }
  }

  function render(page) {
    const { offset, returned, total, has_more: hasMore } = page.pagination;
    const rows = page.data.map((row) => [
      h("a", { href: `#/alphas/${encodeURIComponent(row.alpha_id)}`, class: "alpha-link" }, row.alpha_id),
      row.name,
      row.tldr ?? DASH,
    ]);
    fill(
      results,
      total === 0
        ? note("No alpha matches.")
        : table(["Alpha", "Name", "Thesis"], rows, { className: "data catalogue" }),
      pager(offset, returned, total, hasMore, (next) => {
        state.offset = next;
        load();
      }),
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
