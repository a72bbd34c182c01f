"""Types, endpoints and error codes of the alpha-results API, generated from the server's
declarations by client/scripts/generate.py. Do not edit: run
`.venv/bin/python client/scripts/generate.py` in the server's repository.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import msgspec
from msgspec import UNSET, UnsetType

from alpha_results_client._struct import ApiStruct
from alpha_results_client.exceptions import (
    ApiError,
    AuthenticationError,
    InvalidRequestError,
    PermissionDeniedError,
    RateLimitedError,
    ResourceNotFoundError,
    ServerError,
    UnavailableError,
)
from alpha_results_client.models import (
    AlphaDescription,
    AnalyticsDoc,
    Checks,
    Comparison,
    Contribution,
    Costs,
    Metrics,
    MetricsDoc,
    Risk,
    Significance,
)

REGISTRY_VERSION = "r-c4d81f323afc"
"""The endpoint registry these types were generated from (`registry_version` of /v1/health)."""


class Pagination(ApiStruct, kw_only=True, frozen=True):
    """The `Pagination` object."""

    limit: int
    """The applied page size (request value or default). Unit: rows."""

    offset: int
    """The applied offset. Unit: rows."""

    returned: int
    """Number of rows in this page; equals `data.length`; below `limit` on the last page. Unit: rows."""

    total: int
    """Rows matching the query across all pages, counted before paging. Unit: rows."""

    has_more: bool
    """`offset + returned < total`; false on the last page; clients stop paging when false."""


class ResponseWarning(ApiStruct, kw_only=True, frozen=True):
    """The `ResponseWarning` object."""

    code: str
    """Warning code from the documented vocabulary (e.g. `kind_missing`)."""

    block: str | UnsetType = UNSET
    """The `/metrics` block the warning is about (e.g. `ic`, `portfolio`). Present on `/metrics`
    warnings that concern one block.
    """

    kind: str | UnsetType = UNSET
    """The dataset (seal kind) the warning is about. Present on `kind_missing` warnings."""

    message: str | UnsetType = UNSET
    """Human-readable explanation of the warning."""


class ErrorBody(ApiStruct, kw_only=True, frozen=True):
    """The `error` object of a failure."""

    code: str
    """Machine-readable error code (e.g. `bad_request`, `unknown_book`)."""

    message: str
    """Human-readable explanation of the failure."""

    details: dict[str, Any]
    """Code-specific details, e.g. `parameters` for `bad_request`, `available` for `unknown_book`;
    empty on `internal_error`.
    """

    request_id: str
    """Id of this request (also in `X-Request-ID`); quote it to support."""


class ErrorEnvelope(ApiStruct, kw_only=True, frozen=True):
    """The body of every failure: `{error: {...}}`."""

    error: ErrorBody
    """The failure: code, message, details and request_id."""


class HealthLake(ApiStruct, kw_only=True, frozen=True):
    """The `HealthLake` object."""

    degraded_alphas: dict[str, str]
    """Damaged builds: alpha_id (a benchmark as `benchmark:<SYMBOL>`) to reason code (`missing_file`,
    `truncated_file`, `corrupt_file`, `no_manifest`, `unreadable`; `corrupt_archive` when only the
    alpha's source archive does not match its SHA-256).
    """


class Health(ApiStruct, kw_only=True, frozen=True):
    """The body of `GET /v1/health` (no envelope)."""

    status: str
    """`ok`, or `degraded` when a backend is down or a build is damaged."""

    service: str
    """Name of the service."""

    environment: str
    """Deployment environment word (e.g. `live`)."""

    version: str
    """The running build's version string."""

    registry_version: str
    """Identifies the endpoint-registry version; changes when endpoints or groups change."""

    time: dt.datetime
    """Server clock at answer time. Unit: UTC timestamp (ISO 8601, `Z`, whole seconds)."""

    down: list[str] | UnsetType = UNSET
    """Backends that cannot be used (`lake`, `keystore`, `limiter`); possibly empty. Present only when
    `status` is `degraded`.
    """

    lake: HealthLake | UnsetType = UNSET
    """Damage found in the lake's builds. Present only when some build is damaged."""

    worker: str | UnsetType = UNSET
    """A resource (open files, memory or maps) the answering worker ran out of in the last minute, and
    what it did (closed its least recently used builds). The worker's own problem: no build is
    reported damaged for it. Present only after such a failure, for a minute.
    """


class AllowList(ApiStruct, kw_only=True, frozen=True):
    """The `AllowList` object."""

    mode: str
    """`all`, `list` (the ids in `ids`) or `prefix` (ids starting with a prefix)."""

    ids: list[str] | UnsetType = UNSET
    """Ids allowed in `list` mode. Present in `list` mode."""

    prefixes: list[str] | UnsetType = UNSET
    """Id prefixes allowed in `prefix` mode. Present in `prefix` mode."""


class Allow(ApiStruct, kw_only=True, frozen=True):
    """The `Allow` object."""

    endpoints: AllowList
    """Endpoint allow-list: registry ids the key may call."""

    alphas: AllowList
    """Alpha allow-list: alphas the key may list and whose description it may read."""

    runs: AllowList
    """Run allow-list: runs whose data the key may read (every `/v1/alphas/{alpha}/...` data route)."""


class FieldPolicy(ApiStruct, kw_only=True, frozen=True):
    """The `FieldPolicy` object."""

    expose_raw_book: bool
    """Raw-book access: when false, every `raw_*` field is stripped and `raw_` books are invisible."""


class RateLimit(ApiStruct, kw_only=True, frozen=True):
    """The `RateLimit` object."""

    per_second: int
    """Requests allowed per second. Unit: requests."""

    per_minute: int
    """Requests allowed per minute. Unit: requests."""

    per_day: int
    """Requests allowed per day. Unit: requests."""

    monthly_requests: int | None
    """Monthly request quota. Unit: requests. Null means an unlimited month."""


class Usage(ApiStruct, kw_only=True, frozen=True):
    """The `Usage` object."""

    second: int
    """Requests counted in the current second. Unit: requests."""

    minute: int
    """Requests counted in the current minute. Unit: requests."""

    day: int
    """Requests counted in the current day. Unit: requests."""

    month: int
    """Requests counted in the current month. Unit: requests."""

    remaining_second: int
    """`per_second` minus usage, floored at 0. Unit: requests."""

    remaining_minute: int
    """`per_minute` minus usage, floored at 0. Unit: requests."""

    remaining_day: int
    """`per_day` minus usage, floored at 0. Unit: requests."""

    remaining_month: int | None
    """`monthly_requests` minus usage, floored at 0. Unit: requests. Null only with no monthly quota."""


class Me(ApiStruct, kw_only=True, frozen=True):
    """The `data` object of `GET /v1/me` (meta.me)."""

    key_id: str
    """16-character key id: the part of the token between the second underscore and the dot."""

    key_name: str
    """Label given to the key at issuance."""

    user_id: str
    """The key's owner."""

    email: str
    """Owner's e-mail address."""

    role: str
    """Platform role, read live."""

    is_admin: bool
    """Whether the role confers admin powers."""

    allow: Allow
    """The key's allow-lists in force (endpoints, alphas, runs), clamped to the owner's ceiling."""

    field_policy: FieldPolicy
    """The key's field policy."""

    rate_limit: RateLimit
    """The key's rate envelope."""

    usage: Usage
    """Requests counted in each window, read from the limiter that enforces them, and what remains."""

    callable_endpoints: list[str]
    """Registry ids the key may actually call."""

    registry_version: str
    """Identifies the endpoint-registry version; changes when endpoints or groups change."""

    ip: str
    """Caller address as the service sees it (through the configured number of trusted proxy hops)."""


class Meta(ApiStruct, kw_only=True, frozen=True):
    """The `meta` object every response carries."""

    run: str | UnsetType = UNSET
    """The resolved alpha_id that served the response; keep it for reproducibility. Present on
    run-scoped responses.
    """

    alpha_id: str | UnsetType = UNSET
    """Informational source label (here the collection name); address endpoints with the path alpha_id
    or `meta.run`. Present on responses about one alpha.
    """

    source_alpha_id: str | UnsetType = UNSET
    """The research source id of the run. Present only when the run recorded a research source id."""

    book: str | UnsetType = UNSET
    """The book served; on `/rebalances/{date}` the echo of the `book` parameter (the target-weight
    column `min_abs_weight` and `sort=weight` act on). Present on book-scoped responses only.
    """

    request_id: str | UnsetType = UNSET
    """Id of this request (also in `X-Request-ID`); quote it to support."""

    generated_at: dt.datetime | UnsetType = UNSET
    """When the server produced this response. Unit: UTC timestamp (ISO 8601, `Z`, whole seconds)."""

    source: str | UnsetType = UNSET
    """What served the response: `lake:<table>@<build_id>` (the published build), `lake:catalog` on
    `/alphas`, `lake:catalogue_index@<version>` on `/analytics/screen`, `limiter` for usage. Absent
    on `/v1/me` and `/v1/me/keys`.
    """

    warnings: list[ResponseWarning] | UnsetType = UNSET
    """Degradations of this answer, e.g. `kind_missing` naming a dataset the run never wrote. Present
    only when a block degraded or the data is empty.
    """


class MeMeta(Meta, kw_only=True, frozen=True):
    """The `meta` object of `GET /v1/me`."""

    key_id: str | UnsetType = UNSET
    """The key the answer is about: the calling key on `/v1/me` and `/v1/me/keys`, the key looked up on
    the administrative usage route. Present on those three routes only.
    """


class MeResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/me` (meta.me)."""

    data: Me

    meta: MeMeta


class KeyInventoryRow(ApiStruct, kw_only=True, frozen=True):
    """A row of `GET /v1/me/keys` (meta.keys)."""

    key_id: str
    """16-character key id: the part of the token between the second underscore and the dot."""

    display_prefix: str
    """Masked token: the fixed key prefix, the environment word and a short start of the key_id."""

    name: str
    """Label given to the key at issuance."""

    status: str
    """`active` or `suspended`; an expired key still reads `active`; revoked keys are omitted."""

    allow: Allow
    """The key's allow-lists in force (endpoints, alphas, runs), clamped to the owner's ceiling."""

    field_policy: FieldPolicy
    """The key's field policy."""

    rate_limit: RateLimit
    """The key's rate envelope."""

    usage: Usage
    """Requests counted in each window, read from the limiter that enforces them, and what remains."""

    expires_at: dt.datetime | None
    """When the key expires. Unit: UTC timestamp (ISO 8601, `Z`, whole seconds). Null means no expiry."""

    created_at: dt.datetime
    """When the key was issued. Unit: UTC timestamp (ISO 8601, `Z`, whole seconds)."""


class KeyInventoryRowMeta(Meta, kw_only=True, frozen=True):
    """The `meta` object of `GET /v1/me/keys`."""

    key_id: str | UnsetType = UNSET
    """The key the answer is about: the calling key on `/v1/me` and `/v1/me/keys`, the key looked up on
    the administrative usage route. Present on those three routes only.
    """


class KeyInventoryRowPage(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/me/keys` (meta.keys)."""

    data: list[KeyInventoryRow]

    pagination: Pagination

    meta: KeyInventoryRowMeta


class AlphaListRow(ApiStruct, kw_only=True, frozen=True):
    """A row of `GET /v1/alphas` (catalog.alphas.list)."""

    alpha_id: str
    """Identifier used in every `/v1/alphas/{alpha}/...` path."""

    name: str
    """Readable title; falls back to `alpha_id`."""

    tldr: str | None
    """One-line thesis. Null when none was recorded."""


class AlphaListRowPage(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas` (catalog.alphas.list)."""

    data: list[AlphaListRow]

    pagination: Pagination

    meta: Meta


class AlphaDescriptionResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}` (catalog.alphas.get)."""

    data: AlphaDescription

    meta: Meta


class SourceDownload(ApiStruct, kw_only=True, frozen=True):
    """The `data` object of `GET /v1/alphas/{alpha}/source/download` (catalog.alphas.source.download)."""

    url: str
    """Freshly signed, time-limited HTTPS GET URL of the source archive; fetch it directly."""

    expires_in: int
    """Lifetime of the signed URL (3600); do not cache it beyond. Unit: seconds."""

    filename: str
    """Archive file name, `<alpha_id>.zip`."""

    size_bytes: int | None
    """Size of the archive. Unit: bytes. Null when the run did not record it."""

    sha256: str | None
    """SHA-256 of the archive (hex). Null when the run did not record it."""


class SourceDownloadResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/source/download` (catalog.alphas.source.download)."""

    data: SourceDownload

    meta: Meta


class RebalanceIndexRow(ApiStruct, kw_only=True, frozen=True):
    """A row of `GET /v1/alphas/{alpha}/rebalances` (signals.rebalances.list)."""

    date: dt.date | None
    """Weekly decision date. Unit: ISO date (YYYY-MM-DD)."""

    week_status: str | None
    """`traded`, `pending`, or a snake_case skip reason passed through from the engine unchanged."""

    n_symbols: int | None
    """Scored names in that week's cross-section. Unit: symbols."""


