// Live against backtest on an alpha's page (GET /v1/alphas/{alpha}/analytics/live, docs/analytics.md
// "Live against backtest"): the in-sample and out-of-sample parts side by side, the decay ratio, the
// consistency test, the split and where it comes from; above them the alpha's promotion standing
// (GET /v1/alphas/{alpha}/promotions). The split of the answer shown is published to the page's
// charts (live_split.js), which shade what comes after it. A what-if split (`split=`) can be asked;
// the charts then follow it, and "The alpha's own split" goes back.

import { alphaPath, apiGet, isAbort } from "./api.js";
import { decisionRecord } from "./decision_record.js";
import { fill, h, note, showError, table, warningList } from "./dom.js";
import { DASH, int } from "./format.js";
import { figureName, inUnit, labelMark, outOfSample as afterSplit, termUnit, unitMark, unitText } from "./labels.js";
import { entryCell, figureCell, figureHeader } from "./stat_entry.js";

const BOOKS = ["long_short", "long_only"];

// Each part's stat entries, in the order docs/analytics.md lists them.
export const PART_FIGURES = ["information_ratio", "excess_sharpe", "rebuilt_mean_ic", "rebuilt_icir", "rebuilt_hit_rate", "max_drawdown_pct", "turnover"];

// Where a split comes from (`split_origin`), in the words of docs/analytics.md.
export const ORIGINS = {
  approval: "the approval: the last session the lake had published when it was recorded; the live part is every session first published after it",
  research_cutoff: "the seal's research_cutoff: the last date the research looked at",
  first_published: "the date the catalogue first published the alpha",
  request: "the what-if split asked here (split=), not the alpha's own",
};

// The consistency test's verdicts, as badges readable without colour (the checks' classes).
const VERDICTS = {
  consistent: { text: "CONSISTENT", className: "verdict-pass" },
  inconsistent: { text: "INCONSISTENT", className: "verdict-fail" },
  not_measurable: { text: "NOT MEASURABLE", className: "verdict-not_measurable" },
};

// How an entry's annualisation is written beside its unit (as docs/analytics.md's table does).
const BASIS = { annualised: "annualised", per_period: "per week" };

export function loadLive(body, alpha, { signal, split }) {
  const standing = h("div", { id: "live-standing", class: "standing" }, note("Loading the promotion standing…"));
  const book = h(
    "select",
    { id: "live-book", name: "book" },
    BOOKS.map((b) => h("option", { value: b }, b)),
  );
  const whatIf = h("input", { id: "live-split-input", name: "split", type: "date" });
  const ask = h("button", { type: "submit", id: "live-split-ask" }, "Show this split");
  const own = h("button", { type: "button", id: "live-split-own", hidden: true }, "The alpha's own split");
  const form = h(
    "form",
    { class: "controls", id: "live-form" },
    h("label", { for: "live-book" }, "Book"),
    book,
    h("label", { for: "live-split-input" }, "What if the split were"),
    whatIf,
    ask,
    own,
  );
  const content = h("div", { id: "live-content" }, note("Loading…"));
  fill(body, standing, form, content);

  let requested = null; // the what-if split, or null for the alpha's own
  let latest = 0; // answers to a choice no longer current are dropped
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    requested = whatIf.value || null;
    own.hidden = !requested;
    load();
  });
  own.addEventListener("click", () => {
    requested = null;
    whatIf.value = "";
    own.hidden = true;
    load();
  });
  book.addEventListener("change", () => load());
  loadStanding(standing, alpha, signal);
  return load();

  async function load() {
    const ticket = ++latest;
    fill(content, note("Loading…"));
    let answer;
    try {
      answer = await apiGet(alphaPath(alpha, "/analytics/live"), { book: book.value, split: requested }, { signal });
    } catch (error) {
      if (isAbort(error) || ticket !== latest) return null;
      showError(content, error, "The live part could not be read");
      if (!requested) split?.publish(null); // no split known: the charts are not shaded
      return null;
    }
    if (ticket !== latest) return null;
    renderLive(content, answer);
    // The panel is named by its split: "live" only after an approval (issue 47).
    const heading = body.closest("section")?.querySelector("h2");
    if (heading) heading.textContent = afterSplit(answer.data.split_origin).title;
    split?.publish(answer.data.split_date, answer.data.split_origin);
    return answer;
  }
}

