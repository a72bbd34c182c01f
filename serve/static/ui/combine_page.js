// A combination of alphas (#/combine?alphas=a,b&weighting=…&weights=…[&fit_to=…][&from=…&to=…]): the
// alphas are ticked from the listing, the weighting chosen (equal, given with one number per alpha,
// inverse_volatility, max_ir; the last two fitted on the sessions they are judged on unless a fit_to
// date fits them on the sessions up to it), and GET /v1/analytics/combine (every page) draws the
// combined curve against the market benchmark, with the weights, which sessions fitted them, the figures, the
// correlation matrix as a heatmap and the diversification ratio; the answer's warnings (in-sample
// weights, a weighting that shorts an alpha) head it. Beneath, what adding one more alpha does to that
// combination, at the weights on screen (contribution_panel.js): one combination is shown.
//
// `add=x` (the "Combine…" link of x's page) makes x the alpha added: the before/after is the
// combination without x against the combination shown (x at its weight above), shown at once, and
// the weight of x that maximises the information ratio is a suggestion beside it. Alone (`#/combine?add=x`), x is combined with the
// first approved alpha of the catalogue the key may read (GET /v1/analytics/screen?production=true:
// the approved standing),
// or, for a key without the screener, the first other alpha of the listing.

import { apiGet, apiGetAll, isAbort } from "./api.js";
import { fragmentQuery, readableAlphas } from "./alpha_picker.js";
import { COLORS, timeChart } from "./charts.js";
import { renderContribution } from "./contribution_panel.js";
import { fill, h, note, numberCell, pageSection, readOrShowError, showError, table, warningList } from "./dom.js";
import { DASH, dateSeconds, fixed, pct, pp } from "./format.js";
import { entriesOf, entryTable, entryText } from "./stat_entry.js";
import { MAX_ALPHAS } from "./report_page.js";
import { BENCHMARK } from "./market.js";

const WEIGHTINGS = ["equal", "given", "inverse_volatility", "max_ir"];
const FITTED = ["inverse_volatility", "max_ir"]; // estimated from the returns: fit_to applies to them

