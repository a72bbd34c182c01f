// The activity page (#/activity): what happened, from GET /v1/events (docs/events.md), the events
// this key may see and nothing else (the server applies the key's alpha and run allow-lists to every
// page, its counts and cursors). Newest first (`order=newest`, issue 64): "Load more" asks for the
// page older than the last one (its `meta.next_cursor`), and while watched the page asks every few
// seconds for what came after the newest event shown (the feed's own order, after that event's id,
// which is its cursor), so new events arrive at the top with no gap and no duplicate.
//
// Polling, not the stream: /v1/events/stream wants the key in an `Authorization` header, which a
// browser's EventSource cannot send, and the dashboard never puts the key in a URL (session.js).
//
// Filters (`type`, `alpha`) live in the fragment (#/activity?type=alpha.decay&alpha=x), so a view
// can be linked; an alpha's page links its own. Everything an event carries is shown as text
// (dom.js `h`), never parsed as HTML: its data comes from seals, notes and operators.

import { apiGet, isAbort } from "./api.js";
import { readableAlphas } from "./alpha_picker.js";
import { errorBox, fill, h, note, table } from "./dom.js";
import { DASH, int } from "./format.js";
import { figureName, inUnit } from "./labels.js";
import { icirLabel, verdictBadge } from "./stat_entry.js";

export const PAGE_SIZE = 50;
export const POLL_SECONDS = 5;

// Every event type (schemas/bodies/events.py EVENT_TYPES), with what the page calls it.
export const EVENT_TYPES = {
  "alpha.published": "Published",
  "alpha.republished": "Republished",
  "alpha.checks_changed": "Checks changed",
  "alpha.nominated": "Nominated",
  "alpha.approved": "Approved",
  "alpha.retired": "Retired",
  "alpha.decay": "Decay",
  "alpha.restated": "Restated",
  "build.refused": "Build refused",
  "webhook.disabled": "Webhook disabled",
};

// The headline figures an event carries (docs/events.md "What is recorded"): the screener's names
// and units; the ICIR annualised, turnover per year.
const HEADLINE = [
  ["information_ratio", "ratio"],
  ["excess_sharpe", "ratio"],
  ["ic", "ratio"],
  // The same sealed mean IC, as an event recorded before issue 65 (item 3) names it.
  ["mean_ic", "ratio"],
  ["icir", "ratio"],
  ["max_drawdown_pct", "percentage_points"],
  ["turnover", "per_year"],
  ["sessions", "sessions"],
  ["weeks", "weeks"],
];
const HEADLINE_UNITS = Object.fromEntries(HEADLINE);

function headlineName(name) {
  if (name === "icir") return icirLabel({ annualisation: "annualised" });
  if (name === "sessions") return "Sessions";
  if (name === "weeks") return "Weeks";
  if (name === "turnover") return figureName("sealed_turnover"); // the catalogue row's, as sealed
  // An event recorded before issue 65 (item 3) holds the sealed mean IC (/metrics core.ic) as `mean_ic`,
  // which the vocabulary gives the IC term structure's figure: named as what it is.
  if (name === "mean_ic") return figureName("ic");
  return figureName(name);
}

/** A value the event states, in its unit; text that is not a number is shown as text. */
function valueText(value, unit) {
  if (value === null || value === undefined) return DASH;
  if (typeof value === "number") return inUnit(value, unit);
  return String(value);
}

const plain = (value) => (value === null || value === undefined || value === "" ? DASH : String(value));

function filtersOf(query) {
  const list = (name) =>
    (query.get(name) || "")
      .split(",")
      .map((v) => v.trim())
      .filter(Boolean);
  return { types: list("type"), alphas: list("alpha") };
}

function fragmentOf({ types, alphas }) {
  const query = new URLSearchParams();
  if (types.length) query.set("type", types.join(","));
  if (alphas.length) query.set("alpha", alphas.join(","));
  const text = query.toString();
  return text ? `#/activity?${text}` : "#/activity";
}