class RebalanceIndexRowPage(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/rebalances` (signals.rebalances.list)."""

    data: list[RebalanceIndexRow]

    pagination: Pagination

    meta: Meta


class DecisionRow(ApiStruct, kw_only=True, frozen=True):
    """A row of `GET /v1/alphas/{alpha}/rebalances/{date}` (signals.rebalances.get)."""

    symbol: str | None
    """Ticker."""

    direction: int | None
    """Sign of `score` (1, 0 or -1); 0 only for an exact zero score. Null for a name without a valid
    score that week (a data gap).
    """

    confidence: float | None
    """`abs(score)`, not a probability; `score = direction x confidence`. Unit: the alpha's own score
    units (no fixed range). Null for a name without a valid score that week (a data gap).
    """

    score: float | None
    """Conditioned (smoothed) signal used for ranking and books; identical on `/rebalances/{date}` and
    `/scores`. Unit: the alpha's own score units (no fixed range). Null for a name without a valid
    score that week (a data gap).
    """

    raw_score: float | None | UnsetType = UNSET
    """Unconditioned signal before smoothing; equals `raw_direction x raw_confidence`. Unit: the
    alpha's own score units (no fixed range). Null for a name without a valid score that week (a
    data gap). Raw-only: served only to keys with raw-book access (`field_policy.expose_raw_book`);
    stripped otherwise.
    """

    score_z: float | None
    """`(score - mean_week) / stdev_week` over the week's cohort. Unit: standard deviations of the
    week's cohort. Null for an unscored name, and for every name in a week whose scores do not vary.
    """

    average_rank: float | None
    """Rank in the week's cohort, 1 to `cohort_size`; may be non-integer when component ranks are
    averaged. Unit: rank (1 = strongest). Null for a name without a valid score that week (a data
    gap).
    """

    cohort_size: int | None
    """Names with a valid score that week; can be below `n_symbols`. Unit: symbols."""

    long_short_target_weight: float | None
    """Fraction of book equity in the dollar-neutral book; positive long, negative short; 0 outside the
    selection tails or when untradeable. Unit: fraction (0.01 = 1%).
    """

    long_only_target_weight: float | None
    """Fraction of equity in the long-only book (>= 0); held names sum to 1; 0 when not held. Unit:
    fraction (0.01 = 1%).
    """

    next_open_tradeable: bool | None
    """False when halted, suspended, failing the liquidity screen, without borrow, or with a price-data
    gap; false forces both target weights to 0 and sets `unavailability_reason`.
    """

    fill_at: dt.datetime | None
    """Execution time of the implementing fill. Unit: UTC timestamp (ISO 8601, `Z`, whole seconds).
    Null when pending, when no trade occurred, or when untradeable.
    """

    entry_at: dt.datetime | None | UnsetType = UNSET
    """Next open at which the book acts. Unit: UTC timestamp (ISO 8601, `Z`, whole seconds). Omitted
    where the run did not seal it.
    """

    maturity_at: dt.datetime | None | UnsetType = UNSET
    """One rebalance period after `entry_at`. Unit: UTC timestamp (ISO 8601, `Z`, whole seconds).
    Omitted where the run did not seal it.
    """

    forward_return: float | None
    """Return from the open of the first bar strictly after this decision to the open of the first bar
    strictly after the next decision. Unit: fraction (0.01 = 1%). Null on pending weeks and unsealed
    holding periods; such weeks are dropped from IC and decile figures, never imputed.
    """

    unavailability_reason: str | None
    """One of `halted`, `suspended`, `no_borrow`, `illiquid`, `data_gap`; set whenever
    `next_open_tradeable` is false. Null when the name is tradeable.
    """

    decision_reason: str | None
    """Decision-layer note, for example `entered_selection`, `exited_below_threshold`,
    `carried_by_smoothing`, `gated_untradeable`. Null for a routine hold.
    """

    raw_direction: int | None | UnsetType = UNSET
    """Unconditioned counterpart of `direction` (before smoothing); no other field is mirrored. Null
    for a name without a valid score that week (a data gap). Raw-only: served only to keys with
    raw-book access (`field_policy.expose_raw_book`); stripped otherwise.
    """

    raw_confidence: float | None | UnsetType = UNSET
    """Unconditioned counterpart of `confidence` (before smoothing); no other field is mirrored. Unit:
    the alpha's own score units (no fixed range). Null for a name without a valid score that week (a
    data gap). Raw-only: served only to keys with raw-book access (`field_policy.expose_raw_book`);
    stripped otherwise.
    """

    raw_score_z: float | None | UnsetType = UNSET
    """Unconditioned counterpart of `score_z` (before smoothing); no other field is mirrored. Unit:
    standard deviations of the week's cohort. Null for an unscored name, and for every name in a
    week whose scores do not vary. Raw-only: served only to keys with raw-book access
    (`field_policy.expose_raw_book`); stripped otherwise.
    """

    raw_average_rank: float | None | UnsetType = UNSET
    """Unconditioned counterpart of `average_rank` (before smoothing); no other field is mirrored.
    Unit: rank (1 = strongest). Null for a name without a valid score that week (a data gap).
    Raw-only: served only to keys with raw-book access (`field_policy.expose_raw_book`); stripped
    otherwise.
    """

    raw_long_short_target_weight: float | None | UnsetType = UNSET
    """Unconditioned counterpart of `long_short_target_weight` (before smoothing); no other field is
    mirrored. Unit: fraction (0.01 = 1%). Raw-only: served only to keys with raw-book access
    (`field_policy.expose_raw_book`); stripped otherwise.
    """

    raw_long_only_target_weight: float | None | UnsetType = UNSET
    """Unconditioned counterpart of `long_only_target_weight` (before smoothing); no other field is
    mirrored. Unit: fraction (0.01 = 1%). Raw-only: served only to keys with raw-book access
    (`field_policy.expose_raw_book`); stripped otherwise.
    """

    raw_fill_at: dt.datetime | None | UnsetType = UNSET
    """Unconditioned counterpart of `fill_at` (before smoothing); no other field is mirrored. Unit: UTC
    timestamp (ISO 8601, `Z`, whole seconds). Null when pending, when no trade occurred, or when
    untradeable. Raw-only: served only to keys with raw-book access
    (`field_policy.expose_raw_book`); stripped otherwise.
    """

    raw_decision_reason: str | None | UnsetType = UNSET
    """Unconditioned counterpart of `decision_reason` (before smoothing); no other field is mirrored.
    Null for a routine hold. Raw-only: served only to keys with raw-book access
    (`field_policy.expose_raw_book`); stripped otherwise.
    """


class DecisionRowMeta(Meta, kw_only=True, frozen=True):
    """The `meta` object of `GET /v1/alphas/{alpha}/rebalances/{date}`."""

    date: dt.date | UnsetType = UNSET
    """Echo of the path date: the rebalance week served. Unit: ISO date (YYYY-MM-DD). Present on
    `/rebalances/{date}` only.
    """

    week_status: str | None | UnsetType = UNSET
    """Status of the week, as in the rebalance index: `traded`, `pending`, or a skip reason. Present on
    `/rebalances/{date}` only.
    """

    n_symbols: int | None | UnsetType = UNSET
    """Rows in the week's full cross-section before filters; `pagination.total` tracks the filtered
    count. Unit: symbols. Present on `/rebalances/{date}` only.
    """


class DecisionRowPage(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/rebalances/{date}` (signals.rebalances.get)."""

    data: list[DecisionRow]

    pagination: Pagination

    meta: DecisionRowMeta


class ScoreRow(ApiStruct, kw_only=True, frozen=True):
    """A row of `GET /v1/alphas/{alpha}/scores` (signals.scores)."""

    date: dt.date | None
    """Weekly decision date of the row. Unit: ISO date (YYYY-MM-DD)."""

    symbol: str | None
    """Ticker."""

    direction: int | None
    """Sign of `score` (1, 0 or -1); 0 only for an exact zero score. Null for a name without a valid
    score that week (a data gap).
    """

    confidence: float | None | UnsetType = UNSET
    """`abs(score)`, not a probability; `score = direction x confidence`. Unit: the alpha's own score
    units (no fixed range). Null for a name without a valid score that week (a data gap). Only with
    `fields=all`.
    """

    score: float | None
    """Conditioned (smoothed) signal used for ranking and books; identical on `/rebalances/{date}` and
    `/scores`. Unit: the alpha's own score units (no fixed range). Null for a name without a valid
    score that week (a data gap).
    """

    raw_score: float | None | UnsetType = UNSET
    """Unconditioned signal before smoothing; equals `raw_direction x raw_confidence`. Unit: the
    alpha's own score units (no fixed range). Null for a name without a valid score that week (a
    data gap). Raw-only: served only to keys with raw-book access (`field_policy.expose_raw_book`);
    stripped otherwise.
    """

    score_z: float | None
    """`(score - mean_week) / stdev_week` over the week's cohort. Unit: standard deviations of the
    week's cohort. Null for an unscored name, and for every name in a week whose scores do not vary.
    """

    average_rank: float | None
    """Rank in the week's cohort, 1 to `cohort_size`; may be non-integer when component ranks are
    averaged. Unit: rank (1 = strongest). Null for a name without a valid score that week (a data
    gap).
    """

    cohort_size: int | None | UnsetType = UNSET
    """Names with a valid score that week; can be below `n_symbols`. Unit: symbols. Only with
    `fields=all`.
    """

    long_short_target_weight: float | None
    """Fraction of book equity in the dollar-neutral book; positive long, negative short; 0 outside the
    selection tails or when untradeable. Unit: fraction (0.01 = 1%).
    """

    long_only_target_weight: float | None
    """Fraction of equity in the long-only book (>= 0); held names sum to 1; 0 when not held. Unit:
    fraction (0.01 = 1%).
    """

    next_open_tradeable: bool | None | UnsetType = UNSET
    """False when halted, suspended, failing the liquidity screen, without borrow, or with a price-data
    gap; false forces both target weights to 0 and sets `unavailability_reason`. Only with
    `fields=all`.
    """

    fill_at: dt.datetime | None | UnsetType = UNSET
    """Execution time of the implementing fill. Unit: UTC timestamp (ISO 8601, `Z`, whole seconds).
    Null when pending, when no trade occurred, or when untradeable. Only with `fields=all`.
    """

    entry_at: dt.datetime | None | UnsetType = UNSET
    """Next open at which the book acts. Unit: UTC timestamp (ISO 8601, `Z`, whole seconds). Omitted
    where the run did not seal it. Only with `fields=all`.
    """

    maturity_at: dt.datetime | None | UnsetType = UNSET
    """One rebalance period after `entry_at`. Unit: UTC timestamp (ISO 8601, `Z`, whole seconds).
    Omitted where the run did not seal it. Only with `fields=all`.
    """

    forward_return: float | None
    """Return from the open of the first bar strictly after this decision to the open of the first bar
    strictly after the next decision. Unit: fraction (0.01 = 1%). Null on pending weeks and unsealed
    holding periods; such weeks are dropped from IC and decile figures, never imputed.
    """

    unavailability_reason: str | None | UnsetType = UNSET
    """One of `halted`, `suspended`, `no_borrow`, `illiquid`, `data_gap`; set whenever
    `next_open_tradeable` is false. Null when the name is tradeable. Only with `fields=all`.
    """

    decision_reason: str | None | UnsetType = UNSET
    """Decision-layer note, for example `entered_selection`, `exited_below_threshold`,
    `carried_by_smoothing`, `gated_untradeable`. Null for a routine hold. Only with `fields=all`.
    """

    raw_direction: int | None | UnsetType = UNSET
    """Unconditioned counterpart of `direction` (before smoothing); no other field is mirrored. Null
    for a name without a valid score that week (a data gap). Only with `fields=all`. Raw-only:
    served only to keys with raw-book access (`field_policy.expose_raw_book`); stripped otherwise.
    """

    raw_confidence: float | None | UnsetType = UNSET
    """Unconditioned counterpart of `confidence` (before smoothing); no other field is mirrored. Unit:
    the alpha's own score units (no fixed range). Null for a name without a valid score that week (a
    data gap). Only with `fields=all`. Raw-only: served only to keys with raw-book access
    (`field_policy.expose_raw_book`); stripped otherwise.
    """

    raw_score_z: float | None | UnsetType = UNSET
    """Unconditioned counterpart of `score_z` (before smoothing); no other field is mirrored. Unit:
    standard deviations of the week's cohort. Null for an unscored name, and for every name in a
    week whose scores do not vary. Only with `fields=all`. Raw-only: served only to keys with
    raw-book access (`field_policy.expose_raw_book`); stripped otherwise.
    """

    raw_average_rank: float | None | UnsetType = UNSET
    """Unconditioned counterpart of `average_rank` (before smoothing); no other field is mirrored.
    Unit: rank (1 = strongest). Null for a name without a valid score that week (a data gap). Only
    with `fields=all`. Raw-only: served only to keys with raw-book access
    (`field_policy.expose_raw_book`); stripped otherwise.
    """

    raw_long_short_target_weight: float | None | UnsetType = UNSET
    """Unconditioned counterpart of `long_short_target_weight` (before smoothing); no other field is
    mirrored. Unit: fraction (0.01 = 1%). Only with `fields=all`. Raw-only: served only to keys with
    raw-book access (`field_policy.expose_raw_book`); stripped otherwise.
    """

    raw_long_only_target_weight: float | None | UnsetType = UNSET
    """Unconditioned counterpart of `long_only_target_weight` (before smoothing); no other field is
    mirrored. Unit: fraction (0.01 = 1%). Only with `fields=all`. Raw-only: served only to keys with
    raw-book access (`field_policy.expose_raw_book`); stripped otherwise.
    """

    raw_fill_at: dt.datetime | None | UnsetType = UNSET
    """Unconditioned counterpart of `fill_at` (before smoothing); no other field is mirrored. Unit: UTC
    timestamp (ISO 8601, `Z`, whole seconds). Null when pending, when no trade occurred, or when
    untradeable. Only with `fields=all`. Raw-only: served only to keys with raw-book access
    (`field_policy.expose_raw_book`); stripped otherwise.
    """

    raw_decision_reason: str | None | UnsetType = UNSET
    """Unconditioned counterpart of `decision_reason` (before smoothing); no other field is mirrored.
    Null for a routine hold. Only with `fields=all`. Raw-only: served only to keys with raw-book
    access (`field_policy.expose_raw_book`); stripped otherwise.
    """


class ScoreRowMeta(Meta, kw_only=True, frozen=True):
    """The `meta` object of `GET /v1/alphas/{alpha}/scores`."""

    fields: str | UnsetType = UNSET
    """Echo of the column set served: `core` or `all`. Present on `/scores` only."""


class ScoreRowPage(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/scores` (signals.scores)."""

    data: list[ScoreRow]

    pagination: Pagination

    meta: ScoreRowMeta


