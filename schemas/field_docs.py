"""What every response field means: one table, from the API specification's field tables.

Each entry gives a field's meaning (one sentence, in the specification's words where it has them),
its unit, when and why it is `null`, when the key is left out of the object, and whether only a key
with raw-book access (`field_policy.expose_raw_book`) ever sees it. serve/openapi/annotations.py attaches these
to every response property of the OpenAPI document, and docs/reference.md shows them.

Keys: a field name alone where the name means the same wherever it is served; `(context, field)`
where the same name means different things in different places. A context names the object the
field is a property of:
- a registry id for the top level of that endpoint's 200 body (`data`, `meta`, `pagination`);
- `DATA_CONTEXTS[endpoint]` for the endpoint's `data` object, or each row of its `data` array;
- `SUMMARY_CONTEXTS[endpoint]` for its `meta.summary`;
- `COMPONENT_CONTEXTS[name]` for a shared schema under `components.schemas`;
- `NESTED_CONTEXTS[property]` for any other nested object (`window`, `benchmark`, `weights`, ...).
`field_doc(context, name)` looks a field up: the `(context, name)` entry, else the `name` entry.

tests/api/test_field_docs.py fails when a property of the served document has no entry, or an
entry names a field nothing serves.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from schemas import wire


@dataclass(frozen=True)
class FieldDoc:
    meaning: str
    unit: str | None = None
    null: str | None = None
    """When and why the value is `null`; None: the specification never serves it as null."""
    absent: str | None = None
    """When the key is left out of its object; None: always present (raw-only fields aside)."""
    raw_only: bool = False
    """Served only to keys with raw-book access (`schemas.wire.is_raw_field`): stripped otherwise."""


# -- units ------------------------------------------------------------------------------------------

FRACTION = "fraction (0.01 = 1%)"
PERCENTAGE_POINTS = "percentage points (1.0 = 1%)"
EQUITY = "normalised equity (1.0 = the book's equity at inception)"
BASE_CURRENCY = "base currency"
PRICE = "base currency per share"
SHARES = "shares"
DATE = "ISO date (YYYY-MM-DD)"
TIMESTAMP = "UTC timestamp (ISO 8601, `Z`, whole seconds)"
SESSIONS = "trading sessions"
NAMES = "symbols"
ROWS = "rows"
BYTES = "bytes"
SECONDS = "seconds"
REQUESTS = "requests"
SCORE_UNITS = "the alpha's own score units (no fixed range)"
STANDARD_DEVIATIONS = "standard deviations of the week's cohort"
RANK = "rank (1 = strongest)"

# -- where each context applies --------------------------------------------------------------------

DATA_CONTEXTS: dict[str, str] = {
    "meta.health": "health",
    "meta.me": "me",
    "meta.keys": "key_inventory_row",
    "catalog.alphas.list": "alpha_list_row",
    "catalog.alphas.get": "alpha_description",
    "catalog.alphas.source.download": "source_download",
    "signals.rebalances.list": "rebalance_index_row",
    "signals.rebalances.get": "decision_row",
    "signals.scores": "score_row",
    "portfolio.books": "book_row",
    "portfolio.ledger": "ledger_row",
    "portfolio.positions": "position_row",
    "portfolio.pnl": "pnl_row",
    "portfolio.trades": "trade_row",
    "portfolio.equity_curve": "equity_row",
    "performance.metrics": "metrics",
    "performance.metrics.doc": "metrics_doc",
    "benchmarks.daily": "benchmark_row",
    "exports.list": "export_row",
    "exports.download": "export_download",
    "admin.alphas.readiness": "readiness",
    "admin.keys.usage": "key_usage",
    "admin.builds.list": "build_row",
    "analytics.significance": "significance",
    "analytics.correlation": "correlation_row",
    "analytics.drawdowns": "drawdown_row",
    "analytics.rolling": "rolling_row",
    "analytics.costs": "costs",
    "analytics.screen": "screen_row",
    "analytics.combine": "combined_row",
    "analytics.contribution": "contribution",
    "analytics.doc": "analytics_doc",
}
"""The context of each endpoint's `data`: the object of a single-object endpoint, each row of a
collection."""

SUMMARY_CONTEXTS: dict[str, str] = {
    "portfolio.equity_curve": "equity_summary",
    "benchmarks.daily": "benchmark_summary",
}
"""The context of `meta.summary`, on the two series endpoints that carry one."""

COMPONENT_CONTEXTS: dict[str, str] = {
    "Me": "me",
    "KeyInventoryRow": "key_inventory_row",
    "Allow": "allow",
    "AllowList": "allow_list",
    "FieldPolicy": "field_policy",
    "RateLimit": "rate_limit",
    "Usage": "usage",
    "Error": "error",
    "ErrorBody": "error_body",
    "Pagination": "pagination",
    "Warning": "warning",
    "Health": "health",
    "HealthLake": "health_lake",
    "StatEntry": "stat_entry",
    "SourceDownload": "source_download",
    "Readiness": "readiness",
    "KeyUsage": "key_usage",
    "BuildRow": "build_row",
    "ExportRow": "export_row",
    "ExportDownload": "export_download",
}
"""The context of each shared schema of `components.schemas` (the Structs of serve/openapi/bodies.py
and those they hold; the bodies of `schemas.bodies.BODIES` are documented by their documentation
blocks instead)."""

NESTED_CONTEXTS: dict[str, str] = {
    "meta": "meta",
    "pagination": "pagination",
    "window": "window",
    "benchmark": "benchmark_echo",
    "shrinkage": "shrinkage",
    "weights": "weight_entry",
    "correlation": "correlation_matrix",
    "figures": "combined_figures",
}
"""The context of a nested object, by the name of the property holding it (besides `data` and
`meta.summary`, whose context depends on the endpoint)."""

# -- shared wording ---------------------------------------------------------------------------------

_RAW_MIRROR = "Unconditioned counterpart of `{}` (before smoothing); no other field is mirrored."
_UNSCORED = "Null for a name without a valid score that week (a data gap)."
_EMPTY_WINDOW = "Null when the window holds no session."
_OMITTED_UNSEALED = "Omitted where the run did not seal it."
_SCORES_ALL_ONLY = "Only with `fields=all`."

# -- the table ----------------------------------------------------------------------------------------

FIELD_DOCS: dict[str | tuple[str, str], FieldDoc] = {
    # -- response top level (context: the endpoint's registry id) -----------------------------------
    "data": FieldDoc(
        "The payload: the rows of this page on a collection endpoint, the requested object otherwise."
    ),
    ("catalog.alphas.get", "data"): FieldDoc(
        "The alpha description (algo_id, alpha_id, name, tldr, copyright, classification, thesis, "
        "signal, parameters, data_requirements, source_papers): every key is always present, "
        "unsealed values are null.",
    ),
    ("performance.metrics", "data"): FieldDoc(
        "Performance and signal-quality metrics: granularity, window, core, rank_ic, "
        "signal_processing, periods, ic_deciles, nwt, doc_url, alpha, alpha_id (and panel with "
        "`panel=1`, doc with `doc=1`); each field is explained by `/metrics/_doc`.",
    ),
    ("performance.metrics.doc", "data"): FieldDoc(
        "The metrics documentation block: schema_version, endpoint, fields (meaning, formula, "
        "horizon, granularity, source and unit per dotted payload path) and warnings; identical "
        "for every alpha.",
    ),
    "meta": FieldDoc(
        "Response metadata: what served the answer (run, source, build) and request echoes; "
        "warnings when a block degraded."
    ),
    "pagination": FieldDoc("Paging state of this collection page."),
    # -- meta -----------------------------------------------------------------------------------------
    ("meta", "run"): FieldDoc(
        "The resolved alpha_id that served the response; keep it for reproducibility.",
        absent="Present on run-scoped responses.",
    ),
    ("meta", "alpha_id"): FieldDoc(
        "Informational source label (here the collection name); address endpoints with the path "
        "alpha_id or `meta.run`.",
        absent="Present on responses about one alpha.",
    ),
    ("meta", "source_alpha_id"): FieldDoc(
        "The research source id of the run.",
        absent="Present only when the run recorded a research source id.",
    ),
    ("meta", "book"): FieldDoc(
        "The book served; on `/rebalances/{date}` the echo of the `book` parameter (the "
        "target-weight column `min_abs_weight` and `sort=weight` act on).",
        absent="Present on book-scoped responses only.",
    ),
    ("meta", "request_id"): FieldDoc("Id of this request (also in `X-Request-ID`); quote it to support."),
    ("meta", "generated_at"): FieldDoc("When the server produced this response.", unit=TIMESTAMP),
    ("meta", "source"): FieldDoc(
        "What served the response: `lake:<table>@<build_id>` (the published build), `lake:catalog` "
        "on `/alphas`, `lake:catalogue_index@<version>` on `/analytics/screen`, `limiter` for usage.",
        absent="Absent on `/v1/me` and `/v1/me/keys`.",
    ),
    ("meta", "warnings"): FieldDoc(
        "Degradations of this answer, e.g. `kind_missing` naming a dataset the run never wrote.",
        absent="Present only when a block degraded or the data is empty.",
    ),
    ("meta", "summary"): FieldDoc(
        "Figures over the whole requested window, computed before paging.",
    ),
    ("meta", "basis"): FieldDoc("The correlation basis applied: returns, ic or scores."),
    ("meta", "signal"): FieldDoc(
        "The IC family of `mean_ic` and `icir`: `conditioned` (score) on base books, `raw` (raw_score) on raw books."
    ),
    ("meta", "with_source"): FieldDoc(
        "The build of the alpha compared with (`lake:portfolio@<build id>`); `source` names this alpha's.",
        absent="On `/analytics/compare` only.",
    ),
    ("meta", "window"): FieldDoc(
        "The request's window, `from` and `to` (null: open).", absent="On `/analytics/combine` only."
    ),
    ("meta", "benchmark"): FieldDoc(
        "SPY and its return basis (`symbol`, `basis`): null when the key may not read SPY.",
        absent="On `/analytics/combine` only.",
    ),
    ("meta", "alphas"): FieldDoc(
        "The alphas combined, in the order of `alphas`.", absent="On `/analytics/combine` only."
    ),
    ("meta", "weighting"): FieldDoc(
        "How the weights were chosen: equal, given, inverse_volatility or max_ir.",
        absent="On `/analytics/combine` only.",
    ),
    ("meta", "shrinkage"): FieldDoc(
        "With max_ir: the shrinkage intensity used (`value`) and its `source` (ledoit_wolf or given); else null.",
        absent="On `/analytics/combine` only.",
    ),
    ("meta", "weights"): FieldDoc(
        "`{alpha, weight}` per alpha: the weights applied (fractions of the book's capital, negative for a short).",
        absent="On `/analytics/combine` only.",
    ),
    ("meta", "sessions"): FieldDoc(
        "Sessions the figures are over: those of the window on which every alpha has a return.",
        unit="sessions",
        absent="On `/analytics/combine` only.",
    ),
    ("meta", "session_rule"): FieldDoc(
        "Which sessions are combined, in words.", absent="On `/analytics/combine` only."
    ),
    ("meta", "figures"): FieldDoc(
        "The combined book's figures as stat entries (information_ratio, excess_sharpe, max_drawdown_pct, "
        "annualised_return, volatility, turnover, diversification_ratio): docs/analytics.md.",
        absent="On `/analytics/combine` only.",
    ),
    ("meta", "correlation"): FieldDoc(
        "`{alphas, matrix}`: the Pearson correlation of every pair's daily returns over the common sessions.",
        absent="On `/analytics/combine` only.",
    ),
    ("window", "from"): FieldDoc(
        "First trading day of the window, inclusive; null: the start of the history."
    ),
    ("window", "to"): FieldDoc("Last trading day of the window, inclusive; null: the end of the history."),
    ("benchmark_echo", "symbol"): FieldDoc("The benchmark (SPY)."),
    ("benchmark_echo", "basis"): FieldDoc(
        "Its return basis: adjusted_close when every session has one, else close."
    ),
    ("shrinkage", "value"): FieldDoc("The weight of the diagonal target in the shrunk covariance (0 to 1)."),
    ("shrinkage", "source"): FieldDoc("ledoit_wolf (estimated) or given (the `shrinkage` parameter)."),
    ("weight_entry", "alpha"): FieldDoc("The alpha."),
    ("weight_entry", "weight"): FieldDoc(
        "Its weight: a fraction of the combined book's capital, negative for a short.", unit="fraction"
    ),
    ("correlation_matrix", "alphas"): FieldDoc("The rows and columns of `matrix`, in order."),
    ("correlation_matrix", "matrix"): FieldDoc(
        "Pearson correlation of each pair's daily returns over the common sessions; null where a side is constant.",
        unit="ratio",
    ),
    ("combined_figures", "information_ratio"): FieldDoc(
        "mean / std (ddof 1) of the combined daily returns x sqrt(252)."
    ),
    ("combined_figures", "excess_sharpe"): FieldDoc(
        "The same of the combined returns less the weighted risk-free returns the books accrued."
    ),
    ("combined_figures", "max_drawdown_pct"): FieldDoc(
        "Deepest fall of the compounded equity from its running peak, in percentage points of the peak "
        "(25.0 = 25%), as `/metrics` serves `core.max_drawdown_pct`."
    ),
    ("combined_figures", "annualised_return"): FieldDoc("Mean combined daily return x 252."),
    ("combined_figures", "volatility"): FieldDoc(
        "Standard deviation (ddof 1) of the combined daily returns x sqrt(252)."
    ),
    ("combined_figures", "turnover"): FieldDoc(
        "Approximated as the sum of |weight| x each alpha's whole-history turnover (an upper bound: no netting)."
    ),
    ("combined_figures", "diversification_ratio"): FieldDoc(
        "Sum of |weight| x each alpha's volatility over the combined book's volatility (1: no diversification)."
    ),
    ("stat_entry", "value"): FieldDoc("The figure; null when not_measurable."),
    ("stat_entry", "unit"): FieldDoc("Unit of value."),
    ("stat_entry", "status"): FieldDoc(
        "available, or not_measurable (value null, withheld_reason says why)."
    ),
    ("stat_entry", "source"): FieldDoc("What the figure is computed from."),
    ("stat_entry", "annualisation"): FieldDoc("annualised, per_period or not_annualisable."),
    ("stat_entry", "withheld_reason"): FieldDoc(
        "Why the figure is not measurable.", absent="Present only then."
    ),
    ("stat_entry", "periods_per_year"): FieldDoc(
        "Periods per year the figure is annualised with.", absent="On annualised figures only."
    ),
    ("stat_entry", "approximation"): FieldDoc(
        "How the figure is approximated.", absent="On approximated figures only."
    ),
    ("meta", "window_weeks"): FieldDoc("The trailing window applied, in weeks (13, 26 or 52).", unit="weeks"),
    ("meta", "key_id"): FieldDoc(
        "The key the answer is about: the calling key on `/v1/me` and `/v1/me/keys`, the key looked "
        "up on the administrative usage route.",
        absent="Present on those three routes only.",
    ),
    ("meta", "date"): FieldDoc(
        "Echo of the path date: the rebalance week served.",
        unit=DATE,
        absent="Present on `/rebalances/{date}` only.",
    ),
    ("meta", "week_status"): FieldDoc(
        "Status of the week, as in the rebalance index: `traded`, `pending`, or a skip reason.",
        absent="Present on `/rebalances/{date}` only.",
    ),
    ("meta", "n_symbols"): FieldDoc(
        "Rows in the week's full cross-section before filters; `pagination.total` tracks the filtered count.",
        unit=NAMES,
        absent="Present on `/rebalances/{date}` only.",
    ),
    ("meta", "fields"): FieldDoc(
        "Echo of the column set served: `core` or `all`.", absent="Present on `/scores` only."
    ),
    ("meta", "symbol"): FieldDoc(
        "Echo of the path benchmark symbol.", absent="Present on the benchmark route only."
    ),
    # -- pagination -----------------------------------------------------------------------------------
    ("pagination", "limit"): FieldDoc("The applied page size (request value or default).", unit=ROWS),
    ("pagination", "offset"): FieldDoc("The applied offset.", unit=ROWS),
    ("pagination", "returned"): FieldDoc(
        "Number of rows in this page; equals `data.length`; below `limit` on the last page.", unit=ROWS
    ),
    ("pagination", "total"): FieldDoc(
        "Rows matching the query across all pages, counted before paging.", unit=ROWS
    ),
    ("pagination", "has_more"): FieldDoc(
        "`offset + returned < total`; false on the last page; clients stop paging when false."
    ),
    # -- warnings and errors --------------------------------------------------------------------------
    ("warning", "code"): FieldDoc("Warning code from the documented vocabulary (e.g. `kind_missing`)."),
    ("warning", "kind"): FieldDoc(
        "The dataset (seal kind) the warning is about.", absent="Present on `kind_missing` warnings."
    ),
    ("warning", "message"): FieldDoc("Human-readable explanation of the warning."),
    ("warning", "block"): FieldDoc(
        "The `/metrics` block the warning is about (e.g. `ic`, `portfolio`).",
        absent="Present on `/metrics` warnings that concern one block.",
    ),
    ("error", "error"): FieldDoc("The failure: code, message, details and request_id."),
    ("error_body", "code"): FieldDoc("Machine-readable error code (e.g. `bad_request`, `unknown_book`)."),
    ("error_body", "message"): FieldDoc("Human-readable explanation of the failure."),
    ("error_body", "details"): FieldDoc(
        "Code-specific details, e.g. `parameters` for `bad_request`, `available` for `unknown_book`; "
        "empty on `internal_error`."
    ),
    ("error_body", "request_id"): FieldDoc(
        "Id of this request (also in `X-Request-ID`); quote it to support."
    ),
    # -- health ---------------------------------------------------------------------------------------
    ("health", "status"): FieldDoc("`ok`, or `degraded` when a backend is down or a build is damaged."),
    ("health", "service"): FieldDoc("Name of the service."),
    ("health", "environment"): FieldDoc("Deployment environment word (e.g. `live`)."),
    ("health", "version"): FieldDoc("The running build's version string."),
    "registry_version": FieldDoc(
        "Identifies the endpoint-registry version; changes when endpoints or groups change."
    ),
    ("health", "time"): FieldDoc("Server clock at answer time.", unit=TIMESTAMP),
    ("health", "down"): FieldDoc(
        "Backends that cannot be used (`lake`, `keystore`, `limiter`); possibly empty.",
        absent="Present only when `status` is `degraded`.",
    ),
    ("health", "lake"): FieldDoc(
        "Damage found in the lake's builds.", absent="Present only when some build is damaged."
    ),
    ("health", "worker"): FieldDoc(
        "A resource (open files, memory or maps) the answering worker ran out of in the last "
        "minute, and what it did (closed its least recently used builds). The worker's own "
        "problem: no build is reported damaged for it.",
        absent="Present only after such a failure, for a minute.",
    ),
    ("health_lake", "degraded_alphas"): FieldDoc(
        "Damaged builds: alpha_id (a benchmark as `benchmark:<SYMBOL>`) to reason code "
        "(`missing_file`, `truncated_file`, `corrupt_file`, `no_manifest`, `unreadable`; "
        "`corrupt_archive` when only the alpha's source archive does not match its SHA-256)."
    ),
    # -- key identity and inventory -------------------------------------------------------------------
    "key_id": FieldDoc(
        "16-character key id: the part of the token between the second underscore and the dot."
    ),
    ("me", "key_name"): FieldDoc("Label given to the key at issuance."),
    "user_id": FieldDoc("The key's owner."),
    ("me", "email"): FieldDoc("Owner's e-mail address."),
    ("me", "role"): FieldDoc("Platform role, read live."),
    ("me", "is_admin"): FieldDoc("Whether the role confers admin powers."),
    "allow": FieldDoc(
        "The key's allow-lists in force (endpoints, alphas, runs), clamped to the owner's ceiling."
    ),
    "field_policy": FieldDoc("The key's field policy."),
    ("field_policy", "expose_raw_book"): FieldDoc(
        "Raw-book access: when false, every `raw_*` field is stripped and `raw_` books are invisible."
    ),
    "rate_limit": FieldDoc("The key's rate envelope."),
    "usage": FieldDoc(
        "Requests counted in each window, read from the limiter that enforces them, and what remains."
    ),
    ("me", "callable_endpoints"): FieldDoc("Registry ids the key may actually call."),
    ("me", "ip"): FieldDoc(
        "Caller address as the service sees it (through the configured number of trusted proxy hops)."
    ),
    ("allow", "endpoints"): FieldDoc("Endpoint allow-list: registry ids the key may call."),
    ("allow", "alphas"): FieldDoc(
        "Alpha allow-list: alphas the key may list and whose description it may read."
    ),
    ("allow", "runs"): FieldDoc(
        "Run allow-list: runs whose data the key may read (every `/v1/alphas/{alpha}/...` data route)."
    ),
    ("allow_list", "mode"): FieldDoc(
        "`all`, `list` (the ids in `ids`) or `prefix` (ids starting with a prefix)."
    ),
    ("allow_list", "ids"): FieldDoc("Ids allowed in `list` mode.", absent="Present in `list` mode."),
    ("allow_list", "prefixes"): FieldDoc(
        "Id prefixes allowed in `prefix` mode.", absent="Present in `prefix` mode."
    ),
    ("rate_limit", "per_second"): FieldDoc("Requests allowed per second.", unit=REQUESTS),
    ("rate_limit", "per_minute"): FieldDoc("Requests allowed per minute.", unit=REQUESTS),
    ("rate_limit", "per_day"): FieldDoc("Requests allowed per day.", unit=REQUESTS),
    ("rate_limit", "monthly_requests"): FieldDoc(
        "Monthly request quota.", unit=REQUESTS, null="Null means an unlimited month."
    ),
    ("usage", "second"): FieldDoc("Requests counted in the current second.", unit=REQUESTS),
    ("usage", "minute"): FieldDoc("Requests counted in the current minute.", unit=REQUESTS),
    ("usage", "day"): FieldDoc("Requests counted in the current day.", unit=REQUESTS),
    ("usage", "month"): FieldDoc("Requests counted in the current month.", unit=REQUESTS),
    ("usage", "remaining_second"): FieldDoc("`per_second` minus usage, floored at 0.", unit=REQUESTS),
    ("usage", "remaining_minute"): FieldDoc("`per_minute` minus usage, floored at 0.", unit=REQUESTS),
    ("usage", "remaining_day"): FieldDoc("`per_day` minus usage, floored at 0.", unit=REQUESTS),
    ("usage", "remaining_month"): FieldDoc(
        "`monthly_requests` minus usage, floored at 0.",
        unit=REQUESTS,
        null="Null only with no monthly quota.",
    ),
    ("key_inventory_row", "display_prefix"): FieldDoc(
        "Masked token: the fixed key prefix, the environment word and a short start of the key_id."
    ),
    ("key_inventory_row", "name"): FieldDoc("Label given to the key at issuance."),
    ("key_inventory_row", "status"): FieldDoc(
        "`active` or `suspended`; an expired key still reads `active`; revoked keys are omitted."
    ),
    "expires_at": FieldDoc("When the key expires.", unit=TIMESTAMP, null="Null means no expiry."),
    ("key_inventory_row", "created_at"): FieldDoc("When the key was issued.", unit=TIMESTAMP),
    # -- catalogue ------------------------------------------------------------------------------------
    ("alpha_list_row", "alpha_id"): FieldDoc("Identifier used in every `/v1/alphas/{alpha}/...` path."),
    ("alpha_list_row", "name"): FieldDoc("Readable title; falls back to `alpha_id`."),
    ("alpha_list_row", "tldr"): FieldDoc("One-line thesis.", null="Null when none was recorded."),
    ("source_download", "url"): FieldDoc(
        "Freshly signed, time-limited HTTPS GET URL of the source archive; fetch it directly."
    ),
    "expires_in": FieldDoc("Lifetime of the signed URL (3600); do not cache it beyond.", unit=SECONDS),
    ("source_download", "filename"): FieldDoc("Archive file name, `<alpha_id>.zip`."),
    ("source_download", "size_bytes"): FieldDoc(
        "Size of the archive.", unit=BYTES, null="Null when the run did not record it."
    ),
    ("source_download", "sha256"): FieldDoc(
        "SHA-256 of the archive (hex).", null="Null when the run did not record it."
    ),
    # -- rebalance index ------------------------------------------------------------------------------
    ("rebalance_index_row", "date"): FieldDoc("Weekly decision date.", unit=DATE),
    "week_status": FieldDoc(
        "`traded`, `pending`, or a snake_case skip reason passed through from the engine unchanged."
    ),
    "n_symbols": FieldDoc("Scored names in that week's cross-section.", unit=NAMES),
    # -- decision record (/rebalances/{date} rows; /scores rows) ----------------------------------------
    ("score_row", "date"): FieldDoc("Weekly decision date of the row.", unit=DATE),
    "symbol": FieldDoc("Ticker."),
    "direction": FieldDoc("Sign of `score` (1, 0 or -1); 0 only for an exact zero score.", null=_UNSCORED),
    "confidence": FieldDoc(
        "`abs(score)`, not a probability; `score = direction x confidence`.",
        unit=SCORE_UNITS,
        null=_UNSCORED,
    ),
    "score": FieldDoc(
        "Conditioned (smoothed) signal used for ranking and books; identical on `/rebalances/{date}` "
        "and `/scores`.",
        unit=SCORE_UNITS,
        null=_UNSCORED,
    ),
    "raw_score": FieldDoc(
        "Unconditioned signal before smoothing; equals `raw_direction x raw_confidence`.",
        unit=SCORE_UNITS,
        null=_UNSCORED,
        raw_only=True,
    ),
    "score_z": FieldDoc(
        "`(score - mean_week) / stdev_week` over the week's cohort.",
        unit=STANDARD_DEVIATIONS,
        null="Null for an unscored name, and for every name in a week whose scores do not vary.",
    ),
    "average_rank": FieldDoc(
        "Rank in the week's cohort, 1 to `cohort_size`; may be non-integer when component ranks are "
        "averaged.",
        unit=RANK,
        null=_UNSCORED,
    ),
    "cohort_size": FieldDoc("Names with a valid score that week; can be below `n_symbols`.", unit=NAMES),
    "long_short_target_weight": FieldDoc(
        "Fraction of book equity in the dollar-neutral book; positive long, negative short; 0 outside "
        "the selection tails or when untradeable.",
        unit=FRACTION,
    ),
    "long_only_target_weight": FieldDoc(
        "Fraction of equity in the long-only book (>= 0); held names sum to 1; 0 when not held.",
        unit=FRACTION,
    ),
    "next_open_tradeable": FieldDoc(
        "False when halted, suspended, failing the liquidity screen, without borrow, or with a "
        "price-data gap; false forces both target weights to 0 and sets `unavailability_reason`."
    ),
    "fill_at": FieldDoc(
        "Execution time of the implementing fill.",
        unit=TIMESTAMP,
        null="Null when pending, when no trade occurred, or when untradeable.",
    ),
    "entry_at": FieldDoc("Next open at which the book acts.", unit=TIMESTAMP, absent=_OMITTED_UNSEALED),
    "maturity_at": FieldDoc(
        "One rebalance period after `entry_at`.", unit=TIMESTAMP, absent=_OMITTED_UNSEALED
    ),
    "forward_return": FieldDoc(
        "Return from the open of the first bar strictly after this decision to the open of the first "
        "bar strictly after the next decision.",
        unit=FRACTION,
        null="Null on pending weeks and unsealed holding periods; such weeks are dropped from IC and "
        "decile figures, never imputed.",
    ),
    "unavailability_reason": FieldDoc(
        "One of `halted`, `suspended`, `no_borrow`, `illiquid`, `data_gap`; set whenever "
        "`next_open_tradeable` is false.",
        null="Null when the name is tradeable.",
    ),
    "decision_reason": FieldDoc(
        "Decision-layer note, for example `entered_selection`, `exited_below_threshold`, "
        "`carried_by_smoothing`, `gated_untradeable`.",
        null="Null for a routine hold.",
    ),
    "raw_direction": FieldDoc(_RAW_MIRROR.format("direction"), null=_UNSCORED, raw_only=True),
    "raw_confidence": FieldDoc(
        _RAW_MIRROR.format("confidence"), unit=SCORE_UNITS, null=_UNSCORED, raw_only=True
    ),
    "raw_score_z": FieldDoc(
        _RAW_MIRROR.format("score_z"),
        unit=STANDARD_DEVIATIONS,
        null="Null for an unscored name, and for every name in a week whose scores do not vary.",
        raw_only=True,
    ),
    "raw_average_rank": FieldDoc(
        _RAW_MIRROR.format("average_rank"), unit=RANK, null=_UNSCORED, raw_only=True
    ),
    "raw_long_short_target_weight": FieldDoc(
        _RAW_MIRROR.format("long_short_target_weight"), unit=FRACTION, raw_only=True
    ),
    "raw_long_only_target_weight": FieldDoc(
        _RAW_MIRROR.format("long_only_target_weight"), unit=FRACTION, raw_only=True
    ),
    "raw_fill_at": FieldDoc(
        _RAW_MIRROR.format("fill_at"),
        unit=TIMESTAMP,
        null="Null when pending, when no trade occurred, or when untradeable.",
        raw_only=True,
    ),
    "raw_decision_reason": FieldDoc(
        _RAW_MIRROR.format("decision_reason"), null="Null for a routine hold.", raw_only=True
    ),
    # -- books ------------------------------------------------------------------------------------------
    ("book_row", "book"): FieldDoc("Book name: the value to pass as `book=` elsewhere."),
    ("book_row", "kind"): FieldDoc("Dataset summarised: `portfolio`, `positions`, `pnl` or `trades`."),
    ("book_row", "raw"): FieldDoc(
        "True when the book name starts with `raw_` (such rows are listed only to keys with raw-book access)."
    ),
    ("book_row", "sessions"): FieldDoc(
        "Count of dated items: every trading day for portfolio, positions, pnl; only traded days for trades.",
        unit=SESSIONS,
    ),
    ("book_row", "rows"): FieldDoc(
        "Leaf rows: per-symbol rows for positions, pnl, trades; one per session for portfolio.",
        unit=ROWS,
    ),
    ("book_row", "from"): FieldDoc(
        "First business date with a row.", unit=DATE, null="Null when the dataset has no row."
    ),
    ("book_row", "to"): FieldDoc(
        "Last business date with a row.", unit=DATE, null="Null when the dataset has no row."
    ),
    # -- portfolio ledger, positions, P&L, trades ----------------------------------------------------------
    "book": FieldDoc("The book the row belongs to (the `book` requested)."),
    ("ledger_row", "date"): FieldDoc("Trading session of the row.", unit=DATE),
    ("ledger_row", "timestamp"): FieldDoc("UTC instant of the session.", unit=TIMESTAMP),
    ("ledger_row", "starting_equity"): FieldDoc(
        "Previous `ending_equity`; 1.0 at inception (normalised growth multiple).", unit=EQUITY
    ),
    ("ledger_row", "ending_equity"): FieldDoc(
        "`starting_equity + market_pnl + execution_cost + borrow_cashflow + cash_carry + "
        "rounding_adjustment`.",
        unit=EQUITY,
    ),
    "cash_start": FieldDoc("Opening cash.", unit=EQUITY),
    "cash_end": FieldDoc("Closing cash.", unit=EQUITY),
    "position_value_end": FieldDoc(
        "Closing value of the positions: `cash_end + position_value_end = ending_equity`.", unit=EQUITY
    ),
    ("ledger_row", "market_pnl"): FieldDoc(
        "Sum over positions of `quantity x (close - previous close)`.", unit=EQUITY
    ),
    ("ledger_row", "execution_cost"): FieldDoc(
        "Fees and modelled impact of the day's fills (<= 0).", unit=EQUITY
    ),
    ("ledger_row", "borrow_cashflow"): FieldDoc(
        "Borrow rate x short notional, accrued daily (<= 0).", unit=EQUITY
    ),
    "cash_carry": FieldDoc("Interest credited on cash.", unit=EQUITY),
    "risk_free_return": FieldDoc("Session rate at which carry accrued.", unit=f"{FRACTION} per session"),
    "rounding_adjustment": FieldDoc("Residual closing the ledger identity.", unit=EQUITY),
    "equity_basis": FieldDoc(
        "1.0 for a normalised ledger; divide a notional column by it for a ratio.",
        unit="base currency per unit of normalised equity",
    ),
    "gross_notional": FieldDoc("Sum of absolute position values.", unit=BASE_CURRENCY),
    "net_notional": FieldDoc("Sum of signed position values.", unit=BASE_CURRENCY),
    ("ledger_row", "gross_exposure"): FieldDoc(
        "Sum of absolute weights (about 2.0 for a fully invested dollar-neutral book).", unit=FRACTION
    ),
    ("ledger_row", "net_exposure"): FieldDoc("Sum of weights (about 0 when dollar-neutral).", unit=FRACTION),
    "largest_abs_weight": FieldDoc("Largest absolute position weight that day.", unit=FRACTION),
    "turnover_notional": FieldDoc(
        "Sum of absolute traded notional over the day's fills.", unit=BASE_CURRENCY
    ),
    ("ledger_row", "turnover"): FieldDoc(
        "One-sided traded fraction: half the sum of absolute weight changes.", unit=FRACTION
    ),
    ("position_row", "date"): FieldDoc(
        "Trading session; one row per held name per session (names not held are absent).", unit=DATE
    ),
    ("pnl_row", "date"): FieldDoc(
        "Trading session; one row per name with a position or fill that day.", unit=DATE
    ),
    "quantity": FieldDoc(
        "Signed share count: positions positive long, negative short; fills positive buy, negative sell.",
        unit=SHARES,
    ),
    "mark_price": FieldDoc("Official close of the primary exchange.", unit=PRICE),
    "signed_notional": FieldDoc("`quantity x mark_price`.", unit=BASE_CURRENCY),
    "weight": FieldDoc(
        "`signed_notional / ending_equity` of the same day (signed); comparable to target weights.",
        unit=FRACTION,
    ),
    ("pnl_row", "market_pnl"): FieldDoc("`quantity x (close - previous close)`.", unit=BASE_CURRENCY),
    ("pnl_row", "execution_cost"): FieldDoc(
        "Execution cost of the name's fills that day; already negative (<= 0).", unit=BASE_CURRENCY
    ),
    ("pnl_row", "borrow_cashflow"): FieldDoc(
        "Borrow cost of a short position; 0 for longs; already negative (<= 0).", unit=BASE_CURRENCY
    ),
    "net_pnl": FieldDoc(
        "`market_pnl + execution_cost + borrow_cashflow` (a sum; never subtract the cost columns).",
        unit=BASE_CURRENCY,
    ),
    ("trade_row", "timestamp"): FieldDoc(
        "Fill time; fills execute at the next session open after the decision date.", unit=TIMESTAMP
    ),
    "decision_at": FieldDoc(
        "Rebalance date that caused the trade; joins to `/rebalances/{date}`.", unit=DATE
    ),
    "phase": FieldDoc(
        "`open` (entering the book), `rebalance` (weekly re-target) or `close` (leaving the book)."
    ),
    "mid_price": FieldDoc("Reference mid at decision time.", unit=PRICE),
    "fill_price": FieldDoc("Achieved price including modelled impact.", unit=PRICE),
    "fee": FieldDoc("Per-share commission charged on the fill.", unit=BASE_CURRENCY),
    ("trade_row", "execution_cost"): FieldDoc(
        "Fee plus market impact of the fill, served as a cost (<= 0).", unit=BASE_CURRENCY
    ),
    "rebalance_adjustment_reason": FieldDoc(
        "One of `entry`, `weight_increase`, `weight_decrease`, `exit`.",
        null="Null when the engine recorded no reason for the fill.",
    ),
    "exit_reason": FieldDoc(
        "`signal_exit` or `risk_exit` on a closing fill.", null="Null for non-closing phases."
    ),
    # -- equity curve -------------------------------------------------------------------------------------
    ("equity_row", "date"): FieldDoc(
        "Trading session; one row per session in the window, ascending.", unit=DATE
    ),
    ("equity_row", "timestamp"): FieldDoc("UTC instant of the session.", unit=TIMESTAMP),
    ("equity_row", "starting_equity"): FieldDoc("Ledger equity at the session's open.", unit=EQUITY),
    ("equity_row", "ending_equity"): FieldDoc("Ledger equity at the session's close.", unit=EQUITY),
    ("equity_row", "period_return"): FieldDoc(
        "`(ending - starting) / starting`.",
        unit=FRACTION,
        null="Null when starting equity is missing or zero.",
    ),
    ("equity_row", "cumulative_return"): FieldDoc(
        "Running product of `(1 + period_return)` minus 1 within the window; its base (0) is the "
        "window's opening equity.",
        unit=FRACTION,
        null="Null until the window's first known `period_return`.",
    ),
    ("equity_row", "peak_equity"): FieldDoc(
        "Running maximum of starting and ending equity within the window (opening equity counts).",
        unit=EQUITY,
    ),
    ("equity_row", "drawdown"): FieldDoc("`peak_equity - ending_equity` (>= 0).", unit=EQUITY),
    ("equity_row", "drawdown_pct"): FieldDoc(
        "Drawdown as a percentage of the peak: `drawdown / peak_equity x 100`.",
        unit=PERCENTAGE_POINTS,
        null="Null where the peak is not positive.",
    ),
    ("equity_row", "gross_exposure"): FieldDoc(
        "Sum of absolute weights, carried from the same day's ledger row.", unit=FRACTION
    ),
    ("equity_row", "net_exposure"): FieldDoc(
        "Sum of weights, carried from the same day's ledger row.", unit=FRACTION
    ),
    ("equity_row", "turnover"): FieldDoc(
        "One-sided traded fraction, carried from the same day's ledger row.", unit=FRACTION
    ),
    ("equity_summary", "book"): FieldDoc("The book the curve belongs to."),
    ("equity_summary", "first_date"): FieldDoc("First session of the window.", unit=DATE, null=_EMPTY_WINDOW),
    ("equity_summary", "last_date"): FieldDoc("Last session of the window.", unit=DATE, null=_EMPTY_WINDOW),
    ("equity_summary", "sessions"): FieldDoc(
        "Sessions in the window (rows across all pages).", unit=SESSIONS
    ),
    ("equity_summary", "starting_equity"): FieldDoc(
        "`starting_equity` of the window's first row.", unit=EQUITY, null=_EMPTY_WINDOW
    ),
    ("equity_summary", "ending_equity"): FieldDoc(
        "`ending_equity` of the window's last row.", unit=EQUITY, null=_EMPTY_WINDOW
    ),
    ("equity_summary", "peak_equity"): FieldDoc(
        "Highest `peak_equity` of the window.", unit=EQUITY, null=_EMPTY_WINDOW
    ),
    ("equity_summary", "total_return"): FieldDoc(
        "Last `cumulative_return` of the window.",
        unit=FRACTION,
        null="Null when the window has no known return.",
    ),
    ("equity_summary", "cumulative_return_pct"): FieldDoc(
        "`100 x total_return`.", unit=PERCENTAGE_POINTS, null="Null when the window has no known return."
    ),
    ("equity_summary", "max_drawdown"): FieldDoc(
        "Largest `drawdown` of the window.", unit=EQUITY, null=_EMPTY_WINDOW
    ),
    ("equity_summary", "max_drawdown_pct"): FieldDoc(
        "Largest `drawdown_pct` of the window.", unit=PERCENTAGE_POINTS, null=_EMPTY_WINDOW
    ),
    ("equity_summary", "max_drawdown_date"): FieldDoc(
        "Earliest date of the largest `drawdown_pct`.",
        unit=DATE,
        null="Null when the window never drew down.",
    ),
    # -- benchmark -------------------------------------------------------------------------------------------
    ("benchmark_row", "date"): FieldDoc(
        "Every session the market-data service holds in the window, ascending.", unit=DATE
    ),
    "close": FieldDoc("Unadjusted close, as stored.", unit="price in the benchmark's currency (USD for SPY)"),
    ("benchmark_row", "period_return"): FieldDoc(
        "`(close - previous close) / previous close`, on the summary's `return_basis` price.",
        unit=FRACTION,
        null="Null on the first row of the window.",
    ),
    ("benchmark_row", "cumulative_return"): FieldDoc(
        "Running product of `(1 + period_return)` from the first row, minus 1; first row is 0.0; same "
        "name and units as the equity curve, so the two join on `date`.",
        unit=FRACTION,
    ),
    ("benchmark_row", "drawdown_pct"): FieldDoc(
        "`(peak - close) / peak x 100`, peak measured inside the window.",
        unit=PERCENTAGE_POINTS,
        null="Null where the peak is not positive.",
    ),
    ("benchmark_summary", "symbol"): FieldDoc("The benchmark symbol (echo of the path `{symbol}`)."),
    ("benchmark_summary", "name"): FieldDoc("Display name of the benchmark."),
    ("benchmark_summary", "return_basis"): FieldDoc(
        "`adjusted_close` only when an adjusted price exists for every row of the window (never "
        "mixed), otherwise `close` (a price return excluding dividends)."
    ),
    ("benchmark_summary", "first_date"): FieldDoc(
        "First session of the window.", unit=DATE, null=_EMPTY_WINDOW
    ),
    ("benchmark_summary", "last_date"): FieldDoc(
        "Last session of the window.", unit=DATE, null=_EMPTY_WINDOW
    ),
    ("benchmark_summary", "sessions"): FieldDoc(
        "Sessions in the window (rows across all pages).", unit=SESSIONS
    ),
    "first_close": FieldDoc(
        "Unadjusted close of the window's first row.",
        unit="price in the benchmark's currency (USD for SPY)",
        null=_EMPTY_WINDOW,
    ),
    "last_close": FieldDoc(
        "Unadjusted close of the window's last row.",
        unit="price in the benchmark's currency (USD for SPY)",
        null=_EMPTY_WINDOW,
    ),
    ("benchmark_summary", "total_return"): FieldDoc(
        "Last `cumulative_return` of the window.", unit=FRACTION, null=_EMPTY_WINDOW
    ),
    ("benchmark_summary", "cumulative_return_pct"): FieldDoc(
        "`100 x total_return`.", unit=PERCENTAGE_POINTS, null=_EMPTY_WINDOW
    ),
    ("benchmark_summary", "max_drawdown_pct"): FieldDoc(
        "Largest `drawdown_pct` of the window.", unit=PERCENTAGE_POINTS, null=_EMPTY_WINDOW
    ),
    ("benchmark_summary", "max_drawdown_date"): FieldDoc(
        "Earliest date of the largest `drawdown_pct`.",
        unit=DATE,
        null="Null when the window never drew down.",
    ),
    # -- Parquet exports ---------------------------------------------------------------------------------------
    ("export_row", "dataset"): FieldDoc(
        "The `{dataset}` to ask `/exports/{dataset}` for (decisions, rebalances, portfolio, "
        "positions, pnl, trades, equity-curve, benchmark)."
    ),
    ("export_row", "book"): FieldDoc(
        "The book of a book dataset, to pass as `book=`.",
        null="Null for `decisions`, `rebalances` and `benchmark`.",
    ),
    ("export_row", "filename"): FieldDoc(
        "`<alpha_id>.<dataset>[.<book>][.raw].parquet`; `.raw` marks the variant with raw columns."
    ),
    ("export_download", "url"): FieldDoc(
        "Freshly signed, time-limited GET URL of the Parquet file; fetch it directly."
    ),
    ("export_download", "filename"): FieldDoc(
        "`<alpha_id>.<dataset>[.<book>][.raw].parquet`; `.raw` marks the variant with raw columns."
    ),
    ("export_row", "size_bytes"): FieldDoc("Size of the Parquet file.", unit=BYTES),
    ("export_download", "size_bytes"): FieldDoc("Size of the Parquet file.", unit=BYTES),
    ("export_row", "sha256"): FieldDoc("SHA-256 of the Parquet file (hex); check the bytes with it."),
    ("export_download", "sha256"): FieldDoc("SHA-256 of the Parquet file (hex); check the bytes with it."),
    ("export_row", "rows"): FieldDoc("Rows in the file.", unit=ROWS),
    ("export_download", "rows"): FieldDoc("Rows in the file.", unit=ROWS),
    "columns": FieldDoc(
        "The file's column names, in order (`raw_*` columns only in the raw variant, for raw-book keys)."
    ),
    "build": FieldDoc("The build the file belongs to (the benchmark's own build for `benchmark`)."),
    # -- administration -----------------------------------------------------------------------------------------
    ("readiness", "alpha_id"): FieldDoc("The alpha."),
    ("readiness", "complete"): FieldDoc("Every required kind is present."),
    "kinds_present": FieldDoc("Kinds the run sealed."),
    "required_kinds": FieldDoc("Kinds the run requires."),
    "missing_kinds": FieldDoc("Required kinds not sealed."),
    ("readiness", "build_id"): FieldDoc("The alpha's served build."),
    "pipeline_version": FieldDoc(
        "Version of the pipeline that built the build.",
        null="Null when not recorded (always for benchmarks).",
    ),
    "engine_version": FieldDoc(
        "Version of the engine that produced the seal.", null="Null when not recorded."
    ),
    "built_at": FieldDoc(
        "When the build was published.",
        unit=TIMESTAMP,
        null="Null when not recorded (always for benchmarks).",
    ),
    "sealed_at": FieldDoc(
        "When the run sealed.", unit=TIMESTAMP, null="Null when not recorded (always for benchmarks)."
    ),
    "started_at": FieldDoc("When the run started.", unit=TIMESTAMP, null="Null when not recorded."),
    "has_description": FieldDoc("Whether a written description was sealed."),
    "source_archive": FieldDoc(
        "`{status, delivered}` of the source archive record.", null="Null when none was recorded."
    ),
    "tables": FieldDoc("Per published table: `{rows, bytes}`."),
    ("key_usage", "name"): FieldDoc("Label given to the key at issuance."),
    ("key_usage", "status"): FieldDoc(
        "Key status: `active` or `suspended` (see `revoked` and `expires_at`)."
    ),
    "revoked": FieldDoc("Whether the key was revoked."),
    ("build_row", "kind"): FieldDoc("`alpha` or `benchmark`."),
    ("build_row", "name"): FieldDoc("alpha_id or benchmark symbol."),
    ("build_row", "build_id"): FieldDoc("The build."),
    "current": FieldDoc("Whether the pointer serves this build now."),
    ("build_row", "complete"): FieldDoc(
        "Every required kind is present (true for benchmarks).", null="Null when not recorded."
    ),
    ("build_row", "rows"): FieldDoc(
        "Rows over all tables of the build.", unit=ROWS, null="Null when not recorded."
    ),
    "bytes": FieldDoc("Bytes over all tables of the build.", unit=BYTES, null="Null when not recorded."),
    ("build_row", "first_date"): FieldDoc(
        "First session of a benchmark's series.",
        unit=DATE,
        null="Null when not recorded.",
        absent="Present on benchmark builds only.",
    ),
    ("build_row", "last_date"): FieldDoc(
        "Last session of a benchmark's series.",
        unit=DATE,
        null="Null when not recorded.",
        absent="Present on benchmark builds only.",
    ),
}

_UNRECOVERED = "Null while the episode has not recovered by the window's last session."
_BELOW_HALF = (
    "Null when fewer than half the window's weeks carry a value (the standard deviation also needs 2)."
)
_NO_CORRELATION = "Null below 3 common observations or when either side is constant."
FIELD_DOCS.update(
    {
        ("drawdown_row", "peak_date"): FieldDoc(
            "Session of the episode's peak; the window's opening equity is dated with its first session.",
            unit=DATE,
        ),
        ("drawdown_row", "trough_date"): FieldDoc(
            "Session of the lowest ending equity before recovery (the first on a tie).", unit=DATE
        ),
        ("drawdown_row", "recovery_date"): FieldDoc(
            "First session whose ending equity is at or above the peak.", unit=DATE, null=_UNRECOVERED
        ),
        ("drawdown_row", "depth_pct"): FieldDoc(
            "`(peak_equity - trough_equity) / peak_equity x 100`.", unit=PERCENTAGE_POINTS
        ),
        ("drawdown_row", "sessions_to_trough"): FieldDoc(
            "Sessions from the peak to the trough.", unit=SESSIONS
        ),
        ("drawdown_row", "sessions_to_recovery"): FieldDoc(
            "Sessions from the peak to the recovery.", unit=SESSIONS, null=_UNRECOVERED
        ),
        ("drawdown_row", "peak_equity"): FieldDoc("Equity at the peak.", unit=EQUITY),
        ("drawdown_row", "trough_equity"): FieldDoc("Equity at the trough.", unit=EQUITY),
        ("rolling_row", "date"): FieldDoc("Rebalance week that ends the trailing window.", unit=DATE),
        ("rolling_row", "n_ic_weeks"): FieldDoc(
            "Weeks of the trailing window with a weekly IC.", unit="weeks"
        ),
        ("rolling_row", "mean_ic"): FieldDoc(
            "Mean weekly IC over the trailing window (the family in `meta.signal`).",
            unit="ratio",
            null=_BELOW_HALF,
        ),
        ("rolling_row", "icir"): FieldDoc(
            "Mean / standard deviation (ddof 1) of the weekly IC, per week: never annualised (`/metrics` "
            "`core.icir` is annualised when the run's conventions say so).",
            unit="ratio",
            null=_BELOW_HALF,
        ),
        ("rolling_row", "n_return_weeks"): FieldDoc(
            "Weeks of the trailing window with a book return.", unit="weeks"
        ),
        ("rolling_row", "annualised_return"): FieldDoc(
            "Mean weekly book return times 52.", unit=FRACTION, null=_BELOW_HALF
        ),
        ("rolling_row", "volatility"): FieldDoc(
            "Standard deviation (ddof 1) of weekly book returns times sqrt(52).",
            unit=FRACTION,
            null=_BELOW_HALF,
        ),
        ("rolling_row", "information_ratio"): FieldDoc(
            "Mean / standard deviation of weekly book returns times sqrt(52) (`/metrics` "
            "`core.information_ratio` is daily returns times sqrt(252)).",
            unit="ratio",
            null=_BELOW_HALF,
        ),
        ("rolling_row", "hit_rate"): FieldDoc(
            "Share of the trailing window's weeks with a positive book return.",
            unit=FRACTION,
            null=_BELOW_HALF,
        ),
        ("correlation_row", "alpha"): FieldDoc("The other alpha (one the key may read)."),
        ("correlation_row", "correlation"): FieldDoc(
            "The sort key: `pearson` for basis returns and ic, `spearman` for scores.",
            unit="ratio",
            null=_NO_CORRELATION,
        ),
        ("correlation_row", "pearson"): FieldDoc(
            "Pearson correlation over common dates.",
            unit="ratio",
            null=_NO_CORRELATION + " Always null for scores.",
        ),
        ("correlation_row", "spearman"): FieldDoc(
            "Spearman correlation (average ranks); for scores, the mean weekly cross-sectional Spearman over "
            "common names.",
            unit="ratio",
            null=_NO_CORRELATION,
        ),
        ("correlation_row", "overlap"): FieldDoc(
            "Common observations behind the correlation, in `overlap_unit`.", unit="sessions or weeks"
        ),
        ("correlation_row", "overlap_unit"): FieldDoc("`sessions` (returns) or `weeks` (ic, scores)."),
        ("correlation_row", "common_names"): FieldDoc(
            "Mean common scored names per counted week.", unit=NAMES, null="Null unless basis is scores."
        ),
    }
)


_AS_METRICS = "as `/metrics` serves `core.{}` (overall, the whole history)"
_NOT_MEASURED = "Null where `/metrics` serves it not_measurable."
FIELD_DOCS.update(
    {
        ("screen_row", "alpha_id"): FieldDoc("Identifier used in every `/v1/alphas/{alpha}/...` path."),
        ("screen_row", "name"): FieldDoc("Readable title; falls back to `alpha_id`."),
        ("screen_row", "tldr"): FieldDoc("One-line thesis.", null="Null when none was recorded."),
        ("screen_row", "complete"): FieldDoc("Every required kind was sealed (else the run is incomplete)."),
        ("screen_row", "production"): FieldDoc(
            "A production alpha: its alpha_id does not start with `Test_`."
        ),
        ("screen_row", "structure"): FieldDoc(
            "Classification structure of the written description.", null="Null when none was recorded."
        ),
        ("screen_row", "method"): FieldDoc(
            "Classification method of the written description.", null="Null when none was recorded."
        ),
        ("screen_row", "tags"): FieldDoc(
            "Classification tags of the written description, as recorded.",
            null="Null when none were recorded.",
        ),
        ("screen_row", "information_ratio"): FieldDoc(
            "Annualised information ratio of the long_short book (daily returns after costs, not in excess of "
            "the risk-free rate, times sqrt(252)), " + _AS_METRICS.format("information_ratio") + ".",
            unit="ratio",
            null=_NOT_MEASURED,
        ),
        ("screen_row", "excess_sharpe"): FieldDoc(
            "Annualised Sharpe ratio in excess of the risk-free rate, "
            + _AS_METRICS.format("excess_sharpe")
            + ".",
            unit="ratio",
            null=_NOT_MEASURED,
        ),
        ("screen_row", "mean_ic"): FieldDoc(
            "Mean weekly IC of the conditioned score, " + _AS_METRICS.format("ic") + ".",
            unit="ratio",
            null=_NOT_MEASURED,
        ),
        ("screen_row", "icir"): FieldDoc(
            "Mean / standard deviation of the weekly IC (per week, times sqrt(52) when the run's conventions "
            "annualise it), " + _AS_METRICS.format("icir") + ".",
            unit="ratio",
            null=_NOT_MEASURED,
        ),
        ("screen_row", "max_drawdown_pct"): FieldDoc(
            "Deepest drawdown of the long_short book, " + _AS_METRICS.format("max_drawdown_pct") + ".",
            unit=PERCENTAGE_POINTS,
            null=_NOT_MEASURED,
        ),
        ("screen_row", "turnover"): FieldDoc(
            "Turnover, " + _AS_METRICS.format("turnover") + ", in `turnover_unit`.",
            unit="turnover_unit",
            null=_NOT_MEASURED,
        ),
        ("screen_row", "turnover_unit"): FieldDoc(
            "Unit of `turnover`: per_year, ratio, per_session or period_sum, the first the run sealed.",
            null="Null when the run sealed no turnover.",
        ),
        ("screen_row", "sessions"): FieldDoc("Sessions of the long_short ledger.", unit=SESSIONS),
        ("screen_row", "weeks"): FieldDoc("Rebalance weeks of the rebalance index.", unit="weeks"),
        ("screen_row", "first_date"): FieldDoc(
            "First ledger session (the first rebalance week without a ledger).",
            unit=DATE,
            null="Null when the run sealed neither.",
        ),
        ("screen_row", "last_date"): FieldDoc(
            "Last ledger session (the last rebalance week without a ledger).",
            unit=DATE,
            null="Null when the run sealed neither.",
        ),
    }
)

_COMBINED_FROM_FIRST = "compounded from 1.0 before the window's first common session"
FIELD_DOCS.update(
    {
        ("combined_row", "date"): FieldDoc(
            "A session on which every alpha of the set has a long_short return (the window's common sessions).",
            unit=DATE,
        ),
        ("combined_row", "period_return"): FieldDoc(
            "The combined book's return: `sum_i w_i r_i` of the alphas' daily long_short returns, with the "
            "weights of `meta.weights`.",
            unit=FRACTION,
        ),
        ("combined_row", "cumulative_return"): FieldDoc(
            "`prod (1 + period_return) - 1`, " + _COMBINED_FROM_FIRST + ".", unit=FRACTION
        ),
        ("combined_row", "drawdown_pct"): FieldDoc(
            "`(peak - level) / peak x 100` of the compounded equity `level = 1 + cumulative_return` below its "
            "running peak (the opening 1.0 counts), as the equity curve's: 0 at a peak, positive below.",
            unit=PERCENTAGE_POINTS,
        ),
        ("combined_row", "benchmark_cumulative_return"): FieldDoc(
            "SPY's daily total returns on the same sessions, " + _COMBINED_FROM_FIRST + ".",
            unit=FRACTION,
            null="Null on every row for a key that may not call `benchmarks.daily` (an `access_limited` "
            "warning says so), and before SPY's first known return.",
        ),
    }
)


def _scores_all_only() -> dict[str | tuple[str, str], FieldDoc]:
    """`/scores` rows: the decision record, but the fields outside the core set only with `fields=all`."""
    out: dict[str | tuple[str, str], FieldDoc] = {}
    for name in wire.SCORE_ALL_FIELDS:
        if name in wire.SCORE_CORE_FIELDS:
            continue
        doc = FIELD_DOCS[name]
        absent = f"{doc.absent} {_SCORES_ALL_ONLY}" if doc.absent else _SCORES_ALL_ONLY
        out[("score_row", name)] = replace(doc, absent=absent)
    return out


FIELD_DOCS.update(_scores_all_only())


def field_doc(context: str, name: str) -> FieldDoc | None:
    """The entry of field `name` in `context`: the `(context, name)` entry, else the `name` entry."""
    return FIELD_DOCS.get((context, name)) or FIELD_DOCS.get(name)