export async function renderCombine(main, context) {
  const { signal } = context;
  const query = fragmentQuery();
  const chosen = (query.get("alphas") || "").split(",").filter(Boolean);
  const added = query.get("add") || "";
  const weighting = WEIGHTINGS.includes(query.get("weighting")) ? query.get("weighting") : "equal";
  const given = (query.get("weights") || "").split(",");
  const fitTo = FITTED.includes(weighting) ? query.get("fit_to") || "" : "";
  // The window, when the fragment names one (kept on submit): the combination and the contribution share it.
  const span = Object.fromEntries(["from", "to"].filter((k) => query.get(k)).map((k) => [k, query.get(k)]));
  const form = h("form", { id: "combine-form", class: "combine-form" }, note("Loading the alphas…"));
  const results = h("div", { id: "combine-results" });
  const contribution = h("section", { class: "panel", id: "contribution", hidden: true }); // shown with the listing
  fill(
    main,
    pageSection({ id: "combine" }, "Combine alphas", "GET /v1/analytics/combine?alphas=…&weighting=…&weights=…&fit_to=…: the weighted long_short book of the alphas chosen.", form, results),
    contribution,
  );
  const alphas = await readOrShowError(form, "The alphas could not be listed", () => readableAlphas(signal));
  if (!alphas) return;
  if (added && !chosen.some((a) => a !== added)) {
    let partner;
    try {
      partner = await partnerOf(added, alphas, signal);
    } catch (error) {
      showError(form, error, "The alphas could not be listed");
      return;
    }
    if (partner) {
      const next = new URLSearchParams({ alphas: `${partner},${added}`, add: added, weighting });
      Object.entries(span).forEach(([k, v]) => next.set(k, v));
      location.replace(`#/combine?${next}`); // the router draws the combination
      return;
    }
  }
  const boxes = alphas.map((a) => {
    const at = chosen.indexOf(a.alpha_id);
    const box = h("input", { type: "checkbox", class: "combine-alpha", value: a.alpha_id, checked: at >= 0, id: `combine-${a.alpha_id}` });
    const weight = h("input", { type: "number", step: "any", class: "combine-weight", id: `weight-${a.alpha_id}`, value: at >= 0 ? given[at] ?? "" : "", placeholder: "weight" });
    return { alpha: a.alpha_id, box, weight, row: h("li", {}, h("label", {}, box, " ", h("code", {}, a.alpha_id), ` ${a.name ?? ""}`), " ", weight) };
  });
  const select = h("select", { id: "combine-weighting" }, WEIGHTINGS.map((w) => h("option", { value: w, selected: w === weighting }, w)));
  // Out of sample: the weights fitted on the common sessions up to this date, judged on those after it.
  const fitInput = h("input", { type: "date", id: "combine-fit-to", value: fitTo });
  const fitControl = h("span", { class: "fit-to" }, h("label", { for: "combine-fit-to" }, "Fit weights up to (fit_to)"), " ", fitInput, h("span", { class: "muted" }, " empty: fitted on the sessions judged (in-sample)"));
  const showWeights = () => {
    boxes.forEach((b) => { b.weight.hidden = select.value !== "given" || !b.box.checked; });
    fitControl.hidden = !FITTED.includes(select.value);
  };
  select.addEventListener("change", showWeights);
  boxes.forEach((b) => b.box.addEventListener("change", showWeights));
  showWeights();
  fill(
    form,
    h("ul", { class: "alpha-choices" }, boxes.map((b) => b.row)),
    h("div", { class: "controls" }, h("label", { for: "combine-weighting" }, "Weighting"), select, fitControl, h("button", { type: "submit" }, "Combine")),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const ticked = boxes.filter((b) => b.box.checked);
    const next = new URLSearchParams({ alphas: ticked.map((b) => b.alpha).join(","), weighting: select.value });
    if (select.value === "given") next.set("weights", ticked.map((b) => b.weight.value.trim()).join(","));
    if (FITTED.includes(select.value) && fitInput.value) next.set("fit_to", fitInput.value);
    if (ticked.some((b) => b.alpha === added)) next.set("add", added);
    Object.entries(span).forEach(([k, v]) => next.set(k, v));
    location.hash = `#/combine?${next}`;
  });
  // The combination as asked: the contribution's reference book is this set at these weights.
  const combination = { weighting, ...span };
  if (weighting === "given") combination.weights = given.join(",");
  if (fitTo) combination.fit_to = fitTo;
  const params = { alphas: chosen.join(","), ...combination };
  // One request of the combination: drawn above, and its served weights and sessions are those the
  // before/after of the alpha it holds is asked at.
  const combined = chosen.length ? apiGetAll("/v1/analytics/combine", params, { limit: 500, signal }) : null;
  contribution.hidden = false;
  const holds = Boolean(added) && chosen.includes(added);
  // Where the suggested weight of `added` comes from: the rest of the combination, weighted as above.
  const rest = holds ? { reference: chosen.filter((a) => a !== added), params: { ...combination } } : null;
  if (rest && weighting === "given") rest.params.weights = given.filter((_, i) => chosen[i] !== added).join(",");
  renderContribution(
    contribution,
    alphas,
    { chosen, combination: chosen.length ? combination : null, added: holds ? added : "", combined: combined ? combined.catch(() => null) : null, rest },
    context,
  );
  if (chosen.length === 0) {
    fill(results, note("Tick two alphas or more."));
    return;
  }
  fill(results, note("Loading…"));
  if (chosen.length <= MAX_ALPHAS) {
    const report = h("a", { href: `#/report?${new URLSearchParams({ alphas: chosen.join(",") })}`, id: "combine-report" }, "Printable report comparing these alphas");
    form.append(h("p", {}, report));
  }
  const answer = await readOrShowError(results, "The combination could not be read", () => combined);
  if (answer) drawCombination(results, answer);
}

/** The partner `alpha` is combined with when it comes alone: an approved alpha, else any other. */
async function partnerOf(alpha, alphas, signal) {
  try {
    const approved = await apiGet("/v1/analytics/screen", { production: "true", limit: 100 }, { signal });
    const first = approved.data.map((r) => r.alpha_id).find((a) => a !== alpha);
    if (first) return first;
  } catch (error) {
    if (isAbort(error) || !["endpoint_not_allowed", "upstream_unavailable"].includes(error.code)) throw error;
  }
  const other = alphas.find((a) => a.alpha_id !== alpha);
  return other ? other.alpha_id : null;
}