/** The answer of /analytics/live as the panel shows it. */
export function renderLive(content, answer, { charts = "the charts of this page are shaded after it" } = {}) {
  const data = answer.data;
  const inSample = data.in_sample;
  const outOfSample = data.out_of_sample;
  fill(
    content,
    warningList(answer.meta && answer.meta.warnings),
    splitLine(data, charts),
    partsTable(inSample, outOfSample, data.split_origin),
    h(
      "dl",
      { class: "facts live-verdicts" },
      h("dt", {}, figureName("decay_ratio"), " ", h("code", {}, "decay_ratio")),
      h("dd", { id: "live-decay" }, decayText(data.decay_ratio)),
      h("dt", {}, "Consistency ", h("code", {}, "consistency")),
      h("dd", { id: "live-consistency" }, consistencyText(data.consistency)),
    ),
  );
}

function splitLine(data, charts) {
  if (!data.split_date) {
    return h(
      "p",
      { class: "summary", id: "live-split", "data-origin": "" },
      "No split: the alpha was never approved, its seal names no research_cutoff and no first publish date is recorded, so its whole history is in sample.",
    );
  }
  const out = data.out_of_sample;
  return h(
    "p",
    { class: "summary", id: "live-split", "data-split": data.split_date, "data-origin": data.split_origin },
    "Split: ",
    h("strong", { id: "live-split-date" }, data.split_date),
    ", from ",
    h("code", { id: "live-split-origin" }, data.split_origin),
    ` (${ORIGINS[data.split_origin] || "as the server states it"}). Sessions on or before it are in sample, those after it ${afterSplit(data.split_origin).part}; ${charts} ("${afterSplit(data.split_origin).after(data.split_date)}").`,
    out.sessions === 0 ? ` No session is after the split yet: the out-of-sample part is empty.` : "",
  );
}

function partsTable(inSample, outOfSample, origin) {
  const period = (part) => (part.first_session ? `${part.first_session} to ${part.last_session}` : DASH);
  // A part's counts, each under its term (labels.js FIGURES: a part's weeks are those with a measurable
  // IC, `ic_weeks`, not the registry's rebalance weeks): named, united and marked by the shared helpers.
  const countRow = (name) =>
    h(
      "tr",
      { "data-figure": name },
      h("th", { scope: "row", "data-figure": name, ...labelMark(`in_sample.${name}`) }, figureName(`in_sample.${name}`), " ", h("code", {}, name)),
      figureCell(inSample[name], `in_sample.${name}`),
      figureCell(outOfSample[name], `out_of_sample.${name}`),
      h("td", unitMark(`in_sample.${name}`), unitText(termUnit(`in_sample.${name}`))),
    );
  const rows = [
    h("tr", { "data-figure": "period" }, h("th", { scope: "row" }, "First to last session"), h("td", {}, period(inSample)), h("td", {}, period(outOfSample)), h("td", {}, "dates")),
    countRow("sessions"),
    countRow("weeks"),
    ...PART_FIGURES.map((name) =>
      h(
        "tr",
        { "data-figure": name },
        figureHeader(name, inSample[name]),
        partCell(inSample[name], name),
        partCell(outOfSample[name], name),
        h("td", {}, unitWithBasis(inSample[name] || outOfSample[name])),
      ),
    ),
  ];
  // "Live" only after an approval; after any other split the part is out of sample, named by its origin.
  const grid = table(["Figure", "In sample (backtest)", outOfSampleColumn(origin), "Unit"], [], { className: "data live", caption: null });
  grid.id = "live-table";
  grid.querySelector("tbody").append(...rows);
  return grid;
}

const outOfSampleColumn = (origin) => afterSplit(origin).column;

/** An entry's value (coloured as labels.js declares the figure), with the reason when not measured. */
function partCell(entry, name) {
  const cell = entryCell(entry, name);
  if (entry && entry.status === "not_measurable" && entry.withheld_reason) {
    cell.append(h("div", { class: "why muted" }, entry.withheld_reason));
  }
  return cell;
}

function unitWithBasis(entry) {
  if (!entry) return DASH;
  const basis = BASIS[entry.annualisation];
  return basis && !unitText(entry.unit).includes("per ") ? `${unitText(entry.unit)}, ${basis}` : unitText(entry.unit);
}

const lowerFirst = (text) => text.charAt(0).toLowerCase() + text.slice(1);