export function renderActivity(main, { signal }) {
  const at = location.hash.indexOf("?");
  const filters = filtersOf(new URLSearchParams(at < 0 ? "" : location.hash.slice(at + 1)));
  const params = { type: filters.types.join(","), alpha: filters.alphas.join(","), limit: PAGE_SIZE };

  const typeBoxes = Object.entries(EVENT_TYPES).map(([type, label]) =>
    h(
      "label",
      { class: "checkbox" },
      h("input", { type: "checkbox", name: "type", value: type, checked: filters.types.includes(type) }),
      ` ${label} `,
      h("code", {}, type),
    ),
  );
  const alphaInput = h("input", {
    id: "activity-alpha",
    name: "alpha",
    type: "search",
    list: "activity-alphas",
    placeholder: "alpha ids, comma-separated",
    value: filters.alphas.join(","),
    size: "40",
  });
  const choices = h("datalist", { id: "activity-alphas" });
  const form = h(
    "form",
    { id: "activity-form", class: "activity-filters" },
    h("fieldset", {}, h("legend", {}, "Types (none ticked: every type)"), typeBoxes),
    h(
      "div",
      { class: "controls" },
      h("label", { for: "activity-alpha" }, "Alphas"),
      alphaInput,
      choices,
      h("button", { type: "submit" }, "Show"),
      h("a", { href: "#/activity", id: "activity-clear" }, "Clear filters"),
    ),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const types = typeBoxes.map((label) => label.querySelector("input")).filter((box) => box.checked).map((box) => box.value);
    const alphas = alphaInput.value.split(",").map((v) => v.trim()).filter(Boolean);
    const target = fragmentOf({ types, alphas });
    // The router renders the page again with the new filters (the same ones: asked again).
    if (location.hash === target) window.dispatchEvent(new HashChangeEvent("hashchange"));
    else location.hash = target;
  });

  const list = h("ol", { id: "events", class: "events" });
  const more = h("button", { type: "button", id: "events-more", hidden: true }, "Load more");
  const watch = h("input", { type: "checkbox", id: "events-watch", checked: true });
  const status = h("p", { id: "events-status", class: "muted", "aria-live": "polite" }, "Loading…");
  const problem = h("div", { id: "events-error" });
  fill(
    main,
    h("h1", {}, "Activity"),
    note(
      "What happened to the alphas this key may read, newest first: builds published and republished (their headline figures before and after), restatements of published figures, checks that flipped, nominations, approvals (with their override reasons) and retirements, decay of an approved alpha; for administrators also refused builds. GET /v1/events?order=newest: new events arrive at the top.",
      "muted",
    ),
    form,
    problem,
    list,
    h(
      "div",
      { class: "pager events-pager" },
      more,
      h("label", { class: "checkbox", for: "events-watch" }, watch, ` Watch for new events (asks again every ${POLL_SECONDS} s for new events at the top)`),
    ),
    status,
  );

  readableAlphas(signal)
    .then((alphas) => fill(choices, alphas.map((a) => h("option", { value: a.alpha_id }))))
    .catch(() => {}); // the suggestions only: a key that may not list the alphas types them

  const shown = new Set(); // event ids on the page: a page asked twice adds nothing twice
  let older = null; // meta.next_cursor of the last older page read (order=newest)
  let newest = null; // the id (a cursor) of the newest event shown: new events come after it
  let hasMore = false;
  let busy = null; // the request in flight: one at a time, so pages arrive in order
  let timer = null;

  more.addEventListener("click", () => next(false));
  watch.addEventListener("change", () => schedule());
  signal.addEventListener("abort", () => clearTimeout(timer));
  next(false);

  /** `fresh`: what came after the newest shown (at the top); else the next older page (at the bottom). */
  function next(fresh) {
    if (!busy) busy = read(fresh).finally(() => (busy = null));
    return busy;
  }

  async function read(fresh) {
    clearTimeout(timer);
    more.disabled = true;
    const asked = fresh ? { ...params, after: newest } : { ...params, order: "newest", after: older };
    let answer;
    try {
      answer = await apiGet("/v1/events", asked, { signal });
    } catch (error) {
      if (isAbort(error)) return;
      fill(problem, errorBox(error, "The events could not be read"));
      status.textContent = shown.size ? `${int(shown.size)} events shown.` : "";
      more.disabled = false;
      schedule();
      return;
    }
    fill(problem);
    const items = [];
    for (const event of answer.data) {
      if (shown.has(event.id)) continue;
      shown.add(event.id);
      items.push(eventItem(event));
    }
    if (fresh) {
      // Oldest first from the server: each goes on top of the one before it.
      for (const item of items) list.prepend(item);
      if (answer.data.length) newest = answer.data[answer.data.length - 1].id;
    } else {
      list.append(...items);
      if (newest === null && answer.data.length) newest = answer.data[0].id;
      if (answer.meta && answer.meta.next_cursor) older = answer.meta.next_cursor;
      hasMore = Boolean(answer.pagination && answer.pagination.has_more);
    }
    more.hidden = !hasMore;
    more.disabled = false;
    const top = list.firstElementChild;
    status.textContent = shown.size
      ? `${int(shown.size)} event${shown.size === 1 ? "" : "s"} shown; the latest recorded ${top.dataset.created.replace("T", " ").slice(0, 19)} UTC${hasMore ? "; older ones below (Load more)" : ""}.`
      : "No event that this key may see" + (filters.types.length || filters.alphas.length ? " with these filters." : " yet.");
    schedule();
  }

  /** Ask for what came after the newest event shown in a few seconds, while watched. */
  function schedule() {
    clearTimeout(timer);
    if (signal.aborted || !watch.checked) return;
    timer = setTimeout(() => {
      if (document.hidden) schedule(); // a tab in the background asks nothing
      else next(true);
    }, POLL_SECONDS * 1000);
  }
}