function drawCombination(results, answer) {
  const meta = answer.meta || {};
  const rows = answer.data;
  const chart = h("div", { class: "stacked-charts" });
  const last = rows.length ? rows[rows.length - 1] : null;
  fill(
    results,
    warningList(meta.warnings),
    h(
      "p",
      { class: "summary", id: "combine-summary" },
      last
        ? `${rows.length} sessions, ${rows[0].date} to ${last.date}: ${pct(last.cumulative_return)} combined, ${pct(last.benchmark_cumulative_return)} ${BENCHMARK}. `
        : "No common session. ",
      `Diversification ratio ${entryText((meta.figures || {}).diversification_ratio)}.`,
      meta.benchmark ? ` ${meta.benchmark.symbol} on its ${meta.benchmark.basis === "adjusted_close" ? "adjusted close" : "close"}.` : "",
      meta.session_rule ? h("span", { class: "muted" }, ` Sessions: ${meta.session_rule}.`) : "",
    ),
    fitNote(meta.fit),
    chart,
    h("div", { class: "side-by-side" }, h("div", {}, h("h3", {}, "Weights"), weightsTable(meta.weights || [])), h("div", {}, h("h3", {}, "Figures"), entryTable(entriesOf(meta.figures || {}), { className: "data entries combine-figures" }))),
    h("h3", {}, "Correlation of daily returns"),
    correlationTable(meta.correlation),
  );
  if (rows.length) {
    const x = rows.map((r) => dateSeconds(r.date));
    const percent = (v) => (v == null ? null : v * 100);
    timeChart(chart, {
      name: "combine-curve",
      title: `Cumulative return of the combination against ${BENCHMARK} (%)`,
      x,
      series: [
        { label: "combination", values: rows.map((r) => percent(r.cumulative_return)), color: COLORS.alpha },
        { label: `${BENCHMARK} (${meta.benchmark && meta.benchmark.basis === "adjusted_close" ? "adjusted close" : "close"})`, values: rows.map((r) => percent(r.benchmark_cumulative_return)), color: COLORS.benchmark },
      ],
      format: (v) => pp(v, 1),
      sync: "combine",
    });
    timeChart(chart, {
      name: "combine-drawdown",
      title: "Drawdown of the combination (%)",
      x,
      series: [{ label: "drawdown", values: rows.map((r) => (r.drawdown_pct == null ? null : -r.drawdown_pct)), color: COLORS.drawdown, fill: "rgba(192,57,43,0.15)" }],
      format: (v) => pp(v, 1),
      sync: "combine",
      height: 150,
      zeroLine: false,
    });
  }
}

/** Which sessions fitted the weights (meta.fit, null for equal and given weights), as the server words it. */
function fitNote(fit) {
  if (!fit) return null;
  return h("p", { class: `summary fit ${fit.sample}`, id: "combine-fit", "data-sample": fit.sample }, h("strong", {}, "Weights: "), fit.rule, ".");
}

function weightsTable(weights) {
  return table(
    ["Alpha", "Weight"],
    weights.map((w) => {
      const cell = numberCell(pct(w.weight), w.weight);
      cell.setAttribute("data-value", String(w.weight));
      if (w.weight < 0) cell.title = "a short: the combination sells this alpha's returns";
      return [h("th", { scope: "row", "data-alpha": w.alpha }, w.alpha), cell];
    }),
    { className: "data compact combine-weights" },
  );
}

/** The matrix as a table whose cells are shaded by the correlation (blue positive, red negative). */
export function correlationTable(correlation) {
  if (!correlation || !correlation.alphas) return note("No correlation matrix.");
  const grid = table(["", ...correlation.alphas], [], { className: "data compact correlation-matrix" });
  grid.querySelector("tbody").append(
    ...correlation.alphas.map((name, i) =>
      h(
        "tr",
        {},
        h("th", { scope: "row" }, name),
        correlation.matrix[i].map((value) => {
          const cell = h("td", { class: "number heat", "data-value": value == null ? "" : String(value) }, value == null ? DASH : fixed(value, 2));
          if (Number.isFinite(value)) {
            // Shading through the CSS object model (allowed by the page's policy, unlike a style attribute).
            const alpha = Math.min(1, Math.abs(value)) * 0.55;
            cell.style.backgroundColor = value >= 0 ? `rgba(31,95,191,${alpha})` : `rgba(192,57,43,${alpha})`;
          }
          return cell;
        }),
      ),
    ),
  );
  return h("div", { class: "table-scroll" }, grid);
}
