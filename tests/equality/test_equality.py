"""The read path answers exactly as recorded: every response body of `recorded.jsonl.gz` again.

The recording (`python -m tests.equality.record`, see record.py) holds the status and normalised
body of a few thousand GET requests over the small demo lake, made by the server as it was before
the read path was rewritten. Here the same requests go to today's server over the session's demo
lake and every status and body must be equal; a failure lists the first differences by request
and JSON path.

Re-recorded once, with issue 13 (analytics), at pipeline 2.2.0: the analytics requests were added
at the end of the generator (every earlier request keeps its draw), and the old recording was
compared with the new answers first. 246 of its 2,978 responses differed, all on `/metrics` and
`/metrics/_doc`, and only where that issue changed them: the decile figures of the two alphas
with a flat week (momentum_12_1, Test_small_universe: `ic_deciles`, `panel.decile_spread_weekly`),
the doc block's `pnl`, `ic_deciles` and `insufficient_data` texts, and the `ic_deciles` warning
message that states the decile rule (docs/benchmarks.md, "Equality re-recorded").

Issue 21 (the catalogue at scale) replaced 13 responses, all `/analytics/correlation` on the
scores basis, now answered from each alpha's score neighbours: alphas without a measurable
whole-history score correlation are not neighbours, so `Test_ledger_only` (no decisions) left
every other alpha's list, and its own list is empty (its rows had all been null). Every other row
of those 13 was checked equal, within the tolerance (tests/support/equality.py), to the new answer over the same window.

Issue 22 (items 2, 8 and 12) replaced 172 responses, and no other: every recorded request was
answered again and only those differing beyond the tolerance were re-recorded. They are
- all 54 `/analytics/significance`: `dsr.trials` gained `sharpe_variance_alphas`; for the testonly
  key (7 of them) the Sharpe variance, `expected_max_sharpe` and the DSR are now over the Test_
  alphas it may read, not the catalogue (item 2); two windows of one session report `sessions` 1,
  not 0 (as /portfolio); and value_composite_legacy over 2021-12-09..2021-12-30 (3 weekly ICs) has
  the `bootstrap.icir` lower bound -2.40, not -59,730,666 (a resample repeating one value is left
  out);
- the 7 `/analytics/costs` of Test_ledger_only: its `holding_period.withheld_reason` says the run
  sealed no decisions;
- the 7 `/analytics/_doc`, the 19 `/metrics/_doc` and the 85 `/metrics?doc=1` answers: the field
  meanings that state the conventions of information_ratio, icir and "gross", the new field, the
  `endpoint.catalogue` text and `endpoint.name_conventions`.

Issue 23 (representations) replaced 63 responses, and no other (each re-answered; only those
differing were replaced, each checked to differ only there): the 400s naming an unknown parameter
list what the endpoint accepts, and every collection endpoint now accepts `format`, listed last.
It also replaced the 7 `/analytics/_doc` answers, and in them only 14 fields' `unit`: the row
fields of correlation, drawdowns and rolling take their unit from schemas.field_docs (since removed), which
the reference and the OpenAPI document read (the two had disagreed: "ratio" against "fraction
(0.01 = 1%)" for annualised_return, volatility and hit_rate).

Issue 24 (decisions) replaced the 7 `/analytics/_doc` answers, and no other (each old request
answered again; only those differing beyond the tolerance were replaced, and only _doc did): the
new routes' fields, `endpoint.paths` now derived from the registry (every analytics route with its
parameters), `endpoint.combination` and `endpoint.risk`, the `access_limited` text naming SPY, and
one wording of the window echo's meaning.
It appended 234 requests for the five new routes (risk, checks, compare per book, a contribution
and a combination per alpha, bad-input sweeps): 120 answered 200, 61 400, 33 403, 20 404.

Issue 22 item 14 replaced the 7 `/analytics/_doc` answers, and no other (each re-answered; only
those differing were replaced, and in them only `fields.significance.sessions`): `sessions` is
null, not 0, for a key that may not read the ledger, and its meaning says so.

The issue 24 audit (checks' production correlation, a contribution's weighted reference set)
replaced 42 responses, and no other (each old request answered again; only those differing beyond
the tolerance were replaced, each checked to differ only there): the 35 `/analytics/checks` 200s,
whose `production_correlation` entry gained `compared`, `of` and `nearest` after its other keys
(every other key and value as recorded); and the 7 `/analytics/_doc` answers: those three fields,
the contribution's `weighting`, `weights`, `shrinkage`, `reference.combination` and the
`turnover` and `diversification_ratio` of `before`, `after` and `change` (59 new fields, the
others in their recorded order), the changed meanings of `checks.checks[].id`, `contribution`,
its `before`, `after` and `session_rule`, and `endpoint.paths` and `endpoint.combination` naming
contribution's new parameters. No recorded 400 lists contribution's parameters, so none changed.

The decision routes' rule for a window too short (issue 24: "a window with too few sessions gets
a 400 naming the parameter") replaced 7 responses, and no other (each old request answered again;
only those differing were replaced, each a recorded 200 now a 400 naming only `from`/`to` with
the window's count): 4 `/analytics/risk`, 1 `/analytics/compare` and 2 `/analytics/checks`
whose windows held fewer sessions than any figure of the route needs, in a history holding enough.

Issue 23 (`/metrics/_doc` read from the declaration of the metrics object, `figure` on each field
of schemas/bodies/metrics.py) replaced 104 responses, and no other (every recorded request answered
again; only those differing were replaced, each checked to differ only inside `fields`): the 19
`/metrics/_doc` and the 85 `/metrics?doc=1` answers. Of the block's 357 paths (the same 357), 71
entries changed, each where one rule now holds for every path instead of a per-path table: the 45
keys of the five `rank_ic` statistics are written as `core`'s (meaning suffixed with the statistic,
unit on `value`, signal on `value` and `signal` only); the 9 fields under `nwt.ic` carry the
test's availability, and its `source`, `source_kind` and `signal` keys (and the 3 of
`nwt.ic_score_panel`) the test's source and signal, as every other field under a test does; the 7
fields of
`panel.ic_term_structure[].newey_west` take the panel's granularity, `weekly`; `sharpe.deprecated`
and `superseded_by` (4) and `periods[].period` take their parent's horizon; and `window.from` and
`window.to` say what the OpenAPI document says of them (the two had worded it differently).

Then the 7 `/analytics/_doc` answers, and no other (each recorded request answered again): the
`correlation[]`, `drawdowns[]` and `rolling[]` fields are read from their row Structs, so their 24
meanings are now the row declaration's words followed by its null rule, as the OpenAPI document and
docs/reference.md state them (formula, unit, annualisation and source unchanged). And once more the
7 `/analytics/_doc` answers, and no other: the significance and costs objects are read from their
Structs (`figure` on each field), with the same 219 paths and entries except `significance.bootstrap`,
whose meaning no longer states the confidence level (its `confidence` field does); and the keys
every figure shares are worded as `AnalyticsStat` declares them, on every route: 83 `status` and 83
`annualisation` meanings, and the 7 routes' `window.from` and `window.to` (as `Window` says them).
Risk and compare followed (their `serve/analytics/*_doc.py` modules gone), replacing the 7
`/analytics/_doc` answers again and only in the 3 `compare.figures.*.test.name` meanings, which now
say which test each is (the words the OpenAPI document had). Checks, contribution and combine
followed (every `serve/analytics/*_doc.py` module gone): the 7 `/analytics/_doc` answers replaced
again, and only in the 5 `combine[]` meanings, now the row Struct's words, as the other
collections' are. Combine's `meta` keys followed (read from `EnvelopeMeta` and its Structs): the 7
`/analytics/_doc` answers replaced again, and only in 17 `combine.meta.*` entries (none of
`combine.meta.figures`): their meanings are now the words the OpenAPI document gives those keys,
the units the `schemas.units` names ("trading sessions", "fraction (0.01 = 1%)"; they were written
"sessions" and "fraction" there), and the formulas moved onto the Structs' fields. Then combine's
`meta` took the contribution's Structs for its figures, shrinkage and weights (`BookFigures`,
`CombinationShrinkage`, `CombinationWeight`: one declaration where there were two, worded
differently): the 7 answers replaced again, and only in 9 entries, `combine.meta.figures`,
`combine.meta.shrinkage.{value,source}`, `combine.meta.weights[].{alpha,weight}` and the same four
under `contribution.reference.combination`, now worded once for both routes (a weight's unit
"fraction", as every analytics figure's).

Issue 34 (one home for every figure) moved every computation into analytics/ and made the answers
the contract's Structs; two replacements, and no other answer changed:
- 41 `/analytics/costs` answers (cd4607f), only in `information_ratio.gross.source` and
  `.net.source`, now `portfolio:{book}` as the Struct declares them;
- 7 `/analytics/_doc` answers (f1cec76), only the unit of `annualised_return` and `volatility` on
  compare, declared as the fractions they are served as.

Issue 33 (one convention per name, the audit's defects) replaced 284 answers (10b0b59), each
re-answered and checked to differ only where said:
- the 33 `/analytics/checks` 200s: every check gained `reason` (the comparison and what it
  means); `max_weight` reads the weight held (`source` portfolio.positions, not
  signals.rebalances.get), so its `value` (29), and in 4 answers its verdict, the summary's
  `failed` and `not_measurable` counts and the `reason` changed (the weight held breached the
  policy where the target did not);
- the 7 `/analytics/combine` answers: `meta.fit` (which sessions fitted the weights) and
  `meta.warnings` (`in_sample_weights`);
- the 34 `/analytics/compare` 200s: `figures.icir` on one basis, annualised (`annualisation`
  annualised, `periods_per_year` 52; value and difference of the 26 with a measurable ICIR);
- the 45 `/analytics/rolling` and 54 `/analytics/significance` answers: the rolling `icir` rows
  and `bootstrap.icir` annualised likewise;
- the 85 `/metrics?doc=1` and 19 `/metrics/_doc` answers and the 7 `/analytics/_doc` answers:
  meanings naming the conventions other libraries use differently (information_ratio,
  excess_sharpe, ic, icir, max_drawdown, max_drawdown_pct), the two new warning codes, and on
  `/analytics/_doc` the checks' `reason` and `source`, `fit_to` in `endpoint.paths`,
  `endpoint.combination`, `endpoint.risk`, `endpoint.name_conventions` and the combination's
  `meta` entries' horizon.
Then one turnover basis (dd17ae5): the 33 `/analytics/checks` answers, only the turnover check's
row and the policy's turnover band (per year, as `/metrics` `core.turnover`), and the 7
`/analytics/_doc` answers, only the checks' meanings and the band's unit.

Issue 34 item 2 (the answers sent are their Structs, 250b914) replaced 151 answers, only in key
order (`tests.equality.update` names each difference's kind): the 7 `/analytics/combine` answers,
whose `meta.source` now follows the combination's keys (`EnvelopeMeta` declares one order for every
route), and 144 answers whose `kind_missing` warnings now read `code, message, kind` (the
`Warning` Struct's order, which every other warning already had) instead of `code, kind, message`.

Issue 35 (live against backtest, promotions) replaced the 7 `/analytics/_doc` answers, only by
adding the `live.*` fields and the route's `endpoint.paths` entry (no field was removed or
changed), and appended 79 requests: `/analytics/live` at random splits per book, the default split
of the two alphas whose seals carry a research_cutoff (never the first-publish default of the
others: the date the lake was built), a split that is no date, and `/v1/alphas/{alpha}/promotions`
(the recording's app keeps no records: standing `never`). The checks' turnover is now read from the
ledger the other figures read (`analytics.inputs.Ledger.turnover`), its answers unchanged. The
demo's two research_cutoff manifests changed those alphas' builds, and no answer.

Issue 35 item 1 (promotions served: where each alpha stands, and the decision routes' default
reference set) replaced 142 answers, and in them only added fields and reworded meanings; no
figure changed (every old request answered again; each differing record is the recorded one with
the new keys and meanings merged in, every other value as recorded, floats included):
- the 92 `/v1/alphas` answers: each of their 288 rows gained `standing` and `approved_since` after
  `tldr` (`never` and null: the recording's app keeps no records);
- the 33 `/analytics/checks` 200s: the `production_correlation` entry gained `reference`
  (`production`) after `nearest`;
- the 10 `/analytics/contribution` 200s: `reference` gained `origin` after `source` (`given` for
  the 9 naming their set, `production` for the one default);
- the 7 `/analytics/_doc` answers: the entries of the two new fields
  (`checks.checks[].reference`, `contribution.reference.origin`), the meanings of
  `checks.checks[].compared`, `.of` and `.nearest` and of `contribution.reference.source` and
  `.alpha_excluded` (the set compared with is the default reference set, approved or production),
  and `endpoint.paths`, whose screener entry lists `standing`.

Issue 35 item 2 (the live checks and the screener's live columns) replaced 40 answers, and in them
only added checks, fields and meanings; no figure and no verdict changed (every old request
answered again; each differing `/analytics/checks` record is the recorded one with the additions
merged in, every other value as recorded, floats included):
- the 33 `/analytics/checks` 200s: the battery gained `live_information_ratio` and `decay_ratio`
  after `ic_t_stat` (now `ic_t_statistic`), both `not_measurable` (`not_applicable`: the recording's app keeps no
  records, so no alpha is approved) with `split_date` null; `policy.thresholds` gained their
  bounds (min 0.0 and 0.25); `summary.not_measurable` counts them (+2), and `summary.verdict`,
  `passed` and `failed` are as recorded (a live check without a value leaves the verdict alone);
- the 7 `/analytics/_doc` answers: the entries of the new fields (`checks.checks[].split_date`,
  `checks.policy.thresholds.live_information_ratio` and `.decay_ratio` with their `min`), the
  meanings of `checks.checks` and of `checks.checks[].id`, `.unit`, `.source`, `.book`, `.horizon`
  and `.reason` (the two checks, the `approval_split` horizon, `not_applicable`) and of
  `checks.summary.not_measurable` and `.verdict` (how the live checks count), and
  `endpoint.paths`, whose checks entry lists `min_live_information_ratio` and `min_decay_ratio`
  and whose screener entry lists the `min_`/`max_` bounds of the four live figures. The recording
  holds no screener request, so its live columns changed no recorded answer.

Issue 36 (why it works) replaced 40 answers and appended 413 requests (`python -m tests.equality.update
--write`, after a report run listing every differing path first):
- the 33 `/analytics/checks` 200s: the battery gained `residual_information_ratio` after
  `production_correlation` and `fragility` after `ic_t_stat` (now `ic_t_statistic`), so every later entry moved two places
  (the differing `id`, `value`, `verdict`, `reason` paths are those shifts: entry by entry, each
  check that was recorded is answered as recorded); `policy.thresholds` gained their bounds (min 0.3
  and 0.5); `summary` counts the two new verdicts;
- the 7 `/analytics/_doc` answers: the new routes' fields and `endpoint.paths`, and the meanings
  of `checks.checks` and its `id`, `unit`, `source`, `reference` and `reason` naming the new checks;
- appended: 80 attribution, 107 capacity (own generator), 92 factors, 77 quantiles (own
  generator) and 47 residual requests (the screener's residual columns are checked by
  tests/analytics/test_residual.py: a screener row carries the day its lake was built).
After the review of that change, 54 `/analytics/capacity` answers were replaced, and no other: 50
200s whose `meta` now echoes `book`, as every other book route's does, and 4 windows holding fewer
than 2 sessions of the book, now a 400 naming `from`/`to` (the decision routes' rule) where they
answered 200 with nothing measured.
The seal's new `exposures` kind and the demo engine 1.5.0 changed no recorded answer (a report run
after they landed: 0 of 3,729 answers differ).

Issue 50 item 7 (decay and the expected live haircut) replaced the 7 `/analytics/_doc` answers, only
by adding the `decay.*` fields and the route's `endpoint.paths` entry, and appended 73
`/analytics/decay` requests (own generator: a random split per book, the default split of the two
alphas whose seals carry a research_cutoff for every token, bad input, unknown alphas).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from schemas.registry import ADMIN_IDS, ALL_IDS
from tests.equality.record import answer, client_for
from tests.equality.requests import TOKENS, Request, endpoint_of, generate, read_lake
from tests.support.equality import MAX_DIFFS, differences, recorded_lines

MIN_REQUESTS = 2000

# Every registry id the recording must exercise: all but the meta routes (time and key store), the
# admin routes, and the routes added after it was recorded (the Parquet exports, whose equality
# with the JSON pages tests/api/test_exports.py checks; the screener, which
# tests/analytics/test_screen.py recomputes from the index, and whose rows carry each alpha's
# `live_split`, the day its lake was built for an alpha without a research_cutoff); and the events, which are the
# records' (what happened, when), not the lake's figures: tests/e2e/test_events_served.py reads
# them and tests/pipeline/test_events.py checks their figures against the routes that serve them.
RECORDED_AFTER = frozenset(
    {"exports.list", "exports.download", "analytics.screen", "events.list", "events.stream"}
)
EXPECTED_ENDPOINTS = frozenset(
    i for i in ALL_IDS if not i.startswith("meta.") and i not in ADMIN_IDS and i not in RECORDED_AFTER
)
# Endpoints that must have answered 200 at least once (a signed source URL is not recorded).
EXPECTED_OK = EXPECTED_ENDPOINTS - {"catalog.alphas.source.download"}
RUN_SCOPED = frozenset(
    i for i in EXPECTED_ENDPOINTS if i.startswith(("signals.", "portfolio.", "performance."))
)


@pytest.fixture(scope="module")
def recorded_requests() -> list[tuple[Request, int]]:
    """(request, recorded status) of every record, in replay order."""
    return [(Request(r["token"], r["path"]), int(r["status"])) for r in recorded_lines()]


def test_responses_equal_the_recording(demo_lake: Path, recorded_requests: list[tuple[Request, int]]) -> None:
    assert len(recorded_requests) >= MIN_REQUESTS
    # The recording is of exactly the requests the generator makes over this lake (same corpus,
    # same seed); otherwise it was recorded over another lake or with another generator.
    assert [request for request, _ in recorded_requests] == generate(demo_lake)

    diffs: list[str] = []
    mismatched = 0
    with client_for(demo_lake) as client:
        for record in recorded_lines():
            request = Request(record["token"], record["path"])
            now = answer(client, request)
            same_status = now["status"] == record["status"]
            if same_status and json.dumps(now["body"]) == json.dumps(record["body"]):
                continue
            found: list[str] = []
            if not same_status:
                found.append(f"status: recorded {record['status']} != now {now['status']}")
            differences(record["body"], now["body"], "$", found, limit=MAX_DIFFS)
            if not found:
                continue  # equal within REL_TOL
            mismatched += 1
            room = MAX_DIFFS - len(diffs)
            if room > 0:
                diffs.extend(f"[{request.token}] GET {request.path} :: {d}" for d in found[:room])
    assert mismatched == 0, (
        f"{mismatched} of {len(recorded_requests)} responses differ from the recording; "
        f"first differences:\n" + "\n".join(diffs)
    )


def test_recording_covers_every_endpoint_family(
    demo_lake: Path, recorded_requests: list[tuple[Request, int]]
) -> None:
    endpoints = {endpoint_of(request.path) for request, _ in recorded_requests} - {None}
    assert endpoints == EXPECTED_ENDPOINTS
    answered = {endpoint_of(request.path) for request, status in recorded_requests if status == 200}
    assert EXPECTED_OK <= answered, sorted(EXPECTED_OK - answered)

    # Every caller kind, and every status family the data routes answer.
    assert {request.token for request, _ in recorded_requests} >= {*TOKENS, None}
    statuses = {status for _, status in recorded_requests}
    assert {200, 400, 401, 403, 404} <= statuses
    assert max(statuses) < 500, "a recorded answer is a server error: never record one as the baseline"

    # Every alpha of the corpus on every run-scoped endpoint, and with a 200 wherever it has data.
    alphas = [a.alpha_id for a in read_lake(demo_lake).alphas]
    assert len(alphas) >= 7
    for endpoint in RUN_SCOPED:
        seen = {
            request.path.split("/")[3]
            for request, _ in recorded_requests
            if endpoint_of(request.path) == endpoint
        }
        assert set(alphas) <= seen, (endpoint, sorted(set(alphas) - seen))
    ok = {
        (endpoint_of(request.path), request.path.split("/")[3])
        for request, status in recorded_requests
        if status == 200 and request.path.startswith("/v1/alphas/")
    }
    for alpha in alphas:
        for endpoint in ("portfolio.books", "portfolio.ledger", "performance.metrics", "signals.scores"):
            assert (endpoint, alpha) in ok, (endpoint, alpha)

    # raw and plain both answered each data-bearing family (raw_* fields and books differ).
    for token in ("raw", "plain"):
        families = {
            endpoint_of(r.path) for r, status in recorded_requests if status == 200 and r.token == token
        }
        assert EXPECTED_OK <= families, (token, sorted(EXPECTED_OK - families))