function notMeasured(entry) {
  return `not measurable: ${(entry && entry.withheld_reason) || "no reason given"}`;
}

function decayText(entry) {
  if (!entry || entry.value == null) {
    return h("span", { class: "not-measured", "data-value": "" }, notMeasured(entry));
  }
  return h(
    "span",
    { "data-value": String(entry.value) },
    h("strong", {}, inUnit(entry.value, entry.unit)),
    ` (${unitText(entry.unit)}): the out-of-sample information ratio over the in-sample one; 1 held up, 0 nothing left, below 0 reversed.`,
  );
}

function consistencyText(consistency) {
  const verdict = VERDICTS[consistency.verdict] || { text: String(consistency.verdict), className: "verdict-unknown" };
  const probability = consistency.probability;
  const level = inUnit(consistency.level, "probability");
  const sessions = consistency.sessions == null ? "" : ` over ${int(consistency.sessions)} out-of-sample sessions`;
  return [
    h("span", { class: `badge ${verdict.className}`, id: "live-verdict", "data-verdict": consistency.verdict }, verdict.text),
    " ",
    h("code", {}, consistency.test),
    `: the ${lowerFirst(figureName("psr"))} (PSR) of the out-of-sample daily returns against the in-sample Sharpe ratio, the probability that the out-of-sample part's true Sharpe ratio is at least the in-sample one. `,
    probability && probability.value != null
      ? h(
          "span",
          { id: "live-psr", "data-value": String(probability.value) },
          "PSR ",
          h("strong", {}, inUnit(probability.value, probability.unit)),
          ` (${unitText(probability.unit)})${sessions}; level `,
          h("span", { id: "live-level", "data-value": String(consistency.level) }, level),
          ": below it the parts are called inconsistent.",
        )
      : h(
          "span",
          { id: "live-psr", "data-value": "" },
          `PSR ${notMeasured(probability)}; level `,
          h("span", { id: "live-level", "data-value": String(consistency.level) }, level),
          ".",
        ),
  ];
}

/** The alpha's promotion standing: approved since X by Y, retired, or never; a refusal in a line. */
async function loadStanding(target, alpha, signal) {
  let answer;
  try {
    answer = await apiGet(alphaPath(alpha, "/promotions"), {}, { signal });
  } catch (error) {
    if (isAbort(error)) return;
    fill(
      target,
      h(
        "p",
        { class: "muted", "data-error-code": error.code || "error" },
        `Promotion standing not shown: ${error.status ? `${error.status} ` : ""}`,
        h("code", {}, error.code || "error"),
        ` (${error.message})`,
        error.requestId ? [" · request id ", h("code", { class: "request-id" }, error.requestId)] : null,
      ),
    );
    return;
  }
  const data = answer.data;
  const decisions = data.decisions || [];
  const last = decisions[decisions.length - 1];
  const approvals = decisions.filter((d) => d.action === "approved");
  const approval = approvals[approvals.length - 1];
  let line;
  if (data.standing === "approved" && last) {
    line = [h("strong", {}, "Approved"), ` into the live book since ${data.since} by `, h("span", { class: "decided-by" }, last.decided_by), decisionNote(last)];
  } else if (data.standing === "retired" && last) {
    line = [
      h("strong", {}, "Retired"),
      ` since ${data.since} by `,
      h("span", { class: "decided-by" }, last.decided_by),
      decisionNote(last),
      approval ? ` Approved before on ${approval.as_of} by ` : "",
      approval ? h("span", { class: "decided-by" }, approval.decided_by) : null,
      approval ? "." : "",
    ];
  } else if (data.standing === "nominated") {
    line = [h("strong", {}, "Nominated"), ", not approved: the live part starts only with an approval."];
  } else {
    line = [h("strong", {}, "Never approved"), ": no promotion is recorded for this alpha."];
  }
  fill(
    target,
    h(
      "p",
      { class: "summary", id: "live-standing-line", "data-standing": data.standing },
      "Promotion: ",
      line,
      last ? ` ${decisions.length} decision${decisions.length === 1 ? "" : "s"} recorded (alpha-results promotions).` : "",
      decisionRecord(data),
    ),
  );
}

function decisionNote(decision) {
  return decision.note ? [": “", h("span", { class: "decision-note" }, decision.note), "”."] : ".";
}