class BookRow(ApiStruct, kw_only=True, frozen=True):
    """A row of `GET /v1/alphas/{alpha}/books` (portfolio.books)."""

    book: str | None
    """Book name: the value to pass as `book=` elsewhere."""

    kind: str | None
    """Dataset summarised: `portfolio`, `positions`, `pnl` or `trades`."""

    raw: bool | None
    """True when the book name starts with `raw_` (such rows are listed only to keys with raw-book
    access).
    """

    sessions: int | None
    """Count of dated items: every trading day for portfolio, positions, pnl; only traded days for
    trades. Unit: trading sessions.
    """

    rows: int | None
    """Leaf rows: per-symbol rows for positions, pnl, trades; one per session for portfolio. Unit:
    rows.
    """

    from_: dt.date | None = msgspec.field(name="from")
    """First business date with a row. Unit: ISO date (YYYY-MM-DD). Null when the dataset has no row."""

    to: dt.date | None
    """Last business date with a row. Unit: ISO date (YYYY-MM-DD). Null when the dataset has no row."""


class BookRowPage(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/books` (portfolio.books)."""

    data: list[BookRow]

    pagination: Pagination

    meta: Meta


class LedgerRow(ApiStruct, kw_only=True, frozen=True):
    """A row of `GET /v1/alphas/{alpha}/portfolio` (portfolio.ledger)."""

    book: str | None
    """The book the row belongs to (the `book` requested)."""

    date: dt.date | None
    """Trading session of the row. Unit: ISO date (YYYY-MM-DD)."""

    timestamp: dt.datetime | None
    """UTC instant of the session. Unit: UTC timestamp (ISO 8601, `Z`, whole seconds)."""

    starting_equity: float | None
    """Previous `ending_equity`; 1.0 at inception (normalised growth multiple). Unit: normalised equity
    (1.0 = the book's equity at inception).
    """

    ending_equity: float | None
    """`starting_equity + market_pnl + execution_cost + borrow_cashflow + cash_carry +
    rounding_adjustment`. Unit: normalised equity (1.0 = the book's equity at inception).
    """

    cash_start: float | None
    """Opening cash. Unit: normalised equity (1.0 = the book's equity at inception)."""

    cash_end: float | None
    """Closing cash. Unit: normalised equity (1.0 = the book's equity at inception)."""

    position_value_end: float | None
    """Closing value of the positions: `cash_end + position_value_end = ending_equity`. Unit:
    normalised equity (1.0 = the book's equity at inception).
    """

    market_pnl: float | None
    """Sum over positions of `quantity x (close - previous close)`. Unit: normalised equity (1.0 = the
    book's equity at inception).
    """

    execution_cost: float | None
    """Fees and modelled impact of the day's fills (<= 0). Unit: normalised equity (1.0 = the book's
    equity at inception).
    """

    borrow_cashflow: float | None
    """Borrow rate x short notional, accrued daily (<= 0). Unit: normalised equity (1.0 = the book's
    equity at inception).
    """

    cash_carry: float | None
    """Interest credited on cash. Unit: normalised equity (1.0 = the book's equity at inception)."""

    risk_free_return: float | None
    """Session rate at which carry accrued. Unit: fraction (0.01 = 1%) per session."""

    rounding_adjustment: float | None
    """Residual closing the ledger identity. Unit: normalised equity (1.0 = the book's equity at
    inception).
    """

    equity_basis: float | None
    """1.0 for a normalised ledger; divide a notional column by it for a ratio. Unit: base currency per
    unit of normalised equity.
    """

    gross_notional: float | None
    """Sum of absolute position values. Unit: base currency."""

    net_notional: float | None
    """Sum of signed position values. Unit: base currency."""

    gross_exposure: float | None
    """Sum of absolute weights (about 2.0 for a fully invested dollar-neutral book). Unit: fraction
    (0.01 = 1%).
    """

    net_exposure: float | None
    """Sum of weights (about 0 when dollar-neutral). Unit: fraction (0.01 = 1%)."""

    largest_abs_weight: float | None
    """Largest absolute position weight that day. Unit: fraction (0.01 = 1%)."""

    turnover_notional: float | None
    """Sum of absolute traded notional over the day's fills. Unit: base currency."""

    turnover: float | None
    """One-sided traded fraction: half the sum of absolute weight changes. Unit: fraction (0.01 = 1%)."""


class LedgerRowPage(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/portfolio` (portfolio.ledger)."""

    data: list[LedgerRow]

    pagination: Pagination

    meta: Meta


class PositionRow(ApiStruct, kw_only=True, frozen=True):
    """A row of `GET /v1/alphas/{alpha}/positions` (portfolio.positions)."""

    book: str | None
    """The book the row belongs to (the `book` requested)."""

    date: dt.date | None
    """Trading session; one row per held name per session (names not held are absent). Unit: ISO date
    (YYYY-MM-DD).
    """

    symbol: str | None
    """Ticker."""

    quantity: float | None
    """Signed share count: positions positive long, negative short; fills positive buy, negative sell.
    Unit: shares.
    """

    mark_price: float | None
    """Official close of the primary exchange. Unit: base currency per share."""

    signed_notional: float | None
    """`quantity x mark_price`. Unit: base currency."""

    weight: float | None
    """`signed_notional / ending_equity` of the same day (signed); comparable to target weights. Unit:
    fraction (0.01 = 1%).
    """


class PositionRowPage(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/positions` (portfolio.positions)."""

    data: list[PositionRow]

    pagination: Pagination

    meta: Meta


class PnlRow(ApiStruct, kw_only=True, frozen=True):
    """A row of `GET /v1/alphas/{alpha}/pnl` (portfolio.pnl)."""

    book: str | None
    """The book the row belongs to (the `book` requested)."""

    date: dt.date | None
    """Trading session; one row per name with a position or fill that day. Unit: ISO date (YYYY-MM-DD)."""

    symbol: str | None
    """Ticker."""

    market_pnl: float | None
    """`quantity x (close - previous close)`. Unit: base currency."""

    execution_cost: float | None
    """Execution cost of the name's fills that day; already negative (<= 0). Unit: base currency."""

    borrow_cashflow: float | None
    """Borrow cost of a short position; 0 for longs; already negative (<= 0). Unit: base currency."""

    net_pnl: float | None
    """`market_pnl + execution_cost + borrow_cashflow` (a sum; never subtract the cost columns). Unit:
    base currency.
    """


class PnlRowPage(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/pnl` (portfolio.pnl)."""

    data: list[PnlRow]

    pagination: Pagination

    meta: Meta


class TradeRow(ApiStruct, kw_only=True, frozen=True):
    """A row of `GET /v1/alphas/{alpha}/trades` (portfolio.trades)."""

    book: str | None
    """The book the row belongs to (the `book` requested)."""

    timestamp: dt.datetime | None
    """Fill time; fills execute at the next session open after the decision date. Unit: UTC timestamp
    (ISO 8601, `Z`, whole seconds).
    """

    decision_at: dt.date
    """Rebalance date that caused the trade; joins to `/rebalances/{date}`. Unit: ISO date
    (YYYY-MM-DD).
    """

    symbol: str | None
    """Ticker."""

    phase: str | None
    """`open` (entering the book), `rebalance` (weekly re-target) or `close` (leaving the book)."""

    quantity: float | None
    """Signed share count: positions positive long, negative short; fills positive buy, negative sell.
    Unit: shares.
    """

    mid_price: float | None
    """Reference mid at decision time. Unit: base currency per share."""

    fill_price: float | None
    """Achieved price including modelled impact. Unit: base currency per share."""

    fee: float | None
    """Per-share commission charged on the fill. Unit: base currency."""

    execution_cost: float | None
    """Fee plus market impact of the fill, served as a cost (<= 0). Unit: base currency."""

    rebalance_adjustment_reason: str | None
    """One of `entry`, `weight_increase`, `weight_decrease`, `exit`. Null when the engine recorded no
    reason for the fill.
    """

    exit_reason: str | None
    """`signal_exit` or `risk_exit` on a closing fill. Null for non-closing phases."""


class TradeRowPage(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/trades` (portfolio.trades)."""

    data: list[TradeRow]

    pagination: Pagination

    meta: Meta


class EquityRow(ApiStruct, kw_only=True, frozen=True):
    """A row of `GET /v1/alphas/{alpha}/equity-curve` (portfolio.equity_curve)."""

    date: dt.date
    """Trading session; one row per session in the window, ascending. Unit: ISO date (YYYY-MM-DD)."""

    timestamp: dt.datetime | None
    """UTC instant of the session. Unit: UTC timestamp (ISO 8601, `Z`, whole seconds)."""

    starting_equity: float | None
    """Ledger equity at the session's open. Unit: normalised equity (1.0 = the book's equity at
    inception).
    """

    ending_equity: float | None
    """Ledger equity at the session's close. Unit: normalised equity (1.0 = the book's equity at
    inception).
    """

    period_return: float | None
    """`(ending - starting) / starting`. Unit: fraction (0.01 = 1%). Null when starting equity is
    missing or zero.
    """

    cumulative_return: float | None
    """Running product of `(1 + period_return)` minus 1 within the window; its base (0) is the window's
    opening equity. Unit: fraction (0.01 = 1%). Null until the window's first known `period_return`.
    """

    peak_equity: float | None
    """Running maximum of starting and ending equity within the window (opening equity counts). Unit:
    normalised equity (1.0 = the book's equity at inception).
    """

    drawdown: float | None
    """`peak_equity - ending_equity` (>= 0). Unit: normalised equity (1.0 = the book's equity at
    inception).
    """

    drawdown_pct: float | None
    """Drawdown as a percentage of the peak: `drawdown / peak_equity x 100`. Unit: percentage points
    (1.0 = 1%). Null where the peak is not positive.
    """

    gross_exposure: float | None
    """Sum of absolute weights, carried from the same day's ledger row. Unit: fraction (0.01 = 1%)."""

    net_exposure: float | None
    """Sum of weights, carried from the same day's ledger row. Unit: fraction (0.01 = 1%)."""

    turnover: float | None
    """One-sided traded fraction, carried from the same day's ledger row. Unit: fraction (0.01 = 1%)."""


class EquitySummary(ApiStruct, kw_only=True, frozen=True):
    """The `EquitySummary` object."""

    book: str
    """The book the curve belongs to."""

    first_date: dt.date | None
    """First session of the window. Unit: ISO date (YYYY-MM-DD). Null when the window holds no session."""

    last_date: dt.date | None
    """Last session of the window. Unit: ISO date (YYYY-MM-DD). Null when the window holds no session."""

    sessions: int | None
    """Sessions in the window (rows across all pages). Unit: trading sessions."""

    starting_equity: float | None
    """`starting_equity` of the window's first row. Unit: normalised equity (1.0 = the book's equity at
    inception). Null when the window holds no session.
    """

    ending_equity: float | None
    """`ending_equity` of the window's last row. Unit: normalised equity (1.0 = the book's equity at
    inception). Null when the window holds no session.
    """

    peak_equity: float | None
    """Highest `peak_equity` of the window. Unit: normalised equity (1.0 = the book's equity at
    inception). Null when the window holds no session.
    """

    total_return: float | None
    """Last `cumulative_return` of the window. Unit: fraction (0.01 = 1%). Null when the window has no
    known return.
    """

    cumulative_return_pct: float | None
    """`100 x total_return`. Unit: percentage points (1.0 = 1%). Null when the window has no known
    return.
    """

    max_drawdown: float | None
    """Largest `drawdown` of the window. Unit: normalised equity (1.0 = the book's equity at
    inception). Null when the window holds no session.
    """

    max_drawdown_pct: float | None
    """Largest `drawdown_pct` of the window. Unit: percentage points (1.0 = 1%). Null when the window
    holds no session.
    """

    max_drawdown_date: dt.date | None
    """Earliest date of the largest `drawdown_pct`. Unit: ISO date (YYYY-MM-DD). Null when the window
    never drew down.
    """


class EquityRowMeta(Meta, kw_only=True, frozen=True):
    """The `meta` object of `GET /v1/alphas/{alpha}/equity-curve`."""

    summary: EquitySummary | UnsetType = UNSET
    """Figures over the whole requested window, computed before paging."""


class EquityRowPage(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/equity-curve` (portfolio.equity_curve)."""

    data: list[EquityRow]

    pagination: Pagination

    meta: EquityRowMeta


class MetricsResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/metrics` (performance.metrics)."""

    data: Metrics

    meta: Meta


class MetricsDocResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/metrics/_doc` (performance.metrics.doc)."""

    data: MetricsDoc

    meta: Meta


class BenchmarkRow(ApiStruct, kw_only=True, frozen=True):
    """A row of `GET /v1/benchmarks/{symbol}/daily` (benchmarks.daily)."""

    date: dt.date
    """Every session the market-data service holds in the window, ascending. Unit: ISO date
    (YYYY-MM-DD).
    """

    close: float | None
    """Unadjusted close, as stored. Unit: price in the benchmark's currency (USD for SPY)."""

    period_return: float | None
    """`(close - previous close) / previous close`, on the summary's `return_basis` price. Unit:
    fraction (0.01 = 1%). Null on the first row of the window.
    """

    cumulative_return: float | None
    """Running product of `(1 + period_return)` from the first row, minus 1; first row is 0.0; same
    name and units as the equity curve, so the two join on `date`. Unit: fraction (0.01 = 1%).
    """

    drawdown_pct: float | None
    """`(peak - close) / peak x 100`, peak measured inside the window. Unit: percentage points (1.0 =
    1%). Null where the peak is not positive.
    """


class BenchmarkSummary(ApiStruct, kw_only=True, frozen=True):
    """The `BenchmarkSummary` object."""

    symbol: str
    """The benchmark symbol (echo of the path `{symbol}`)."""

    name: str | None
    """Display name of the benchmark."""

    return_basis: str | None
    """`adjusted_close` only when an adjusted price exists for every row of the window (never mixed),
    otherwise `close` (a price return excluding dividends).
    """

    first_date: dt.date | None
    """First session of the window. Unit: ISO date (YYYY-MM-DD). Null when the window holds no session."""

    last_date: dt.date | None
    """Last session of the window. Unit: ISO date (YYYY-MM-DD). Null when the window holds no session."""

    sessions: int | None
    """Sessions in the window (rows across all pages). Unit: trading sessions."""

    first_close: float | None
    """Unadjusted close of the window's first row. Unit: price in the benchmark's currency (USD for
    SPY). Null when the window holds no session.
    """

    last_close: float | None
    """Unadjusted close of the window's last row. Unit: price in the benchmark's currency (USD for
    SPY). Null when the window holds no session.
    """

    total_return: float | None
    """Last `cumulative_return` of the window. Unit: fraction (0.01 = 1%). Null when the window holds
    no session.
    """

    cumulative_return_pct: float | None
    """`100 x total_return`. Unit: percentage points (1.0 = 1%). Null when the window holds no session."""

    max_drawdown_pct: float | None
    """Largest `drawdown_pct` of the window. Unit: percentage points (1.0 = 1%). Null when the window
    holds no session.
    """

    max_drawdown_date: dt.date | None
    """Earliest date of the largest `drawdown_pct`. Unit: ISO date (YYYY-MM-DD). Null when the window
    never drew down.
    """


class BenchmarkRowMeta(Meta, kw_only=True, frozen=True):
    """The `meta` object of `GET /v1/benchmarks/{symbol}/daily`."""

    summary: BenchmarkSummary | UnsetType = UNSET
    """Figures over the whole requested window, computed before paging."""

    symbol: str | UnsetType = UNSET
    """Echo of the path benchmark symbol. Present on the benchmark route only."""


class BenchmarkRowPage(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/benchmarks/{symbol}/daily` (benchmarks.daily)."""

    data: list[BenchmarkRow]

    pagination: Pagination

    meta: BenchmarkRowMeta


class SignificanceResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/analytics/significance` (analytics.significance)."""

    data: Significance

    meta: Meta


class CorrelationRow(ApiStruct, kw_only=True, frozen=True):
    """A row of `GET /v1/alphas/{alpha}/analytics/correlation` (analytics.correlation)."""

    alpha: str | None
    """The other alpha (one the key may read)."""

    correlation: float | None
    """The sort key: `pearson` for basis returns and ic, `spearman` for scores. Unit: ratio. Null below
    3 common observations or when either side is constant.
    """

    pearson: float | None
    """Pearson correlation over common dates. Unit: ratio. Null below 3 common observations or when
    either side is constant. Always null for scores.
    """

    spearman: float | None
    """Spearman correlation (average ranks); for scores, the mean weekly cross-sectional Spearman over
    common names. Unit: ratio. Null below 3 common observations or when either side is constant.
    """

    overlap: int | None
    """Common observations behind the correlation, in `overlap_unit`. Unit: sessions or weeks."""

    overlap_unit: str | None
    """`sessions` (returns) or `weeks` (ic, scores)."""

    common_names: float | None
    """Mean common scored names per counted week. Unit: symbols. Null unless basis is scores."""


class CorrelationRowMeta(Meta, kw_only=True, frozen=True):
    """The `meta` object of `GET /v1/alphas/{alpha}/analytics/correlation`."""

    basis: str | UnsetType = UNSET
    """The correlation basis applied: returns, ic or scores."""


class CorrelationRowPage(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/analytics/correlation` (analytics.correlation)."""

    data: list[CorrelationRow]

    pagination: Pagination

    meta: CorrelationRowMeta


class DrawdownRow(ApiStruct, kw_only=True, frozen=True):
    """A row of `GET /v1/alphas/{alpha}/analytics/drawdowns` (analytics.drawdowns)."""

    peak_date: dt.date | None
    """Session of the episode's peak; the window's opening equity is dated with its first session.
    Unit: ISO date (YYYY-MM-DD).
    """

    trough_date: dt.date | None
    """Session of the lowest ending equity before recovery (the first on a tie). Unit: ISO date
    (YYYY-MM-DD).
    """

    recovery_date: dt.date | None
    """First session whose ending equity is at or above the peak. Unit: ISO date (YYYY-MM-DD). Null
    while the episode has not recovered by the window's last session.
    """

    depth_pct: float | None
    """`(peak_equity - trough_equity) / peak_equity x 100`. Unit: percentage points (1.0 = 1%)."""

    sessions_to_trough: int | None
    """Sessions from the peak to the trough. Unit: trading sessions."""

    sessions_to_recovery: int | None
    """Sessions from the peak to the recovery. Unit: trading sessions. Null while the episode has not
    recovered by the window's last session.
    """

    peak_equity: float | None
    """Equity at the peak. Unit: normalised equity (1.0 = the book's equity at inception)."""

    trough_equity: float | None
    """Equity at the trough. Unit: normalised equity (1.0 = the book's equity at inception)."""


class DrawdownRowPage(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/analytics/drawdowns` (analytics.drawdowns)."""

    data: list[DrawdownRow]

    pagination: Pagination

    meta: Meta


class RollingRow(ApiStruct, kw_only=True, frozen=True):
    """A row of `GET /v1/alphas/{alpha}/analytics/rolling` (analytics.rolling)."""

    date: dt.date | None
    """Rebalance week that ends the trailing window. Unit: ISO date (YYYY-MM-DD)."""

    n_ic_weeks: int | None
    """Weeks of the trailing window with a weekly IC. Unit: weeks."""

    mean_ic: float | None
    """Mean weekly IC over the trailing window (the family in `meta.signal`). Unit: ratio. Null when
    fewer than half the window's weeks carry a value (the standard deviation also needs 2).
    """

    icir: float | None
    """Mean / standard deviation (ddof 1) of the weekly IC, per week: never annualised (`/metrics`
    `core.icir` is annualised when the run's conventions say so). Unit: ratio. Null when fewer than
    half the window's weeks carry a value (the standard deviation also needs 2).
    """

    n_return_weeks: int | None
    """Weeks of the trailing window with a book return. Unit: weeks."""

    annualised_return: float | None
    """Mean weekly book return times 52. Unit: fraction (0.01 = 1%). Null when fewer than half the
    window's weeks carry a value (the standard deviation also needs 2).
    """

    volatility: float | None
    """Standard deviation (ddof 1) of weekly book returns times sqrt(52). Unit: fraction (0.01 = 1%).
    Null when fewer than half the window's weeks carry a value (the standard deviation also needs
    2).
    """

    information_ratio: float | None
    """Mean / standard deviation of weekly book returns times sqrt(52) (`/metrics`
    `core.information_ratio` is daily returns times sqrt(252)). Unit: ratio. Null when fewer than
    half the window's weeks carry a value (the standard deviation also needs 2).
    """

    hit_rate: float | None
    """Share of the trailing window's weeks with a positive book return. Unit: fraction (0.01 = 1%).
    Null when fewer than half the window's weeks carry a value (the standard deviation also needs
    2).
    """


class RollingRowMeta(Meta, kw_only=True, frozen=True):
    """The `meta` object of `GET /v1/alphas/{alpha}/analytics/rolling`."""

    window_weeks: int | UnsetType = UNSET
    """The trailing window applied, in weeks (13, 26 or 52). Unit: weeks."""

    signal: str | UnsetType = UNSET
    """The IC family of `mean_ic` and `icir`: `conditioned` (score) on base books, `raw` (raw_score) on
    raw books.
    """


class RollingRowPage(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/analytics/rolling` (analytics.rolling)."""

    data: list[RollingRow]

    pagination: Pagination

    meta: RollingRowMeta


class CostsResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/analytics/costs` (analytics.costs)."""

    data: Costs

    meta: Meta


class ScreenRow(ApiStruct, kw_only=True, frozen=True):
    """A row of `GET /v1/analytics/screen` (analytics.screen)."""

    alpha_id: str
    """Identifier used in every `/v1/alphas/{alpha}/...` path."""

    name: str
    """Readable title; falls back to `alpha_id`."""

    tldr: str | None
    """One-line thesis. Null when none was recorded."""

    complete: bool
    """Every required kind was sealed (else the run is incomplete)."""

    production: bool
    """A production alpha: its alpha_id does not start with `Test_`."""

    structure: str | None
    """Classification structure of the written description. Null when none was recorded."""

    method: str | None
    """Classification method of the written description. Null when none was recorded."""

    tags: list[str] | None
    """Classification tags of the written description, as recorded. Null when none were recorded."""

    information_ratio: float | None
    """Annualised information ratio of the long_short book (daily returns after costs, not in excess of
    the risk-free rate, times sqrt(252)), as `/metrics` serves `core.information_ratio` (overall,
    the whole history). Unit: ratio. Null where `/metrics` serves it not_measurable.
    """

    excess_sharpe: float | None
    """Annualised Sharpe ratio in excess of the risk-free rate, as `/metrics` serves
    `core.excess_sharpe` (overall, the whole history). Unit: ratio. Null where `/metrics` serves it
    not_measurable.
    """

    mean_ic: float | None
    """Mean weekly IC of the conditioned score, as `/metrics` serves `core.ic` (overall, the whole
    history). Unit: ratio. Null where `/metrics` serves it not_measurable.
    """

    icir: float | None
    """Mean / standard deviation of the weekly IC (per week, times sqrt(52) when the run's conventions
    annualise it), as `/metrics` serves `core.icir` (overall, the whole history). Unit: ratio. Null
    where `/metrics` serves it not_measurable.
    """

    max_drawdown_pct: float | None
    """Deepest drawdown of the long_short book, as `/metrics` serves `core.max_drawdown_pct` (overall,
    the whole history). Unit: percentage points (1.0 = 1%). Null where `/metrics` serves it
    not_measurable.
    """

    turnover: float | None
    """Turnover, as `/metrics` serves `core.turnover` (overall, the whole history), in `turnover_unit`.
    Unit: turnover_unit. Null where `/metrics` serves it not_measurable.
    """

    turnover_unit: str | None
    """Unit of `turnover`: per_year, ratio, per_session or period_sum, the first the run sealed. Null
    when the run sealed no turnover.
    """

    sessions: int
    """Sessions of the long_short ledger. Unit: trading sessions."""

    weeks: int
    """Rebalance weeks of the rebalance index. Unit: weeks."""

    first_date: dt.date | None
    """First ledger session (the first rebalance week without a ledger). Unit: ISO date (YYYY-MM-DD).
    Null when the run sealed neither.
    """

    last_date: dt.date | None
    """Last ledger session (the last rebalance week without a ledger). Unit: ISO date (YYYY-MM-DD).
    Null when the run sealed neither.
    """


class ScreenRowPage(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/analytics/screen` (analytics.screen)."""

    data: list[ScreenRow]

    pagination: Pagination

    meta: Meta


class CombinedRow(ApiStruct, kw_only=True, frozen=True):
    """A row of `GET /v1/analytics/combine` (analytics.combine)."""

    date: dt.date | None
    """A session on which every alpha of the set has a long_short return (the window's common
    sessions). Unit: ISO date (YYYY-MM-DD).
    """

    period_return: float | None
    """The combined book's return: `sum_i w_i r_i` of the alphas' daily long_short returns, with the
    weights of `meta.weights`. Unit: fraction (0.01 = 1%).
    """

    cumulative_return: float | None
    """`prod (1 + period_return) - 1`, compounded from 1.0 before the window's first common session.
    Unit: fraction (0.01 = 1%).
    """

    drawdown_pct: float | None
    """`(peak - level) / peak x 100` of the compounded equity `level = 1 + cumulative_return` below its
    running peak (the opening 1.0 counts), as the equity curve's: 0 at a peak, positive below. Unit:
    percentage points (1.0 = 1%).
    """

    benchmark_cumulative_return: float | None
    """SPY's daily total returns on the same sessions, compounded from 1.0 before the window's first
    common session. Unit: fraction (0.01 = 1%). Null on every row for a key that may not call
    `benchmarks.daily` (an `access_limited` warning says so), and before SPY's first known return.
    """


class Window(ApiStruct, kw_only=True, frozen=True):
    """The `Window` object."""

    from_: dt.date | None = msgspec.field(name="from")
    """First trading day of the window, inclusive; null: the start of the history."""

    to: dt.date | None
    """Last trading day of the window, inclusive; null: the end of the history."""


class BenchmarkEcho(ApiStruct, kw_only=True, frozen=True):
    """The `BenchmarkEcho` object."""

    symbol: str
    """The benchmark (SPY)."""

    basis: str
    """Its return basis: adjusted_close when every session has one, else close."""


class Shrinkage(ApiStruct, kw_only=True, frozen=True):
    """The `Shrinkage` object."""

    value: float
    """The weight of the diagonal target in the shrunk covariance (0 to 1)."""

    source: str
    """ledoit_wolf (estimated) or given (the `shrinkage` parameter)."""


class WeightEntry(ApiStruct, kw_only=True, frozen=True):
    """The `WeightEntry` object."""

    alpha: str
    """The alpha."""

    weight: float
    """Its weight: a fraction of the combined book's capital, negative for a short. Unit: fraction."""


class StatEntry(ApiStruct, kw_only=True, frozen=True):
    """An analytics figure in the `/metrics` stat-entry shape (docs/analytics.md)."""

    value: float | None
    """The figure; null when not_measurable."""

    unit: str | None
    """Unit of value."""

    status: str
    """available, or not_measurable (value null, withheld_reason says why)."""

    source: str
    """What the figure is computed from."""

    annualisation: str
    """annualised, per_period or not_annualisable."""

    withheld_reason: str | UnsetType = UNSET
    """Why the figure is not measurable. Present only then."""

    periods_per_year: int | UnsetType = UNSET
    """Periods per year the figure is annualised with. On annualised figures only."""

    approximation: str | UnsetType = UNSET
    """How the figure is approximated. On approximated figures only."""


class CombinedFigures(ApiStruct, kw_only=True, frozen=True):
    """The `CombinedFigures` object."""

    information_ratio: StatEntry
    """mean / std (ddof 1) of the combined daily returns x sqrt(252)."""

    excess_sharpe: StatEntry
    """The same of the combined returns less the weighted risk-free returns the books accrued."""

    max_drawdown_pct: StatEntry
    """Deepest fall of the compounded equity from its running peak, in percentage points of the peak
    (25.0 = 25%), as `/metrics` serves `core.max_drawdown_pct`.
    """

    annualised_return: StatEntry
    """Mean combined daily return x 252."""

    volatility: StatEntry
    """Standard deviation (ddof 1) of the combined daily returns x sqrt(252)."""

    turnover: StatEntry
    """Approximated as the sum of |weight| x each alpha's whole-history turnover (an upper bound: no
    netting).
    """

    diversification_ratio: StatEntry
    """Sum of |weight| x each alpha's volatility over the combined book's volatility (1: no
    diversification).
    """


class CorrelationMatrix(ApiStruct, kw_only=True, frozen=True):
    """The `CorrelationMatrix` object."""

    alphas: list[str]
    """The rows and columns of `matrix`, in order."""

    matrix: list[list[float | None]]
    """Pearson correlation of each pair's daily returns over the common sessions; null where a side is
    constant. Unit: ratio.
    """


class CombinedRowMeta(Meta, kw_only=True, frozen=True):
    """The `meta` object of `GET /v1/analytics/combine`."""

    window: Window | UnsetType = UNSET
    """The request's window, `from` and `to` (null: open). On `/analytics/combine` only."""

    benchmark: BenchmarkEcho | None | UnsetType = UNSET
    """SPY and its return basis (`symbol`, `basis`): null when the key may not read SPY. On
    `/analytics/combine` only.
    """

    alphas: list[str] | UnsetType = UNSET
    """The alphas combined, in the order of `alphas`. On `/analytics/combine` only."""

    weighting: str | UnsetType = UNSET
    """How the weights were chosen: equal, given, inverse_volatility or max_ir. On `/analytics/combine`
    only.
    """

    shrinkage: Shrinkage | None | UnsetType = UNSET
    """With max_ir: the shrinkage intensity used (`value`) and its `source` (ledoit_wolf or given);
    else null. On `/analytics/combine` only.
    """

    weights: list[WeightEntry] | UnsetType = UNSET
    """`{alpha, weight}` per alpha: the weights applied (fractions of the book's capital, negative for
    a short). On `/analytics/combine` only.
    """

    sessions: int | UnsetType = UNSET
    """Sessions the figures are over: those of the window on which every alpha has a return. Unit:
    sessions. On `/analytics/combine` only.
    """

    session_rule: str | UnsetType = UNSET
    """Which sessions are combined, in words. On `/analytics/combine` only."""

    figures: CombinedFigures | UnsetType = UNSET
    """The combined book's figures as stat entries (information_ratio, excess_sharpe, max_drawdown_pct,
    annualised_return, volatility, turnover, diversification_ratio): docs/analytics.md. On
    `/analytics/combine` only.
    """

    correlation: CorrelationMatrix | UnsetType = UNSET
    """`{alphas, matrix}`: the Pearson correlation of every pair's daily returns over the common
    sessions. On `/analytics/combine` only.
    """


class CombinedRowPage(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/analytics/combine` (analytics.combine)."""

    data: list[CombinedRow]

    pagination: Pagination

    meta: CombinedRowMeta


class ContributionResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/analytics/contribution` (analytics.contribution)."""

    data: Contribution

    meta: Meta


class ChecksResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/analytics/checks` (analytics.checks)."""

    data: Checks

    meta: Meta


class ComparisonMeta(Meta, kw_only=True, frozen=True):
    """The `meta` object of `GET /v1/alphas/{alpha}/analytics/compare`."""

    with_source: str | UnsetType = UNSET
    """The build of the alpha compared with (`lake:portfolio@<build id>`); `source` names this alpha's.
    On `/analytics/compare` only.
    """


class ComparisonResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/analytics/compare` (analytics.compare)."""

    data: Comparison

    meta: ComparisonMeta


class RiskResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/analytics/risk` (analytics.risk)."""

    data: Risk

    meta: Meta


class AnalyticsDocResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/analytics/_doc` (analytics.doc)."""

    data: AnalyticsDoc

    meta: Meta


class ExportRow(ApiStruct, kw_only=True, frozen=True):
    """A row of `GET /v1/alphas/{alpha}/exports` (exports.list)."""

    dataset: str
    """The `{dataset}` to ask `/exports/{dataset}` for (decisions, rebalances, portfolio, positions,
    pnl, trades, equity-curve, benchmark).
    """

    book: str | None
    """The book of a book dataset, to pass as `book=`. Null for `decisions`, `rebalances` and
    `benchmark`.
    """

    filename: str
    """`<alpha_id>.<dataset>[.<book>][.raw].parquet`; `.raw` marks the variant with raw columns."""

    size_bytes: int
    """Size of the Parquet file. Unit: bytes."""

    sha256: str
    """SHA-256 of the Parquet file (hex); check the bytes with it."""

    rows: int
    """Rows in the file. Unit: rows."""

    columns: list[str]
    """The file's column names, in order (`raw_*` columns only in the raw variant, for raw-book keys)."""

    build: str
    """The build the file belongs to (the benchmark's own build for `benchmark`)."""


class ExportRowPage(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/exports` (exports.list)."""

    data: list[ExportRow]

    pagination: Pagination

    meta: Meta


class ExportDownload(ApiStruct, kw_only=True, frozen=True):
    """The `data` object of `GET /v1/alphas/{alpha}/exports/{dataset}` (exports.download)."""

    url: str
    """Freshly signed, time-limited GET URL of the Parquet file; fetch it directly."""

    expires_in: int
    """Lifetime of the signed URL (3600); do not cache it beyond. Unit: seconds."""

    filename: str
    """`<alpha_id>.<dataset>[.<book>][.raw].parquet`; `.raw` marks the variant with raw columns."""

    size_bytes: int
    """Size of the Parquet file. Unit: bytes."""

    sha256: str
    """SHA-256 of the Parquet file (hex); check the bytes with it."""

    rows: int
    """Rows in the file. Unit: rows."""

    columns: list[str]
    """The file's column names, in order (`raw_*` columns only in the raw variant, for raw-book keys)."""

    build: str
    """The build the file belongs to (the benchmark's own build for `benchmark`)."""


class ExportDownloadResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/exports/{dataset}` (exports.download)."""

    data: ExportDownload

    meta: Meta


class Readiness(ApiStruct, kw_only=True, frozen=True):
    """The `data` object of `GET /v1/admin/alphas/{alpha}/readiness` (admin.alphas.readiness)."""

    alpha_id: str
    """The alpha."""

    complete: bool
    """Every required kind is present."""

    kinds_present: list[str]
    """Kinds the run sealed."""

    required_kinds: list[str]
    """Kinds the run requires."""

    missing_kinds: list[str]
    """Required kinds not sealed."""

    build_id: str
    """The alpha's served build."""

    pipeline_version: str | None
    """Version of the pipeline that built the build. Null when not recorded (always for benchmarks)."""

    engine_version: str | None
    """Version of the engine that produced the seal. Null when not recorded."""

    built_at: str | None
    """When the build was published. Unit: UTC timestamp (ISO 8601, `Z`, whole seconds). Null when not
    recorded (always for benchmarks).
    """

    sealed_at: str | None
    """When the run sealed. Unit: UTC timestamp (ISO 8601, `Z`, whole seconds). Null when not recorded
    (always for benchmarks).
    """

    started_at: str | None
    """When the run started. Unit: UTC timestamp (ISO 8601, `Z`, whole seconds). Null when not
    recorded.
    """

    has_description: bool
    """Whether a written description was sealed."""

    source_archive: dict[str, Any] | None
    """`{status, delivered}` of the source archive record. Null when none was recorded."""

    tables: dict[str, Any]
    """Per published table: `{rows, bytes}`."""


class ReadinessResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/admin/alphas/{alpha}/readiness` (admin.alphas.readiness)."""

    data: Readiness

    meta: Meta


class KeyUsage(ApiStruct, kw_only=True, frozen=True):
    """The `data` object of `GET /v1/admin/keys/{key_id}/usage` (admin.keys.usage)."""

    key_id: str
    """16-character key id: the part of the token between the second underscore and the dot."""

    user_id: str
    """The key's owner."""

    name: str
    """Label given to the key at issuance."""

    status: str
    """Key status: `active` or `suspended` (see `revoked` and `expires_at`)."""

    revoked: bool
    """Whether the key was revoked."""

    expires_at: str | None
    """When the key expires. Unit: UTC timestamp (ISO 8601, `Z`, whole seconds). Null means no expiry."""

    rate_limit: RateLimit
    """The key's rate envelope."""

    usage: Usage
    """Requests counted in each window, read from the limiter that enforces them, and what remains."""


class KeyUsageMeta(Meta, kw_only=True, frozen=True):
    """The `meta` object of `GET /v1/admin/keys/{key_id}/usage`."""

    key_id: str | UnsetType = UNSET
    """The key the answer is about: the calling key on `/v1/me` and `/v1/me/keys`, the key looked up on
    the administrative usage route. Present on those three routes only.
    """


class KeyUsageResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/admin/keys/{key_id}/usage` (admin.keys.usage)."""

    data: KeyUsage

    meta: KeyUsageMeta


class BuildRow(ApiStruct, kw_only=True, frozen=True):
    """A row of `GET /v1/admin/builds` (admin.builds.list)."""

    kind: str
    """`alpha` or `benchmark`."""

    name: str
    """alpha_id or benchmark symbol."""

    build_id: str
    """The build."""

    current: bool
    """Whether the pointer serves this build now."""

    built_at: str | None
    """When the build was published. Unit: UTC timestamp (ISO 8601, `Z`, whole seconds). Null when not
    recorded (always for benchmarks).
    """

    sealed_at: str | None
    """When the run sealed. Unit: UTC timestamp (ISO 8601, `Z`, whole seconds). Null when not recorded
    (always for benchmarks).
    """

    pipeline_version: str | None
    """Version of the pipeline that built the build. Null when not recorded (always for benchmarks)."""

    complete: bool | None
    """Every required kind is present (true for benchmarks). Null when not recorded."""

    rows: int | None
    """Rows over all tables of the build. Unit: rows. Null when not recorded."""

    bytes: int | None
    """Bytes over all tables of the build. Unit: bytes. Null when not recorded."""

    first_date: dt.date | None | UnsetType = UNSET
    """First session of a benchmark's series. Unit: ISO date (YYYY-MM-DD). Null when not recorded.
    Present on benchmark builds only.
    """

    last_date: dt.date | None | UnsetType = UNSET
    """Last session of a benchmark's series. Unit: ISO date (YYYY-MM-DD). Null when not recorded.
    Present on benchmark builds only.
    """


class BuildRowPage(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/admin/builds` (admin.builds.list)."""

    data: list[BuildRow]

    pagination: Pagination

    meta: Meta


# -- endpoints --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Param:
    """One query parameter: its name on the wire, its Python name, type, default and values."""

    name: str
    attr: str
    type: str
    default: Any
    required: bool = False
    enum: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Endpoint:
    """One `GET` route: registry id, path template, its parameters and the type of its 200 body."""

    id: str
    path: str
    params: tuple[Param, ...]
    response: type[Any]
    collection: bool
    admin: bool = False

    def url_path(self, **values: str) -> str:
        """The path with each `{name}` filled in, percent-encoded (a `/` too)."""
        return self.path.format(**{name: quote(value, safe="") for name, value in values.items()})


ENDPOINTS: dict[str, Endpoint] = {
    "meta.health": Endpoint(
        "meta.health",
        "/v1/health",
        (),
        Health,
        collection=False,
    ),
    "meta.me": Endpoint(
        "meta.me",
        "/v1/me",
        (),
        MeResponse,
        collection=False,
    ),
    "meta.keys": Endpoint(
        "meta.keys",
        "/v1/me/keys",
        (
            Param("limit", "limit", "integer", 100, required=False, enum=None),
            Param("offset", "offset", "integer", 0, required=False, enum=None),
            Param(
                "format",
                "format",
                "string",
                None,
                required=False,
                enum=("json", "arrow", "csv", "ndjson", "parquet"),
            ),
        ),
        KeyInventoryRowPage,
        collection=True,
    ),
    "catalog.alphas.list": Endpoint(
        "catalog.alphas.list",
        "/v1/alphas",
        (
            Param("search", "search", "string", None, required=False, enum=None),
            Param("complete_only", "complete_only", "boolean", False, required=False, enum=None),
            Param("limit", "limit", "integer", 100, required=False, enum=None),
            Param("offset", "offset", "integer", 0, required=False, enum=None),
            Param(
                "format",
                "format",
                "string",
                None,
                required=False,
                enum=("json", "arrow", "csv", "ndjson", "parquet"),
            ),
        ),
        AlphaListRowPage,
        collection=True,
    ),
    "catalog.alphas.get": Endpoint(
        "catalog.alphas.get",
        "/v1/alphas/{alpha}",
        (),
        AlphaDescriptionResponse,
        collection=False,
    ),
    "catalog.alphas.source.download": Endpoint(
        "catalog.alphas.source.download",
        "/v1/alphas/{alpha}/source/download",
        (),
        SourceDownloadResponse,
        collection=False,
    ),
    "signals.rebalances.list": Endpoint(
        "signals.rebalances.list",
        "/v1/alphas/{alpha}/rebalances",
        (
            Param("from", "start", "date", None, required=False, enum=None),
            Param("to", "end", "date", None, required=False, enum=None),
            Param("limit", "limit", "integer", 100, required=False, enum=None),
            Param("offset", "offset", "integer", 0, required=False, enum=None),
            Param(
                "format",
                "format",
                "string",
                None,
                required=False,
                enum=("json", "arrow", "csv", "ndjson", "parquet"),
            ),
        ),
        RebalanceIndexRowPage,
        collection=True,
    ),
    "signals.rebalances.get": Endpoint(
        "signals.rebalances.get",
        "/v1/alphas/{alpha}/rebalances/{date}",
        (
            Param("symbol", "symbol", "string", None, required=False, enum=None),
            Param(
                "direction",
                "direction",
                "string",
                None,
                required=False,
                enum=("1", "long", "-1", "short", "0", "flat", "neutral"),
            ),
            Param("min_abs_weight", "min_abs_weight", "number", None, required=False, enum=None),
            Param("book", "book", "string", "long_short", required=False, enum=("long_short", "long_only")),
            Param(
                "sort", "sort", "string", "score", required=False, enum=("score", "rank", "symbol", "weight")
            ),
            Param("order", "order", "string", None, required=False, enum=("asc", "desc")),
            Param("limit", "limit", "integer", 100, required=False, enum=None),
            Param("offset", "offset", "integer", 0, required=False, enum=None),
            Param(
                "format",
                "format",
                "string",
                None,
                required=False,
                enum=("json", "arrow", "csv", "ndjson", "parquet"),
            ),
        ),
        DecisionRowPage,
        collection=True,
    ),
    "signals.scores": Endpoint(
        "signals.scores",
        "/v1/alphas/{alpha}/scores",
        (
            Param("from", "start", "date", None, required=False, enum=None),
            Param("to", "end", "date", None, required=False, enum=None),
            Param("symbol", "symbol", "string", None, required=False, enum=None),
            Param("fields", "fields", "string", "core", required=False, enum=("core", "all")),
            Param("limit", "limit", "integer", 100, required=False, enum=None),
            Param("offset", "offset", "integer", 0, required=False, enum=None),
            Param(
                "format",
                "format",
                "string",
                None,
                required=False,
                enum=("json", "arrow", "csv", "ndjson", "parquet"),
            ),
        ),
        ScoreRowPage,
        collection=True,
    ),
    "portfolio.books": Endpoint(
        "portfolio.books",
        "/v1/alphas/{alpha}/books",
        (
            Param("limit", "limit", "integer", 100, required=False, enum=None),
            Param("offset", "offset", "integer", 0, required=False, enum=None),
            Param(
                "format",
                "format",
                "string",
                None,
                required=False,
                enum=("json", "arrow", "csv", "ndjson", "parquet"),
            ),
        ),
        BookRowPage,
        collection=True,
    ),
    "portfolio.ledger": Endpoint(
        "portfolio.ledger",
        "/v1/alphas/{alpha}/portfolio",
        (
            Param("book", "book", "string", "long_short", required=False, enum=None),
            Param("from", "start", "date", None, required=False, enum=None),
            Param("to", "end", "date", None, required=False, enum=None),
            Param("limit", "limit", "integer", 100, required=False, enum=None),
            Param("offset", "offset", "integer", 0, required=False, enum=None),
            Param(
                "format",
                "format",
                "string",
                None,
                required=False,
                enum=("json", "arrow", "csv", "ndjson", "parquet"),
            ),
        ),
        LedgerRowPage,
        collection=True,
    ),
    "portfolio.positions": Endpoint(
        "portfolio.positions",
        "/v1/alphas/{alpha}/positions",
        (
            Param("book", "book", "string", "long_short", required=False, enum=None),
            Param("from", "start", "date", None, required=False, enum=None),
            Param("to", "end", "date", None, required=False, enum=None),
            Param("symbol", "symbol", "string", None, required=False, enum=None),
            Param("limit", "limit", "integer", 100, required=False, enum=None),
            Param("offset", "offset", "integer", 0, required=False, enum=None),
            Param(
                "format",
                "format",
                "string",
                None,
                required=False,
                enum=("json", "arrow", "csv", "ndjson", "parquet"),
            ),
        ),
        PositionRowPage,
        collection=True,
    ),
    "portfolio.pnl": Endpoint(
        "portfolio.pnl",
        "/v1/alphas/{alpha}/pnl",
        (
            Param("book", "book", "string", "long_short", required=False, enum=None),
            Param("from", "start", "date", None, required=False, enum=None),
            Param("to", "end", "date", None, required=False, enum=None),
            Param("symbol", "symbol", "string", None, required=False, enum=None),
            Param("limit", "limit", "integer", 100, required=False, enum=None),
            Param("offset", "offset", "integer", 0, required=False, enum=None),
            Param(
                "format",
                "format",
                "string",
                None,
                required=False,
                enum=("json", "arrow", "csv", "ndjson", "parquet"),
            ),
        ),
        PnlRowPage,
        collection=True,
    ),
    "portfolio.trades": Endpoint(
        "portfolio.trades",
        "/v1/alphas/{alpha}/trades",
        (
            Param("book", "book", "string", None, required=True, enum=None),
            Param("from", "start", "date", None, required=False, enum=None),
            Param("to", "end", "date", None, required=False, enum=None),
            Param("symbol", "symbol", "string", None, required=False, enum=None),
            Param("limit", "limit", "integer", 100, required=False, enum=None),
            Param("offset", "offset", "integer", 0, required=False, enum=None),
            Param(
                "format",
                "format",
                "string",
                None,
                required=False,
                enum=("json", "arrow", "csv", "ndjson", "parquet"),
            ),
        ),
        TradeRowPage,
        collection=True,
    ),
    "portfolio.equity_curve": Endpoint(
        "portfolio.equity_curve",
        "/v1/alphas/{alpha}/equity-curve",
        (
            Param("book", "book", "string", "long_short", required=False, enum=None),
            Param("from", "start", "date", None, required=False, enum=None),
            Param("to", "end", "date", None, required=False, enum=None),
            Param("limit", "limit", "integer", 500, required=False, enum=None),
            Param("offset", "offset", "integer", 0, required=False, enum=None),
            Param(
                "format",
                "format",
                "string",
                None,
                required=False,
                enum=("json", "arrow", "csv", "ndjson", "parquet"),
            ),
        ),
        EquityRowPage,
        collection=True,
    ),
    "performance.metrics": Endpoint(
        "performance.metrics",
        "/v1/alphas/{alpha}/metrics",
        (
            Param("from", "start", "date", None, required=False, enum=None),
            Param("to", "end", "date", None, required=False, enum=None),
            Param(
                "granularity",
                "granularity",
                "string",
                "overall",
                required=False,
                enum=("overall", "yearly", "monthly"),
            ),
            Param("doc", "doc", "boolean", False, required=False, enum=None),
            Param("panel", "panel", "boolean", False, required=False, enum=None),
        ),
        MetricsResponse,
        collection=False,
    ),
    "performance.metrics.doc": Endpoint(
        "performance.metrics.doc",
        "/v1/alphas/{alpha}/metrics/_doc",
        (),
        MetricsDocResponse,
        collection=False,
    ),
    "benchmarks.daily": Endpoint(
        "benchmarks.daily",
        "/v1/benchmarks/{symbol}/daily",
        (
            Param("from", "start", "date", None, required=False, enum=None),
            Param("to", "end", "date", None, required=False, enum=None),
            Param("limit", "limit", "integer", 500, required=False, enum=None),
            Param("offset", "offset", "integer", 0, required=False, enum=None),
            Param(
                "format",
                "format",
                "string",
                None,
                required=False,
                enum=("json", "arrow", "csv", "ndjson", "parquet"),
            ),
        ),
        BenchmarkRowPage,
        collection=True,
    ),
    "analytics.significance": Endpoint(
        "analytics.significance",
        "/v1/alphas/{alpha}/analytics/significance",
        (
            Param("from", "start", "date", None, required=False, enum=None),
            Param("to", "end", "date", None, required=False, enum=None),
            Param("sr_benchmark", "sr_benchmark", "number", 0.0, required=False, enum=None),
            Param("trials", "trials", "integer", None, required=False, enum=None),
        ),
        SignificanceResponse,
        collection=False,
    ),
    "analytics.correlation": Endpoint(
        "analytics.correlation",
        "/v1/alphas/{alpha}/analytics/correlation",
        (
            Param("basis", "basis", "string", "returns", required=False, enum=("returns", "ic", "scores")),
            Param("from", "start", "date", None, required=False, enum=None),
            Param("to", "end", "date", None, required=False, enum=None),
            Param("limit", "limit", "integer", 100, required=False, enum=None),
            Param("offset", "offset", "integer", 0, required=False, enum=None),
            Param(
                "format",
                "format",
                "string",
                None,
                required=False,
                enum=("json", "arrow", "csv", "ndjson", "parquet"),
            ),
        ),
        CorrelationRowPage,
        collection=True,
    ),
    "analytics.drawdowns": Endpoint(
        "analytics.drawdowns",
        "/v1/alphas/{alpha}/analytics/drawdowns",
        (
            Param("book", "book", "string", "long_short", required=False, enum=None),
            Param("from", "start", "date", None, required=False, enum=None),
            Param("to", "end", "date", None, required=False, enum=None),
            Param("limit", "limit", "integer", 100, required=False, enum=None),
            Param("offset", "offset", "integer", 0, required=False, enum=None),
            Param(
                "format",
                "format",
                "string",
                None,
                required=False,
                enum=("json", "arrow", "csv", "ndjson", "parquet"),
            ),
        ),
        DrawdownRowPage,
        collection=True,
    ),
    "analytics.rolling": Endpoint(
        "analytics.rolling",
        "/v1/alphas/{alpha}/analytics/rolling",
        (
            Param("book", "book", "string", "long_short", required=False, enum=None),
            Param("window", "window", "string", "26", required=False, enum=("13", "26", "52")),
            Param("from", "start", "date", None, required=False, enum=None),
            Param("to", "end", "date", None, required=False, enum=None),
            Param("limit", "limit", "integer", 100, required=False, enum=None),
            Param("offset", "offset", "integer", 0, required=False, enum=None),
            Param(
                "format",
                "format",
                "string",
                None,
                required=False,
                enum=("json", "arrow", "csv", "ndjson", "parquet"),
            ),
        ),
        RollingRowPage,
        collection=True,
    ),
    "analytics.costs": Endpoint(
        "analytics.costs",
        "/v1/alphas/{alpha}/analytics/costs",
        (
            Param("book", "book", "string", "long_short", required=False, enum=None),
            Param("from", "start", "date", None, required=False, enum=None),
            Param("to", "end", "date", None, required=False, enum=None),
        ),
        CostsResponse,
        collection=False,
    ),
    "analytics.screen": Endpoint(
        "analytics.screen",
        "/v1/analytics/screen",
        (
            Param("search", "search", "string", None, required=False, enum=None),
            Param("tag", "tag", "string", None, required=False, enum=None),
            Param("structure", "structure", "string", None, required=False, enum=None),
            Param("method", "method", "string", None, required=False, enum=None),
            Param("complete_only", "complete_only", "boolean", False, required=False, enum=None),
            Param("production", "production", "boolean", None, required=False, enum=None),
            Param(
                "min_information_ratio", "min_information_ratio", "number", None, required=False, enum=None
            ),
            Param(
                "max_information_ratio", "max_information_ratio", "number", None, required=False, enum=None
            ),
            Param("min_excess_sharpe", "min_excess_sharpe", "number", None, required=False, enum=None),
            Param("max_excess_sharpe", "max_excess_sharpe", "number", None, required=False, enum=None),
            Param("min_mean_ic", "min_mean_ic", "number", None, required=False, enum=None),
            Param("max_mean_ic", "max_mean_ic", "number", None, required=False, enum=None),
            Param("min_icir", "min_icir", "number", None, required=False, enum=None),
            Param("max_icir", "max_icir", "number", None, required=False, enum=None),
            Param("min_max_drawdown_pct", "min_max_drawdown_pct", "number", None, required=False, enum=None),
            Param("max_max_drawdown_pct", "max_max_drawdown_pct", "number", None, required=False, enum=None),
            Param("min_turnover", "min_turnover", "number", None, required=False, enum=None),
            Param("max_turnover", "max_turnover", "number", None, required=False, enum=None),
            Param("min_sessions", "min_sessions", "integer", None, required=False, enum=None),
            Param("max_sessions", "max_sessions", "integer", None, required=False, enum=None),
            Param("max_correlation", "max_correlation", "number", None, required=False, enum=None),
            Param("correlated_to", "correlated_to", "string", None, required=False, enum=None),
            Param(
                "correlation_basis",
                "correlation_basis",
                "string",
                "returns",
                required=False,
                enum=("returns", "ic"),
            ),
            Param(
                "sort",
                "sort",
                "string",
                None,
                required=False,
                enum=(
                    "alpha_id",
                    "-alpha_id",
                    "name",
                    "-name",
                    "information_ratio",
                    "-information_ratio",
                    "excess_sharpe",
                    "-excess_sharpe",
                    "mean_ic",
                    "-mean_ic",
                    "icir",
                    "-icir",
                    "max_drawdown_pct",
                    "-max_drawdown_pct",
                    "turnover",
                    "-turnover",
                    "sessions",
                    "-sessions",
                    "weeks",
                    "-weeks",
                    "first_date",
                    "-first_date",
                    "last_date",
                    "-last_date",
                ),
            ),
            Param("limit", "limit", "integer", 100, required=False, enum=None),
            Param("offset", "offset", "integer", 0, required=False, enum=None),
            Param(
                "format",
                "format",
                "string",
                None,
                required=False,
                enum=("json", "arrow", "csv", "ndjson", "parquet"),
            ),
        ),
        ScreenRowPage,
        collection=True,
    ),
    "analytics.combine": Endpoint(
        "analytics.combine",
        "/v1/analytics/combine",
        (
            Param("alphas", "alphas", "string", None, required=True, enum=None),
            Param("book", "book", "string", "long_short", required=False, enum=("long_short",)),
            Param(
                "weighting",
                "weighting",
                "string",
                "equal",
                required=False,
                enum=("equal", "given", "inverse_volatility", "max_ir"),
            ),
            Param("weights", "weights", "string", None, required=False, enum=None),
            Param("shrinkage", "shrinkage", "number", None, required=False, enum=None),
            Param("from", "start", "date", None, required=False, enum=None),
            Param("to", "end", "date", None, required=False, enum=None),
            Param("limit", "limit", "integer", 500, required=False, enum=None),
            Param("offset", "offset", "integer", 0, required=False, enum=None),
        ),
        CombinedRowPage,
        collection=True,
    ),
    "analytics.contribution": Endpoint(
        "analytics.contribution",
        "/v1/alphas/{alpha}/analytics/contribution",
        (
            Param("reference", "reference", "string", None, required=False, enum=None),
            Param("weight", "weight", "number", None, required=False, enum=None),
            Param("from", "start", "date", None, required=False, enum=None),
            Param("to", "end", "date", None, required=False, enum=None),
        ),
        ContributionResponse,
        collection=False,
    ),
    "analytics.checks": Endpoint(
        "analytics.checks",
        "/v1/alphas/{alpha}/analytics/checks",
        (
            Param("book", "book", "string", "long_short", required=False, enum=None),
            Param("from", "start", "date", None, required=False, enum=None),
            Param("to", "end", "date", None, required=False, enum=None),
            Param(
                "min_information_ratio", "min_information_ratio", "number", None, required=False, enum=None
            ),
            Param("min_deflated_sharpe", "min_deflated_sharpe", "number", None, required=False, enum=None),
            Param("min_turnover", "min_turnover", "number", None, required=False, enum=None),
            Param("max_turnover", "max_turnover", "number", None, required=False, enum=None),
            Param("max_weight", "max_weight", "number", None, required=False, enum=None),
            Param(
                "min_recent_information_ratio",
                "min_recent_information_ratio",
                "number",
                None,
                required=False,
                enum=None,
            ),
            Param(
                "min_yearly_consistency", "min_yearly_consistency", "number", None, required=False, enum=None
            ),
            Param(
                "min_stressed_net_information_ratio",
                "min_stressed_net_information_ratio",
                "number",
                None,
                required=False,
                enum=None,
            ),
            Param(
                "max_production_correlation",
                "max_production_correlation",
                "number",
                None,
                required=False,
                enum=None,
            ),
            Param("min_ic_t_stat", "min_ic_t_stat", "number", None, required=False, enum=None),
        ),
        ChecksResponse,
        collection=False,
    ),
    "analytics.compare": Endpoint(
        "analytics.compare",
        "/v1/alphas/{alpha}/analytics/compare",
        (
            Param("with", "other", "string", None, required=True, enum=None),
            Param("book", "book", "string", "long_short", required=False, enum=None),
            Param("window", "window", "string", "63", required=False, enum=("21", "63", "126", "252")),
            Param("from", "start", "date", None, required=False, enum=None),
            Param("to", "end", "date", None, required=False, enum=None),
        ),
        ComparisonResponse,
        collection=False,
    ),
    "analytics.risk": Endpoint(
        "analytics.risk",
        "/v1/alphas/{alpha}/analytics/risk",
        (
            Param("book", "book", "string", "long_short", required=False, enum=None),
            Param("from", "start", "date", None, required=False, enum=None),
            Param("to", "end", "date", None, required=False, enum=None),
        ),
        RiskResponse,
        collection=False,
    ),
    "analytics.doc": Endpoint(
        "analytics.doc",
        "/v1/alphas/{alpha}/analytics/_doc",
        (),
        AnalyticsDocResponse,
        collection=False,
    ),
    "exports.list": Endpoint(
        "exports.list",
        "/v1/alphas/{alpha}/exports",
        (
            Param("limit", "limit", "integer", 100, required=False, enum=None),
            Param("offset", "offset", "integer", 0, required=False, enum=None),
            Param(
                "format",
                "format",
                "string",
                None,
                required=False,
                enum=("json", "arrow", "csv", "ndjson", "parquet"),
            ),
        ),
        ExportRowPage,
        collection=True,
    ),
    "exports.download": Endpoint(
        "exports.download",
        "/v1/alphas/{alpha}/exports/{dataset}",
        (Param("book", "book", "string", None, required=False, enum=None),),
        ExportDownloadResponse,
        collection=False,
    ),
    "admin.alphas.readiness": Endpoint(
        "admin.alphas.readiness",
        "/v1/admin/alphas/{alpha}/readiness",
        (),
        ReadinessResponse,
        collection=False,
        admin=True,
    ),
    "admin.keys.usage": Endpoint(
        "admin.keys.usage",
        "/v1/admin/keys/{key_id}/usage",
        (),
        KeyUsageResponse,
        collection=False,
        admin=True,
    ),
    "admin.builds.list": Endpoint(
        "admin.builds.list",
        "/v1/admin/builds",
        (
            Param("limit", "limit", "integer", 100, required=False, enum=None),
            Param("offset", "offset", "integer", 0, required=False, enum=None),
            Param(
                "format",
                "format",
                "string",
                None,
                required=False,
                enum=("json", "arrow", "csv", "ndjson", "parquet"),
            ),
        ),
        BuildRowPage,
        collection=True,
        admin=True,
    ),
}
"""Every route of the registry, by registry id."""

COLUMN_SETS: dict[str, dict[str, tuple[str, ...]]] = {
    "signals.scores": {
        "core": (
            "date",
            "symbol",
            "score",
            "score_z",
            "average_rank",
            "direction",
            "long_short_target_weight",
            "long_only_target_weight",
            "forward_return",
            "raw_score",
        ),
        "all": (
            "date",
            "symbol",
            "direction",
            "confidence",
            "score",
            "raw_score",
            "score_z",
            "average_rank",
            "cohort_size",
            "long_short_target_weight",
            "long_only_target_weight",
            "next_open_tradeable",
            "fill_at",
            "entry_at",
            "maturity_at",
            "forward_return",
            "unavailability_reason",
            "decision_reason",
            "raw_direction",
            "raw_confidence",
            "raw_score_z",
            "raw_average_rank",
            "raw_long_short_target_weight",
            "raw_long_only_target_weight",
            "raw_fill_at",
            "raw_decision_reason",
        ),
    },
}
"""The columns each value of a column-set parameter (`fields=` on /scores) serves."""


# -- error codes -----------------------------------------------------------------------------------


class BadRequestError(InvalidRequestError):
    """400 `bad_request`: The request has invalid parameters."""

    code = "bad_request"
    status = 400


class UnknownBookError(InvalidRequestError):
    """400 `unknown_book`: The book does not exist for this alpha."""

    code = "unknown_book"
    status = 400


class InvalidApiKeyError(AuthenticationError):
    """401 `invalid_api_key`: The API key is not recognised."""

    code = "invalid_api_key"
    status = 401


class KeyExpiredError(AuthenticationError):
    """401 `key_expired`: The API key has expired."""

    code = "key_expired"
    status = 401


class KeyRevokedError(AuthenticationError):
    """401 `key_revoked`: The API key has been revoked."""

    code = "key_revoked"
    status = 401


class KeySuspendedError(AuthenticationError):
    """401 `key_suspended`: The API key is suspended."""

    code = "key_suspended"
    status = 401


class MalformedApiKeyError(AuthenticationError):
    """401 `malformed_api_key`: The API key is not of the documented shape."""

    code = "malformed_api_key"
    status = 401


class MissingApiKeyError(AuthenticationError):
    """401 `missing_api_key`: No API key was presented; send Authorization: Bearer <key>."""

    code = "missing_api_key"
    status = 401


class AccountInactiveError(PermissionDeniedError):
    """403 `account_inactive`: The account that owns this key is not active."""

    code = "account_inactive"
    status = 403


class AlphaNotAllowedError(PermissionDeniedError):
    """403 `alpha_not_allowed`: The key may not read this alpha."""

    code = "alpha_not_allowed"
    status = 403


class DownloadUrlExpiredError(PermissionDeniedError):
    """403 `download_url_expired`: The download URL has expired; request a new one."""

    code = "download_url_expired"
    status = 403


class DownloadUrlInvalidError(PermissionDeniedError):
    """403 `download_url_invalid`: The download URL's signature does not match."""

    code = "download_url_invalid"
    status = 403


class EndpointNotAllowedError(PermissionDeniedError):
    """403 `endpoint_not_allowed`: The key may not call this endpoint."""

    code = "endpoint_not_allowed"
    status = 403


class IpNotAllowedError(PermissionDeniedError):
    """403 `ip_not_allowed`: The caller address is not on the key's IP allow-list."""

    code = "ip_not_allowed"
    status = 403


class RunNotAllowedError(PermissionDeniedError):
    """403 `run_not_allowed`: The key may not read this run."""

    code = "run_not_allowed"
    status = 403


class AlphaDescriptionNotFoundError(ResourceNotFoundError):
    """404 `alpha_description_not_found`: The run sealed no written description."""

    code = "alpha_description_not_found"
    status = 404


class AlphaNotFoundError(ResourceNotFoundError):
    """404 `alpha_not_found`: No alpha with that id."""

    code = "alpha_not_found"
    status = 404


class ExportNotFoundError(ResourceNotFoundError):
    """404 `export_not_found`: No such Parquet export for this key; see /v1/alphas/{alpha}/exports."""

    code = "export_not_found"
    status = 404


class KeyNotFoundError(ResourceNotFoundError):
    """404 `key_not_found`: No key with that id."""

    code = "key_not_found"
    status = 404


class MethodNotAllowedError(ResourceNotFoundError):
    """404 `method_not_allowed`: Only GET is served."""

    code = "method_not_allowed"
    status = 404


class NotFoundError(ResourceNotFoundError):
    """404 `not_found`: No such path."""

    code = "not_found"
    status = 404


class RebalanceNotFoundError(ResourceNotFoundError):
    """404 `rebalance_not_found`: The date is not a rebalance date of this alpha."""

    code = "rebalance_not_found"
    status = 404


class RunNotFoundError(ResourceNotFoundError):
    """404 `run_not_found`: No run with that id."""

    code = "run_not_found"
    status = 404


class SourceNotReadyError(ResourceNotFoundError):
    """404 `source_not_ready`: The source archive is not packaged yet; retry later."""

    code = "source_not_ready"
    status = 404


class SourceObjectMissingError(ResourceNotFoundError):
    """404 `source_object_missing`: The source archive was recorded as delivered but is absent."""

    code = "source_object_missing"
    status = 404


class NotAcceptableError(ApiError):
    """406 `not_acceptable`: None of the representations in Accept is offered; see
    error.details.offered.
    """

    code = "not_acceptable"
    status = 406


class RequestHeadTimeoutError(ApiError):
    """408 `request_head_timeout`: The request head did not arrive in time."""

    code = "request_head_timeout"
    status = 408


class RequestTargetTooLongError(ApiError):
    """414 `request_target_too_long`: The request target (path and query string) is too long."""

    code = "request_target_too_long"
    status = 414


class QuotaExceededError(RateLimitedError):
    """429 `quota_exceeded`: Monthly quota exhausted."""

    code = "quota_exceeded"
    status = 429


class RateLimitDayError(RateLimitedError):
    """429 `rate_limit_day`: Per-day rate limit exceeded."""

    code = "rate_limit_day"
    status = 429


class RateLimitMinuteError(RateLimitedError):
    """429 `rate_limit_minute`: Per-minute rate limit exceeded."""

    code = "rate_limit_minute"
    status = 429


class RateLimitSecondError(RateLimitedError):
    """429 `rate_limit_second`: Per-second rate limit exceeded."""

    code = "rate_limit_second"
    status = 429


class RequestHeadTooLargeError(ApiError):
    """431 `request_head_too_large`: The request head (request line and header fields) is too large."""

    code = "request_head_too_large"
    status = 431


class InternalError(ServerError):
    """500 `internal_error`: The service failed to answer this request."""

    code = "internal_error"
    status = 500


class AnalyticsNotBuiltError(UnavailableError):
    """503 `analytics_not_built`: The served build predates the analytics tables (pipeline 2.1); an
    operator rebuilds it with `alpha-results build`.
    """

    code = "analytics_not_built"
    status = 503


class BenchmarkNotConfiguredError(UnavailableError):
    """503 `benchmark_not_configured`: This deployment has no market-data service."""

    code = "benchmark_not_configured"
    status = 503


class BenchmarkUnavailableError(UnavailableError):
    """503 `benchmark_unavailable`: Market data is temporarily unreachable; retry with backoff."""

    code = "benchmark_unavailable"
    status = 503
    retryable = True


class ExportDownloadNotConfiguredError(UnavailableError):
    """503 `export_download_not_configured`: Export downloads are not configured on this deployment (no
    object-store credentials for an S3 lake, or no readable signing key for a local one).
    """

    code = "export_download_not_configured"
    status = 503


class ExportDownloadUnavailableError(UnavailableError):
    """503 `export_download_unavailable`: The object store failed while signing; retry with backoff."""

    code = "export_download_unavailable"
    status = 503
    retryable = True


class ExportsNotBuiltError(UnavailableError):
    """503 `exports_not_built`: The served build predates Parquet exports (pipeline 2.0); an operator
    rebuilds it with `alpha-results build`.
    """

    code = "exports_not_built"
    status = 503


class SourceDownloadNotConfiguredError(UnavailableError):
    """503 `source_download_not_configured`: Source downloads are not configured on this deployment (no
    object-store credentials for an S3 lake, or no readable signing key for a local one).
    """

    code = "source_download_not_configured"
    status = 503


class SourceDownloadUnavailableError(UnavailableError):
    """503 `source_download_unavailable`: The object store failed while signing; retry with backoff."""

    code = "source_download_unavailable"
    status = 503
    retryable = True


class TooManyConnectionsError(UnavailableError):
    """503 `too_many_connections`: The server holds as many connections as it accepts; retry shortly."""

    code = "too_many_connections"
    status = 503


class UpstreamUnavailableError(UnavailableError):
    """503 `upstream_unavailable`: The results store is temporarily unreachable; retry with backoff."""

    code = "upstream_unavailable"
    status = 503
    retryable = True


ERROR_CLASSES: dict[str, type[ApiError]] = {
    "bad_request": BadRequestError,
    "unknown_book": UnknownBookError,
    "invalid_api_key": InvalidApiKeyError,
    "key_expired": KeyExpiredError,
    "key_revoked": KeyRevokedError,
    "key_suspended": KeySuspendedError,
    "malformed_api_key": MalformedApiKeyError,
    "missing_api_key": MissingApiKeyError,
    "account_inactive": AccountInactiveError,
    "alpha_not_allowed": AlphaNotAllowedError,
    "download_url_expired": DownloadUrlExpiredError,
    "download_url_invalid": DownloadUrlInvalidError,
    "endpoint_not_allowed": EndpointNotAllowedError,
    "ip_not_allowed": IpNotAllowedError,
    "run_not_allowed": RunNotAllowedError,
    "alpha_description_not_found": AlphaDescriptionNotFoundError,
    "alpha_not_found": AlphaNotFoundError,
    "export_not_found": ExportNotFoundError,
    "key_not_found": KeyNotFoundError,
    "method_not_allowed": MethodNotAllowedError,
    "not_found": NotFoundError,
    "rebalance_not_found": RebalanceNotFoundError,
    "run_not_found": RunNotFoundError,
    "source_not_ready": SourceNotReadyError,
    "source_object_missing": SourceObjectMissingError,
    "not_acceptable": NotAcceptableError,
    "request_head_timeout": RequestHeadTimeoutError,
    "request_target_too_long": RequestTargetTooLongError,
    "quota_exceeded": QuotaExceededError,
    "rate_limit_day": RateLimitDayError,
    "rate_limit_minute": RateLimitMinuteError,
    "rate_limit_second": RateLimitSecondError,
    "request_head_too_large": RequestHeadTooLargeError,
    "internal_error": InternalError,
    "analytics_not_built": AnalyticsNotBuiltError,
    "benchmark_not_configured": BenchmarkNotConfiguredError,
    "benchmark_unavailable": BenchmarkUnavailableError,
    "export_download_not_configured": ExportDownloadNotConfiguredError,
    "export_download_unavailable": ExportDownloadUnavailableError,
    "exports_not_built": ExportsNotBuiltError,
    "source_download_not_configured": SourceDownloadNotConfiguredError,
    "source_download_unavailable": SourceDownloadUnavailableError,
    "too_many_connections": TooManyConnectionsError,
    "upstream_unavailable": UpstreamUnavailableError,
}
"""The exception class of each error code the server declares."""

__all__ = [
    "AccountInactiveError",
    "Allow",
    "AllowList",
    "AlphaDescriptionNotFoundError",
    "AlphaDescriptionResponse",
    "AlphaListRow",
    "AlphaListRowPage",
    "AlphaNotAllowedError",
    "AlphaNotFoundError",
    "AnalyticsDocResponse",
    "AnalyticsNotBuiltError",
    "BadRequestError",
    "BenchmarkEcho",
    "BenchmarkNotConfiguredError",
    "BenchmarkRow",
    "BenchmarkRowMeta",
    "BenchmarkRowPage",
    "BenchmarkSummary",
    "BenchmarkUnavailableError",
    "BookRow",
    "BookRowPage",
    "BuildRow",
    "BuildRowPage",
    "ChecksResponse",
    "CombinedFigures",
    "CombinedRow",
    "CombinedRowMeta",
    "CombinedRowPage",
    "ComparisonMeta",
    "ComparisonResponse",
    "ContributionResponse",
    "CorrelationMatrix",
    "CorrelationRow",
    "CorrelationRowMeta",
    "CorrelationRowPage",
    "CostsResponse",
    "DecisionRow",
    "DecisionRowMeta",
    "DecisionRowPage",
    "DownloadUrlExpiredError",
    "DownloadUrlInvalidError",
    "DrawdownRow",
    "DrawdownRowPage",
    "EndpointNotAllowedError",
    "EquityRow",
    "EquityRowMeta",
    "EquityRowPage",
    "EquitySummary",
    "ErrorBody",
    "ErrorEnvelope",
    "ExportDownload",
    "ExportDownloadNotConfiguredError",
    "ExportDownloadResponse",
    "ExportDownloadUnavailableError",
    "ExportNotFoundError",
    "ExportRow",
    "ExportRowPage",
    "ExportsNotBuiltError",
    "FieldPolicy",
    "Health",
    "HealthLake",
    "InternalError",
    "InvalidApiKeyError",
    "IpNotAllowedError",
    "KeyExpiredError",
    "KeyInventoryRow",
    "KeyInventoryRowMeta",
    "KeyInventoryRowPage",
    "KeyNotFoundError",
    "KeyRevokedError",
    "KeySuspendedError",
    "KeyUsage",
    "KeyUsageMeta",
    "KeyUsageResponse",
    "LedgerRow",
    "LedgerRowPage",
    "MalformedApiKeyError",
    "Me",
    "MeMeta",
    "MeResponse",
    "Meta",
    "MethodNotAllowedError",
    "MetricsDocResponse",
    "MetricsResponse",
    "MissingApiKeyError",
    "NotAcceptableError",
    "NotFoundError",
    "Pagination",
    "PnlRow",
    "PnlRowPage",
    "PositionRow",
    "PositionRowPage",
    "QuotaExceededError",
    "RateLimit",
    "RateLimitDayError",
    "RateLimitMinuteError",
    "RateLimitSecondError",
    "Readiness",
    "ReadinessResponse",
    "RebalanceIndexRow",
    "RebalanceIndexRowPage",
    "RebalanceNotFoundError",
    "RequestHeadTimeoutError",
    "RequestHeadTooLargeError",
    "RequestTargetTooLongError",
    "ResponseWarning",
    "RiskResponse",
    "RollingRow",
    "RollingRowMeta",
    "RollingRowPage",
    "RunNotAllowedError",
    "RunNotFoundError",
    "ScoreRow",
    "ScoreRowMeta",
    "ScoreRowPage",
    "ScreenRow",
    "ScreenRowPage",
    "Shrinkage",
    "SignificanceResponse",
    "SourceDownload",
    "SourceDownloadNotConfiguredError",
    "SourceDownloadResponse",
    "SourceDownloadUnavailableError",
    "SourceNotReadyError",
    "SourceObjectMissingError",
    "StatEntry",
    "TooManyConnectionsError",
    "TradeRow",
    "TradeRowPage",
    "UnknownBookError",
    "UpstreamUnavailableError",
    "Usage",
    "WeightEntry",
    "Window",
]