/** One event: its time, type and alpha, and what its data says. */
export function eventItem(event) {
  const alpha = event.alpha
    ? h("a", { href: `#/alphas/${encodeURIComponent(event.alpha)}`, class: "event-alpha" }, event.alpha)
    : h("span", { class: "event-alpha muted" }, "no alpha");
  const created = String(event.created_at || "");
  return h(
    "li",
    { class: "event", "data-id": event.id, "data-type": event.type, "data-alpha": event.alpha || "", "data-created": created },
    h(
      "div",
      { class: "event-head" },
      h("time", { datetime: created, title: created }, `${created.replace("T", " ").slice(0, 19)} UTC`),
      h("span", { class: `event-type type-${String(event.type).replace(/[^a-z_]/g, "-")}` }, EVENT_TYPES[event.type] || event.type),
      h("code", {}, event.type),
      alpha,
    ),
    h("div", { class: "event-body" }, summaryOf(event)),
  );
}

/** What an event's data says, by type (docs/events.md "What is recorded"). */
export function summaryOf(event) {
  const data = event.data && typeof event.data === "object" ? event.data : {};
  try {
    switch (event.type) {
      case "alpha.published":
        return [
          h("p", {}, "First published: build ", h("code", {}, plain(data.build_id)), ". ", checksSummary(data.checks)),
          h("details", {}, h("summary", {}, "Headline figures"), headlineTable(data.headline)),
        ];
      case "alpha.republished":
        return republished(data);
      case "alpha.checks_changed":
        if (!Array.isArray(data.changed)) return rawData(data);
        return [
          data.cause
            ? h("p", {}, "Verdicts flipped by a decision about another alpha (", h("span", { class: "event-cause" }, plain(data.cause)), "), build ", h("code", {}, plain(data.build_id)), ":")
            : h("p", {}, `Verdicts flipped in build `, h("code", {}, plain(data.build_id)), " (was ", h("code", {}, plain(data.previous_build_id)), "):"),
          flippedTable(data.changed),
        ];
      case "alpha.nominated":
        return h(
          "p",
          {},
          h("strong", {}, "Nominated for review"),
          " by ",
          h("span", { class: "decided-by" }, plain(data.nominated_by)),
          data.note ? [": “", h("span", { class: "decision-note" }, plain(data.note)), "”"] : "",
          " (build ",
          h("code", {}, plain(data.build_id)),
          "). It waits in the review queue until a decision.",
        );
      case "alpha.restated":
        if (!Array.isArray(data.restated)) return rawData(data);
        return [
          h(
            "p",
            {},
            h("strong", {}, `Restated ${plain(data.count)} published value${data.count === 1 ? "" : "s"}`),
            ` dated ${plain(data.first_date)} to ${plain(data.last_date)}: build `,
            h("code", {}, plain(data.build_id)),
            " changed what ",
            h("code", {}, plain(data.previous_build_id)),
            " had published. Both values of each are on /v1/alphas/{alpha}/restatements.",
          ),
          h("details", {}, h("summary", {}, `The first ${data.restated.length}`), restatedTable(data.restated)),
        ];
      case "alpha.approved":
      case "alpha.retired":
        return decision(event.type === "alpha.approved" ? "Approved into the live book" : "Retired from the live book", data);
      case "alpha.decay":
        if (!Array.isArray(data.failed)) return rawData(data);
        return [
          h("p", {}, "A live check of this approved alpha fails in build ", h("code", {}, plain(data.build_id)), ":"),
          checkList(data.failed),
        ];
      case "build.refused":
        return h(
          "p",
          {},
          "The seal ",
          h("code", {}, plain(data.seal)),
          " for ",
          h("code", {}, plain(data.target)),
          " was refused: rule ",
          h("code", {}, plain(data.rule)),
          data.kind ? [" (", plain(data.kind), ")"] : "",
          data.message ? [": ", h("span", { class: "event-message" }, plain(data.message))] : ".",
        );
      case "webhook.disabled":
        return h(
          "p",
          {},
          "The webhook ",
          h("code", {}, plain(data.webhook_id)),
          " to ",
          h("code", {}, plain(data.url)),
          ` was disabled after ${plain(data.attempts)} attempts failing since ${plain(data.failing_since)}, at event `,
          h("code", {}, plain(data.event)),
          ": ",
          h("span", { class: "event-message" }, plain(data.reason)),
          ". An operator's enable starts it again at that event.",
        );
      default:
        return rawData(data);
    }
  } catch {
    return rawData(data); // data of an unexpected shape: shown as it is
  }
}

function republished(data) {
  const moved = Array.isArray(data.moved) ? data.moved : [];
  const figures = data.figures && typeof data.figures === "object" ? data.figures : {};
  const rows = HEADLINE.map(([name]) => name)
    .concat(Object.keys(figures).filter((name) => !(name in HEADLINE_UNITS)))
    .filter((name) => name in figures)
    .map((name) => {
      const figure = figures[name] || {};
      const unit = HEADLINE_UNITS[name];
      return h(
        "tr",
        { "data-figure": name, class: figure.moved ? "moved" : "" },
        h("th", { scope: "row" }, headlineName(name), " ", h("code", {}, name)),
        h("td", { class: "number" }, valueText(figure.before, unit)),
        h("td", { class: "number" }, valueText(figure.after, unit)),
        h("td", {}, figure.moved ? h("strong", {}, "moved") : "within tolerance"),
      );
    });
  const grid = table(["Figure", "Before", "After", ""], [], { className: "data compact event-figures" });
  grid.querySelector("tbody").append(...rows);
  return [
    h(
      "p",
      {},
      "New build ",
      h("code", {}, plain(data.build_id)),
      " (was ",
      h("code", {}, plain(data.previous_build_id)),
      "). ",
      moved.length
        ? ["Moved beyond its tolerance: ", h("span", { class: "event-moved" }, moved.map((name) => headlineName(name)).join(", ")), "."]
        : "No headline figure moved beyond its tolerance.",
      " ",
      checksSummary(data.checks),
    ),
    grid,
  ];
}

function headlineTable(headline) {
  if (!headline || typeof headline !== "object") return null;
  return table(
    ["Figure", "Value"],
    HEADLINE.filter(([name]) => name in headline).map(([name, unit]) => [
      h("th", { scope: "row" }, headlineName(name), " ", h("code", {}, name)),
      h("td", { class: "number" }, valueText(headline[name], unit)),
    ]),
    { className: "data compact event-figures" },
  );
}

function checksSummary(checks) {
  if (!checks || typeof checks !== "object") return "";
  const verdicts = Object.values(checks).map((c) => (c && c.verdict) || "");
  if (verdicts.length === 0) return "";
  const count = (v) => verdicts.filter((x) => x === v).length;
  return `Checks: ${count("pass")} pass, ${count("fail")} fail, ${count("not_measurable")} not measurable.`;
}

function seen(side) {
  if (!side) return [DASH];
  return [valueText(side.value, side.unit), " ", verdictBadge(side.verdict)];
}

function flippedTable(changed) {
  const rows = changed.map((check) =>
    h(
      "tr",
      { "data-check": plain(check.id) },
      h("th", { scope: "row" }, figureName(plain(check.id)), " ", h("code", {}, plain(check.id))),
      h("td", {}, seen(check.before)),
      h("td", {}, seen(check.after)),
    ),
  );
  const grid = table(["Check", "Before", "After"], [], { className: "data compact event-checks" });
  grid.querySelector("tbody").append(...rows);
  return grid;
}

function checkList(failed) {
  return h(
    "ul",
    { class: "event-checks" },
    failed.map((check) =>
      h("li", { "data-check": plain(check.id) }, figureName(plain(check.id)), " ", h("code", {}, plain(check.id)), ": ", seen(check)),
    ),
  );
}

function decision(what, data) {
  return h(
    "p",
    {},
    h("strong", {}, what),
    " as of ",
    h("span", { class: "event-as-of" }, plain(data.as_of)),
    " by ",
    h("span", { class: "decided-by" }, plain(data.decided_by)),
    data.note ? [": “", h("span", { class: "decision-note" }, plain(data.note)), "”"] : "",
    data.build_id ? [" (build ", h("code", {}, plain(data.build_id)), ")"] : "",
    ".",
    data.override ? [" Approved with failing checks, the override given: “", h("span", { class: "override-reason" }, plain(data.override)), "”."] : "",
    data.imported_from ? [" Imported: taken elsewhere (", h("span", { class: "imported-from" }, plain(data.imported_from)), "); its live part starts when it was recorded."] : "",
  );
}

/** The restated values an alpha.restated event carries: each with both values (or why not), as text. */
function restatedTable(values) {
  const grid = table(["Date", "Dataset", "Field", "Before", "After"], [], { className: "data compact event-restated" });
  grid.querySelector("tbody").append(
    ...values.map((v) =>
      h(
        "tr",
        {},
        h("td", {}, plain(v.date)),
        h("td", {}, [plain(v.dataset), v.book ? ` (${plain(v.book)})` : ""]),
        h("td", {}, [plain(v.field), v.period ? ` ${plain(v.period)}` : "", v.symbol ? ` ${plain(v.symbol)}` : ""]),
        // withheld from this key (its data is not the key's to read): the reason, as /restatements gives it
        h("td", { class: "number", title: v.withheld_reason }, v.before == null ? DASH : plain(v.before)),
        h("td", { class: "number", title: v.withheld_reason }, v.after == null ? DASH : plain(v.after)),
      ),
    ),
  );
  return grid;
}

/** The data as JSON text (an event type this page does not know, or an unexpected shape). */
function rawData(data) {
  return h("pre", { class: "event-data" }, JSON.stringify(data, null, 2));
}
