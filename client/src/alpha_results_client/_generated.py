"""Types, endpoints and methods of the alpha-results API, generated from the server's OpenAPI
document (/openapi.json) by client/scripts/generate.py. Do not edit: run
`.venv/bin/python client/scripts/generate.py` against a server of the release.

The types the hand-written modules read too (a page's meta, the errors, the exports) are in
`_envelope.py`, which no new route changes; they are imported and re-exported here.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any, Literal

import msgspec
from msgspec import UNSET, UnsetType

from alpha_results_client._envelope import ERROR_CLASSES as ERROR_CLASSES
from alpha_results_client._envelope import (
    AccountInactiveError,
    AlphaDescriptionNotFoundError,
    AlphaNotAllowedError,
    AlphaNotFoundError,
    AnalyticsNotBuiltError,
    AsOfBudgetExceededError,
    AsOfGoneError,
    BadRequestError,
    BenchmarkNotConfiguredError,
    BenchmarkUnavailableError,
    DownloadUrlExpiredError,
    DownloadUrlInvalidError,
    EgressBudgetExceededError,
    Endpoint,
    EndpointNotAllowedError,
    ErrorBody,
    ErrorEnvelope,
    ExportDownload,
    ExportDownloadNotConfiguredError,
    ExportDownloadResponse,
    ExportDownloadUnavailableError,
    ExportNotFoundError,
    ExportRow,
    ExportRowPage,
    ExportsNotBuiltError,
    InternalError,
    InvalidApiKeyError,
    IpNotAllowedError,
    KeyExpiredError,
    KeyNotFoundError,
    KeyRevokedError,
    KeySuspendedError,
    MalformedApiKeyError,
    Meta,
    MethodNotAllowedError,
    MissingApiKeyError,
    NotAcceptableError,
    NotFoundError,
    Pagination,
    Param,
    QuotaExceededError,
    RateLimitDayError,
    RateLimitMinuteError,
    RateLimitSecondError,
    RebalanceNotFoundError,
    RequestBodyTimeoutError,
    RequestHeadTimeoutError,
    RequestHeadTooLargeError,
    RequestTargetTooLongError,
    ResponseWarning,
    RunNotAllowedError,
    RunNotFoundError,
    SourceDownload,
    SourceDownloadNotConfiguredError,
    SourceDownloadUnavailableError,
    SourceNotReadyError,
    SourceObjectMissingError,
    TooManyConnectionsError,
    TooManyRequestBodiesError,
    TooManyStreamsError,
    UnknownBookError,
    UpstreamUnavailableError,
)
from alpha_results_client._struct import ApiStruct
from alpha_results_client.paging import Collection, Series
from alpha_results_client.tables import (
    ChecksTables,
    CombinationTables,
    ComparisonTables,
    ContributionTables,
    RiskTables,
)

REGISTRY_VERSION = "r-658e45d6872d"
"""The endpoint registry these types were generated from (`registry_version` of /v1/health)."""


class HealthLake(ApiStruct, kw_only=True, frozen=True):
    """Damage found in the lake's builds."""

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
    """Identifies the endpoint-registry version; changes when an endpoint's id, group, path or admin
    flag changes.
    """

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
    """One allow-list: every id, the ids listed, or the ids starting with a listed prefix."""

    mode: str
    """`all`, `list` (the ids in `ids`) or `prefix` (ids starting with a prefix)."""

    ids: list[str] | UnsetType = UNSET
    """Ids allowed in `list` mode. Present in `list` mode."""

    prefixes: list[str] | UnsetType = UNSET
    """Id prefixes allowed in `prefix` mode. Present in `prefix` mode."""


class Allow(ApiStruct, kw_only=True, frozen=True):
    """The key's allow-lists in force: endpoints, alphas, runs."""

    endpoints: AllowList
    """Endpoint allow-list: registry ids the key may call."""

    alphas: AllowList
    """Alpha allow-list: alphas the key may list and whose description it may read."""

    runs: AllowList
    """Run allow-list: runs whose data the key may read (every `/v1/alphas/{alpha}/...` data route)."""


class FieldPolicy(ApiStruct, kw_only=True, frozen=True):
    """The key's field policy."""

    expose_raw_book: bool
    """Raw-book access: when false, every `raw_*` field is stripped and `raw_` books are invisible."""


class RateLimit(ApiStruct, kw_only=True, frozen=True):
    """The key's rate envelope; a null monthly quota is an unlimited month."""

    per_second: int
    """Requests allowed per second. Unit: requests."""

    per_minute: int
    """Requests allowed per minute. Unit: requests."""

    per_day: int
    """Requests allowed per day. Unit: requests."""

    monthly_requests: int | None
    """Monthly request quota. Unit: requests. Null means an unlimited month."""


class Usage(ApiStruct, kw_only=True, frozen=True):
    """Requests counted in each window by the enforcing limiter, and what remains of each."""

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


class AccountUsage(ApiStruct, kw_only=True, frozen=True):
    """The account's pooled usage: requests of every credential of the account (its keys, access tokens
    and dashboard sessions) counted in each window, and what remains of the account's pooled
    envelope, which an operator may set on top of each credential's own.
    """

    second: int
    """Requests of the account counted in the current second. Unit: requests."""

    minute: int
    """Requests of the account counted in the current minute. Unit: requests."""

    day: int
    """Requests of the account counted in the current day. Unit: requests."""

    month: int
    """Requests of the account counted in the current month. Unit: requests."""

    remaining_second: int | None
    """The account's pooled per-second cap minus its usage, floored at 0. Unit: requests. Null when the
    account has no pooled per-second cap.
    """

    remaining_minute: int | None
    """The account's pooled per-minute cap minus its usage, floored at 0. Unit: requests. Null when the
    account has no pooled per-minute cap.
    """

    remaining_day: int | None
    """The account's pooled per-day cap minus its usage, floored at 0. Unit: requests. Null when the
    account has no pooled per-day cap.
    """

    remaining_month: int | None
    """The account's pooled monthly quota minus its usage, floored at 0. Unit: requests. Null when the
    account has no pooled monthly quota.
    """


class Me(ApiStruct, kw_only=True, frozen=True):
    """`GET /v1/me` `data`: the calling key, its owner and what the key may do now."""

    credential: str
    """What this request presented: `key` (an API key), `oauth` (an access token of the OAuth
    authorization server, `/mcp` only; `key_name` `oauth:<client_id>`) or `session` (a person signed
    in to the dashboard; `key_name` `session`). A token's and a session's `key_id` is the account's
    one credential id, `acc` and 13 hex digits: the account's tokens and sessions share its windows,
    quota and egress budgets.
    """

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

    account_usage: AccountUsage
    """Requests of every credential of the owner's account (its keys, access tokens and dashboard
    sessions) counted in each window, and what remains of the account's pooled envelope: a request
    is admitted only when both its credential's envelope and the account's admit it.
    """

    callable_endpoints: list[str]
    """Registry ids the key may actually call."""

    registry_version: str
    """Identifies the endpoint-registry version; changes when an endpoint's id, group, path or admin
    flag changes.
    """

    ip: str
    """Caller address as the service sees it (through the configured number of trusted proxy hops)."""


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
    """A row of `GET /v1/me/keys`: one unrevoked key of the caller's account."""

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

    standing: str
    """Where the alpha stands after the operator's decisions (`alpha-results promote`, `retire`;
    `/v1/alphas/{alpha}/promotions` serves them): approved (its latest decision approved it into the
    live book), retired (its latest retired it), or never (no decision recorded, or a deployment
    that keeps no records).
    """

    approved_since: dt.date | None
    """The date the approval in force takes effect (its `as_of`; where the alpha's live part starts).
    Unit: ISO date (YYYY-MM-DD). Null unless `standing` is approved.
    """


class AlphaListRowPage(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas` (catalog.alphas.list)."""

    data: list[AlphaListRow]

    pagination: Pagination

    meta: Meta


class FamilyMemberRow(ApiStruct, kw_only=True, frozen=True):
    """A row of `/v1/families`: one member the key may read of one trial family (by family slug, then
    catalogue order; issue 60: the listing is paged, one answer held 50,000 members).
    """

    family: str
    """The family's slug, as its members' seals name it."""

    alpha_id: str
    """The member's alpha id."""

    parameters: dict[str, float | int | str]
    """The parameters its seal names (a flat mapping of names to numbers or short texts; empty if none)"""


class FamilyMemberRowPage(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/families` (catalog.families.list)."""

    data: list[FamilyMemberRow]

    pagination: Pagination

    meta: Meta


class Classification(ApiStruct, kw_only=True, frozen=True):
    """`classification` of the alpha description."""

    frequency: list[str] | None
    """Lowercase cadences from `intraday`, `daily`, `weekly`, as sealed."""

    method: str | None
    """The alpha's method, such as `blend`."""

    structure: str | None
    """The alpha's structure, such as `cross_sectional_long_short`."""

    tags: list[str] | None
    """Labels of the alpha, as sealed."""


class DataField(ApiStruct, kw_only=True, frozen=True):
    """An entry of `data_requirements.fields`, as sealed."""

    category: str | None | UnsetType = UNSET
    """Kind of data, such as `price` or `liquidity`."""

    name: str
    """The data field's name, such as `close`."""

    required: bool | None | UnsetType = UNSET
    """Whether the alpha cannot run without the field."""


class DataRequirements(ApiStruct, kw_only=True, frozen=True):
    """`data_requirements` of the alpha description."""

    adjustment: str | None
    """Price adjustment of the inputs, such as `split_and_dividend_adjusted`."""

    fields: list[DataField] | None
    """The data fields the alpha reads, each `{name, category, required}`."""

    granularity: str | None
    """Granularity of the input bars, the unit the bar counts are counted in."""

    history_requirement: str | None
    """Prose; populated instead of the bar counts."""

    lookback_bars: int | None
    """Counted in the granularity unit; null when `history_requirement` is used instead."""

    universe: str | None
    """The universe of names the alpha scores."""

    warmup_bars: int | None
    """Bars before the first score, in the granularity unit; null when `history_requirement` is used
    instead.
    """


class Parameter(ApiStruct, kw_only=True, frozen=True):
    """An entry of `parameters`, as sealed."""

    default: int | float | str | bool | None | UnsetType = UNSET
    """The parameter's default value."""

    description: str | None | UnsetType = UNSET
    """What the parameter controls."""

    name: str
    """The parameter's name."""

    range: list[float] | None | UnsetType = UNSET
    """Two numbers: the lower and upper bound."""

    search_values: list[int | float | str | bool | None] | None | UnsetType = UNSET
    """The values the parameter search tries."""

    selected_value_by_test_year: dict[str, str | None] | None | UnsetType = UNSET
    """Map from test year (string) to the value selected for it (string)."""

    tunable: bool | None | UnsetType = UNSET
    """Whether the parameter search tunes the parameter."""

    type: str | None | UnsetType = UNSET
    """Value type, such as `float`."""

    unit: str | None | UnsetType = UNSET
    """Unit of the value, such as `ratio`."""


class Signal(ApiStruct, kw_only=True, frozen=True):
    """`signal` of the alpha description."""

    core_math_framework: str | None
    """The core mathematics of the score."""

    decision_timing: str | None
    """When scores are computed and when the books act on them."""

    output_contract: str | None
    """What the signal emits per decision, and which end is attractive."""

    pseudocode: list[str] | None
    """The score's computation, one line of pseudocode per string."""

    score_direction: str | None
    """Which end of the score is held long, such as `higher_is_long`."""

    signal_logic: str | None
    """How the signal is built from its inputs, in prose."""

    validity_rules: list[str] | None
    """When a name or a week has a usable score, one rule per string."""


class SourcePaper(ApiStruct, kw_only=True, frozen=True):
    """An entry of `source_papers`, as sealed."""

    published_date: str | None
    """Publication date, such as `1993-03-01`."""

    rationale: str | None
    """Why the paper is cited for this alpha."""

    role: str | None
    """`seed`, `mechanism`, `validation` or `contradiction`; exactly one `seed`."""

    title: str | None
    """Title of the paper."""


class FalsificationCriterion(ApiStruct, kw_only=True, frozen=True):
    """An entry of `thesis.falsification_criteria`, as sealed."""

    horizon: str | None | UnsetType = UNSET
    """Horizon over which the metric is judged."""

    metric: str | None | UnsetType = UNSET
    """The metric the kill condition tests."""

    threshold: float | str | None | UnsetType = UNSET
    """Value of the metric at which the alpha is falsified."""


class Thesis(ApiStruct, kw_only=True, frozen=True):
    """`thesis` of the alpha description."""

    economic_rationale: str | None
    """Why the effect should persist: the economic rationale."""

    falsification_criteria: list[FalsificationCriterion]
    """Pre-committed kill conditions; empty on every delivered alpha."""

    hypothesis: str | None
    """The hypothesis the alpha tests."""

    mechanism: str | None
    """The mechanism by which the hypothesised effect arises."""

    who_loses: str | None
    """Who is on the other side of the trade and loses to it."""


class AlphaDescription(ApiStruct, kw_only=True, frozen=True):
    """The written description of one alpha: every key present, unsealed values null."""

    algo_id: str
    """The alpha identifier (collection name)."""

    alpha_id: str
    """Identical to `algo_id` (the older name, kept for compatibility)."""

    classification: Classification
    """Structure, method, frequency and tags of the alpha."""

    copyright: str | None
    """Copyright line."""

    data_requirements: DataRequirements
    """Universe, granularity, history, adjustment and data fields the alpha needs."""

    name: str
    """Display name."""

    parameters: list[Parameter] | None
    """The alpha's parameters with their defaults and search."""

    signal: Signal
    """How the score is computed, timed and read."""

    source_papers: list[SourcePaper]
    """The papers the alpha cites, exactly one with role `seed`; empty when none sealed."""

    thesis: Thesis
    """Hypothesis, mechanism, who loses, economic rationale and falsification criteria."""

    tldr: str | None
    """One-line thesis."""


class AlphaDescriptionResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}` (catalog.alphas.get)."""

    data: AlphaDescription

    meta: Meta


class PolicySeen(ApiStruct, kw_only=True, frozen=True):
    """The operator's policy as the decision saw it."""

    origin: str
    """defaults (the documented thresholds) or operator (the policy file)"""

    thresholds: dict[str, dict[str, float]]
    """Check id -> its bounds that day: {min}, {max} or both."""


class CheckSeen(ApiStruct, kw_only=True, frozen=True):
    """One check as the decision saw it."""

    id: str
    """The check's id, as /analytics/checks."""

    value: float | None
    """Its value up to the decision's date, in its unit (see unit); null when not measurable."""

    unit: str
    """Unit of value."""

    verdict: str
    """pass, fail or not_measurable."""

    reason: str
    """The comparison in words, as /analytics/checks reason; for a check withheld from this key, why
    (access_limited: ...).
    """


class DecisionRead(ApiStruct, kw_only=True, frozen=True):
    """What a decision read, so that it can be reproduced from the API (docs/events.md, "Reproducing a
    decision").
    """

    at: str
    """When the lake and the records were read (UTC, ISO 8601), before the decision was recorded: the
    as_of of the request that reproduces the snapshot.
    """

    generation: int | None
    """The catalogue generation read."""

    build_id: str
    """The alpha's build the checks were measured on."""

    reference_builds: dict[str, str]
    """The builds of the approved alphas the reference-set checks were measured against."""

    benchmark_build: str | None
    """SPY's build (the residual's regressor); null when none."""

    request: str
    """The request that answers the snapshot's checks again (a key that reads every alpha): the route,
    the book, the window and as_of (the builds served and the decisions recorded then).
    """


class Snapshot(ApiStruct, kw_only=True, frozen=True):
    """What was seen when deciding."""

    as_of: dt.date
    """The last day the checks were measured up to (the decision's as_of)."""

    policy: PolicySeen
    """The operator's policy that day."""

    checks: list[CheckSeen]
    """Every check, in the battery's order."""

    verdict: str | None
    """The overall verdict that day, as /analytics/checks summary.verdict: pass, fail or incomplete;
    null when withheld from this key (withheld_reason says why).
    """

    withheld_reason: str | None
    """Why the verdict (and, without /analytics/checks, every check) is withheld from this key: the
    checks were computed with the pipeline's view of every alpha, and a key sees only what its own
    /analytics/checks would answer (docs/security.md, "Stored figures"); null when nothing is.
    """

    override: str | None
    """Why the alpha was approved although its checks failed (alpha-results promote --override), in the
    operator's words; null when the verdict did not fail or for a retirement.
    """

    imported_from: str | None
    """Where a decision recorded as an import was taken (alpha-results promote --import), on its
    earlier as_of; null when it was taken when recorded.
    """

    read: DecisionRead | None
    """What the decision read and the request that answers the same checks again: the builds, the
    catalogue generation and the time the lake and the records were read (null in a record kept
    before it).
    """


class Decision(ApiStruct, kw_only=True, frozen=True):
    """One decision, as recorded (never changed)."""

    action: str
    """approved into the live book, or retired from it."""

    as_of: dt.date
    """The date the decision takes effect (an approval's is where the live part starts)"""

    decided_by: str
    """Who decided, as the operator recorded it."""

    note: str
    """Why, in the operator's words."""

    build_id: str
    """The build the catalogue served when it was decided."""

    recorded_at: str
    """When it was recorded (UTC, ISO 8601), by the records' clock: an approval's live part is the
    sessions first published after it.
    """

    snapshot: Snapshot
    """What the checks said up to as_of against the policy of that day."""

    served_build_id: str | None
    """The build the catalogue serves now when it is not the one decided on (the figures shown today
    are of another build than the decision's); null when it is the same.
    """


class Nomination(ApiStruct, kw_only=True, frozen=True):
    """One nomination: the alpha put in the review queue (it approves nothing)."""

    nominated_by: str
    """Who nominated it: seal (its run asked) or the operator's name."""

    note: str
    """Why, in the nominator's words."""

    build_id: str
    """The build nominated."""

    recorded_at: str
    """When it was recorded (UTC, ISO 8601)."""


class Promotions(ApiStruct, kw_only=True, frozen=True):
    """An alpha's promotion history (`/v1/alphas/{alpha}/promotions`)."""

    alpha: str
    """The alpha."""

    standing: str
    """Where it stands: approved (the latest decision approved it), nominated (in the review queue:
    nominated since its latest decision), retired, or never (no decision)
    """

    since: dt.date | None
    """as_of of the latest decision; null when never decided."""

    decisions: list[Decision]
    """Every decision, oldest first."""

    nominations: list[Nomination]
    """Every nomination, oldest first."""


class PromotionsResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/promotions` (catalog.alphas.promotions)."""

    data: Promotions

    meta: Meta


class RestatementRow(ApiStruct, kw_only=True, frozen=True):
    """One published value a later run changed, with both values."""

    restated_at: str
    """When the restating build was published (UTC, ISO 8601), by the lake's clock."""

    build_id: str
    """The build that restated it."""

    previous_build_id: str | None
    """The build that had published the value before."""

    dataset: str
    """portfolio (a ledger session's return), decisions (a week's scores) or metrics_stored (a stored
    metric of a closed period).
    """

    book: str | None
    """The ledger book (portfolio only); null otherwise."""

    date: dt.date
    """The session, the week, or the last day of the stored metric's period."""

    field: str
    """return, scores, or the stored metric's name."""

    period: str | None
    """A stored metric's scope:period (yearly:2022); null otherwise."""

    symbol: str | None
    """scores: the name whose score moved most that week; null otherwise."""

    before: float | None
    """The value published before, in the field's own unit (a return as a fraction, a score, a stored
    metric in its unit); null when the session was not there, or when the key may not read its data
    (withheld_reason).
    """

    after: float | None
    """The value published now; null when the session is gone, or withheld as before."""

    names_changed: int | None
    """scores: the names whose score changed, came or went that week; null otherwise."""

    withheld_reason: str | None
    """Why before and after are withheld from this key (access_limited: ...); null when they are not."""


class RestatementRowPage(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/restatements` (catalog.alphas.restatements)."""

    data: list[RestatementRow]

    pagination: Pagination

    meta: Meta


class ReviewEntry(ApiStruct, kw_only=True, frozen=True):
    """One nominated alpha."""

    alpha: str
    """The alpha."""

    nominated_at: str
    """When it was nominated (UTC, ISO 8601), by the records' clock."""

    nominated_by: str
    """Who nominated it: seal (its run asked for review) or an operator."""

    note: str
    """Why, in the nominator's words."""

    nominated_build_id: str
    """The build nominated."""

    build_id: str
    """The build the catalogue serves now (the checks are of it)."""

    verdict: str | None
    """The verdict of its long_short checks now (/analytics/checks summary.verdict): pass, fail or
    incomplete; null when the key may not call /analytics/checks or the build has no checks.
    """

    failed: list[str]
    """The ids of its checks that fail now, in the battery's order."""

    reason: str | None
    """Why the verdict is null (access_limited: ..., or what cannot be measured)."""


class ReviewQueue(ApiStruct, kw_only=True, frozen=True):
    """The review queue (`/v1/review`)."""

    approval_policy: str
    """The operator's written approval policy: never (only alpha-results promote approves) or
    every_check_passes (a nominated alpha whose verdict is pass is approved by the policy).
    """

    entries: list[ReviewEntry]
    """Every nominated alpha the key may read, oldest nomination first."""


class ReviewQueueResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/review` (catalog.review)."""

    data: ReviewQueue

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
    selection tails or when untradeable. Unit: fraction.
    """

    long_only_target_weight: float | None
    """Fraction of equity in the long-only book (>= 0); held names sum to 1; 0 when not held. Unit:
    fraction.
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
    strictly after the next decision. Unit: fraction. Null on pending weeks and unsealed holding
    periods; such weeks are dropped from IC and decile figures, never imputed.
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
    selection tails or when untradeable. Unit: fraction.
    """

    long_only_target_weight: float | None
    """Fraction of equity in the long-only book (>= 0); held names sum to 1; 0 when not held. Unit:
    fraction.
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
    strictly after the next decision. Unit: fraction. Null on pending weeks and unsealed holding
    periods; such weeks are dropped from IC and decile figures, never imputed.
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
    """One-sided traded fraction of this session: half the sum of absolute weight changes (not
    annualised: the checks' `turnover` per year is the mean of these times 252). Unit: fraction.
    """


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
    opening equity. Unit: fraction. Null until the window's first known `period_return`.
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
    """One-sided traded fraction of this session, carried from the same day's ledger row (not
    annualised). Unit: fraction.
    """


class EquitySummary(ApiStruct, kw_only=True, frozen=True):
    """`meta.summary` of `GET /v1/alphas/{alpha}/equity-curve` (portfolio.equity_curve): figures over
    the whole window, before paging.
    """

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


class Window(ApiStruct, kw_only=True, frozen=True):
    """`window`: the request's `from` and `to` echoed, null where open."""

    from_: dt.date | None = msgspec.field(name="from")
    """First trading day of the window, inclusive; null: the start of the history."""

    to: dt.date | None
    """Last trading day of the window, inclusive; null: the end of the history."""


class Stat(ApiStruct, kw_only=True, frozen=True):
    """One statistic: a value with its unit, or `not_measurable` with a null value and a reason. Its
    fields' meanings are also those of every stat entry in `/metrics/_doc`.
    """

    value: float | None
    """The number; null when not measurable"""

    unit: str
    """Unit of value: ratio, percentage_points, per_year, per_session, period_sum"""

    status: str
    """available or not_measurable"""

    withheld_reason: str | UnsetType = UNSET
    """Why the value is not measurable (present only then)"""

    source: str
    """Where the value comes from: metrics (the run's stored metrics)"""

    source_kind: str
    """fact, metric (stored by the run) or derived (computed by this service)"""

    signal: str | UnsetType = UNSET
    """IC family only: conditioned (score) or raw (raw_score)"""

    annualisation: str | UnsetType = UNSET
    """annualised, per_period or not_annualisable"""

    periods_per_year: int | UnsetType = UNSET
    """Annualisation factor applied: 52 for weekly series, 252 for daily"""

    risk_free_rate: float | None | UnsetType = UNSET
    """Annual risk-free rate the excess return is measured against (the run's, sealed overall)"""

    risk_free_rate_unit: str | UnsetType = UNSET
    """Unit of risk_free_rate (per_year)"""

    risk_free_rate_source: str | None | UnsetType = UNSET
    """Where the run took its risk-free rate from (prose from the run's metric conventions)"""

    deprecated: bool | UnsetType = UNSET
    """Always true: sharpe is kept for compatibility"""

    superseded_by: str | UnsetType = UNSET
    """Path of the field to use instead (core.information_ratio)"""


class Tenure(ApiStruct, kw_only=True, frozen=True):
    """`core.tenure` (and `periods[].core.tenure`) of the metrics object."""

    weeks: int | None
    """Rebalance dates in the window, pending and skipped weeks included; null with source portfolio"""

    traded_weeks: int | None
    """Rebalance dates with week_status traded; null with source portfolio"""

    first_rebalance: dt.date | None
    """First rebalance date in the window; null with source portfolio"""

    last_rebalance: dt.date | None
    """Last rebalance date in the window; null with source portfolio"""

    calendar_days: int | None
    """Elapsed days between the first and last rebalance (or, with source portfolio, the first and last
    ledger session)
    """

    years: float | None
    """calendar_days in years"""

    source: str
    """rebalances (the rebalance index) or portfolio (ledger session span fallback when the run has no
    rebalance index)
    """


class CoreStats(ApiStruct, kw_only=True, frozen=True):
    """Headline statistics, always of the long_short book."""

    ic: Stat
    """Mean weekly information coefficient of the conditioned score, as the run sealed it (an
    ic_reproduction_mismatch warning says when the weekly IC rebuilt from its cross-sections does
    not reproduce it; the screener's ic_reproduces is that flag)
    """

    icir: Stat
    """Information ratio of the weekly IC, annualised for every run (times sqrt(52), the run's
    weeks_per_year), as every served icir is (the screener, /analytics compare, rolling,
    significance): the sealed value where the run's conventions annualise it (source_kind metric),
    else the sealed per-week ratio times sqrt(52) (source_kind derived); icir_per_week is the
    per-week ratio
    """

    icir_per_week: Stat
    """Information ratio of the weekly IC per week (not annualised): the sealed value where the run
    sealed it per week (source_kind metric), else the sealed annualised icir divided by sqrt(52)
    (source_kind derived); icir is this times sqrt(52)
    """

    information_ratio: Stat
    """Risk-adjusted return of the long_short book, after costs and gross of the risk-free rate (not in
    excess of it, unlike excess_sharpe): daily returns times sqrt(252), as /analytics significance;
    /analytics rolling's is weekly times sqrt(52), and /analytics costs' gross is before costs.
    Elsewhere: quantstats' sharpe(r) and empyrical's sharpe_ratio, risk-free rate 0; not quantstats'
    information_ratio(r, benchmark), the mean over the standard deviation of r - benchmark, not
    annualised
    """

    excess_sharpe: Stat
    """Sharpe ratio of the long_short book net of the risk-free rate: quantstats' sharpe(r, rf) with
    the run's risk-free rate; not empyrical's excess_sharpe(r, benchmark), relative to a benchmark
    and not annualised
    """

    sharpe: Stat
    """Deprecated alias of core.information_ratio (same value)"""

    pnl: Stat
    """Profit and loss of the long_short book over the run, in units of its starting capital (the
    ledger is normalised to 1.0 at inception)
    """

    max_drawdown: Stat
    """Largest fall from a running equity peak (opening equity counts), in equity units (starting
    capital 1.0); quantstats' and empyrical's max_drawdown are the same fall as a negative fraction
    of the peak
    """

    max_drawdown_pct: Stat
    """Largest drawdown as a percentage of its peak, positive; quantstats' and empyrical's max_drawdown
    are the same fall as a negative fraction of the peak
    """

    turnover: Stat
    """Turnover of the long_short book; the first sealed of annualised_turnover (per_year), turnover
    (ratio), mean_turnover (per_session), total_turnover (period_sum)
    """

    annual_turnover: Stat
    """Turnover of the long_short book per year: the mean session turnover times 252, whichever
    turnover the run sealed (turnover in its sealed unit); not measurable when the run sealed only a
    turnover ratio (no period to annualise it by) or none, and for a summed turnover when the key
    may not read the ledger (its sessions are counted there)
    """

    tenure: Tenure | None
    """How long the run has been live inside the window; null when neither a rebalance index nor a
    readable ledger exists
    """


class RankIcConditioned(ApiStruct, kw_only=True, frozen=True):
    """`rank_ic.conditioned` of the metrics object."""

    hit_rate: Stat
    """Share of weeks with IC > 0"""

    dispersion: Stat
    """Standard deviation of the weekly IC"""

    coverage: Stat
    """Mean over weeks of scored names / universe size"""


class RankIcRaw(ApiStruct, kw_only=True, frozen=True):
    """`rank_ic.raw` of the metrics object."""

    ic: Stat
    """Mean weekly Spearman(raw_score, forward_return)"""

    icir: Stat
    """Mean / std(ddof=1) of the raw weekly IC, annualised for every run as core.icir is: the sealed
    value where the run's conventions annualise its ICIR, else the sealed per-week ratio times
    sqrt(52)
    """


class RankIc(ApiStruct, kw_only=True, frozen=True):
    """`rank_ic` of the metrics object."""

    conditioned: RankIcConditioned
    """Diagnostics of the conditioned score"""

    raw: RankIcRaw
    """Mean IC and ICIR of the raw (unconditioned) score; the only place they are served"""


class SignalProcessing(ApiStruct, kw_only=True, frozen=True):
    """`signal_processing` of the metrics object, as the run sealed it."""

    signal: str | None
    """Signal family the books trade (conditioned)"""

    smoothing_applied: bool | None
    """Whether the raw score was smoothed"""

    smoothing_half_life_weeks: int | float | None
    """Half-life of the exponential smoothing, in weeks (null when none)"""

    detail: str | None
    """Prose description of the conditioning"""


class Period(ApiStruct, kw_only=True, frozen=True):
    """An entry of `periods` of the metrics object."""

    period: str
    """Period label: YYYY (yearly) or YYYY-MM (monthly)"""

    core: CoreStats
    """Headline statistics of the long_short book, as the run stored them"""


class DecileBucket(ApiStruct, kw_only=True, frozen=True):
    """An entry of `ic_deciles.buckets` of the metrics object."""

    bucket: str
    """Q1 (lowest raw_score) .. Q10 (highest)"""

    rank: int
    """Bucket index 1..10"""

    weeks: int
    """Weeks contributing to the bucket"""

    mean_n_symbols: float | None
    """Mean names per week in the bucket"""

    mean_score: float | None
    """Mean of weekly mean raw_score"""

    mean_score_z: float | None
    """Mean of weekly mean raw_score_z"""

    mean_long_short_weight: float | None
    """Mean of weekly mean long_short target weight"""

    mean_long_only_weight: float | None
    """Mean of weekly mean long_only target weight"""

    mean_forward_return: float | None
    """Mean of weekly mean forward return (names with a forward return)"""

    ic: float | None
    """Mean of the weekly Spearman(raw_score, forward_return) inside the bucket"""

    n_return_obs: int
    """Forward-return observations summed over weeks"""


class Monotonicity(ApiStruct, kw_only=True, frozen=True):
    """`ic_deciles.monotonicity` of the metrics object."""

    spearman_bucket_vs_mean_forward_return: float | None
    """Spearman correlation of bucket index 1..10 with the bucket mean forward return"""

    top_minus_bottom: float | None
    """Mean forward return of Q10 minus that of Q1"""


class IcDeciles(ApiStruct, kw_only=True, frozen=True):
    """`ic_deciles` of the metrics object."""

    score_field: str
    """Score bucketed (raw_score)"""

    signal: str
    """raw"""

    bucket_count: int
    """Number of buckets (10)"""

    weeks: int
    """Weeks used: at least 20 scored names, at least 2 distinct raw_score values, and forward returns"""

    buckets: list[DecileBucket]
    """One entry per bucket, Q1..Q10"""

    monotonicity: Monotonicity
    """How monotone mean forward return is across buckets"""

    forward_returns: str
    """present when forward returns were sealed"""

    weeks_skipped: int
    """Weeks in the window not bucketed: fewer than 20 scored names, or fewer than 2 distinct raw_score
    values (every raw_score equal)
    """


class NeweyWest(ApiStruct, kw_only=True, frozen=True):
    """A Newey-West test of a weekly series' mean: `nwt.ic`, `nwt.ic_score_panel` and
    `panel.ic_term_structure[].newey_west` (`nwt.ir`, of daily returns: `DailyNeweyWest`).
    """

    lag: int
    """Bartlett kernel lag used, in weeks"""

    n: int
    """Weeks tested (finite values, date order); at least 10 are required"""

    mean: float
    """Mean of the series tested"""

    standard_error: float
    """HAC standard error of the mean, no small-sample correction (equals statsmodels OLS(y,
    ones).fit(cov_type='HAC', cov_kwds={'maxlags': lag}))
    """

    t_statistic: float
    """mean / standard_error"""

    p_value: float
    """Two-sided p-value from the standard normal"""

    source: str | UnsetType = UNSET
    """What the series is read from (the test's `keys` in /metrics/_doc)."""

    source_kind: str | UnsetType = UNSET
    """`derived`: computed by this service."""

    signal: str | UnsetType = UNSET
    """IC tests only: `conditioned` (score) or `raw` (raw_score)."""

    frequency: str | UnsetType = UNSET
    """`nwt.ir` only: `weekly` or `daily`."""


class DailyNeweyWest(ApiStruct, kw_only=True, frozen=True):
    """A Newey-West test of a daily series' mean (`nwt.ir`): its lag and n count sessions."""

    lag: int
    """Bartlett kernel lag used, in sessions"""

    n: int
    """Sessions tested (finite values, date order); at least 10 are required"""

    mean: float
    """Mean of the series tested"""

    standard_error: float
    """HAC standard error of the mean, no small-sample correction (equals statsmodels OLS(y,
    ones).fit(cov_type='HAC', cov_kwds={'maxlags': lag}))
    """

    t_statistic: float
    """mean / standard_error"""

    p_value: float
    """Two-sided p-value from the standard normal"""

    source: str | UnsetType = UNSET
    """What the series is read from (the test's `keys` in /metrics/_doc)."""

    source_kind: str | UnsetType = UNSET
    """`derived`: computed by this service."""

    signal: str | UnsetType = UNSET
    """IC tests only: `conditioned` (score) or `raw` (raw_score)."""

    frequency: str | UnsetType = UNSET
    """`nwt.ir` only: `weekly` or `daily`."""


class NeweyWestTests(ApiStruct, kw_only=True, frozen=True):
    """`nwt` of the metrics object; each test is null when it is not computed."""

    ic: NeweyWest | None
    """Newey-West test that the mean of the conditioned weekly IC is zero; null (with a warning) when
    refused (availability: published only when mean(weekly IC) rebuilt from the cross-sections
    equals the sealed mean IC within 1e-6 (else ic_reproduction_mismatch; ic_family_mismatch without
    cross-sections))
    """

    ic_score_panel: NeweyWest | None
    """Newey-West test that the mean of weekly Spearman(raw_score, forward_return) is zero; null (with
    a warning) when refused
    """

    ir: DailyNeweyWest | None
    """Newey-West test that the mean of daily long_short returns (ending/starting - 1) is zero; null
    (with a warning) when refused
    """


class PanelSignals(ApiStruct, kw_only=True, frozen=True):
    """`panel.signals`: the score each IC-family series of the panel is built on. One `signal` for the
    whole panel said `raw` over `ic_weekly` and `rebuilt_mean_ic`, which are conditioned (issue 65,
    item 7); `coverage` is of no score and is not listed.
    """

    ic_weekly: str
    """ic_weekly: the conditioned score"""

    rebuilt_mean_ic: str
    """rebuilt_mean_ic: the conditioned score"""

    decile_spread_weekly: str
    """decile_spread_weekly: raw_score"""

    ic_term_structure: str
    """ic_term_structure: raw_score"""

    rank_autocorrelation: str
    """rank_autocorrelation: raw_score"""


class WeeklyIc(ApiStruct, kw_only=True, frozen=True):
    """An entry of `panel.ic_weekly`."""

    date: dt.date
    """Rebalance date"""

    ic: float
    """Spearman(score, forward_return) that week"""


class WeeklySpread(ApiStruct, kw_only=True, frozen=True):
    """An entry of `panel.decile_spread_weekly`."""

    date: dt.date
    """Rebalance date"""

    spread: float
    """Q10 mean forward return - Q1 mean forward return"""


class TermPoint(ApiStruct, kw_only=True, frozen=True):
    """An entry of `panel.ic_term_structure`."""

    horizon_weeks: int
    """Horizon h in weeks"""

    mean_ic: float | None
    """Mean over weeks of Spearman(raw_score, prod(1 + r) - 1 over the next h weekly forward returns)"""

    weeks: int
    """Weeks with a computable h-week IC"""

    newey_west: NeweyWest | None
    """Newey-West test that the mean of the h-week IC is zero; null (with a warning) when refused
    (availability: null (insufficient_data) with fewer than 10 weeks; lag is at least h-1 because
    h-week returns of consecutive weeks overlap)
    """


class AutocorrelationPoint(ApiStruct, kw_only=True, frozen=True):
    """An entry of `panel.rank_autocorrelation`."""

    lag_weeks: int
    """Lag in weeks (1..8)"""

    rho: float | None
    """Mean over weeks of Spearman(raw_score at t, raw_score at t - lag) over names scored both weeks"""

    weeks: int
    """Weeks with a computable correlation"""


class WeeklyCoverage(ApiStruct, kw_only=True, frozen=True):
    """An entry of `panel.coverage`."""

    date: dt.date
    """Rebalance date"""

    coverage: float
    """cohort_size / universe size"""


class Panel(ApiStruct, kw_only=True, frozen=True):
    """`panel` of the metrics object (weeks without a finite value are left out of its series)."""

    signals: PanelSignals
    """The score each series is built on: conditioned (score) for ic_weekly and rebuilt_mean_ic, raw
    (raw_score) for decile_spread_weekly, ic_term_structure and rank_autocorrelation; coverage is of
    no score
    """

    ic_weekly: list[WeeklyIc]
    """Weekly conditioned IC, weeks with a computable IC; over the full window its mean is core.ic"""

    rebuilt_mean_ic: float | None
    """Mean of the ic_weekly values served beside it: the weekly conditioned IC rebuilt from the
    rebalance cross-sections, over the window's weeks with a computable IC
    (/analytics/significance's bootstrap.rebuilt_mean_ic over the same window; not the sealed
    core.ic, which it equals over the full window only when the run's IC reproduces); null when no
    week has one
    """

    decile_spread_weekly: list[WeeklySpread]
    """Weekly Q10 minus Q1 mean forward return (eligible weeks, raw_score deciles)"""

    ic_term_structure: list[TermPoint]
    """IC of raw_score against forward returns compounded over 1, 2, 4 and 8 consecutive weeks"""

    rank_autocorrelation: list[AutocorrelationPoint]
    """Persistence of the raw_score ranking"""

    coverage: list[WeeklyCoverage]
    """Weekly coverage"""


class AnnualisationFactors(ApiStruct, kw_only=True, frozen=True):
    """`annualisation_factors` of the metrics object."""

    weekly: int
    """Weeks per year (52): weekly series scale by sqrt(52)"""

    daily: int
    """Sessions per year (252): daily series scale by sqrt(252)"""


class MetricsFieldDoc(ApiStruct, kw_only=True, frozen=True):
    """One entry of the metrics documentation block's `fields`."""

    meaning: str
    """What the field means."""

    formula: str | None
    """How the field is computed; null for an echo or an object."""

    horizon: str
    """The span the field covers: the requested window (from/to), else the run's full evaluation
    window, which from/to do not narrow for stored figures.
    """

    granularity: str
    """One figure for the window (`overall`), per period (`yearly or monthly`) or per week."""

    source: str
    """Where the figure comes from: `metrics` (stored by the run), `rebalances`, `portfolio`,
    `computed` and others.
    """

    unit: str | None
    """Unit of the field, such as `ratio`; null when it has none."""

    signal: str | UnsetType = UNSET
    """IC-family entries only: `conditioned` (score) or `raw` (raw_score)."""

    availability: str | UnsetType = UNSET
    """`ic_deciles` and `panel` entries only: when the field is null."""


class MetricsDoc(ApiStruct, kw_only=True, frozen=True):
    """The metrics documentation block (`/metrics/_doc`, or `data.doc` with `doc=1`)."""

    schema_version: str
    """Version of the block's schema, `2.0.0`."""

    endpoint: dict[str, str]
    """Prose on the path, identity, parameters, window semantics, access and signal families."""

    fields: dict[str, MetricsFieldDoc]
    """Dotted payload path (`core.ic`, `periods[].core.ic`) to `{meaning, formula, horizon,
    granularity, source, unit}`.
    """

    warnings: dict[str, str]
    """Warning code to its meaning."""


class Metrics(ApiStruct, kw_only=True, frozen=True):
    """Performance and signal-quality metrics of one alpha (`/metrics`)."""

    granularity: str
    """Echo of the granularity parameter: overall, yearly or monthly"""

    window: Window
    """Echo of the requested window; nulls mean the full window"""

    core: CoreStats | None
    """Headline statistics of the long_short book, as the run stored them"""

    rank_ic: RankIc | None
    """IC diagnostics the run stored; null when no stored metrics"""

    signal_processing: SignalProcessing | None
    """How the conditioned score was made from the raw score"""

    periods: list[Period] | None
    """Stored statistics per calendar period overlapping the window; null at granularity overall"""

    ic_deciles: IcDeciles | None
    """Ten buckets of each week's raw_score (Q1 lowest); bucket statistics are means over weeks of the
    weekly bucket means. Weeks with fewer than 20 scored names, or whose non-null raw_scores are all
    equal (fewer than 2 distinct values, so no ranking to bucket), are skipped and counted; other
    weeks without forward returns (pending) are dropped (availability: null when the key may not
    read cross-sections (access_limited), the run has no cross-sections (missing_kind), no forward
    returns (forward_returns_absent), or no usable week in the window (insufficient_data))
    """

    nwt: NeweyWestTests
    """Newey-West (Bartlett kernel) tests of means"""

    panel: Panel | None | UnsetType = UNSET
    """Weekly series of the window (panel=1); each series' signal is its own (panel.signals)
    (availability: only with panel=1; null whenever ic_deciles is null)
    """

    doc_url: str
    """Path of this documentation block for the alpha"""

    alpha: str
    """Collection served (equals meta.run)"""

    source_alpha_id: str
    """The run's research source id: the seal's own id for the alpha (meta.source_alpha_id, the lake's
    source_alpha_id), not the alpha served (alpha, the path's id); the alpha's id when the run
    recorded none
    """

    annualisation_factors: AnnualisationFactors
    """Annualisation factors the run uses"""

    doc: MetricsDoc | UnsetType = UNSET
    """This documentation block, embedded with doc=1"""


class MetricsResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/metrics` (performance.metrics)."""

    data: Metrics

    meta: Meta


class MetricsDocResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/metrics/_doc` (performance.metrics.doc)."""

    data: MetricsDoc

    meta: Meta


class DsrTrials(ApiStruct, kw_only=True, frozen=True):
    """`dsr.trials` of the significance object."""

    count: int
    """N: alphas of the published catalogue with a measurable long_short Sharpe ratio, or the request's
    trials
    """

    count_source: str
    """`catalogue`, or `request` when `trials=` overrode the count (dsr); `family` (dsr_family: the
    members of the alpha's trial family the key may read); `clusters` (clustered_dsr: the effective
    number of trials).
    """

    sharpe_variance: float | None
    """V, over the Sharpe ratios of the alphas the key may read (null without ledger access)."""

    sharpe_variance_unit: str
    """Unit of sharpe_variance"""

    sharpe_variance_alphas: int | None
    """How many Sharpe ratios V is over (null without ledger access)."""

    expected_max_sharpe: float | None
    """SR0 annualised (times sqrt(252)); null for a key that may not read the ledger"""

    expected_max_sharpe_unit: str
    """Unit of expected_max_sharpe"""

    effective_count: int | None
    """The effective number of trials: the clusters of the trials by the correlation of their daily
    returns (null without ledger access, or when the catalogue records no links).
    """

    effective_rank: float | None | UnsetType = UNSET
    """The effective rank of the trials' correlation matrix (Roy and Vetterli 2007), a cross-check of
    effective_count (null without ledger access, when the catalogue records no links, above 500
    readable trials, or for dsr_family).
    """


class AnalyticsStat(ApiStruct, kw_only=True, frozen=True):
    """One analytics figure: a value with its unit, or `not_measurable` with a null value and a reason."""

    value: float | None
    """The figure; null when not_measurable"""

    unit: str
    """Unit of value"""

    status: str
    """`available` or `not_measurable` (then `value` is null and `withheld_reason` says why)."""

    withheld_reason: str | UnsetType = UNSET
    """Why the figure is not measurable (present only then)"""

    source: str
    """What the figure is computed from"""

    annualisation: str
    """`annualised`, `per_period` or `not_annualisable`."""

    approximation: str | UnsetType = UNSET
    """`combine` turnover: how it is approximated."""

    periods_per_year: int | UnsetType = UNSET
    """`sharpe`, `costs.information_ratio.*`: sessions per year used to annualise."""

    confidence: float | UnsetType = UNSET
    """`min_track_record`: the confidence the track record reaches (0.95); `critical_sharpe`, `power`:
    the test's confidence, 1 - its level (0.95).
    """

    sr_benchmark: float | UnsetType = UNSET
    """`psr`, `min_track_record`, `critical_sharpe`, `power`: the request's `sr_benchmark`
    (annualised).
    """

    sr_alternative: float | UnsetType = UNSET
    """`power`: the true Sharpe ratio the power is at, sr_benchmark + 1 (annualised)."""

    years: float | None | UnsetType = UNSET
    """`min_track_record` in years."""

    horizon_sessions: int | UnsetType = UNSET
    """`risk.var_95`, `risk.cvar_95`: sessions the loss is measured over (1)."""

    trials: DsrTrials | UnsetType = UNSET
    """`dsr`: the catalogue's trials behind the expected maximum Sharpe ratio."""

    trial_count: int | UnsetType = UNSET
    """`min_backtest_length`: N, the trials it is computed for (`dsr.trials.count`)."""

    lower: float | None | UnsetType = UNSET
    """Bootstrap figures: the lower bound of the interval."""

    upper: float | None | UnsetType = UNSET
    """Bootstrap figures: the upper bound of the interval."""

    observations: int | UnsetType = UNSET
    """Observations of the series in the window"""

    block_length: float | UnsetType = UNSET
    """Bootstrap figures: the mean block length of the resamples."""

    family_size: int | None | UnsetType = UNSET
    """`holm`, `benjamini_hochberg`: the hypotheses adjusted over (the alphas the key may read whose
    `nwt.ic` is measurable); null when the key may not read the rebalance cross-sections.
    """

    date: dt.date | None | UnsetType = UNSET
    """`risk.best_*`, `risk.worst_*`: the last session of the day, week or month."""

    sessions: int | None | UnsetType = UNSET
    """`risk.best_*`, `risk.worst_*`: sessions of the window in that period."""

    alpha: str | None | UnsetType = UNSET
    """`contribution.max_correlation_to_member`: the member it is with."""

    members: int | UnsetType = UNSET
    """`contribution.mean_correlation_to_member`: the members with a correlation."""


class InformationRatioSides(ApiStruct, kw_only=True, frozen=True):
    """`information_ratio` of the costs object."""

    gross: AnalyticsStat
    """Information ratio of daily returns before execution costs, daily times sqrt(252): quantstats'
    sharpe(r) and empyrical's sharpe_ratio, risk-free rate 0; not quantstats' information_ratio(r,
    benchmark), the mean over the standard deviation of r - benchmark, not annualised
    """

    net: AnalyticsStat
    """Information ratio of daily returns after execution costs, with the convention of /metrics
    core.information_ratio but over the window (/metrics never narrows core: its figure is the whole
    history's, so the two agree only there), daily times sqrt(252): quantstats' sharpe(r) and
    empyrical's sharpe_ratio, risk-free rate 0; not quantstats' information_ratio(r, benchmark), the
    mean over the standard deviation of r - benchmark, not annualised
    """


class CostLevel(ApiStruct, kw_only=True, frozen=True):
    """An entry of `net_ir_by_cost` of the costs object: the book at one cost level."""

    cost_bps: float
    """The cost level: execution cost per unit of traded notional, in basis points (a level of the
    fixed grid 0, 5, 10, 20, 30, 50, 75, 100, the modelled cost, or the break-even cost)
    """

    cost_multiple: float | None
    """The multiple m of the modelled execution cost that costs cost_bps (every session's modelled cost
    scaled by m); null when the modelled cost is not measurable
    """

    level: str
    """grid (a level of the fixed grid), modelled (modelled_cost_bps) or break_even
    (break_even_cost_bps)
    """

    net_information_ratio_at_cost: AnalyticsStat
    """Information ratio of the book's daily returns with every modelled cost scaled to cost_bps:
    information_ratio.gross at 0 bps, information_ratio.net at the modelled cost, 0 at the
    break-even
    """


class CostAtCapital(ApiStruct, kw_only=True, frozen=True):
    """An entry of `net_ir_by_capital` of the costs object: the book at one capital, its cost rising
    with its participation as /analytics/capacity models it.
    """

    capital: float
    """The capital K: the book's size at inception in its currency (the grid of /analytics/capacity's
    default, 1e6 to 1e10 in half-decades, the seal's modelled costs taken as the costs at its
    default reference capital K0 = 1e8)
    """

    cost_bps: AnalyticsStat
    """The book's execution cost per unit of traded notional at capital K, its fees in proportion to
    capital and its slippage as a square-root impact on participation (/analytics/capacity's
    cost_model, fee_linear_slippage_square_root): modelled_cost_bps at K0
    """

    participation_p95: AnalyticsStat
    """95th percentile of the window's fills' participation at capital K, as /analytics/capacity
    grid[].participation_p95 (K / K0 times the reference's)
    """

    net_information_ratio: AnalyticsStat
    """Information ratio of the book's daily returns at capital K, as /analytics/capacity
    grid[].net_information_ratio at capital=1e8
    """


class TurnoverBucket(ApiStruct, kw_only=True, frozen=True):
    """An entry of `turnover_by_decile.buckets` of the costs object."""

    bucket: str
    """Q1 .. Q10"""

    rank: int
    """1 .. 10"""

    weeks: int
    """Bucketed weeks the decile held names"""

    decile_weekly_target_turnover: float | None
    """Mean over bucketed weeks of the decile's one-way turnover of the book's target weights (the
    decisions, not the ledger's traded turnover of /metrics core.annual_turnover and the turnover
    check)
    """

    decile_annual_target_turnover: float | None
    """The decile's weekly one-way target-weight turnover annualised: decile_weekly_target_turnover x
    the run's weeks per year (turnover_by_decile.weeks_per_year)
    """


class TurnoverByDecile(ApiStruct, kw_only=True, frozen=True):
    """`turnover_by_decile` of the costs object."""

    score_field: str
    """Score bucketed: score, or raw_score for raw_ books"""

    weight_field: str
    """Decision column of the book's target weight"""

    weeks: int
    """Weeks in the window with a previous week (turnover needs one)"""

    bucketed_weeks: int
    """Of them, weeks bucketed into deciles (at least 20 scored names, not all equal)"""

    weekly_target_turnover: float | None
    """Mean over weeks of the whole book's one-way turnover of its target weights (the decisions,
    weekly; not the ledger's traded turnover)
    """

    weeks_per_year: int
    """Weeks per year the annual figures are annualised with (the run's, 52)"""

    annual_target_turnover: float | None
    """The book's weekly one-way target-weight turnover annualised: weekly_target_turnover x
    weeks_per_year (not /metrics core.annual_turnover, the ledger's traded turnover per session x
    252)
    """

    unbucketed_weekly_target_turnover: float | None
    """Mean weekly target-weight turnover of names in no decile at t (unbucketed weeks, names that left
    the cross-section)
    """

    buckets: list[TurnoverBucket]
    """Q1 (lowest score) .. Q10"""


class Costs(ApiStruct, kw_only=True, frozen=True):
    """What a book's modelled execution costs take (`/analytics/costs`), flows in normalised equity."""

    alpha: str
    """The alpha served"""

    book: str
    """The book measured"""

    window: Window
    """The window echoed: from and to, null when open"""

    sessions: int
    """Sessions of the book in the window"""

    net_pnl: AnalyticsStat
    """Net P&L, every flow included"""

    execution_cost: AnalyticsStat
    """Modelled execution cost paid"""

    gross_pnl: AnalyticsStat
    """P&L before execution costs"""

    traded_notional: AnalyticsStat
    """Notional traded, in equity units"""

    break_even_multiple: AnalyticsStat
    """Multiple m of the modelled execution cost at which the window's compounded net return is zero;
    not measurable when the book loses before costs or paid none
    """

    break_even_bps: AnalyticsStat
    """Cost per unit of traded notional at which the window's compounded net return is zero"""

    modelled_cost_bps: AnalyticsStat
    """The modelled cost per unit of traded notional (break_even_bps / break_even_multiple)"""

    break_even_cost_bps: AnalyticsStat
    """Execution cost per unit of traded notional at which the book's net information ratio over the
    window is 0: every session's modelled cost scaled by the multiple m at which the mean daily net
    return is 0, in bps as modelled_cost_bps (an arithmetic mean, so above break_even_bps, where the
    compounded return is 0); not measurable when the mean daily return before costs is not positive,
    the book paid no cost or traded nothing
    """

    information_ratio: InformationRatioSides
    """Information ratio before (gross) and after (net) execution costs, side by side; gross here means
    before costs, not the /metrics sense (not in excess of the risk-free rate: neither side is)
    """

    net_ir_by_cost: list[CostLevel]
    """The curve of the net information ratio against the cost level: the fixed grid (0, 5, 10, 20, 30,
    50, 75 and 100 bps), the modelled cost and the break-even cost, in ascending cost (the modelled
    and break-even levels only when measurable)
    """

    net_ir_by_capital: list[CostAtCapital]
    """The same curve tied to capacity: at each capital of /analytics/capacity's default grid the cost
    rises with the fills' participation (fees in proportion, slippage as a square-root impact), with
    the cost per traded notional, the 95th-percentile participation and the net information ratio it
    gives
    """

    currency: str
    """The currency of each capital of net_ir_by_capital: the books' currency the service declares
    (schemas.conventions.BOOK_CURRENCY; a seal states none), /analytics/capacity's `currency`
    """

    turnover_by_decile: TurnoverByDecile | None
    """One-way turnover of the book's target weights by decile of the score it trades (score and the
    long_short or long_only target weight; raw_score and the raw_ book's own target weight for raw_
    books; bucketed as /metrics ic_deciles); null for a book without target weights (a run without
    decisions)
    """

    holding_period: AnalyticsStat
    """Average holding period of a position"""


class CostsResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/analytics/costs` (analytics.costs)."""

    data: Costs

    meta: Meta


class RegimeRow(ApiStruct, kw_only=True, frozen=True):
    """The book over the sessions of one regime (`all`: the window's)."""

    regime: str
    """The regime, dimension:label (trend:up, volatility:high, drawdown:in, ...), or all: the window"""

    dimension: str
    """trend, volatility or drawdown (all: the whole window)"""

    label: str
    """The label: up/down, low/mid/high, in/out, or unlabelled (sessions the benchmark has not labelled
    in this dimension, or does not have); all for the window. trend: up when the benchmark's price
    is above its mean over the 200 sessions ending that session, else down (the first 199 sessions
    unlabelled); volatility: the realised volatility of its 63 daily returns ending that session
    against the terciles over its whole stored history, low, mid or high (the first 63 sessions
    unlabelled; the cut points look ahead: a descriptive label); drawdown: in when its price is more
    than 10 % below its running peak, else out
    """

    regime_sessions: int | None
    """Sessions of the book in the window in this regime; a dimension's rows add up to row all's; null
    when the ledger or the benchmark is withheld
    """

    regime_weeks: int | None
    """Weeks of the window with a measurable IC whose rebalance date is in this regime; a dimension's
    rows add up to row all's; null when the cross-sections or the benchmark are withheld
    """

    information_ratio: AnalyticsStat
    """Information ratio of the book's daily returns over the regime's sessions (not in excess of the
    risk-free rate); row all's is /analytics/costs information_ratio.net over the window
    """

    rebuilt_mean_ic: AnalyticsStat
    """Mean of the weekly rank IC rebuilt from the rebalance cross-sections over the regime's weeks
    (not the run's sealed mean IC, /metrics core.ic)
    """

    rebuilt_hit_rate: AnalyticsStat
    """Share of the regime's weeks whose rebuilt IC is > 0 (not the run's sealed /metrics
    rank_ic.conditioned.hit_rate)
    """


class Regimes(ApiStruct, kw_only=True, frozen=True):
    """A book's figures by regime of the market benchmark (`/analytics/regimes`)."""

    alpha: str
    """The alpha served"""

    book: str
    """The book measured"""

    window: Window
    """The window echoed: from and to, null when open"""

    benchmark: str
    """The benchmark whose regimes split the sessions (SPY)"""

    regime: str | None
    """The `regime` requested: rows all and that regime's only; null: every regime"""

    volatility_low_cut: AnalyticsStat
    """The benchmark's realised volatility at its first tercile: low up to it, mid above it (over the
    benchmark build's whole stored history: look-ahead, a descriptive label)
    """

    volatility_high_cut: AnalyticsStat
    """The benchmark's realised volatility at its second tercile: high above it"""

    by_regime: list[RegimeRow]
    """Row all (the window), then each regime of trend, volatility and drawdown with its unlabelled
    sessions, in that order
    """

    weakest_regime: str | None | UnsetType = UNSET
    """The weak spot: the regime of by_regime (not all, not unlabelled) whose information_ratio is the
    lowest among those measured over at least 63 sessions (a quarter: over fewer the ratio's
    standard error swamps the difference); null when none is
    """


class RegimesResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/analytics/regimes` (analytics.regimes)."""

    data: Regimes

    meta: Meta


class Uncertainty(ApiStruct, kw_only=True, frozen=True):
    """Bootstrap confidence intervals of a book's headline figures (`/analytics/uncertainty`)."""

    alpha: str
    """The alpha served"""

    book: str
    """The book measured"""

    window: Window
    """The window echoed: from and to, null when open"""

    sessions: int | None
    """Sessions of the book in the window with a daily return (what the session figures resample); null
    for a key that may not read the ledger
    """

    weeks: int | None
    """Weeks of the window with a measurable rebuilt IC (what the IC figures resample); null for a key
    that may not read the rebalance cross-sections
    """

    method: str
    """The resampling scheme and the interval"""

    confidence: float
    """Confidence level of the intervals"""

    resamples: int
    """Number of resamples"""

    seed: int
    """Seed of numpy's PCG64 generator: the same request always gives the same answer"""

    block_length_rule: str
    """How the mean block length is chosen"""

    streams: str
    """The generator stream of each group of figures (PCG64(SeedSequence([seed, stream])))"""

    information_ratio: AnalyticsStat
    """Information ratio of the book's daily returns over the window (not in excess of the risk-free
    rate), as /analytics/checks information_ratio and /analytics/live
    """

    excess_sharpe: AnalyticsStat
    """Sharpe ratio of the book's daily returns over the window in excess of the risk-free return the
    ledger accrued each session, as /analytics/live
    """

    max_drawdown_pct: AnalyticsStat
    """Deepest fall of the compounded equity over the window from its running peak (the window's start
    at 1.0), in percentage points of the peak, as /analytics/live
    """

    turnover: AnalyticsStat
    """Mean one-way turnover of the window's sessions, annualised, as /analytics/checks turnover"""

    rebuilt_mean_ic: AnalyticsStat
    """Mean of the weekly rank IC rebuilt from the rebalance cross-sections over the window's weeks, as
    /analytics/significance bootstrap.rebuilt_mean_ic (not the run's sealed /metrics core.ic)
    """

    rebuilt_icir: AnalyticsStat
    """ICIR of the rebuilt weekly IC over the window's weeks, annualised, as /analytics/significance
    bootstrap.rebuilt_icir (not the run's sealed /metrics core.icir)
    """

    rebuilt_hit_rate: AnalyticsStat
    """Share of the window's weeks whose rebuilt IC is > 0, as /analytics/live (not the run's sealed
    /metrics rank_ic.conditioned.hit_rate)
    """


class UncertaintyResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/analytics/uncertainty` (analytics.uncertainty)."""

    data: Uncertainty

    meta: Meta


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
    """Depth of the episode: `(peak_equity - trough_equity) / peak_equity x 100`. Unit:
    percentage_points.
    """

    sessions_to_trough: int | None
    """Sessions from the peak to the trough. Unit: sessions."""

    sessions_to_recovery: int | None
    """Sessions from the peak to the recovery. Unit: sessions. Null while the episode has not recovered
    by the window's last session.
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

    rebuilt_mean_ic: float | None
    """Mean weekly IC over the trailing window, rebuilt from the rebalance cross-sections: conditioned
    (weekly_signal.ic) on base books, raw (raw_ic) on raw_ books (the family in `meta.signal`).
    `/metrics` `panel.rebuilt_mean_ic` and `/analytics/live`'s over the row's weeks; not the sealed
    `core.ic`, nor the IC term structure's `mean_ic` (the raw score at a horizon of h weeks). Served
    as `mean_ic` before issue 65 (item 3). Unit: ratio. Null when fewer than half the window's weeks
    carry a value (the standard deviation also needs 2).
    """

    icir: float | None
    """Mean / standard deviation (ddof 1) of the weekly IC over the trailing window, annualised with
    the run's weeks_per_year (times sqrt(52)), as the row's information ratio is: the basis of every
    `icir`, `/metrics` `core.icir` included. The lake's analytics_rolling stores it per week, as
    icir_per_week. Unit: ratio. Null when fewer than half the window's weeks carry a value (the
    standard deviation also needs 2).
    """

    n_return_weeks: int | None
    """Weeks of the trailing window with a book return. Unit: weeks."""

    annualised_return: float | None
    """Mean weekly book return, annualised (times 52): arithmetic; empyrical's annual_return and
    quantstats' cagr compound (the risk route's cagr). Unit: fraction. Null when fewer than half the
    window's weeks carry a value (the standard deviation also needs 2).
    """

    volatility: float | None
    """Standard deviation (ddof 1) of weekly book returns, annualised (times sqrt(52)). Unit: fraction.
    Null when fewer than half the window's weeks carry a value (the standard deviation also needs
    2).
    """

    information_ratio: float | None
    """Information ratio of weekly book returns, weekly times sqrt(52) (`/metrics`
    `core.information_ratio` and significance's are daily times sqrt(252)): quantstats' sharpe(r,
    periods=52) and empyrical's sharpe_ratio, risk-free rate 0; not quantstats' information_ratio(r,
    benchmark), the mean over the standard deviation of r - benchmark, not annualised. Unit: ratio.
    Null when fewer than half the window's weeks carry a value (the standard deviation also needs
    2).
    """

    return_hit_rate: float | None
    """Share of the trailing window's weeks with a positive book return (the lake's analytics_rolling
    column of the same name; not /metrics' hit_rate, the share of weeks with a positive IC). Unit:
    fraction. Null when fewer than half the window's weeks carry a value (the standard deviation
    also needs 2).
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


class RiskBenchmark(ApiStruct, kw_only=True, frozen=True):
    """The book against SPY: OLS beta and annualised alpha, tracking error, on the sessions both have."""

    symbol: str
    """The benchmark: SPY"""

    return_basis: str | None
    """SPY's return basis: adjusted_close when every row of its whole series has one, else close (as
    /v1/benchmarks/SPY/daily period_return); null for a key without benchmarks.daily
    """

    observations: int | None
    """Sessions of the window with both a book and a SPY return, the sessions the figures are over;
    null when withheld
    """

    beta: AnalyticsStat
    """OLS slope of the book's daily returns on SPY's, with an intercept; needs 2 common sessions and a
    SPY series with variance
    """

    alpha: AnalyticsStat
    """The OLS intercept of the same regression, annualised arithmetically (times 252, not compounded):
    the return per year beyond beta times SPY's, not in excess of the risk-free rate; arithmetic, as
    quantstats' greeks(r, b) alpha; empyrical's alpha(r, b) compounds the daily intercept, (1 +
    a)^252 - 1
    """

    tracking_error: AnalyticsStat
    """Annualised standard deviation of the book's daily return in excess of SPY's; needs 2 common
    sessions
    """


class Risk(ApiStruct, RiskTables, kw_only=True, frozen=True):
    """Benchmark-relative and tail figures of a book (`/analytics/risk`)."""

    alpha: str
    """The alpha served"""

    book: str
    """The book measured"""

    window: Window
    """The window echoed: from and to, null when open"""

    sessions: int | None
    """Sessions of the book in the window; null for a key that may not read the ledger (a count of it,
    withheld as its figures are)
    """

    benchmark: RiskBenchmark
    """The book against SPY's daily total returns b on the same sessions (sessions where both have a
    return); needs benchmarks.daily besides portfolio.ledger
    """

    sortino: AnalyticsStat
    """Sortino ratio with required return 0 (empyrical's convention); not measurable without a losing
    session
    """

    cagr: AnalyticsStat
    """Compound annual growth rate of the book over the window's sessions"""

    max_drawdown_pct: AnalyticsStat
    """Deepest fall of the compounded equity from its running peak, the start at 1.0 included, in
    percentage points of the peak (25.0 is 25%; 0 without a fall), as /metrics
    core.max_drawdown_pct; quantstats' and empyrical's max_drawdown are the same fall as a negative
    fraction of the peak
    """

    calmar: AnalyticsStat
    """Calmar ratio over the window; not measurable without a drawdown"""

    tail_ratio: AnalyticsStat
    """Right tail over left tail of daily returns (empyrical's convention); needs 20 sessions, not
    measurable when the 5th percentile is 0
    """

    var_95: AnalyticsStat
    """Historical value at risk at 95% over one session, as a return (negative = a loss); needs 20
    sessions; historical, as empyrical's value_at_risk(r, 0.05); quantstats' value_at_risk (var) is
    parametric, the 5% quantile of a normal law of mean(r) and std(r)
    """

    cvar_95: AnalyticsStat
    """Historical conditional value at risk (expected shortfall) at 95% over one session, as a return;
    needs 20 sessions; as empyrical's conditional_value_at_risk(r, 0.05), but for a return equal to
    the 5th percentile; quantstats' cvar averages the returns below its parametric value at risk
    """

    best_day: AnalyticsStat
    """The highest compounded return of a session over the window's sessions (the first and last
    periods may be cut by the window); the earliest on a tie
    """

    worst_day: AnalyticsStat
    """The lowest compounded return of a session over the window's sessions (the first and last periods
    may be cut by the window); the earliest on a tie
    """

    best_week: AnalyticsStat
    """The highest compounded return of a week ending Friday (pandas W-FRI; a weekend session belongs
    to the next Friday) over the window's sessions (the first and last periods may be cut by the
    window); the earliest on a tie; not quantstats' best/worst by week: aggregate='W' groups by
    calendar year and ISO week number (Monday to Sunday, a week spanning New Year split between
    years), aggregate='week' pools each week number across years
    """

    worst_week: AnalyticsStat
    """The lowest compounded return of a week ending Friday (pandas W-FRI; a weekend session belongs to
    the next Friday) over the window's sessions (the first and last periods may be cut by the
    window); the earliest on a tie; not quantstats' best/worst by week: aggregate='W' groups by
    calendar year and ISO week number (Monday to Sunday, a week spanning New Year split between
    years), aggregate='week' pools each week number across years
    """

    best_month: AnalyticsStat
    """The highest compounded return of a calendar month over the window's sessions (the first and last
    periods may be cut by the window); the earliest on a tie; as quantstats'
    best/worst(aggregate='ME') (its report's Best and Worst Month); its aggregate='month' pools each
    calendar month across years, and 'M' aggregates nothing (days)
    """

    worst_month: AnalyticsStat
    """The lowest compounded return of a calendar month over the window's sessions (the first and last
    periods may be cut by the window); the earliest on a tie; as quantstats'
    best/worst(aggregate='ME') (its report's Best and Worst Month); its aggregate='month' pools each
    calendar month across years, and 'M' aggregates nothing (days)
    """


class RiskResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/analytics/risk` (analytics.risk)."""

    data: Risk

    meta: Meta


class MonthReturn(ApiStruct, kw_only=True, frozen=True):
    """One calendar month of the book."""

    month: str
    """The calendar month, YYYY-MM (UTC session dates)"""

    sessions: int
    """Sessions of the month with a return"""

    book_return: float
    """The book's return over the month, compounded"""


class YearReturn(ApiStruct, kw_only=True, frozen=True):
    """One calendar year of the book, beside the market benchmark's."""

    year: int
    """The calendar year"""

    sessions: int
    """Sessions of the year with a return"""

    book_return: float
    """The book's return over the year, compounded (its months compounded)"""

    benchmark_return: float | None
    """SPY's return over the book's sessions of the year, compounded (a session without a SPY return
    adds nothing); null without one, or for a key without benchmarks.daily
    """


class BetaPoint(ApiStruct, kw_only=True, frozen=True):
    """The trailing beta on one session of the book."""

    date: dt.date
    """The session (the last of the trailing window)"""

    beta: float | None
    """OLS slope, with an intercept, of the book's daily returns on SPY's over the 126 sessions up to
    this one, as /analytics/risk's benchmark.beta over a window; null before the window is full,
    with fewer than 63 sessions with both returns, or when SPY's returns have no measurable variance
    """


class TrailingBeta(ApiStruct, kw_only=True, frozen=True):
    """The book's beta to SPY over a trailing window, session by session."""

    window_sessions: int
    """Sessions of the trailing window"""

    min_observations: int
    """Sessions with both returns a beta needs"""

    points: list[BetaPoint] | None
    """One per session of the book in the window; null for a key without benchmarks.daily"""


class BookReturns(ApiStruct, kw_only=True, frozen=True):
    """A book's calendar returns and trailing beta to SPY (`/analytics/returns`)."""

    alpha: str
    """The alpha served"""

    book: str
    """The book measured"""

    window: Window
    """The window echoed: from and to, null when open"""

    benchmark: str
    """The benchmark: SPY"""

    return_basis: str | None
    """SPY's return basis (as /v1/benchmarks/SPY/daily period_return); null for a key without
    benchmarks.daily
    """

    months: list[MonthReturn]
    """Each calendar month holding a session with a return, in order"""

    years: list[YearReturn]
    """Each calendar year holding a session with a return, in order"""

    beta: TrailingBeta
    """The trailing beta to SPY"""


class BookReturnsResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/analytics/returns` (analytics.returns)."""

    data: BookReturns

    meta: Meta


class LivePart(ApiStruct, kw_only=True, frozen=True):
    """One side of the split: `{what}` is the in-sample or the out-of-sample part."""

    first_session: dt.date | None
    """First session of the series tested; null when it holds none"""

    last_session: dt.date | None
    """Last session of the series tested; null when it holds none"""

    sessions: int | None
    """Sessions of the book in the series tested; null for a key that may not read the ledger"""

    weeks: int | None
    """Weeks with a measurable IC in the series tested (a week belongs to the part its IC's forward
    return is realised in: in-sample when the next rebalance (the last week: its date plus 7 days)
    is on or before the split date); null for a key that may not read the rebalance cross-sections
    """

    information_ratio: AnalyticsStat
    """Information ratio of the book's daily returns over the series tested (not in excess of the
    risk-free rate), as /analytics/checks information_ratio
    """

    excess_sharpe: AnalyticsStat
    """Sharpe ratio of the book's daily returns over the series tested in excess of the risk-free
    return the ledger accrued each session
    """

    rebuilt_mean_ic: AnalyticsStat
    """Mean of the weekly rank IC rebuilt from the rebalance cross-sections over the series tested's
    weeks (not the run's sealed mean IC, /metrics core.ic)
    """

    rebuilt_icir: AnalyticsStat
    """ICIR of the weekly rank IC rebuilt from the rebalance cross-sections over the series tested's
    weeks, annualised (not the run's sealed /metrics core.icir)
    """

    rebuilt_hit_rate: AnalyticsStat
    """Share of the series tested's weeks whose rebuilt IC is > 0 (not the run's sealed /metrics
    rank_ic.conditioned.hit_rate)
    """

    max_drawdown_pct: AnalyticsStat
    """Deepest fall of the compounded equity over the series tested from its running peak (the part's
    start at 1.0), in percentage points of the peak (25.0 is 25%), as /metrics core.max_drawdown_pct
    """

    turnover: AnalyticsStat
    """Mean one-way turnover of the series tested's sessions, annualised, as /analytics/checks turnover"""


class LiveConsistency(ApiStruct, kw_only=True, frozen=True):
    """Is the out-of-sample performance consistent with the in-sample one?"""

    test: str
    """The test: the probabilistic Sharpe ratio (Bailey and Lopez de Prado) of the out-of-sample daily
    returns against the in-sample per-session Sharpe ratio as the benchmark: the probability that
    the out-of-sample part's true Sharpe ratio is at least the in-sample one, given its sessions,
    skewness and kurtosis
    """

    probability: AnalyticsStat
    """PSR(SR* = the in-sample Sharpe ratio) of the out-of-sample daily returns; not measurable while
    the out-of-sample part holds fewer than 63 sessions
    """

    sessions: int | None
    """Out-of-sample sessions the test is over; null when withheld"""

    level: float
    """The probability below which the parts are called inconsistent (0.05)"""

    verdict: str
    """consistent when the probability is at least the level, inconsistent (the out-of-sample Sharpe
    ratio is below the in-sample one beyond chance) when below it, else not_measurable
    """


class Live(ApiStruct, kw_only=True, frozen=True):
    """In-sample against out-of-sample (`/analytics/live`)."""

    alpha: str
    """The alpha served"""

    book: str
    """The book measured"""

    split_date: dt.date | None
    """The split: sessions on or before it are in-sample, after it out-of-sample; null when the alpha
    has none (never approved, no research_cutoff, no first publish date recorded)
    """

    split_origin: str | None
    """Where the split comes from: approval (the decision in force: the last session the lake had
    published when the approval was recorded), research_cutoff (the seal's manifest),
    first_published (the date the catalogue first published the alpha), or request (the `split`
    parameter); null with split_date
    """

    in_sample: LivePart
    """The in-sample part"""

    out_of_sample: LivePart
    """The out-of-sample part"""

    decay_ratio: AnalyticsStat
    """Out-of-sample information ratio over the in-sample one: 1 holds up, 0 nothing left, below 0
    reversed; not measurable while the out-of-sample part holds fewer than 63 sessions or the
    in-sample information ratio is not positive
    """

    consistency: LiveConsistency
    """Whether the out-of-sample part is consistent with the in-sample"""


class LiveResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/analytics/live` (analytics.live)."""

    data: Live

    meta: Meta


class Totals(ApiStruct, kw_only=True, frozen=True):
    """The window's P&L and how the parts add up to it."""

    pnl: AnalyticsStat
    """The book's P&L over the window, from the ledger: names_pnl + cash_carry + rounding_adjustment"""

    names_pnl: AnalyticsStat
    """The names' P&L over the window: the denominator of every share"""

    cash_carry: AnalyticsStat
    """Interest the book's cash earned over the window: the ledger's, no name's"""

    rounding_adjustment: AnalyticsStat
    """The ledger's rounding adjustments over the window: no name's"""

    sum_of_daily_returns: AnalyticsStat
    """Sum of the book's daily returns over the window (not compounded): what the return contributions
    add up to
    """

    names_return_contribution: AnalyticsStat
    """Return contribution of every name: its net P&L each session over the book's starting equity that
    session, summed over the window's sessions (additive: the contributions of every name, the cash
    carry and the rounding add up to the sum of the book's daily returns, not to the compounded
    return)
    """

    cash_carry_return_contribution: AnalyticsStat
    """Return contribution of the cash carry"""

    rounding_return_contribution: AnalyticsStat
    """Return contribution of the rounding adjustments"""


class NameAttribution(ApiStruct, kw_only=True, frozen=True):
    """One name of the contributors or detractors."""

    symbol: str
    """The name"""

    pnl: AnalyticsStat
    """Net P&L of the name over the window (market P&L, execution cost and borrow), in normalised
    equity
    """

    return_contribution: AnalyticsStat
    """Return contribution of the name: its net P&L each session over the book's starting equity that
    session, summed over the window's sessions (additive: the contributions of every name, the cash
    carry and the rounding add up to the sum of the book's daily returns, not to the compounded
    return)
    """

    share: AnalyticsStat
    """Share of the names' window P&L made by the name: the name's window P&L over the names' window
    P&L (the sum of net_pnl over every name and session of the window: the ledger's cash carry and
    rounding adjustment belong to no name and are left out of it, see totals); the shares of all
    names add up to 1; not measurable when the names' P&L is not positive (a share of a loss or of
    nothing is no share: in a losing window a name that made money would have a negative 'share' and
    a losing name one above 1)
    """


class ByName(ApiStruct, kw_only=True, frozen=True):
    """Contributors and detractors by name."""

    status: str
    """available, or not_measurable (then the lists are empty and withheld_reason says why: never
    zeros)
    """

    withheld_reason: str | UnsetType = UNSET
    """Why the part is not measurable (present only then)"""

    names: int | None
    """Names with a P&L row in the window; null when not measurable"""

    contributors: list[NameAttribution]
    """The top names: the `top` names of largest window P&L among those that made money (P&L > 0),
    largest first; names ranked by window P&L (the sum of their net_pnl over the window's sessions),
    ties by symbol ascending
    """

    detractors: list[NameAttribution]
    """The bottom names: the `top` names of smallest window P&L among those that lost money (P&L < 0),
    largest loss first; names ranked by window P&L (the sum of their net_pnl over the window's
    sessions), ties by symbol ascending
    """


class LegPart(ApiStruct, kw_only=True, frozen=True):
    """One leg of the book: `{what}`."""

    pnl: AnalyticsStat
    """Net P&L of the series tested over the window (market P&L, execution cost and borrow), in
    normalised equity
    """

    return_contribution: AnalyticsStat
    """Return contribution of the series tested: its net P&L each session over the book's starting
    equity that session, summed over the window's sessions (additive: the contributions of every
    name, the cash carry and the rounding add up to the sum of the book's daily returns, not to the
    compounded return)
    """

    share: AnalyticsStat
    """Share of the names' window P&L made by the series tested: the name's window P&L over the names'
    window P&L (the sum of net_pnl over every name and session of the window: the ledger's cash
    carry and rounding adjustment belong to no name and are left out of it, see totals); the shares
    of all names add up to 1; not measurable when the names' P&L is not positive (a share of a loss
    or of nothing is no share: in a losing window a name that made money would have a negative
    'share' and a losing name one above 1)
    """

    names: int | None
    """Distinct names with a P&L row in the series tested; null when not measurable"""


class ByLeg(ApiStruct, kw_only=True, frozen=True):
    """The long leg against the short leg."""

    rule: str
    """How a P&L row's leg is decided"""

    long: LegPart
    """The long leg"""

    short: LegPart
    """The short leg"""

    neither: LegPart
    """P&L rows in no leg (no position at the session's start nor at its close), so that the legs add
    up to the names' P&L
    """


class SectorPart(ApiStruct, kw_only=True, frozen=True):
    """One sector: `{what}`."""

    sector: str | None
    """The sector as the seal names it; null for the names without one"""

    pnl: AnalyticsStat
    """Net P&L of the series tested over the window (market P&L, execution cost and borrow), in
    normalised equity
    """

    return_contribution: AnalyticsStat
    """Return contribution of the series tested: its net P&L each session over the book's starting
    equity that session, summed over the window's sessions (additive: the contributions of every
    name, the cash carry and the rounding add up to the sum of the book's daily returns, not to the
    compounded return)
    """

    share: AnalyticsStat
    """Share of the names' window P&L made by the series tested: the name's window P&L over the names'
    window P&L (the sum of net_pnl over every name and session of the window: the ledger's cash
    carry and rounding adjustment belong to no name and are left out of it, see totals); the shares
    of all names add up to 1; not measurable when the names' P&L is not positive (a share of a loss
    or of nothing is no share: in a losing window a name that made money would have a negative
    'share' and a losing name one above 1)
    """

    names: int | None
    """Distinct names with a P&L row in the series tested"""


class BySector(ApiStruct, kw_only=True, frozen=True):
    """The P&L by sector."""

    status: str
    """available, or not_measurable (then the lists are empty and withheld_reason says why: never
    zeros)
    """

    withheld_reason: str | UnsetType = UNSET
    """Why the part is not measurable (present only then)"""

    rule: str
    """How a P&L row's sector is decided"""

    sectors: list[SectorPart]
    """One entry per sector with a P&L row in the window, largest window P&L first (ties by sector),
    then one with sector null for the rows whose name had no sector sealed at that rebalance (only
    when there are some), so that the sectors add up to the names' P&L
    """


class BestDay(ApiStruct, kw_only=True, frozen=True):
    """One of the best days the fragility figures drop."""

    date: dt.date
    """The session"""

    day_return: AnalyticsStat
    """The book's return that session"""

    pnl: AnalyticsStat
    """The book's P&L that session"""

    top_symbol: str | None
    """The name of largest return contribution that session (ties by symbol); null when not measurable"""

    top_contribution: AnalyticsStat
    """That name's return contribution that session: its net P&L over the session's starting equity (of
    day_return, the rest is the other names', the cash carry and the rounding)
    """


class Fragility(ApiStruct, kw_only=True, frozen=True):
    """How much of the information ratio depends on a few days or a few names."""

    drop: int
    """N: the best days and best names left out (the request's `drop`)"""

    information_ratio: AnalyticsStat
    """Information ratio of the book's daily returns over the window, as /analytics/checks
    information_ratio: mean / std(ddof=1) of the daily returns, times sqrt(252), not in excess of
    the risk-free rate
    """

    without_best_days: AnalyticsStat
    """Information ratio of the window's daily returns without its N best sessions (largest r, ties by
    date, earliest first; best_days): those sessions dropped, as /analytics/checks
    information_ratio: mean / std(ddof=1) of the daily returns, times sqrt(252), not in excess of
    the risk-free rate
    """

    best_days_kept: AnalyticsStat
    """The share of the information ratio kept without the N best days (the fragility check's figure
    with N = 5): not measurable when the information ratio is not positive
    """

    without_best_names: AnalyticsStat
    """Information ratio of the window's daily returns without the N best names (best_names): each
    session's return less those names' return contributions that session, as /analytics/checks
    information_ratio: mean / std(ddof=1) of the daily returns, times sqrt(252), not in excess of
    the risk-free rate
    """

    best_names: list[str]
    """The N names of largest window P&L (whether or not they made money), largest first: the
    contributors' ranking; empty when not measurable
    """

    best_days: list[BestDay]
    """The N best sessions of the window (largest return first), each with its top name"""

    top_1pct_days: int | None
    """k for the best 1% of days: ceil(sessions / 100), at least 1; null when not measurable"""

    top_1pct_days_share: AnalyticsStat
    """Share of the window's P&L made by its best 1% of days: the P&L of the k sessions of largest P&L
    over the window's P&L (totals.pnl), k = ceil(1 x sessions / 100), at least 1 (15 of 1,406
    sessions for 1%); above 1 when the other days lost in sum; not measurable when the window's P&L
    is not positive (a share of a loss is no share)
    """

    top_5pct_days: int | None
    """k for the best 5% of days: ceil(5 x sessions / 100), at least 1; null when not measurable"""

    top_5pct_days_share: AnalyticsStat
    """Share of the window's P&L made by its best 5% of days: the P&L of the k sessions of largest P&L
    over the window's P&L (totals.pnl), k = ceil(5 x sessions / 100), at least 1 (15 of 1,406
    sessions for 1%); above 1 when the other days lost in sum; not measurable when the window's P&L
    is not positive (a share of a loss is no share)
    """


class LargestWeight(ApiStruct, kw_only=True, frozen=True):
    """The largest realised weight of the window."""

    weight: AnalyticsStat
    """Largest |weight| the book held at a session's close in the window: the realised weight
    (/positions weight = signed_notional / ending_equity), not the decisions' target weight; the
    first in date and symbol order on a tie; as the max_weight check
    """

    symbol: str | None
    """The name held; null when not measurable"""

    date: dt.date | None
    """The session at whose close it was held; null when not measurable"""

    side: str | None
    """long (weight > 0) or short; null when not measurable"""


class Concentration(ApiStruct, kw_only=True, frozen=True):
    """How concentrated the book's realised positions were over the window."""

    largest_weight: LargestWeight
    """The largest realised weight, its name and date"""

    names_held: AnalyticsStat
    """Distinct names the book held a position in at a session's close in the window"""

    sessions_held: int | None
    """Sessions of the window with at least one position at the close: what the two means are over;
    null when not measurable
    """

    mean_names_per_session: AnalyticsStat
    """Mean number of names held at the close, over the sessions with a position"""

    effective_names: AnalyticsStat
    """Effective number of names: per session, one over the sum of the squared gross-normalised weights
    (N for N equal positions, 1 for one), averaged over the sessions with a position
    """


class Attribution(ApiStruct, kw_only=True, frozen=True):
    """Where a book's P&L came from over a window (`/analytics/attribution`)."""

    alpha: str
    """The alpha served"""

    book: str
    """The book measured"""

    window: Window
    """The window echoed: from and to, null when open"""

    sessions: int | None
    """Sessions of the book in the window (its ledger rows); null for a key that may not read the
    ledger
    """

    top: int
    """Contributors and detractors listed, each (the request's `top`)"""

    totals: Totals
    """The window's P&L and its parts: names, cash carry, rounding"""

    by_name: ByName
    """Contributors and detractors by name"""

    by_leg: ByLeg
    """The long leg against the short leg: the leg of a P&L row is the sign of the position held at the
    start of its session (the quantity at the close of the book's previous session), else, for a
    position opened that session, the sign of the quantity at its close; a row with neither (a round
    trip inside the session, a cost alone) is in no leg
    """

    by_sector: BySector
    """The P&L by sector: the sector of a P&L row is the sector the seal's exposures give its name at
    the latest rebalance on or before the row's session; not measurable (missing_kind) for a run
    that sealed no exposures, with a kind_missing warning
    """

    fragility: Fragility
    """The information ratio without the best days and names"""

    concentration: Concentration
    """Realised concentration from the positions"""


class AttributionResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/analytics/attribution` (analytics.attribution)."""

    data: Attribution

    meta: Meta


class LargestFill(ApiStruct, kw_only=True, frozen=True):
    """The fill of the window with the largest participation at the reference capital."""

    date: dt.date
    """The fill's session"""

    decision_at: dt.date
    """The rebalance week the fill implements (its adv is that week's)"""

    symbol: str
    """The name traded"""

    participation: float
    """Its participation at the reference capital: |quantity x fill_price| / equity_basis x K / adv,
    adv the exposures' average daily traded value of the fill's name at its decision
    (trades.decision_at)
    """

    notional: float
    """Its traded value at the reference capital"""

    adv: float
    """The name's average daily traded value at the decision"""


class CapacityParticipation(ApiStruct, kw_only=True, frozen=True):
    """How much of each name's average daily traded value the window's fills take at the reference
    capital (fills whose name has no adv at its decision are left out: `fills_with_adv`).
    """

    median: AnalyticsStat
    """Median participation of the window's fills at the reference capital (a fraction of adv: 0.01 is
    1%)
    """

    p95: AnalyticsStat
    """95th percentile of the window's fills' participation at the reference capital"""

    max: AnalyticsStat
    """Largest participation of a fill of the window at the reference capital"""

    above_1pct: AnalyticsStat
    """Share of the window's fills with an adv whose participation at the reference capital is above 1%
    of adv
    """

    above_5pct: AnalyticsStat
    """Share of the window's fills with an adv whose participation at the reference capital is above 5%
    of adv
    """

    above_10pct: AnalyticsStat
    """Share of the window's fills with an adv whose participation at the reference capital is above
    10% of adv
    """

    largest: LargestFill | None
    """The fill with the largest participation (the earliest, then the first symbol, on a tie); null
    when not measurable
    """


class CapacityPoint(ApiStruct, kw_only=True, frozen=True):
    """The book at one capital of the grid."""

    capital: float
    """The capital K: the book's size at inception"""

    net_information_ratio: AnalyticsStat
    """Information ratio of the book's daily returns at capital K, its modelled costs scaled as
    cost_model says
    """

    cost_drag: AnalyticsStat
    """Modelled execution cost at capital K per year, as a fraction of the book's equity (0.01 = 1% a
    year), arithmetic
    """

    participation_p95: AnalyticsStat
    """95th percentile of the window's fills' participation at capital K (K / K0 times the reference's)"""


class Capacity(ApiStruct, kw_only=True, frozen=True):
    """Capacity of a book (`/analytics/capacity`)."""

    alpha: str
    """The alpha served"""

    book: str
    """The book measured"""

    window: Window
    """The window echoed: from and to, null when open"""

    capital: float
    """The reference capital K0: the book's size in its currency at inception, which the seal does not
    state (its ledger is normalised to 1.0): the request's `capital`, default 1e8. The seal's
    modelled execution costs are taken as the costs at K0, so every capital figure of the answer
    scales with it
    """

    currency: str
    """The currency of every capital, traded value and average daily traded value of the answer (unit
    base_currency): the books' currency the service declares (schemas.conventions.BOOK_CURRENCY), as
    a seal states none (its ledger is normalised to 1.0, its exposures' adv is in its prices'
    currency)
    """

    cost_model: str
    """How the seal's modelled cost of each fill grows with capital: its per-share fee in proportion (a
    constant cost per unit of notional), the rest (its slippage from the mid: spread and impact,
    which the seal does not separate) as a square-root impact on participation, so (K/K0)^(3/2)
    times the cost at K0; the spread is scaled as impact too, which overstates the costs above K0
    """

    sessions: int | None
    """Sessions of the book in the window; null for a key that may not read the ledger"""

    fills: int | None
    """Fills of the book in the window; null for a key that may not read the trades"""

    fills_with_adv: int | None
    """Fills of the window whose name has an adv at its decision (an exposures row with adv): those the
    participation figures are over; null for a key that may not read the trades
    """

    participation: CapacityParticipation
    """Participation of the window's fills at the reference capital"""

    net_information_ratio: AnalyticsStat
    """Net information ratio at the reference capital: the ledger's own, as /analytics/costs
    information_ratio.net over the same window
    """

    capacity: AnalyticsStat
    """The capital at which the modelled costs halve the net information ratio at the reference
    capital: the smallest K above K0 with net_information_ratio(K) = net_information_ratio(K0) / 2,
    solved in closed form (a quadratic in sqrt(K/K0) - 1); not measurable when the net information
    ratio at K0 is not positive, or when it never falls to half
    """

    participation_capacity: AnalyticsStat
    """The capital at which the 95th-percentile fill of the window takes 10% of its name's adv
    (participation grows in proportion to capital); does not depend on K0
    """

    grid: list[CapacityPoint]
    """The book at each capital of the request's `grid` (default 1e6 to 1e10 in half-decades), in the
    order given
    """


class CapacityResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/analytics/capacity` (analytics.capacity)."""

    data: Capacity

    meta: Meta


class FactorFigures(ApiStruct, kw_only=True, frozen=True):
    """One factor over the window."""

    factor: str
    """The factor: a sector's name (as sealed) or a style loading's"""

    type: str
    """sector (a dummy per sector) or style (a loading)"""

    weeks: int
    """Weeks of the window in which the factor was estimated (a sector: held by the regression's names)"""

    mean_exposure: AnalyticsStat
    """Mean of the book's weekly exposure to the factor over the window's attributed weeks that
    estimate it: for a sector the net weight of its names (a fraction of equity), for a style the
    weight-weighted loading
    """

    factor_return: AnalyticsStat
    """The factor's return over the window: the sum of its weekly estimates (arithmetic; pyfolio's
    perf_attrib summary compounds, cum_returns_final)
    """

    part: AnalyticsStat
    """The factor's part of the book's return over the window: the sum of its weekly parts"""


class FactorWeek(ApiStruct, kw_only=True, frozen=True):
    """One attributed week of the book."""

    date: dt.date
    """The rebalance week's decision date"""

    next_date: dt.date
    """The next decision date: the holding period ends at its close"""

    sessions: int
    """Ledger sessions of the holding period"""

    names: int
    """Names in the week's regression"""

    r_squared: float | None
    """Centred R^2 of the week's regression (the sector dummies span the constant)"""

    book_return: float | None
    """The book's return that week: the book's return compounded over the ledger sessions after the
    decision up to and including the next decision session: it differs from the forward return's
    period (open after the decision to the open after the next decision) by the decision day's
    overnight move, which lands in the specific part
    """

    common_return: float | None
    """The factors' parts that week"""

    specific_return: float | None
    """What the factors leave of it"""


class FactorRunningSums(ApiStruct, kw_only=True, frozen=True):
    """The window's weekly returns summed up to and including one attributed week (the last week's are
    the window's sums).
    """

    date: dt.date
    """The attributed week's decision date (weekly[].date)"""

    sum_of_weekly_returns: float | None
    """The book's weekly returns summed over the window's attributed weeks up to and including this one
    (arithmetic, as the route's sum_of_weekly_returns; a week without a return adds nothing); null
    when this week has none
    """

    sum_of_weekly_common_returns: float | None
    """The factors' parts summed the same way (sum_of_weekly_common_returns up to this week)"""

    sum_of_weekly_specific_returns: float | None
    """The specific returns summed the same way (sum_of_weekly_specific_returns up to this week)"""


class FactorWeekExposure(ApiStruct, kw_only=True, frozen=True):
    """One factor in one attributed week (a chart draws exposure by date and factor)."""

    date: dt.date
    """The rebalance week's decision date"""

    factor: str
    """The factor"""

    type: str
    """sector or style"""

    exposure: float | None
    """The book's exposure that week"""

    factor_return: float | None
    """The factor's return that week (the OLS estimate)"""

    part: float | None
    """The factor's part of the book's return that week"""


class NeutralIcWeek(ApiStruct, kw_only=True, frozen=True):
    """One week's IC and feature-neutral IC."""

    date: dt.date
    """The rebalance week's decision date"""

    ic: float | None
    """The week's rank IC (weekly_signal ic, raw_ic for raw books)"""

    neutral_ic: float | None
    """The week's feature-neutral IC: Spearman of the score residualised on the week's loadings with
    the forward return
    """

    names: int | None
    """Names the neutral IC ranks (residual and forward return both present)"""


class NeutralIc(ApiStruct, kw_only=True, frozen=True):
    """The signal's IC and feature-neutral IC over the window."""

    signal: str
    """The score ranked: score, or raw_score for a raw_ book"""

    attributed_mean_ic: AnalyticsStat
    """Mean weekly rank IC over the window's weeks with a measurable IC, as /metrics rank_ic"""

    mean_neutral_ic: AnalyticsStat
    """Mean weekly feature-neutral IC over the window's weeks with a measurable one: what the score
    predicts beyond the sectors and styles (Numerai's feature-neutral correlation, but fully
    neutralised and ranked with Spearman)
    """

    weeks: list[NeutralIcWeek]
    """The window's weeks, in date order"""


class Factors(ApiStruct, kw_only=True, frozen=True):
    """Factor attribution of a book (`/analytics/factors`)."""

    alpha: str
    """The alpha served"""

    book: str
    """The book measured"""

    window: Window
    """The window echoed: from and to, null when open"""

    estimator: str
    """How the factor returns are estimated each week"""

    weeks: int | None
    """Attributed weeks of the window (a rebalance week is in the window when its decision date is on
    or after from and its holding period ends (the next decision date) on or before to, with a
    factor estimate and a holding period in the ledger); null when not measurable
    """

    sum_of_weekly_returns: AnalyticsStat
    """The book's weekly returns over the window's attributed weeks, summed (arithmetic, as the parts
    are; not compounded, and not the daily returns summed, /analytics/attribution
    totals.sum_of_daily_returns): each week the book's return compounded over the ledger sessions
    after the decision up to and including the next decision session: it differs from the forward
    return's period (open after the decision to the open after the next decision) by the decision
    day's overnight move, which lands in the specific part
    """

    sum_of_weekly_common_returns: AnalyticsStat
    """The factors' part of it (the sum of every factor's part)"""

    sum_of_weekly_specific_returns: AnalyticsStat
    """What the factors leave of it: the return of what the loadings do not describe"""

    specific_information_ratio: AnalyticsStat
    """Information ratio of the weekly specific returns, annualised (pyfolio's perf_attrib summary
    shows empyrical's sharpe_ratio of them, which annualises with sqrt(252) whatever their
    frequency)
    """

    variance_explained: AnalyticsStat
    """Share of the variance of the book's weekly returns the factors explain (below 0 when the
    specific returns vary more than the book's)
    """

    factors: list[FactorFigures]
    """One entry per factor estimated in the window: sectors by name, then size, value, momentum, beta,
    volatility
    """

    weekly: list[FactorWeek]
    """The attributed weeks, in date order"""

    running_sums: list[FactorRunningSums]
    """The book's, common and specific weekly returns summed from the window's first attributed week up
    to each one, a row per week of weekly (what the dashboard draws as the summed returns)
    """

    exposures: list[FactorWeekExposure]
    """The weekly exposures and parts, by date then factor (the factors' order)"""

    ic: NeutralIc
    """The signal's IC and feature-neutral IC"""


class FactorsResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/analytics/factors` (analytics.factors)."""

    data: Factors

    meta: Meta


class QuantileBucket(ApiStruct, kw_only=True, frozen=True):
    """One score quantile over the window."""

    quantile: int
    """1 (lowest score) .. quantiles (highest score)"""

    label: str
    """Q1 .. Qn"""

    weeks: int | None
    """Bucketed weeks of the window in which the quantile held names; null when withheld"""

    mean_names: float | None
    """Mean over those weeks of the names in the quantile; null when it held none or withheld"""

    mean_forward_return: AnalyticsStat
    """Mean one-week forward return of the quantile, per week: the mean over the window's bucketed
    weeks of the quantile's equal-weighted mean forward return (alphalens
    mean_return_by_quantile(demeaned=False))
    """

    standard_error: AnalyticsStat
    """Standard error of mean_forward_return over the weeks (alphalens' std_error_ret); not measurable
    below 2 weeks
    """

    cumulative_return: list[float] | None
    """The quantile's weekly means compounded, one value per entry of dates: the value at a date
    includes that week's forward return (realised by the next rebalance); a week the quantile held
    no name adds nothing; null when withheld
    """


class QuantileSpread(ApiStruct, kw_only=True, frozen=True):
    """The top quantile's weekly mean forward return minus the bottom's."""

    top: int
    """The top quantile (the request's quantiles)"""

    bottom: int
    """The bottom quantile (1)"""

    weeks: int | None
    """Bucketed weeks of the window with both quantiles held; null when withheld"""

    mean: AnalyticsStat
    """Mean weekly top-minus-bottom spread of forward returns, per week: the plain difference of the
    two quantiles' weekly means, as /metrics' decile spread (alphalens compute_mean_returns_spread
    halves it: a book 50% long, 50% short)
    """

    standard_error: AnalyticsStat
    """Newey-West (Bartlett kernel) standard error of the mean spread, no small-sample correction
    (statsmodels OLS(s, ones) HAC, maxlags = lag); not measurable below 10 weeks
    """

    t_statistic: AnalyticsStat
    """Newey-West t-statistic of the mean spread (mean / standard_error); not measurable below 10 weeks
    or without variance
    """

    lag: int | None
    """The Newey-West lag; null when not measurable"""

    cumulative_return: list[float] | None
    """The weekly spread compounded (long the top quantile, short the bottom, each week's pair of
    means), one value per entry of dates; a week without both adds nothing; null when withheld
    """


class MonthIc(ApiStruct, kw_only=True, frozen=True):
    """The weekly IC of one calendar month of the window."""

    month: str
    """The calendar month (YYYY-MM) of the weeks' rebalance dates"""

    weeks: int
    """Weeks of the month with a measurable IC"""

    rebuilt_mean_ic: float | None
    """Mean of those weeks' IC; null when none has one"""


class MonthOfYearIc(ApiStruct, kw_only=True, frozen=True):
    """The weekly IC of one month of the year, pooled across the window's years."""

    month: int
    """The month of the year (1 = January .. 12)"""

    years: int
    """Calendar years of the window holding a week of that month"""

    weeks: int
    """Weeks of that month with a measurable IC, every year"""

    rebuilt_mean_ic: float | None
    """Mean of those weeks' IC; null when none has one"""


class SectorIc(ApiStruct, kw_only=True, frozen=True):
    """The IC of the score within one sector."""

    sector: str
    """The sector, as the seal's exposures name it"""

    weeks: int
    """Weeks of the window with a measurable IC within the sector"""

    sector_mean_names: float | None
    """Mean over those weeks of the sector's names with a score and a forward return; null without a
    week
    """

    sector_mean_ic: AnalyticsStat
    """Mean over the window's weeks of the rank IC within the sector (alphalens
    mean_information_coefficient (by_group=True, group_adjust=False))
    """


class IcBySector(ApiStruct, kw_only=True, frozen=True):
    """The IC by sector, or why it is not measurable."""

    status: str
    """available, or not_measurable (then sectors is null and withheld_reason says why)"""

    withheld_reason: str | UnsetType = UNSET
    """Why the IC by sector is not measurable (present only then): missing_kind (the run sealed no
    exposures), access_limited (the key may not read the rebalance cross-sections), or the run
    sealed no decisions
    """

    sectors: list[SectorIc] | None
    """One entry per sector of the window, by name"""


class Quantiles(ApiStruct, kw_only=True, frozen=True):
    """Quantile returns and the IC by month and sector (`/analytics/quantiles`)."""

    alpha: str
    """The alpha served"""

    score_field: str
    """The score bucketed: score (conditioned) or raw_score (raw-book keys only)"""

    signal: str
    """conditioned for score, raw for raw_score"""

    quantiles: int
    """Number of quantiles (the request's)"""

    assignment: str
    """How a week's names are assigned their quantile"""

    window: Window
    """The window echoed: from and to, null when open"""

    weeks: int | None
    """Rebalance weeks of the window with at least one name holding a score and a forward return; null
    when withheld
    """

    bucketed_weeks: int | None
    """Of them, the weeks bucketed (see assignment); null when withheld"""

    skipped_weeks: int | None
    """Of them, the weeks not bucketed: fewer names than quantiles, or tied scores across an edge; null
    when withheld
    """

    dates: list[dt.date] | None
    """The bucketed weeks' rebalance dates, in order: the curves' time axis; null when withheld"""

    buckets: list[QuantileBucket]
    """Q1 (lowest score) .. Qn (highest)"""

    spread: QuantileSpread
    """Top quantile minus bottom quantile"""

    ic_by_month: list[MonthIc] | None
    """The weekly IC /metrics uses (score: rank_ic.conditioned; raw_score: rank_ic.raw) grouped by the
    calendar month of the week's date, one entry per month of the window holding a week; null when
    withheld
    """

    ic_by_month_of_year: list[MonthOfYearIc] | None
    """The same weekly IC pooled by month of the year across years (seasonality); null when withheld"""

    ic_by_sector: IcBySector
    """The rank IC of the score within each sector of the seal's exposures, averaged over the weeks"""


class QuantilesResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/analytics/quantiles` (analytics.quantiles)."""

    data: Quantiles

    meta: Meta


class SubUniverseHalf(ApiStruct, kw_only=True, frozen=True):
    """One half of each week's names by adv."""

    half: str
    """Which half: adv at or above the week's median, or below"""

    weeks: int
    """Weeks of the window with a measurable IC on the half"""

    half_mean_names: float | None
    """Mean names of the half over those weeks; null without a week"""

    half_mean_ic: float | None
    """Mean over those weeks of the half's weekly rank IC (the weekly IC's rule on the half's names)"""

    half_icir: float | None
    """ICIR of the half's weekly IC"""

    required_icir: float | None
    """The ICIR the half must reach to pass; null unless universe_icir is positive"""

    sub_universe: float | None
    """The half's ICIR over the full one scaled by sqrt(n_sub / n): passes at 0.75 or more (the checks
    battery's sub_universe is the liquid half's); null unless universe_icir is positive and
    half_icir measurable
    """

    passes: bool | None
    """Whether the half passes the sub-universe test (ICIR_sub >= 0.75 x sqrt(n_sub / n) x ICIR_full, n
    the mean names per week with a measurable IC); null when not measurable
    """


class RandomHalves(ApiStruct, kw_only=True, frozen=True):
    """The random halves: each draw's mean IC and ICIR over the window, summarised over draws."""

    draws: int
    """Random halves drawn per week (draw r of every week is one series)"""

    seed: int
    """The seed, with each week's day number"""

    random_mean_ic: float | None
    """Mean over draws of each draw's mean weekly IC"""

    random_mean_ic_p05: float | None
    """5th percentile over draws of each draw's mean weekly IC (numpy linear)"""

    random_mean_ic_p95: float | None
    """95th percentile over draws of each draw's mean weekly IC (numpy linear)"""

    random_icir: float | None
    """Mean over draws of each draw's ICIR"""

    random_icir_p05: float | None
    """5th percentile over draws of each draw's ICIR"""

    random_icir_p95: float | None
    """95th percentile over draws of each draw's ICIR"""

    random_pass_share: float | None
    """Share of the draws that pass the sub-universe test (ICIR_sub >= 0.75 x sqrt(n_sub / n) x
    ICIR_full, n the mean names per week with a measurable IC); null unless universe_icir is
    positive
    """


class SubUniverse(ApiStruct, kw_only=True, frozen=True):
    """The IC on the liquid, illiquid and random halves of the cross-section
    (`/analytics/sub_universe`).
    """

    alpha: str
    """The alpha served"""

    score_field: str
    """The score ranked: the conditioned score"""

    split: str
    """How a week's names are split"""

    pass_ratio: float
    """The test's ratio (WorldQuant's 0.75)"""

    window: Window
    """The window echoed: from and to, null when open"""

    status: str
    """available, or not_measurable (then the figures are null and withheld_reason says why)"""

    withheld_reason: str | UnsetType = UNSET
    """Why the figures are not measurable (present only then): missing_kind (the run sealed no
    exposures or no decisions), or access_limited (the key may not read the rebalance
    cross-sections)
    """

    weeks: int | None
    """Weeks of the window with a measurable full IC; null when not measurable"""

    universe_mean_names: float | None
    """Mean names per week of the full IC (n_ic_obs) over those weeks"""

    universe_mean_ic: float | None
    """Mean weekly IC of the full cross-section over the window (weekly_signal.ic)"""

    universe_icir: float | None
    """ICIR of the full cross-section's weekly IC"""

    without_adv_mean_names: float | None
    """Mean names per week with a score and a forward return but no adv: in neither half"""

    halves: list[SubUniverseHalf] | None
    """The liquid half, then the illiquid half"""

    random: RandomHalves | None
    """The random halves"""

    passes: bool | None
    """Whether the liquid half passes the sub-universe test; null when not measurable"""


class SubUniverseResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/analytics/sub_universe` (analytics.sub_universe)."""

    data: SubUniverse

    meta: Meta


class Bootstrap(ApiStruct, kw_only=True, frozen=True):
    """Stationary block-bootstrap confidence intervals (seeded: the same request, the same answer)."""

    method: str
    """The resampling scheme and the interval"""

    confidence: float
    """Confidence level of the intervals"""

    resamples: int
    """Number of resamples"""

    seed: int
    """Seed of numpy's PCG64 generator: the same request always gives the same answer"""

    block_length_rule: str
    """How the mean block length is chosen"""

    streams: str
    """The generator stream of each statistic (PCG64(SeedSequence([seed, stream])))"""

    rebuilt_mean_ic: AnalyticsStat
    """Mean weekly conditioned IC rebuilt from the rebalance cross-sections (not the run's sealed
    /metrics core.ic)
    """

    rebuilt_icir: AnalyticsStat
    """Information ratio of the rebuilt weekly IC, annualised with the run's weeks_per_year (52),
    bounds included (not the run's sealed /metrics core.icir)
    """

    information_ratio: AnalyticsStat
    """Information ratio of daily long_short returns (after costs, not in excess of the risk-free
    rate), daily times sqrt(252) as /metrics core.information_ratio (rolling's is weekly times
    sqrt(52)): quantstats' sharpe(r) and empyrical's sharpe_ratio, risk-free rate 0; not quantstats'
    information_ratio(r, benchmark), the mean over the standard deviation of r - benchmark, not
    annualised
    """


class MultipleTesting(ApiStruct, kw_only=True, frozen=True):
    """The `nwt.ic` p-value of `/metrics`, adjusted within the family of the alphas the key may read."""

    p_value: AnalyticsStat
    """Two-sided Newey-West p-value of the mean weekly IC (as /metrics nwt.ic.p_value)"""

    holm: AnalyticsStat
    """Holm step-down adjusted p-value within the family"""

    benjamini_hochberg: AnalyticsStat
    """Benjamini-Hochberg adjusted p-value (false discovery rate) within the family"""


class HaircutMethod(ApiStruct, kw_only=True, frozen=True):
    """One adjustment of `sharpe_haircut`: its adjusted p-value and the Sharpe ratio it implies."""

    adjusted_p_value: AnalyticsStat
    """The p-value of the Sharpe ratio's t-ratio adjusted for the tests: Bonferroni min(M p, 1); Holm
    and BHY the median over the simulations of the alpha's p adjusted among M simulated p-values of
    the other tests; average the mean of those three (Harvey and Liu 2015)
    """

    adjusted_p_value_monte_carlo_error: AnalyticsStat
    """The Monte Carlo standard error of adjusted_p_value: how far another seed of the simulations
    moves it. Holm and BHY: Maritz and Jarrett's (1978) standard error of the median over the
    simulations (about 0 where the median sits on one rank's value, which another seed rarely
    leaves); Bonferroni 0 (exact, not simulated); average (Holm's + BHY's) / 3, a bound whatever
    their correlation
    """

    haircut_sharpe: AnalyticsStat
    """The annualised Sharpe ratio the adjusted p-value implies ("a Sharpe ratio of 1.0 is worth 0.45")"""

    haircut_share: AnalyticsStat
    """The share of the tested Sharpe ratio the adjustment takes off"""


class SharpeHaircut(ApiStruct, kw_only=True, frozen=True):
    """`sharpe_haircut` of the significance object: Harvey and Liu's (2015) haircut Sharpe ratios."""

    method: str
    """The method and its reference"""

    frequency: str
    """The frequency of the t-ratio: monthly, as the paper's"""

    tested_sharpe: AnalyticsStat
    """The Sharpe ratio the haircut starts from: the window's daily Sharpe ratio annualised with Lo's
    (2002) adjustment for the returns' lag-1 serial correlation (the paper's input; sharpe is
    without it)
    """

    sharpe_t_ratio: AnalyticsStat
    """The tested Sharpe ratio's t-ratio over the window's months"""

    sharpe_p_value: AnalyticsStat
    """The t-ratio's p-value before any adjustment"""

    bonferroni_haircut: HaircutMethod
    """Bonferroni's adjustment: min(M p, 1)"""

    holm_haircut: HaircutMethod
    """Holm's step-down adjustment, simulated"""

    bhy_haircut: HaircutMethod
    """Benjamini, Hochberg and Yekutieli's adjustment (false discovery rate under dependence),
    simulated
    """

    average_haircut: HaircutMethod
    """The mean of the three adjusted p-values, and its Sharpe ratio"""

    tests: int | None
    """M: the tests adjusted for, the published alphas the key may read with a measurable long_short
    Sharpe ratio (this one included; dsr.trials.sharpe_variance_alphas); null for a key that may not
    read the ledger
    """

    test_correlation: float
    """rho: the average correlation between the tests' returns the simulation assumes (Harvey, Liu and
    Zhu's preferred level 0.2, fixed)
    """

    observed_months: int | None
    """T: the window's sessions in months, floor(sessions 12 / 252); null for a key that may not read
    the ledger
    """

    simulations: int
    """Simulations of the other tests (20,000, fewer when M is large: docs/analytics.md)"""

    seed: int
    """Seed of numpy's PCG64 generator of the simulations: the same request always gives the same
    answer
    """


class Significance(ApiStruct, kw_only=True, frozen=True):
    """Significance of the long_short Sharpe ratio and of the IC (`/analytics/significance`)."""

    alpha: str
    """The alpha served (meta.run)"""

    source_alpha_id: str
    """The run's research source id: the seal's own id for the alpha (meta.source_alpha_id, the lake's
    source_alpha_id), not the alpha served (alpha, the path's id); the alpha's id when the run
    recorded none
    """

    book: str
    """Always long_short"""

    window: Window
    """The window echoed: from and to, null when open"""

    sessions: int | None
    """Sessions of the long_short book in the window, as /portfolio and costs count them (the figures
    need 3 daily returns with variance); null for a key that may not read the ledger (a count of it,
    withheld as its figures are)
    """

    sharpe: AnalyticsStat
    """Sharpe ratio of daily long_short total returns, after costs and not in excess of the risk-free
    rate: the /metrics core.information_ratio convention (daily, times sqrt(252)), quantstats'
    sharpe(r) and empyrical's sharpe_ratio, risk-free rate 0; not quantstats' information_ratio(r,
    benchmark), the mean over the standard deviation of r - benchmark, not annualised
    """

    skewness: AnalyticsStat
    """Sample skewness of the daily returns"""

    kurtosis: AnalyticsStat
    """Sample kurtosis of the daily returns, not in excess (3 for a normal)"""

    serial_correlation: AnalyticsStat
    """rho: the serial correlation of the daily returns, the AR(1) coefficient the Sharpe ratio's
    variance assumes (López de Prado, Lipton and Zoonekynd 2025), estimated as the reference code
    does
    """

    sharpe_standard_error: AnalyticsStat
    """Standard error of the Sharpe ratio: the standard deviation of its estimate over the window's
    sessions at the observed Sharpe ratio, for non-normal returns serially correlated as AR(1)
    (López de Prado, Lipton and Zoonekynd 2025); annualised as sharpe is
    """

    psr: AnalyticsStat
    """Probabilistic Sharpe Ratio: the probability that the true Sharpe ratio exceeds sr_benchmark, for
    non-normal returns serially correlated as AR(1) (López de Prado, Lipton and Zoonekynd 2025)
    """

    min_track_record: AnalyticsStat
    """Minimum track record length for PSR(sr_benchmark) to reach the confidence"""

    min_backtest_length: AnalyticsStat
    """Minimum backtest length: the years of history below which the best of dsr.trials.count
    skill-less configurations is expected to show at least this Sharpe ratio (Bailey, Borwein, López
    de Prado and Zhu 2014); a backtest shorter than it cannot tell this Sharpe ratio from the
    search's luck
    """

    critical_sharpe: AnalyticsStat
    """Critical Sharpe ratio: the Sharpe ratio the window's sessions must show for the test of a true
    Sharpe ratio of sr_benchmark to reject at level 1 - confidence (PSR(sr_benchmark) at the
    confidence); annualised
    """

    power: AnalyticsStat
    """Power of the test of a true Sharpe ratio of sr_benchmark at level 1 - confidence over the
    window's sessions: the probability it rejects when the true Sharpe ratio is sr_alternative
    (sr_benchmark + 1, fixed before the data, never the observed Sharpe ratio)
    """

    dsr: AnalyticsStat
    """Deflated Sharpe Ratio: PSR against the expected maximum Sharpe ratio of the catalogue's trials,
    its variance that of the maximum of N Sharpe ratios (López de Prado, Lipton and Zoonekynd 2025)
    """

    dsr_family: AnalyticsStat
    """Deflated Sharpe Ratio: PSR against the expected maximum Sharpe ratio of the trials of the
    alpha's own trial family (dsr deflates by the whole catalogue's)
    """

    clustered_dsr: AnalyticsStat
    """Deflated Sharpe Ratio as López de Prado and Lewis (2019) deflate: PSR against the expected
    maximum Sharpe ratio of K trials, K the clusters of the trials (dsr.trials.effective_count), V
    the variance of the clusters' Sharpe ratios (effective_dsr keeps V over all the trials)
    """

    effective_dsr: AnalyticsStat
    """Deflated Sharpe Ratio against the expected maximum Sharpe ratio of the effective number of
    trials (dsr.trials.effective_count in place of N; V as dsr's)
    """

    bootstrap: Bootstrap
    """Stationary block-bootstrap confidence intervals (at `confidence`) over the requested window
    (from/to), else the whole history
    """

    multiple_testing: MultipleTesting
    """The nwt.ic p-value of /metrics adjusted within the family of the alphas the key may read (whole
    histories; from/to do not narrow it)
    """

    sharpe_haircut: SharpeHaircut
    """Haircut Sharpe ratios (Harvey and Liu 2015): the Sharpe ratio the p-value adjusted for the M
    tests the key may see implies, by Bonferroni, Holm, BHY and their average, with the adjusted
    p-values
    """


class SignificanceResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/analytics/significance` (analytics.significance)."""

    data: Significance

    meta: Meta


class CatalogueBound(ApiStruct, kw_only=True, frozen=True):
    """`/analytics/catalogue_bound`: the Rademacher anti-serum over the alphas the key may read
    (docs/analytics.md, "A bound over the whole catalogue"): a lower bound on each such alpha's
    Sharpe ratio and mean IC at once, with probability ras_confidence. The complexity is computed
    exactly over their rows (issue 81, item 7: nothing another team publishes moves it). The returns
    side (ras_sharpe_*, ras_sessions) is null for a key that may not read the ledger, the IC side
    (ras_ic_*, ras_weeks) for one that may not read the cross-sections.
    """

    alpha: str
    """The alpha served (meta.run)"""

    ras_confidence: float
    """1 - delta: the probability that every bound holds at once (0.95)"""

    ras_draws: int
    """Monte Carlo draws of the Rademacher signs behind each complexity (seeded)"""

    ras_sharpe_observed: AnalyticsStat
    """The alpha's per-session Sharpe ratio as the bound reads it: its daily long_short returns (the
    catalogue's returns matrix) divided by their standard deviation (ddof 1), summed over the dates
    on which an alpha the key may read has a value in the catalogue's matrix (from/to do not narrow
    them), a date the alpha has no value on counted as flat (0)
    """

    ras_sharpe_lower_bound: AnalyticsStat
    """Lower bound on the alpha's true per-session Sharpe ratio (as ras_sharpe_observed reads it),
    holding for every alpha the key may read at once with probability ras_confidence: the
    sub-Gaussian form of the Rademacher anti-serum, Paleologo (2024), The Elements of Quantitative
    Investing, section 8.3, Procedures 8.1 and 8.2
    """

    ras_sharpe_complexity: float | None
    """Empirical Rademacher complexity of the daily returns of the alphas the key may read, each at
    unit variance, computed exactly over their rows
    """

    ras_sharpe_complexity_error: float | None
    """Monte Carlo standard error of ras_sharpe_complexity"""

    ras_sessions: int | None
    """T: the dates (sessions) of the catalogue's returns matrix on which an alpha the key may read has
    one
    """

    ras_sharpe_alphas: int | None
    """N: the alphas the key may read with a returns series (3 or more sessions with variance) the
    complexity is over
    """

    ras_ic_observed: AnalyticsStat
    """The alpha's mean weekly conditioned IC as the bound reads it (the catalogue's IC matrix, each
    value within [-1, 1]), summed over the dates on which an alpha the key may read has a value in
    the catalogue's matrix (from/to do not narrow them), a date the alpha has no value on counted as
    flat (0)
    """

    ras_ic_lower_bound: AnalyticsStat
    """Lower bound on the alpha's true mean weekly IC (as ras_ic_observed reads it), holding for every
    alpha the key may read at once with probability ras_confidence: the bounded form (|IC| <= 1) of
    the Rademacher anti-serum, Paleologo (2024), The Elements of Quantitative Investing, section
    8.3, Procedures 8.1 and 8.2
    """

    ras_ic_complexity: float | None
    """Empirical Rademacher complexity of the weekly IC of the alphas the key may read, computed
    exactly over their rows
    """

    ras_ic_complexity_error: float | None
    """Monte Carlo standard error of ras_ic_complexity"""

    ras_weeks: int | None
    """T: the dates (weeks) of the catalogue's IC matrix on which an alpha the key may read has one"""

    ras_ic_alphas: int | None
    """N: the alphas the key may read with a weekly IC the complexity is over"""


class CatalogueBoundResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/analytics/catalogue_bound` (analytics.catalogue_bound)."""

    data: CatalogueBound

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


class LogitBin(ApiStruct, kw_only=True, frozen=True):
    """A bin of the logit distribution: the splits whose logit fell in [logit_from, logit_to)."""

    logit_from: float
    """The bin's lower edge (the first bin takes every logit below it too)"""

    logit_to: float
    """The bin's upper edge (the last bin takes every logit above it too)"""

    splits_in_bin: int
    """How many of the combinations' logits fall in the bin."""


class FamilyMember(ApiStruct, kw_only=True, frozen=True):
    """One trial of the family the key may read: its alpha, its seal's parameters and how often the
    cross-validation picked it in sample.
    """

    alpha_id: str
    """The member's alpha id."""

    parameters: dict[str, float | int | str]
    """The parameters its seal names (a flat mapping of names to numbers or short texts; empty if none)"""

    pick_share: float | None
    """Share of the combinations whose in-sample best trial is this member; null when the figures are
    not measurable.
    """


class Overfitting(ApiStruct, kw_only=True, frozen=True):
    """The probability of backtest overfitting of the alpha's trial family by combinatorially symmetric
    cross-validation, over the family's members the key may read.
    """

    family: str | None
    """The trial family the alpha's seal names (null: it names none, and no figure is given)"""

    measure: str
    """What the trials are ranked by in and out of sample: sharpe_per_session, the mean over the
    standard deviation (ddof 1) of the long_short book's daily returns of the combination's blocks.
    """

    family_trials: int
    """The family's members the key may read whose long_short returns are in the catalogue: the trials
    N (the figures need 6)
    """

    splits: int
    """S: the blocks of equal length the members' common sessions are cut into."""

    combinations: int
    """C(S, S/2): the ways of taking half the blocks in sample, each a cross-validation."""

    cscv_sessions: int
    """Sessions the cross-validation uses: the members' common sessions with a return, the oldest T mod
    S left out so that every block holds T // S.
    """

    pbo: AnalyticsStat
    """Probability of backtest overfitting: the share of the combinations whose in-sample best trial
    ranks at or below the median out of sample (logit <= 0)
    """

    degradation_slope: AnalyticsStat
    """Performance degradation: the OLS slope of the in-sample best trial's out-of-sample Sharpe ratio
    on its in-sample one over the combinations (below 0: the better it looked in sample, the worse
    it did out of sample)
    """

    degradation_intercept: AnalyticsStat
    """The intercept of that regression (per-session Sharpe ratio)"""

    probability_of_loss: AnalyticsStat
    """Probability of loss out of sample: the share of the combinations whose in-sample best trial has
    an out-of-sample Sharpe ratio below 0.
    """

    logit_distribution: list[LogitBin]
    """The combinations' logits in 20 equal bins from -4 to 4 (the end bins take what lies beyond);
    empty when not measurable.
    """

    members: list[FamilyMember]
    """The family's members the key may read, in catalogue order, with their parameters and pick
    shares.
    """


class OverfittingResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/analytics/overfitting` (analytics.overfitting)."""

    data: Overfitting

    meta: Meta


class FamilyTestMember(ApiStruct, kw_only=True, frozen=True):
    """One member of the family the key may read: its parameters, its Sharpe ratio over the common
    sessions, whether StepM finds it superior to the family's average and its model confidence set
    p-value.
    """

    alpha_id: str
    """The member's alpha id."""

    parameters: dict[str, float | int | str]
    """The parameters its seal names (a flat mapping of names to numbers or short texts; empty if none)"""

    family_sharpe: float | None
    """The member's annualised Sharpe ratio over the family's common sessions; null without variance or
    when the figures are withheld
    """

    stepm_superior: bool | None
    """Whether Romano and Wolf's StepM (studentized) rejects, at test_size, that the member's mean
    daily return is at most the family's equal-weighted mean return; null when the tests are not
    measurable
    """

    stepm_p_value: float | None
    """The member's StepM p-value: the share of the resampled maxima of the step that decided it (the
    step it was found superior at, else the last) above its statistic; below test_size as it is
    found superior (up to the quantile's interpolation, inside its Monte Carlo error); null when not
    measurable
    """

    stepm_p_value_monte_carlo_error: float | None
    """The Monte Carlo standard error of stepm_p_value; null when not measurable"""

    stepm_within_monte_carlo_error: bool | None
    """Whether stepm_p_value lies within 2 Monte Carlo standard errors of test_size: stepm_superior is
    not settled by the resamples drawn (another seed could turn it); null when not measurable
    """

    mcs_p_value: float | None
    """The member's model confidence set p-value (Hansen, Lunde and Nason, T_R, loss = -daily return):
    the largest elimination p-value up to its own elimination, 1 for the last member; null when not
    measurable
    """

    in_confidence_set: bool | None
    """Whether the member is in the model confidence set at test_size (mcs_p_value > test_size):
    indistinguishable from the best; null when not measurable
    """

    mcs_p_value_monte_carlo_error: float | None
    """The Monte Carlo standard error of mcs_p_value, measured by batch means of the resamples; null
    when not measurable
    """

    mcs_within_monte_carlo_error: bool | None
    """Whether mcs_p_value lies within 2 Monte Carlo standard errors of test_size: in_confidence_set is
    not settled by the resamples drawn (another seed could turn it); null when not measurable
    """


class ParameterStability(ApiStruct, kw_only=True, frozen=True):
    """One parameter of the family: the members' Sharpe ratios against its value."""

    parameter: str
    """The parameter's name, as the members' seals name it."""

    members_with_parameter: int
    """The members with a numeric value of the parameter and a Sharpe ratio."""

    distinct_values: int
    """The parameter's distinct values among them."""

    sharpe_spearman: float | None
    """Spearman's rank correlation of the members' family_sharpe with the parameter's value (average
    ranks); null with a reason when the parameter takes one value, is not numeric or fewer than 3
    members name it
    """

    neighbour_deviation: float | None
    """The neighbour-stability score: the mean absolute difference of a member's Sharpe ratio from the
    mean of its neighbours' (the members at the next lower and next higher value of the parameter,
    every other parameter equal), over the spread of the members' Sharpe ratios. 0: each equals its
    neighbours' mean (smooth); about 1: neighbours unrelated; null when no member has a neighbour
    """

    reason: str | None
    """Why sharpe_spearman is null (null when it is measured)."""


class FamilyTests(ApiStruct, kw_only=True, frozen=True):
    """Which members of the alpha's trial family beat the family's average (SPA, StepM) and which are
    indistinguishable from the best (MCS), over the members the key may read, and the stability of
    their Sharpe ratio across each parameter.
    """

    family: str | None
    """The trial family the alpha's seal names (null: it names none, and no figure is given)"""

    compared_members: int
    """The family's members the key may read whose daily long_short returns are in the catalogue: the
    members compared (2 needed)
    """

    compared_sessions: int
    """The sessions on which every compared member has a daily return (20 needed)."""

    test_size: float
    """The level of StepM and of the model confidence set."""

    comparison_resamples: int
    """Stationary-bootstrap resamples of the common sessions, one draw for every member."""

    comparison_block_length: float | None
    """The resamples' mean block length: the mean over the members of Politis and White's automatic
    choice; null when not measurable
    """

    spa_p_value: AnalyticsStat
    """Hansen's SPA consistent p-value (studentized) of H0: no member's mean daily long_short return
    exceeds the family's (the benchmark: each session's equal-weighted mean of the members
    compared); below test_size, some variant beats the family's average after the search over its
    variants
    """

    spa_p_value_lower: AnalyticsStat
    """SPA's lower p-value: the resamples re-centred at max(mean(d_k), 0)"""

    spa_p_value_upper: AnalyticsStat
    """SPA's upper p-value (White's reality check, studentized): every member re-centred at its mean"""

    spa_p_value_monte_carlo_error: float | None
    """The Monte Carlo standard error of spa_p_value; null when it is not measurable"""

    spa_p_value_lower_monte_carlo_error: float | None
    """The Monte Carlo standard error of spa_p_value_lower; null when it is not measurable"""

    spa_p_value_upper_monte_carlo_error: float | None
    """The Monte Carlo standard error of spa_p_value_upper; null when it is not measurable"""

    spa_within_monte_carlo_error: bool | None
    """Whether spa_p_value lies within 2 Monte Carlo standard errors of test_size: whether it is below
    the cut-off is not settled by the resamples drawn (another seed could turn it); null when not
    measurable
    """

    members: list[FamilyTestMember]
    """The family's members the key may read, in catalogue order, with their tests' figures."""

    parameters: list[ParameterStability]
    """Each parameter the members' seals name, by name: its Sharpe ratio stability."""


class FamilyTestsResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/analytics/family_tests` (analytics.family_tests)."""

    data: FamilyTests

    meta: Meta


class DecayPoint(ApiStruct, kw_only=True, frozen=True):
    """An entry of `ic_decay.term_structure`: one horizon, measured and fitted."""

    horizon_weeks: int
    """Horizon h in weeks"""

    mean_ic: float | None
    """Mean over weeks of Spearman(raw_score, prod(1 + r) - 1 over the next h weekly forward returns),
    as /metrics panel.ic_term_structure[].mean_ic over the whole history; null when no week has it
    or for a key that may not read the rebalance cross-sections
    """

    fitted_ic: float | None
    """The fit's IC at h weeks: the sum of the fitted marginal ICs of weeks 1..h over sqrt(h); null
    when the fit is not measurable
    """

    marginal_ic: float | None
    """The fitted IC of the h-th week's return alone (the marginal IC): ic_1 at h = 1; null when the
    fit is not measurable
    """


class IcDecay(ApiStruct, kw_only=True, frozen=True):
    """The IC's decay with the forecast horizon, fitted to the IC term structure."""

    method: str
    """The fit: the marginal IC of the k-th week's return is ic_1 * exp(-decay_rate * (k - 1)); the
    h-week IC (of the compounded h-week return) is then the sum of weeks 1..h over sqrt(h) (weekly
    returns of equal variance, uncorrelated); ic_1 and decay_rate minimise the squared error of
    sqrt(h) * mean_ic over the measured horizons (ic_1 in closed form for each rate, the rate by
    bounded Brent search in [-1, 5], then the root of the derivative of the squared error)
    """

    decay_rate: AnalyticsStat
    """Fitted decay rate of the marginal IC per week of horizon (lambda); below 0 the marginal IC grows
    with the horizon; not measurable with fewer than 3 measured horizons, a 1-week mean IC not
    positive, or for a key that may not read the rebalance cross-sections
    """

    half_life_weeks: AnalyticsStat
    """Weeks of horizon over which the marginal IC halves; not measurable when decay_rate is, or when
    it is not positive (the IC does not decay over 1 to 8 weeks)
    """

    ic_1: AnalyticsStat
    """The fitted marginal IC of the first week's return (the fit's scale); not measurable with
    decay_rate
    """

    term_structure: list[DecayPoint]
    """The horizons fitted (1, 2, 4, 8 weeks), measured and fitted"""


class LiveHaircut(ApiStruct, kw_only=True, frozen=True):
    """How much of the backtest's information ratio the live book keeps, calibrated."""

    calibration: str | None
    """catalogue when at least 5 alphas the key may read (this one excepted) were approved and hold 63
    sessions after the approval with a positive backtest information ratio; else literature (McLean,
    R. D. and Pontiff, J. (2016), Does Academic Research Destroy Stock Return Predictability?,
    Journal of Finance 71(1), 5-32: returns 26% lower out of sample); null for a key that may not
    read the ledger
    """

    calibration_alphas: int
    """The alphas the calibration is over: those the key may read, this one excepted, approved (in
    force or retired since) with at least 63 sessions after their approval and a positive backtest
    information ratio (null figures of their index rows left out); counted, not used, under
    literature; 0 for a key that may not read the ledger
    """

    min_alphas: int
    """K: the alphas the catalogue needs before its own calibration is used"""

    min_live_sessions: int
    """M: the sessions first published after its approval an alpha needs to count in the calibration"""

    retention: AnalyticsStat
    """Share of the backtest information ratio the live book keeps: the least-squares slope through the
    origin of the calibration alphas' live information ratios on their backtest ones (catalogue), or
    1 - 0.26 (literature)
    """

    haircut: AnalyticsStat
    """Share of the backtest information ratio lost live"""

    haircut_standard_error: AnalyticsStat
    """Standard error of the haircut (of the slope) across the calibration alphas; not measurable under
    literature (the prior is not fitted to this catalogue)
    """

    calibration_rmse: AnalyticsStat
    """Root mean squared error of the expected live information ratio against the realised one over the
    calibration alphas, each predicted out of sample: by the slope fitted without it (leave-one-out,
    catalogue) or by the prior (literature); not measurable without a calibration alpha
    """


class Decay(ApiStruct, kw_only=True, frozen=True):
    """The IC's decay by horizon and the expected live information ratio (`/analytics/decay`)."""

    alpha: str
    """The alpha served"""

    book: str
    """The book whose expected live information ratio is served"""

    split_date: dt.date | None
    """The split its backtest ends at, as /analytics/live: sessions on or before it are the backtest;
    null when the alpha has none (the whole history is the backtest)
    """

    split_origin: str | None
    """Where the split comes from, as /analytics/live split_origin"""

    ic_decay: IcDecay
    """The IC's decay with the forecast horizon"""

    live_haircut: LiveHaircut
    """The haircut from backtest to live and its calibration"""

    backtest_information_ratio: AnalyticsStat
    """Information ratio of the book's daily returns over its backtest: /analytics/live
    in_sample.information_ratio at the same split
    """

    haircut_information_ratio: AnalyticsStat
    """The book's backtest information ratio less the haircut, not shrunk toward its group: what the
    haircut alone leaves (calibration says from where); not the expected live information ratio,
    which is /analytics/expectation's (shrunk, then cut: issue 81, item 4). Not measurable with
    either, or when the backtest information ratio is not positive (the haircut is calibrated on
    positive backtests)
    """


class DecayResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/analytics/decay` (analytics.decay)."""

    data: Decay

    meta: Meta


class CusumWeek(ApiStruct, kw_only=True, frozen=True):
    """One live week of a chart."""

    date: dt.date
    """The week's last session (the IC's: its rebalance date)"""

    weekly_value: float | None
    """The week's value of the series: the book's compounded return, or the weekly IC; null: skipped"""

    cusum_statistic: float
    """The chart's statistic after the week"""


class CusumChart(ApiStruct, kw_only=True, frozen=True):
    """One series watched: its expected level, the chart's parameters, its state and its path."""

    series: str
    """book_return: the book's weekly compounded return; ic: the signal's weekly IC (weekly_signal.ic)"""

    state: str
    """alarm when the statistic has crossed the threshold in a live week (first_alarm), else
    in_control; not_measurable with its reason when the expectation or the series cannot be measured
    """

    withheld_reason: str | None
    """Why the chart is not measurable; null when it is"""

    expected_weekly_mean: float | None
    """mu0: the level the approval expects live, per week: for book_return the expected live
    information ratio (/analytics/decay) over sqrt(weeks a year) times weekly_sd; for ic the
    backtest's mean weekly IC times the same retention (expected over backtest information ratio)
    """

    weekly_sd: float | None
    """sigma: the standard deviation (ddof=1) of the backtest's weekly values of the series"""

    live_weeks: int
    """The live weeks charted (a skipped week counted)"""

    cusum_statistic: float | None
    """The statistic after the last live week; null when not measurable"""

    first_alarm: dt.date | None
    """The first live week whose statistic crossed the threshold"""

    alarms: list[dt.date]
    """Every live week that crossed the threshold (the statistic restarts at 0 after each)"""

    weeks: list[CusumWeek]
    """The live weeks, oldest first"""


class Monitoring(ApiStruct, kw_only=True, frozen=True):
    """`/analytics/monitoring` of one alpha and book."""

    alpha: str
    """The alpha"""

    book: str
    """The book"""

    split_date: dt.date | None
    """The last backtest session (as /analytics/live): the live weeks follow it"""

    split_origin: str | None
    """Where the split comes from, as /analytics/live"""

    live: bool
    """true when the split is the alpha's approval (the weeks charted were first published after it was
    recorded); false: the weeks after another split, out of sample but not live
    """

    expected_level_basis: str | None
    """Where the charts' expected levels come from: expectation (/analytics/expectation's expected_live
    of each series at the same split: the one expected live information ratio and mean weekly IC,
    shrunk toward the alpha's group then cut by /analytics/decay's retention; issue 81, item 4);
    null when neither is measurable (a book other than long_short has none)
    """

    expected_live_information_ratio: float | None
    """The expected live information ratio the book_return chart's level is made from
    (/analytics/expectation's information_ratio expected_live at the same split); null when not
    measurable (the chart says why)
    """

    week_rule: str
    """What a week is"""

    ir_fall_detected: float
    """The fall the chart is designed to detect, as an annualised information ratio of the series (the
    weekly mean over the weekly sd, times sqrt(weeks a year)): its reference value k is half of it
    per week
    """

    cusum_reference_value: float
    """k: half the weekly fall to detect, in weekly sd"""

    cusum_threshold: float
    """h: the statistic's alarm threshold, for the in-control run length"""

    arl0_weeks: float
    """The in-control average run length: the mean weeks between false alarms of an unchanged series"""

    false_alarm_probability_per_year: float
    """The probability that an unchanged series raises an alarm within a year"""

    arl1_weeks: float
    """The out-of-control average run length: the mean weeks to an alarm once the series has fallen by
    the designed fall (from a statistic at 0)
    """

    charts: list[CusumChart]
    """The book's weekly return and the signal's weekly IC"""


class MonitoringResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/analytics/monitoring` (analytics.monitoring)."""

    data: Monitoring

    meta: Meta


class DepthOdds(ApiStruct, kw_only=True, frozen=True):
    """The odds of one depth."""

    depth: float
    """x: a drawdown's depth, a fraction of the running peak (0.1: a fall of 10%)"""

    exceedance_probability: float
    """The share of simulated paths whose maximum drawdown within horizon_weeks is deeper than depth"""

    exceedance_error: float
    """The Monte Carlo standard error of exceedance_probability"""


class ConeWeek(ApiStruct, kw_only=True, frozen=True):
    """One week of the cone: quantiles across the simulated paths of the cumulative return."""

    week: int
    """Weeks after the split (1: the first live week)"""

    cone_p05: float
    """The 5% quantile across the simulated paths of the cumulative return from the split to the week"""

    cone_p25: float
    """The 25% quantile of the same"""

    cone_p50: float
    """The median of the same"""

    cone_p75: float
    """The 75% quantile of the same"""

    cone_p95: float
    """The 95% quantile of the same"""


class LiveWeek(ApiStruct, kw_only=True, frozen=True):
    """One live week of the book and its place in the cone."""

    week: int
    """Weeks after the split (1: the first live week)"""

    date: dt.date
    """The week's last session"""

    live_weekly_return: float | None
    """The book's compounded return over the week; null: no return (the week adds nothing)"""

    live_cumulative_return: float
    """The book's compounded return from the split to the week's end"""

    cone_percentile: float | None
    """The share of simulated paths whose cumulative return at the same week is below the live one,
    ties counted half; null after the simulated weeks (more than the longest horizon)
    """


class DrawdownOdds(ApiStruct, kw_only=True, frozen=True):
    """`/analytics/drawdown_odds` of one alpha and book."""

    alpha: str
    """The alpha"""

    book: str
    """The book"""

    split_date: dt.date | None
    """The last backtest session (as /analytics/live): the live weeks follow it"""

    split_origin: str | None
    """Where the split comes from, as /analytics/live"""

    live: bool
    """true when the split is the alpha's approval (the weeks after it were first published after it
    was recorded); false: the weeks after another split, out of sample but not live
    """

    week_rule: str
    """What a week is"""

    method: str
    """How the paths are simulated"""

    live_rule: str
    """What a live week's percentile is"""

    state: str
    """measured, or not_measurable with its reason when the expectation, the backtest or the ledger
    cannot be read (the figures then null and the lists empty)
    """

    withheld_reason: str | None
    """Why the odds are not measurable; null when they are"""

    horizon_weeks: int
    """h: the weeks after the split the odds and the cone cover"""

    expected_live_information_ratio: float | None
    """The expected live information ratio at the same split (/analytics/expectation's
    information_ratio expected_live): the level simulated
    """

    expected_weekly_return: float | None
    """mu0: the weekly mean of the re-centred backtest returns the paths are drawn from"""

    backtest_weekly_sd: float | None
    """The standard deviation (ddof=1) of the backtest's weekly compounded returns"""

    backtest_weeks: int
    """The backtest weeks with a return that are resampled"""

    paths: int
    """The simulated paths"""

    block_length: float | None
    """Mean block length of the resamples (Politis and White's rule, as /analytics/significance)"""

    seed: int
    """Seed of numpy's PCG64 generator: the same build always gives the same answer"""

    stream: int
    """The generator's stream (PCG64(SeedSequence([seed, stream])))"""

    expected_max_drawdown: float | None
    """The mean over the simulated paths of the maximum drawdown within horizon_weeks, a fraction of
    the running peak (the split's 1.0 counting as a peak)
    """

    expected_max_drawdown_error: float | None
    """The Monte Carlo standard error of expected_max_drawdown"""

    max_drawdown_p05: float | None
    """The 5% quantile of the simulated maximum drawdown within horizon_weeks"""

    max_drawdown_p25: float | None
    """The 25% quantile of the same"""

    max_drawdown_p50: float | None
    """The median of the same"""

    max_drawdown_p75: float | None
    """The 75% quantile of the same"""

    max_drawdown_p95: float | None
    """The 95% quantile of the same"""

    odds: list[DepthOdds]
    """Each depth asked, shallowest first"""

    cone: list[ConeWeek]
    """Weeks 1 to horizon_weeks of the forward cone"""

    live_weeks: int
    """The live weeks after the split"""

    live_max_drawdown: float | None
    """The live path's maximum drawdown so far, from 1.0 at the split; null without a live week"""

    live_max_drawdown_percentile: float | None
    """The share of simulated paths whose maximum drawdown over as many weeks is below the live one,
    ties counted half (many paths have none early on); null without a live week or beyond the
    longest horizon
    """

    live_path: list[LiveWeek]
    """The live weeks, oldest first"""


class DrawdownOddsResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/analytics/drawdown_odds` (analytics.drawdown_odds)."""

    data: DrawdownOdds

    meta: Meta


class ExpectedWeek(ApiStruct, kw_only=True, frozen=True):
    """One live week of a series: the live figure to date and where it falls."""

    date: dt.date
    """The week's last session (information_ratio) or the weekly IC's date (rebuilt_mean_ic)"""

    observations_to_date: int
    """The live observations up to this week: sessions (information_ratio) or weekly ICs
    (rebuilt_mean_ic)
    """

    live_to_date: float | None
    """The live figure over the live observations up to this week: the information ratio of the daily
    returns, or the mean weekly IC; null below 2 observations (the information ratio's)
    """

    predictive_lower: float | None
    """Lower bound of the credible interval of the live figure over this many observations"""

    predictive_upper: float | None
    """Upper bound of the same interval"""

    percentile: float | None
    """Where live_to_date falls in the predictive distribution of the live figure over this many
    observations (50: as expected; below 5 or above 95: outside the 90% interval)
    """


class ExpectedSeries(ApiStruct, kw_only=True, frozen=True):
    """One figure expected: its backtest value, the group it is shrunk toward, the posterior, the
    expected live figure and the live weeks against it.
    """

    series: str
    """information_ratio: the long_short book's annualised information ratio of daily returns;
    rebuilt_mean_ic: the mean of the weekly conditioned IC rebuilt from the cross-sections
    (weekly_signal.ic), /analytics/live's in_sample.rebuilt_mean_ic over the backtest (served as
    mean_ic before issue 65, item 3: the IC term structure's name)
    """

    withheld_reason: str | None
    """Why the series is not measurable; null when it is"""

    shrinkage: str | None
    """empirical_bayes when at least 3 members of the group have the figure measured; none below (the
    posterior is the alpha's own figure and standard error, with an insufficient_data warning); null
    when not measurable
    """

    measured_members: int
    """The group's members the key may read with the figure measured (at least 3 observations), the
    alpha's own included: those the group's mean and spread are estimated from
    """

    backtest_value: float | None
    """The alpha's figure over its backtest (sessions, or weekly ICs realised, on or before
    split_date): for information_ratio /analytics/decay backtest_information_ratio
    """

    backtest_observations: int
    """The backtest's observations: sessions (information_ratio) or weekly ICs (rebuilt_mean_ic)"""

    backtest_standard_error: float | None
    """The iid standard error of backtest_value"""

    group_mean: float | None
    """m: the group's mean figure, each member weighted by its precision under the fitted spread"""

    group_mean_standard_error: float | None
    """The standard error of group_mean"""

    between_alpha_sd: float | None
    """tau: the spread of the members' true figures (DerSimonian and Laird's moment estimate, 0 when
    the figures spread no more than their standard errors say)
    """

    shrinkage_weight: float | None
    """B: the weight the alpha's own figure keeps (1: none shrunk; 0: the group's mean)"""

    posterior_mean: float | None
    """The figure's posterior mean over the backtest"""

    posterior_sd: float | None
    """The posterior standard deviation"""

    posterior_lower: float | None
    """Lower bound of the posterior credible interval"""

    posterior_upper: float | None
    """Upper bound of the posterior credible interval"""

    expected_live: float | None
    """The figure expected live: the posterior times the retention (live_haircut.retention); a
    posterior mean not above 0 is kept as it is; not measurable without the retention (a key that
    may not read the ledger)
    """

    expected_live_sd: float | None
    """Its standard deviation, the retention's standard error included when the catalogue calibrates it"""

    expected_live_lower: float | None
    """Lower bound of its credible interval"""

    expected_live_upper: float | None
    """Upper bound of its credible interval"""

    weeks: list[ExpectedWeek]
    """The live weeks after the split, oldest first: calendar weeks of the live sessions
    (information_ratio), or the weekly ICs realised after the split (rebuilt_mean_ic); empty without
    a split or a live week
    """


class Expectation(ApiStruct, kw_only=True, frozen=True):
    """`/analytics/expectation` of one alpha."""

    alpha: str
    """The alpha"""

    split_date: dt.date | None
    """The last backtest session (as /analytics/live): the live weeks follow it"""

    split_origin: str | None
    """Where the split comes from, as /analytics/live"""

    live: bool
    """true when the split is the alpha's approval (the weeks after it were first published after it
    was recorded); false: out of sample but not live
    """

    group: str | None
    """The trial family the alpha is shrunk toward (its seal's); null for the catalogue"""

    group_kind: str
    """family when the alpha's seal names a trial family of which the key may read at least 3 members;
    else catalogue: every alpha the key may read
    """

    group_members: int
    """The group's alphas the key may read, the alpha included (never one it may not read)"""

    min_group_members: int
    """The measured members a group needs to be estimated"""

    credible_level: float
    """The mass of every interval served"""

    method: str
    """How the figures are made"""

    live_haircut: LiveHaircut
    """/analytics/decay's haircut from backtest to live, whose retention is applied"""

    series: list[ExpectedSeries]
    """The information ratio and the mean IC"""


class ExpectationResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/analytics/expectation` (analytics.expectation)."""

    data: Expectation

    meta: Meta


class ResidualDrop(ApiStruct, kw_only=True, frozen=True):
    """A reference alpha left out of the regression."""

    alpha: str
    """The reference alpha"""

    reason: str
    """overlap: a return on fewer than 90% of the sessions on which the alpha and SPY have one;
    collinear: its returns are, within rounding, a linear combination of the intercept, SPY's and
    the kept reference alphas before it (its beta would not be identified; the intercept and the
    residual are the same without it)
    """

    sessions: int
    """Sessions of base_sessions on which it has a long_short return"""


class ResidualDropped(ApiStruct, kw_only=True, frozen=True):
    """The reference alphas left out of the regression."""

    count: int
    """How many (count - regressed)"""

    alphas: list[ResidualDrop]
    """Each, in the order of reference.alphas: the first 50 when there are more"""


class ResidualReference(ApiStruct, kw_only=True, frozen=True):
    """`reference` of the residual object: the set the alpha is regressed on."""

    origin: str
    """Where the reference alphas come from: given (the request's reference), or the default set,
    approved (the production alphas: those in force in the live book, approved by alpha-results
    promote or by their seal at their first publish, that the key may read, the alpha itself
    excepted; empty, saying why, when there is none) (docs/analytics.md, "The reference set")
    """

    alphas: list[str]
    """The reference alphas, the alpha itself never among them"""

    count: int
    """How many reference alphas the set holds"""

    empty_reason: str | None
    """Why the default set is empty (no approved alpha other than this one is readable by this key):
    the alpha is then regressed on SPY alone. Null when the set holds an alpha, or was given
    """

    alpha_excluded: bool
    """The alpha was in the set named (or in the default set origin names) and was left out"""

    regressed: int
    """How many reference alphas the regression holds (count - dropped.count)"""

    dropped: ResidualDropped
    """The reference alphas left out of the regression, and why"""


class ResidualBenchmark(ApiStruct, kw_only=True, frozen=True):
    """The market regressor: SPY."""

    symbol: str
    """The benchmark: SPY"""

    return_basis: str
    """SPY's return basis: adjusted_close (a total return, dividends reinvested) when every row of its
    whole series has one, else close (a price return, without dividends), as
    /v1/benchmarks/SPY/daily period_return and /analytics/risk
    """

    partial_beta: AnalyticsStat
    """SPY's coefficient in the regression (its partial beta, holding the reference alphas' returns
    fixed: not /analytics/risk's benchmark.beta, the slope on SPY alone); not measurable below 63
    sessions or below 10 sessions per coefficient (a set larger than the sessions allow)
    """


class ResidualBeta(ApiStruct, kw_only=True, frozen=True):
    """One reference alpha's coefficient."""

    alpha: str
    """The reference alpha"""

    partial_beta: float
    """Its coefficient b_i in the regression (the alpha's exposure to it, holding SPY's and the other
    reference alphas' returns fixed)
    """


class Residual(ApiStruct, kw_only=True, frozen=True):
    """The alpha against the catalogue (`/analytics/residual`): its daily returns regressed on a
    reference set's and SPY's.
    """

    alpha: str
    """The alpha regressed"""

    book: str
    """The alpha's book regressed (the reference alphas are always their long_short books: the
    catalogue's returns matrix holds that book alone)
    """

    window: Window
    """The window echoed: from and to, null when open"""

    reference: ResidualReference
    """The reference set"""

    benchmark: ResidualBenchmark
    """The market regressor"""

    base_sessions: int
    """Sessions of the window on which the alpha's book and SPY both have a daily return: what each
    reference alpha's overlap is counted against
    """

    sessions: int
    """Sessions the regression is over (see session_rule), or would be when it is not measurable for
    want of them; 0 when not counted (too few base_sessions)
    """

    session_rule: str
    """Which sessions and which reference alphas the regression holds"""

    newey_west_lag: int | None
    """Lag L of the Newey-West (Bartlett kernel) standard error of the intercept, from the sessions n
    of the regression: L = floor(4 * (n/100)^(2/9)) (Newey and West 1994, the rule of /metrics nwt),
    capped at n - 1; null when not measurable
    """

    appraisal_ratio: AnalyticsStat
    """Annualised information ratio of what the reference set and SPY leave of the alpha's daily
    returns, the intercept plus the residual (the appraisal ratio of Treynor and Black): the return
    the alpha adds, per unit of the risk it adds, beyond any mix of the set and the market. Adding
    the alpha at its best weight to the best mix of the set and SPY lifts that mix's squared Sharpe
    ratio by its square (Gibbons, Ross and Shanken 1989), in sample. not measurable below 63
    sessions or below 10 sessions per coefficient (a set larger than the sessions allow)
    """

    intercept: AnalyticsStat
    """The OLS intercept, annualised arithmetically (times 252, not compounded): the return per year
    the alpha makes beyond its betas to the set and SPY, not in excess of the risk-free rate
    """

    intercept_t_statistic: AnalyticsStat
    """t-statistic of the intercept with Newey-West (HAC, Bartlett kernel, lag newey_west_lag, no
    small-sample correction) standard errors: is the return beyond the set and the market
    distinguishable from 0? As statsmodels OLS(...).fit(cov_type='HAC', cov_kwds={'maxlags': L,
    'kernel': 'bartlett', 'use_correction': False}).tvalues[0]
    """

    intercept_p_value: AnalyticsStat
    """Two-sided p-value of intercept_t_statistic against the standard normal (statsmodels' default for
    a HAC covariance, use_t=False)
    """

    r_squared: AnalyticsStat
    """Share of the variance of the alpha's daily returns the set and SPY explain (centred, with the
    intercept), as statsmodels' rsquared
    """

    betas: list[ResidualBeta] | None
    """Each reference alpha's coefficient, in the order of reference.alphas, the dropped ones left out;
    null when the regression is not measurable
    """


class ResidualResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/analytics/residual` (analytics.residual)."""

    data: Residual

    meta: Meta


class ApprovedSet(ApiStruct, kw_only=True, frozen=True):
    """The approved alphas a figure is computed over."""

    alphas: list[str]
    """The approved alphas the key may read that the figures are over, by id"""

    approved_count: int
    """How many approved alphas the figures are over (only approved alphas the key may read are counted
    or named)
    """

    alpha_excluded: bool
    """Whether the alpha is approved itself and so left out of the combined scores and books it is
    compared with
    """


class MmcWeek(ApiStruct, kw_only=True, frozen=True):
    """One week of `weekly`: a decision date with an mmc."""

    date: dt.date
    """The decision date"""

    mmc: float
    """The week's meta-model contribution: Numerai's MMC (numerai-tools' correlation_contribution, no
    top_bottom) with this service's meta-model and target. Each week (a decision date in the
    window), every approved alpha the key may read (the alpha itself excluded) has its
    decisions.score rank-gaussianised over the names it scored (Phi^-1((rank - 0.5) / n), average
    ranks); the combined score of a name (the meta-model) is the mean of those of the approved
    alphas that scored it (equal weights). Over the names the alpha scored that the combined score
    holds with a finite decisions.forward_return (the target), the alpha's score and the combined
    score are each rank-gaussianised again over those names alone; the alpha's is orthogonalised to
    the combined one (p - m (p.m) / (m.m), no intercept), and the week's mmc is the covariance of
    that neutral score with the forward return, the mean of (r - mean r) times it: in the forward
    return's units (not bounded by 1), at least 3 names and the combined score not constant over
    them. The forward return is taken as it is (numerai-tools' x4 rescale of an all-[0, 1] target,
    its own targets' encoding, is not applied)
    """

    mmc_names: int
    """Names of the week's mmc: scored by the alpha and an approved alpha, with a forward return"""

    approved_scoring: int
    """Most approved alphas scoring one of those names"""

    correlation_to_combined: float | None
    """Pearson correlation of the alpha's gaussianised score with the combined score over the same
    names; null when either is constant
    """


class OverlapWeek(ApiStruct, kw_only=True, frozen=True):
    """One week of an overlap series: a decision date with at least one pair of books."""

    date: dt.date
    """The decision date"""

    weight_overlap: float
    """Mean weight overlap of the pairs of books: each book's long_short target weights at the decision
    date, normalised to unit gross (|w| / sum |w|); two books' weight overlap is sum over names of
    min(|w_i|, |w_j|) (0: no name in common, 1: the same weights up to sign) and their name Jaccard
    |held_i & held_j| / |held_i | held_j| (held: a non-zero weight); a week's figure is the mean
    over the pairs of books holding names that week
    """

    name_jaccard: float
    """Mean Jaccard of the held names of the pairs of books: each book's long_short target weights at
    the decision date, normalised to unit gross (|w| / sum |w|); two books' weight overlap is sum
    over names of min(|w_i|, |w_j|) (0: no name in common, 1: the same weights up to sign) and their
    name Jaccard |held_i & held_j| / |held_i | held_j| (held: a non-zero weight); a week's figure is
    the mean over the pairs of books holding names that week
    """

    book_pairs: int
    """Pairs of books holding names that week"""

    approved_books: int
    """Books in the week's pairs (on an alpha's page: the alpha and the approved books it overlaps)"""


class Mmc(ApiStruct, kw_only=True, frozen=True):
    """What an alpha's scores add to the approved alphas' combined scores (`/analytics/mmc`)."""

    alpha: str
    """The alpha"""

    window: Window
    """The window echoed: from and to, null when open"""

    method: str
    """How the weekly mmc is computed"""

    approved: ApprovedSet
    """The approved alphas combined (only approved alphas the key may read are counted or named)"""

    mmc_weeks: int
    """Weeks of the window with an mmc"""

    mmc_mean: AnalyticsStat
    """Mean of the weekly mmc (Numerai's MMC: a covariance with the forward return, in its units) over
    the weeks with one; not measurable without an approved alpha or a week
    """

    mmc_t_stat: AnalyticsStat
    """t-statistic of the mean weekly mmc (weeks taken as independent: no autocorrelation correction)"""

    correlation_to_combined_mean: AnalyticsStat
    """Mean over the weeks with an mmc of the weekly correlation of the alpha's score with the combined
    score
    """

    weight_overlap_with_approved: AnalyticsStat
    """Mean over weeks of the alpha's long_short book's mean weight overlap with the approved books:
    each book's long_short target weights at the decision date, normalised to unit gross (|w| / sum
    |w|); two books' weight overlap is sum over names of min(|w_i|, |w_j|) (0: no name in common, 1:
    the same weights up to sign) and their name Jaccard |held_i & held_j| / |held_i | held_j| (held:
    a non-zero weight); a week's figure is the mean over the pairs of books holding names that week
    """

    weekly: list[MmcWeek]
    """Each week with an mmc, in date order"""

    overlap_weekly: list[OverlapWeek]
    """Each week's overlap of the alpha's book with the approved books (pairs: the alpha with each)"""


class MmcResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/analytics/mmc` (analytics.mmc)."""

    data: Mmc

    meta: Meta


class AnalyticsFieldDoc(ApiStruct, kw_only=True, frozen=True):
    """One entry of the analytics documentation block's `fields`."""

    meaning: str
    """What the field means."""

    formula: str | None
    """How the field is computed; null for an echo or an object."""

    horizon: str
    """The span the field covers: the requested window (from/to), else the whole history, a trailing
    window, or whole histories that from/to do not narrow.
    """

    granularity: str
    """One figure for the window (`overall`), or one row per other alpha, episode, rebalance week or
    common session.
    """

    source: str
    """What the figure is computed from."""

    unit: str | None
    """Unit of the field, such as `ratio`; null when it has none."""

    annualisation: str
    """`annualised`, `per_period` or `not_annualisable`."""


class AnalyticsDoc(ApiStruct, kw_only=True, frozen=True):
    """The analytics documentation block (`/analytics/_doc`), shaped as `MetricsDoc`."""

    schema_version: str
    """Version of the block's schema."""

    endpoint: dict[str, str]
    """Prose on the routes: `paths`, `access`, `catalogue`, `window_semantics`, `signal_families`,
    `sharpe_convention`, `name_conventions`, `min_overlap`, `not_measurable`, `combination`, `risk`,
    `references`.
    """

    fields: dict[str, AnalyticsFieldDoc]
    """Dotted payload path prefixed by the route (`significance.psr`, `rolling[].rebuilt_mean_ic`) to
    `{meaning, formula, horizon, granularity, source, unit, annualisation}`.
    """

    warnings: dict[str, str]
    """Warning code (`kind_missing`, `access_limited`) to its meaning."""


class AnalyticsDocResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/analytics/_doc` (analytics.doc)."""

    data: AnalyticsDoc

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

    structure: str | None
    """Classification structure of the written description. Null when none was recorded."""

    method: str | None
    """Classification method of the written description. Null when none was recorded."""

    tags: list[str] | None
    """Classification tags of the written description, as recorded. Null when none were recorded."""

    family: str | None
    """The trial family the alpha's seal names (its slug, as `/v1/families` groups the members and
    `/analytics/overfitting` measures them; docs/seal.md "Trial families"). Null when the seal names
    none, and in an index written before the trial families (until `alpha-results lake index`).
    """

    information_ratio: float | None
    """Annualised information ratio of the long_short book (daily returns after costs, not in excess of
    the risk-free rate, times sqrt(252)), as `/metrics` serves `core.information_ratio` (overall,
    the whole history): quantstats' sharpe(r) and empyrical's sharpe_ratio, risk-free rate 0; not
    quantstats' information_ratio(r, benchmark), the mean over the standard deviation of r -
    benchmark, not annualised. Unit: ratio. Null where `/metrics` serves it not_measurable.
    """

    excess_sharpe: float | None
    """Annualised Sharpe ratio in excess of the risk-free rate, as `/metrics` serves
    `core.excess_sharpe` (overall, the whole history): quantstats' sharpe(r, rf) with the run's
    risk-free rate; not empyrical's excess_sharpe(r, benchmark), relative to a benchmark and not
    annualised. Unit: ratio. Null where `/metrics` serves it not_measurable.
    """

    ic: float | None
    """Mean weekly IC of the conditioned score, as `/metrics` serves `core.ic` (overall, the whole
    history) and the catalogue index stores it (`ic`): the run's sealed figure, per week;
    `ic_reproduces` says whether its cross-sections bear it out. Served as `mean_ic` before issue 65
    (item 3), the name of the IC term structure's horizon figure. Unit: ratio. Null where `/metrics`
    serves it not_measurable.
    """

    icir: float | None
    """Mean / standard deviation (ddof 1) of the weekly IC of the conditioned score, annualised for
    every alpha: `/metrics` `core.icir` (overall, the whole history) as served, the sealed value
    where the run sealed it annualised, else that per-week ratio times sqrt(`weeks_per_year`) of the
    run's conventions (52). One basis, so alphas rank and bound alike. Unit: ratio. Null where
    `/metrics` serves it not_measurable.
    """

    ic_reproduces: bool | None
    """Whether the weekly IC rebuilt from the run's rebalance cross-sections reproduces its sealed mean
    IC (within 1e-6, the `/metrics` rule that warns `ic_reproduction_mismatch`). `false` flags an
    `ic` (and the `icir` sealed with it) that the run's own cross-sections do not bear out; filter
    with `ic_reproduces=true` to keep only alphas whose IC was checked and holds. Null when there is
    nothing to check (no sealed mean IC, or no cross-sections to rebuild it from), and for a key
    that may not read the cross-sections (signals.rebalances.get or signals.scores).
    """

    max_drawdown_pct: float | None
    """Deepest drawdown of the long_short book, as `/metrics` serves `core.max_drawdown_pct` (overall,
    the whole history). Unit: percentage_points. Null where `/metrics` serves it not_measurable.
    """

    turnover: float | None
    """Turnover, as `/metrics` serves `core.turnover` (overall, the whole history), in `turnover_unit`:
    the run's sealed turnover (the term `sealed_turnover`, as `core.turnover` declares it), not the
    checks' traded turnover per year of a window (`turnover`). Unit: see unit on the entry. Null
    where `/metrics` serves it not_measurable.
    """

    turnover_unit: str | None
    """Unit of `turnover`: per_year, ratio, per_session or period_sum, the first the run sealed. Null
    when the run sealed no turnover.
    """

    sessions: int
    """Sessions of the long_short ledger. Unit: sessions."""

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

    live_split: dt.date | None
    """The split of the long_short book's live against backtest (`/analytics/live` split_date): the
    as_of of the alpha's latest approval when the index row was computed after it (`alpha-results
    promote` and `retire` record the row again), else its seal's research_cutoff, else the date the
    catalogue first published it. Sessions on or before it are in-sample (the backtest), those after
    it live. Unit: ISO date (YYYY-MM-DD). Null when the alpha has no split (no research_cutoff, no
    first publish date recorded), and in an index written before the live columns (until
    `alpha-results lake index`).
    """

    live_split_origin: str | None
    """Where `live_split` comes from: approval, research_cutoff or first_published (`/analytics/live`
    split_origin). Null with `live_split`.
    """

    live_information_ratio: float | None
    """Annualised information ratio of the long_short book's sessions after `live_split`
    (`/analytics/live` `out_of_sample.information_ratio`): daily returns after costs, not in excess
    of the risk-free rate, times sqrt(252), as `information_ratio`. Unit: ratio. Null where
    `/analytics/live` serves it not_measurable at the alpha's split (fewer than 2 sessions with
    variance in the part, no split, no ledger), and in an index written before the live columns
    (until `alpha-results lake index`).
    """

    backtest_information_ratio: float | None
    """Annualised information ratio of the long_short book's sessions on or before `live_split`
    (`/analytics/live` `in_sample.information_ratio`), as `live_information_ratio`. Unit: ratio.
    Null where `/analytics/live` serves it not_measurable at the alpha's split (fewer than 2
    sessions with variance in the part, no split, no ledger), and in an index written before the
    live columns (until `alpha-results lake index`).
    """

    decay_ratio: float | None
    """`live_information_ratio / backtest_information_ratio` (`/analytics/live` `decay_ratio`): 1 held
    up, 0 nothing left, below 0 reversed. Unit: ratio. Null while fewer than 63 sessions follow
    `live_split` or the backtest information ratio is not positive (`/analytics/live` serves it
    not_measurable then), and in an index written before the live columns (until `alpha-results lake
    index`).
    """

    live_sessions: int | None
    """Sessions of the long_short ledger after `live_split` (`/analytics/live`
    `out_of_sample.sessions`). Unit: trading sessions. Null when the alpha has no split or no
    ledger, and in an index written before the live columns (until `alpha-results lake index`).
    """

    residual_information_ratio: float | None
    """Annualised information ratio of what the default reference set and SPY leave of the alpha's
    whole-history long_short daily returns, the OLS intercept plus the residual
    (`/analytics/residual` `information_ratio` with no parameter, for a key that reads every alpha):
    the default set is the approved alphas, the alpha excepted (SPY alone when none is). Unit:
    ratio. Null where `/analytics/residual` serves it not_measurable (too few sessions, a set larger
    than the sessions allow, no SPY series), in an index written before the residual columns, and
    for a key whose default reference set is not the one the column was computed against (it may not
    read an alpha of that set, or the records approve other alphas than the index last heard of; an
    access_limited warning says so).
    """

    residual_t_statistic: float | None
    """Newey-West t-statistic of the same regression's intercept (`/analytics/residual`
    `intercept_t_statistic` with no parameter), which says whether the return beyond the set and SPY
    is distinguishable from 0. Unit: t-statistic. Null where `/analytics/residual` serves it
    not_measurable (too few sessions, a set larger than the sessions allow, no SPY series), in an
    index written before the residual columns, and for a key whose default reference set is not the
    one the column was computed against (it may not read an alpha of that set, or the records
    approve other alphas than the index last heard of; an access_limited warning says so).
    """

    standing: str
    """Where the alpha stands after the operator's decisions (`alpha-results promote`, `retire`;
    `/v1/alphas/{alpha}/promotions` serves them): approved (its latest decision approved it into the
    live book), retired (its latest retired it), or never (no decision recorded, or a deployment
    that keeps no records).
    """

    approved_since: dt.date | None
    """The date the approval in force takes effect (its `as_of`; where the alpha's live part starts).
    Unit: ISO date (YYYY-MM-DD). Null unless `standing` is approved.
    """


class ScreenRowMeta(Meta, kw_only=True, frozen=True):
    """The `meta` object of `GET /v1/analytics/screen`."""

    reference: str | UnsetType = UNSET
    """The set `max_correlation` compared with, no `correlated_to` being named: approved (the alphas in
    force in the live book, the production alphas, that the key may read; none when it may read
    none, and then no candidate is compared with anything). On `/analytics/screen` with
    `max_correlation` and without `correlated_to` only.
    """


class ScreenRowPage(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/analytics/screen` (analytics.screen)."""

    data: list[ScreenRow]

    pagination: Pagination

    meta: ScreenRowMeta


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
    Unit: fraction.
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


class BenchmarkEcho(ApiStruct, kw_only=True, frozen=True):
    """SPY and its return basis, as a combination used it."""

    symbol: str
    """The benchmark (SPY)."""

    basis: str
    """Its return basis: adjusted_close when every session has one, else close."""


class CombinationShrinkage(ApiStruct, kw_only=True, frozen=True):
    """The covariance shrinkage of a max_ir weighting (combine `meta.shrinkage`, a contribution's
    `reference.combination.shrinkage`).
    """

    value: float
    """The weight of the diagonal target in the shrunk covariance (0 to 1): d in Sigma_d = (1 - d) S +
    d diag(S)
    """

    source: str
    """ledoit_wolf (estimated) or given (the request's `shrinkage`)"""


class CombinationWeight(ApiStruct, kw_only=True, frozen=True):
    """One alpha's weight in a combination (combine `meta.weights`, a contribution's
    `reference.combination.weights`).
    """

    alpha: str
    """The alpha"""

    weight: float
    """Its weight: a fraction of the combined book's capital, negative for a short (a computed
    weighting's negative weight is warned as negative_weights), from the set's common sessions of
    the window (up to fit_to when it is given)
    """


class CombinationFit(ApiStruct, kw_only=True, frozen=True):
    """Which sessions a fitted weighting's weights (inverse_volatility, max_ir) are estimated from
    (combine `meta.fit`, a contribution's `reference.combination.fit`).
    """

    fit_to: dt.date | None
    """The request's fit_to: the weights are fitted on the set's common sessions of the window up to
    and including it, and judged on those after it; null: fitted on the sessions they are judged on
    """

    sample: str
    """in_sample: the weights are fitted on the very sessions the figures are over, so the figures
    overstate what they would have earned (an in_sample_weights warning says so); out_of_sample:
    fitted on the sessions up to fit_to, the figures over those after it
    """

    sessions: int
    """The sessions the weights are fitted on"""

    rule: str
    """Which sessions fit the weights and which judge them, in words"""


class BookFigures(ApiStruct, kw_only=True, frozen=True):
    """A book's figures as stat entries: combine `meta.figures`, contribution `before`, `after`,
    `change`; `{what}` in a meaning is the book, named where the figures are held.
    """

    information_ratio: AnalyticsStat
    """Information ratio of the series tested's daily returns (not in excess of the risk-free rate),
    daily times sqrt(252) as /metrics core.information_ratio: quantstats' sharpe(r) and empyrical's
    sharpe_ratio, risk-free rate 0; not quantstats' information_ratio(r, benchmark), the mean over
    the standard deviation of r - benchmark, not annualised
    """

    excess_sharpe: AnalyticsStat
    """Sharpe ratio of the series tested's daily returns in excess of the risk-free return its alphas'
    ledgers accrued, weighted as the returns are; not_measurable on a catalogue index written before
    it held risk-free returns; quantstats' sharpe(r, rf) with the run's risk-free rate; not
    empyrical's excess_sharpe(r, benchmark), relative to a benchmark and not annualised
    """

    max_drawdown_pct: AnalyticsStat
    """Deepest fall of the series tested's compounded equity from its running peak (the opening 1.0
    counts), in percentage points of the peak (25.0 is 25%), as /metrics core.max_drawdown_pct
    """

    annualised_return: AnalyticsStat
    """Mean daily return of the series tested, annualised: arithmetic; empyrical's annual_return and
    quantstats' cagr compound (the risk route's cagr)
    """

    volatility: AnalyticsStat
    """Volatility of the series tested's daily returns, annualised"""

    turnover: AnalyticsStat | UnsetType = UNSET
    """Approximate turnover of the series tested, in the alphas' common turnover_unit; not_measurable
    when an alpha has none or their units differ
    """

    diversification_ratio: AnalyticsStat | UnsetType = UNSET
    """Weighted volatility of the alphas over the series tested's: 1 when they move together, above 1
    the more their risks offset
    """


class CorrelationMatrix(ApiStruct, kw_only=True, frozen=True):
    """The correlation of every pair of the combined alphas' daily returns."""

    alphas: list[str]
    """The rows and columns of `matrix`, in order."""

    matrix: list[list[float | None]]
    """Pearson correlation of each pair's daily returns over the common sessions; null where a side is
    constant. Unit: ratio.
    """


class CombinedRowMeta(Meta, CombinationTables, kw_only=True, frozen=True):
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

    shrinkage: CombinationShrinkage | None | UnsetType = UNSET
    """With max_ir: the shrinkage intensity used (`value`) and its `source` (ledoit_wolf or given);
    else null. On `/analytics/combine` only.
    """

    weights: list[CombinationWeight] | UnsetType = UNSET
    """`{alpha, weight}` per alpha: the weights applied (fractions of the book's capital, negative for
    a short). On `/analytics/combine` only.
    """

    fit: CombinationFit | None | UnsetType = UNSET
    """With inverse_volatility or max_ir: the sessions the weights are fitted on (`fit_to` echoed,
    `sample` in_sample or out_of_sample, `sessions`, `rule` in words); null for equal and given
    weights, which are not fitted. On `/analytics/combine` only.
    """

    sessions: int | UnsetType = UNSET
    """Sessions the rows and figures are over: those of the window on which every alpha has a return
    (after `fit_to` when it is given). Unit: trading sessions. On `/analytics/combine` only.
    """

    session_rule: str | UnsetType = UNSET
    """Which sessions are combined, in words. On `/analytics/combine` only."""

    figures: BookFigures | UnsetType = UNSET
    """The combined book's figures as stat entries (information_ratio, excess_sharpe, max_drawdown_pct,
    annualised_return, volatility, turnover, diversification_ratio) over the window's sessions on
    which every alpha of the set has a long_short return. On `/analytics/combine` only.
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


class ContributionAbsent(ApiStruct, kw_only=True, frozen=True):
    """Reference alphas without a return on any session counted (history outside the window, or no
    ledger).
    """

    count: int
    """How many (count - members_in_window)"""

    alphas: list[str]
    """Their ids, in the order of reference.alphas; the first 50 when there are more"""


class ContributionCombination(ApiStruct, kw_only=True, frozen=True):
    """`reference.combination` of the contribution object: the set's weights, as `/analytics/combine`
    `meta` serves them.
    """

    weighting: str
    """equal, given, inverse_volatility or max_ir"""

    shrinkage: CombinationShrinkage | None
    """max_ir only (null otherwise): the shrinkage of the covariance used"""

    weights: list[CombinationWeight]
    """The set's weights, one per alpha in the order of reference.alphas"""

    fit: CombinationFit | None
    """inverse_volatility and max_ir (null otherwise): the sessions the weights are fitted on, as
    combine's meta.fit
    """

    sessions: int
    """The set's common sessions of the window judged (combine's meta.sessions: after fit_to when it is
    given); sessions is below it when the alpha has no return on some of them, and before is then
    over those the alpha trades
    """


class ContributionReference(ApiStruct, kw_only=True, frozen=True):
    """`reference` of the contribution object."""

    source: str
    """given (the request's reference) or production (the default set, when the request names none:
    origin says which)
    """

    origin: str
    """Where the reference alphas come from: given (the request's reference), or the default set,
    approved (the production alphas: those in force in the live book, approved by alpha-results
    promote or by their seal at their first publish, that the key may read, the alpha itself
    excepted; empty, saying why, when there is none) (docs/analytics.md, "The reference set")
    """

    alphas: list[str]
    """The reference alphas, the alpha itself never among them"""

    count: int
    """How many reference alphas were named or considered"""

    alpha_excluded: bool
    """The alpha was in the set named (or in the default set origin names) and was left out"""

    members_in_window: int
    """How many reference alphas have a return on at least one of the sessions counted: the figures are
    over these (below count when some have none)
    """

    without_returns: ContributionAbsent
    """The reference alphas without a return on any session counted (a history outside the window, or
    no ledger): named, counted, never held
    """

    combination: ContributionCombination | UnsetType = UNSET
    """With a weighting only: the reference set combined as /analytics/combine combines it (its meta's
    weighting, shrinkage, weights and sessions)
    """


class ContributionWeight(ApiStruct, kw_only=True, frozen=True):
    """`weight` of the contribution object."""

    value: float
    """w: the request's weight, or the w in [0, 1] that maximises the information ratio after"""

    chosen: str
    """given or optimal"""


class Contribution(ApiStruct, ContributionTables, kw_only=True, frozen=True):
    """What adding the alpha at `weight` does to a reference set, equally weighted as it grew or
    combined at a `weighting` (`/contribution`).
    """

    alpha: str
    """The alpha added"""

    book: str
    """Always long_short: the catalogue's returns matrix holds that book alone"""

    reference: ContributionReference
    """The reference set"""

    window: Window
    """The window echoed: from and to, null when open"""

    weight: ContributionWeight
    """The alpha's weight w in the book after"""

    sessions: int
    """The sessions the figures are over"""

    session_rule: str
    """Which sessions count: those of the window on which the alpha has a return and at least one
    reference alpha does (not their intersection: a production book grows as alphas are added); with
    a weighting, those on which every reference alpha and the alpha do
    """

    before: BookFigures
    """The reference set's book: before_t = mean of r_i,t over the reference alphas with a return on t;
    its risk-free return the mean of the same alphas'. With a weighting: sum_i w_i r_i,t at
    reference.combination's weights, with /analytics/combine's figures (turnover and
    diversification_ratio too), equal to its meta.figures when sessions is
    reference.combination.sessions
    """

    after: BookFigures
    """after_t = (1 - w) before_t + w a_t (with a weighting: the alpha one more member at w, the set's
    weights scaled by 1 - w)
    """

    change: BookFigures
    """after - before of each figure (a stat entry each; not_measurable when either side is)"""

    correlation_to_set: AnalyticsStat
    """Pearson correlation of the alpha's daily returns with the before book's"""

    max_correlation_to_member: AnalyticsStat
    """The Pearson correlation of the alpha with the reference alpha it correlates with most in
    absolute value (the signed value), each over the sessions both have a return
    """

    mean_correlation_to_member: AnalyticsStat
    """Mean Pearson correlation of the alpha with each reference alpha, each over the sessions both
    have a return
    """


class ContributionResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/analytics/contribution` (analytics.contribution)."""

    data: Contribution

    meta: Meta


class SharedFactor(ApiStruct, kw_only=True, frozen=True):
    """One factor of `factors`: the approved books' shared loading on it."""

    factor: str
    """The factor (a sector or a style of the seal's loadings)"""

    combined_exposure: float
    """Mean over weeks of the approved books' mean exposure to the factor: the exposure of their
    equally weighted combination (analytics_factor_exposures of long_short)
    """

    exposure_dispersion: float
    """Mean over weeks of the cross-book standard deviation (ddof=0) of the exposures: low is shared"""

    factor_weeks: int
    """Weeks with at least two approved books exposed"""


class Crowding(ApiStruct, kw_only=True, frozen=True):
    """Crowding inside the catalogue: how alike the approved books are (`/analytics/crowding`)."""

    window: Window
    """The window echoed: from and to, null when open"""

    approved: ApprovedSet
    """The approved books compared (only approved alphas the key may read are counted or named)"""

    overlap_weeks: int
    """Weeks of the window with at least one pair of books"""

    weight_overlap_mean: AnalyticsStat
    """Mean over weeks of the approved books' mean pairwise weight overlap: each book's long_short
    target weights at the decision date, normalised to unit gross (|w| / sum |w|); two books' weight
    overlap is sum over names of min(|w_i|, |w_j|) (0: no name in common, 1: the same weights up to
    sign) and their name Jaccard |held_i & held_j| / |held_i | held_j| (held: a non-zero weight); a
    week's figure is the mean over the pairs of books holding names that week
    """

    name_jaccard_mean: AnalyticsStat
    """Mean over weeks of the approved books' mean pairwise Jaccard of held names: each book's
    long_short target weights at the decision date, normalised to unit gross (|w| / sum |w|); two
    books' weight overlap is sum over names of min(|w_i|, |w_j|) (0: no name in common, 1: the same
    weights up to sign) and their name Jaccard |held_i & held_j| / |held_i | held_j| (held: a
    non-zero weight); a week's figure is the mean over the pairs of books holding names that week
    """

    weekly: list[OverlapWeek]
    """Each week with a pair of books, in date order"""

    factors: list[SharedFactor]
    """The shared loadings of the approved books, by factor"""


class CrowdingResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/analytics/crowding` (analytics.crowding)."""

    data: Crowding

    meta: Meta


class FalseDiscoveryPrior(ApiStruct, kw_only=True, frozen=True):
    """What the false-discovery probabilities are computed with."""

    basis: str
    """deployment: estimated from this deployment's decisions and live outcomes (the approved alphas
    the key may read with a measured live information ratio); paper: too few of them, the worked
    example of López de Prado, Lipton and Zoonekynd (2025)
    """

    decided_alphas: int
    """The approved alphas (in force or retired since) with a measured live information ratio, of those
    the key may read
    """

    candidates: int
    """The alphas of the catalogue the key may read: the candidates tried"""

    prior_true_share: float
    """p: the prior share of true strategies among the candidates: the approved alphas true by their
    live tracks (2 x the share with a positive live information ratio - 1, at least 0), over the
    test's power against true_information_ratio, over the candidates; kept within 1/candidates and 1
    """

    true_information_ratio: float
    """The annualised information ratio of a true strategy (the alternative the power is computed
    against): the mean live information ratio of those with a positive one
    """


class HealthSignal(ApiStruct, kw_only=True, frozen=True):
    """One signal of "is it still working?", as the route that serves it answers."""

    signal: str
    """live_information_ratio, decay_ratio: the live checks of /analytics/checks (the book at its
    approval); consistency: /analytics/live's consistency test; book_return_cusum, ic_cusum:
    /analytics/monitoring's charts
    """

    state: str
    """pass or fail (a check's verdict; consistent or inconsistent; in control or in alarm),
    not_measurable with its reason
    """

    value: float | None
    """The check's value, the consistency test's PSR, or the chart's CUSUM statistic after its last
    live week; null when not measurable
    """

    reason: str | None
    """Why it fails or is not measurable (the route's words); null when it passes"""


class AlphaHealth(ApiStruct, kw_only=True, frozen=True):
    """One approved alpha."""

    alpha: str
    """The alpha"""

    approved_at: str
    """When its approval in force was recorded, by our clock (UTC)"""

    split_date: dt.date | None
    """The last session before its live part (the approval's)"""

    sessions_since_approval: int | None
    """Sessions of the book first published after the approval was recorded; null: /analytics/live
    withheld
    """

    live_weeks: int | None
    """The live weeks its CUSUM charted; null: /analytics/monitoring withheld"""

    live_information_ratio: float | None
    """/analytics/live out_of_sample.information_ratio at the approval; null below 63 sessions"""

    expected_live_information_ratio: float | None
    """/analytics/expectation's expected live information ratio: its backtest's shrunk toward its
    family's (empirical Bayes) times decay's retention; null for a book other than long_short
    """

    live_to_date: float | None
    """/analytics/expectation's live information ratio to the last live week"""

    predictive_lower: float | None
    """/analytics/expectation's lower bound of the 90% interval of the live figure over as many
    sessions
    """

    predictive_upper: float | None
    """Its upper bound"""

    percentile: float | None
    """/analytics/expectation's percentile of live_to_date in that predictive distribution (0 to 100)"""

    cusum_state: str
    """The book return chart's state, as /analytics/monitoring"""

    ic_cusum_state: str
    """The IC chart's state, as /analytics/monitoring"""

    cusum_statistic: float | None
    """The book return chart's statistic after the last live week"""

    last_alarm: dt.date | None
    """The latest live week either chart crossed its threshold"""

    false_discovery_probability: float | None
    """The posterior probability that the approval was a false discovery (the paper's oFDR): of no
    skill, given a backtest information ratio at least the one observed over its backtest sessions
    (per-session ratios)
    """

    mmc_mean: float | None
    """/analytics/mmc mmc_mean, whole history: what it adds to the others"""

    correlation_to_combined_mean: float | None
    """/analytics/mmc correlation_to_combined_mean, whole history: how crowded its scores are with the
    others'
    """

    signals: list[HealthSignal] | None
    """Every signal the verdict is made of, in the order of SignalName; null for an event's reader that
    may not read one of them
    """

    verdict: str | None
    """Is it still working? The one verdict: failing when any signal the tear sheet reads fails: a live
    check of /analytics/checks (live_information_ratio, decay_ratio) fails the policy, the live part
    is inconsistent with the backtest (/analytics/live consistency: its PSR below its level), or a
    CUSUM chart of /analytics/monitoring (book return, IC) is in alarm; in_control when none fails
    and at least one is measured (a CUSUM in control sees a fall only after arl1_weeks on average);
    not_measurable when none is measured
    """

    verdict_reason: str | None
    """The verdict in words: the signals that fail, or what in_control rests on"""

    withheld_reason: str | None
    """Why some of its figures are null for this key (a route or a kind it may not read)"""


class ApprovedHealth(ApiStruct, kw_only=True, frozen=True):
    """`/v1/analytics/approved_health`."""

    book: str
    """The book watched"""

    approved_count: int
    """The approved alphas in force the key may read"""

    alarm_count: int
    """Of those, how many have a chart in alarm"""

    failing_count: int
    """Of those, how many the verdict calls failing (verdict_rule)"""

    verdict_rule: str
    """The one rule each row's verdict follows"""

    ir_fall_detected: float
    """The fall the charts are designed to detect (the operator's policy)"""

    arl0_weeks: float
    """The charts' in-control average run length (the operator's policy)"""

    arl1_weeks: float
    """The detection delay: the expected weeks a chart takes to alarm once the information ratio has
    fallen by ir_fall_detected (Siegmund's approximation, as /analytics/monitoring arl1_weeks)
    """

    false_alarm_probability_per_year: float
    """The probability that one unchanged alpha's chart alarms within a year"""

    expected_false_alarms_per_year: float
    """The false alarms a year the book's return charts raise on average if every approved alpha still
    works
    """

    false_discovery: FalseDiscoveryPrior
    """What the false-discovery probabilities are computed with"""

    alphas: list[AlphaHealth]
    """Every approved alpha in force the key may read, failing first, then in alarm, then by id"""


class ApprovedHealthResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/analytics/approved_health` (analytics.approved_health)."""

    data: ApprovedHealth

    meta: Meta


class Bound(ApiStruct, kw_only=True, frozen=True):
    """A check's threshold: a minimum, a maximum, or both (the turnover band)."""

    min: float | UnsetType = UNSET
    """Least value of information_ratio that passes"""

    max: float | UnsetType = UNSET
    """Largest value of turnover that passes"""


class PolicyThresholds(ApiStruct, kw_only=True, frozen=True):
    """`policy.thresholds` of the checks object, by check id in the battery's order."""

    information_ratio: Bound
    """The policy's thresholds of information_ratio"""

    deflated_sharpe: Bound
    """The policy's thresholds of deflated_sharpe"""

    turnover: Bound
    """The policy's thresholds of turnover"""

    max_weight: Bound
    """The policy's thresholds of max_weight"""

    recent_information_ratio: Bound
    """The policy's thresholds of recent_information_ratio"""

    yearly_consistency: Bound
    """The policy's thresholds of yearly_consistency"""

    stressed_net_information_ratio: Bound
    """The policy's thresholds of stressed_net_information_ratio"""

    production_correlation: Bound
    """The policy's thresholds of production_correlation"""

    residual_information_ratio: Bound
    """The policy's thresholds of residual_information_ratio"""

    ic_t_statistic: Bound
    """The policy's thresholds of ic_t_statistic"""

    fragility: Bound
    """The policy's thresholds of fragility"""

    live_information_ratio: Bound
    """The policy's thresholds of live_information_ratio"""

    decay_ratio: Bound
    """The policy's thresholds of decay_ratio"""

    information_ratio_lower_bound: Bound | UnsetType = UNSET
    """The policy's thresholds of information_ratio_lower_bound (absent: the check is off)"""

    sharpe_t_statistic: Bound | UnsetType = UNSET
    """The policy's thresholds of sharpe_t_statistic (absent: the check is off)"""

    pbo: Bound | UnsetType = UNSET
    """The policy's thresholds of pbo (absent: the check is off)"""


class Policy(ApiStruct, kw_only=True, frozen=True):
    """The operator's thresholds (`checks_policy_file`), echoed in every answer."""

    origin: str
    """defaults (the documented thresholds) or operator (the file of the checks_policy_file setting)"""

    thresholds: PolicyThresholds
    """Check id -> its policy thresholds: {min}, {max} or both"""


class CheckResult(ApiStruct, kw_only=True, frozen=True):
    """One check: its value against the threshold applied (the policy's, tightened by the request)."""

    id: str
    """The check: information_ratio: information ratio of the book's daily returns r = ending/starting
    - 1 over the window: mean / std(ddof=1) times sqrt(252), as /metrics core.information_ratio;
    deflated_sharpe: the long_short book's Deflated Sharpe Ratio over the window:
    /analytics/significance dsr_family (the trials of the alpha's own trial family: its members the
    key may read with a measurable Sharpe ratio, and their Sharpe variance) when that family has at
    least 2 of them, else dsr (the catalogue's trial count, the Sharpe variance of the alphas the
    key may read); the reason names the basis; turnover: the book's one-way ledger turnover over the
    window, annualised: the mean over the window's sessions of 1/2 sum |quantity x mid| /
    starting_equity (the column whose mean the run seals as mean_turnover), times the run's sessions
    per year (252), the basis of /metrics core.turnover; max_weight: largest |weight| the book held
    in the window's sessions: its positions' weight = signed_notional / ending_equity at each
    session's close (the realised weight, as the ledger's largest_abs_weight; not the decisions'
    target weights, which the book drifts from between rebalances); symbol and date name the
    position; recent_information_ratio: information_ratio over the window's last 504 sessions (all
    of them when fewer); yearly_consistency: share of the window's calendar years whose compounded
    return prod(1 + r) - 1 is above 0, each year weighed by how much of a year it holds (its
    sessions over the sessions a year of the run's calendar, at most 1: a partial year never counts
    as a full one), over the years with at least 20 sessions of the book;
    stressed_net_information_ratio: information ratio of the daily returns paying 2 times the
    modelled execution cost: r - k, k = -execution_cost / starting_equity (r is already net of it
    once; /analytics/costs' cost rate); production_correlation: largest |Pearson| of the alpha's
    daily long_short returns with each production alpha the key may read (itself excluded), each
    over their common sessions of the whole histories, as /analytics/correlation basis=returns; a
    production alpha without a correlation (too little overlap) is left out, and compared/of say how
    many were compared; residual_information_ratio: /analytics/residual appraisal_ratio of the book
    over the window against the default reference set (the approved alphas the key may read, the
    alpha excepted; SPY alone when none is): the book's daily returns regressed by OLS on the set's
    daily long_short returns and SPY's, mean / std(ddof=1) of the intercept plus the residual, times
    sqrt(252) (the appraisal ratio); not measurable below 63 sessions or 10 sessions per
    coefficient; ic_t_statistic: /metrics nwt.ic t_statistic: Newey-West t-statistic of the mean
    weekly IC (conditioned signal, whole history); fragility: the share of the book's information
    ratio over the window that its information ratio without the window's 5 best sessions keeps:
    /analytics/attribution fragility.best_days_kept with drop=5, without_best_days /
    information_ratio (both as information_ratio, the best sessions those of largest daily return,
    dropped); not measurable while the information ratio is not positive; live_information_ratio:
    information ratio of the book's daily returns over its live part (the sessions first published
    after its latest approval was recorded, up to its retirement's if retired since):
    /analytics/live out_of_sample.information_ratio at the tenure's split, annualised as
    information_ratio (x sqrt(252)), up to the window's `to` (its `from` does not narrow it);
    measured once 63 sessions are live; decay_ratio: /analytics/live decay_ratio at the tenure's
    split: the information ratio of the live part (up to the window's `to`) over the information
    ratio up to the split (1 held up, 0 nothing left, below 0 reversed); measured once 63 sessions
    are live and while the in-sample information ratio is positive; information_ratio_lower_bound:
    the lower bound of the 95% stationary block-bootstrap interval of the book's information ratio
    over the window: /analytics/uncertainty information_ratio.lower (the information ratio as
    information_ratio; Politis-White block length, 2,000 resamples, seeded); optional, off by
    default; sharpe_t_statistic: the t-statistic of the book's daily Sharpe ratio over the window:
    SR sqrt(T), SR = mean / std(ddof=1) of the daily returns r = ending/starting - 1 (per session,
    not annualised), T the window's sessions (i.i.d. returns: information_ratio sqrt(T / 252));
    optional, off by default: Harvey, Liu and Zhu (2016) propose a hurdle of t >= 3 for a factor
    found after many tried (min_sharpe_t_statistic=3); pbo: /analytics/overfitting pbo at splits=16:
    the probability of backtest overfitting of the trial family the alpha's seal names, over the
    members the key may read (combinatorially symmetric cross-validation of their daily long_short
    returns, whole history); on by default for a family of at least 10 members the key may read,
    from 6 when the operator's policy or the request bounds it; without a family or below those
    counts not measurable, which leaves the summary's verdict as the rest makes it; sub_universe:
    /analytics/sub_universe halves[liquid].sub_universe: the ICIR of the conditioned score's weekly
    rank IC on the liquid half of each week's names by the sealed adv (adv at or above the week's
    median) over the full cross-section's ICIR scaled by sqrt(n_liquid / n), over the window's weeks
    (WorldQuant's sub-universe test passes at 0.75: bound it with min_sub_universe=0.75); not
    measurable without exposures or while the full ICIR is not positive; optional, off by default
    """

    value: float | None
    """The checked figure (see id), in its unit (see unit); null when not_measurable"""

    unit: str
    """Unit of value: information_ratio ratio, deflated_sharpe probability, turnover per_year,
    max_weight fraction, recent_information_ratio ratio, yearly_consistency fraction,
    stressed_net_information_ratio ratio, production_correlation correlation,
    residual_information_ratio ratio, ic_t_statistic t_statistic, fragility ratio,
    live_information_ratio ratio, decay_ratio ratio, information_ratio_lower_bound ratio,
    sharpe_t_statistic t_statistic, pbo probability, sub_universe ratio (per_session: a fraction of
    equity traded per session)
    """

    annualisation: str
    """Whether value is annualised, from the check's declaration: annualised (times sqrt(252) for an
    information ratio, 252 for the turnover: information_ratio, turnover, recent_information_ratio,
    stressed_net_information_ratio, residual_information_ratio, live_information_ratio,
    information_ratio_lower_bound) or not_annualisable (a probability, a share, a weight, a
    correlation, a t-statistic or a ratio of two annualised figures: deflated_sharpe, max_weight,
    yearly_consistency, production_correlation, ic_t_statistic, fragility, decay_ratio,
    sharpe_t_statistic, pbo, sub_universe)
    """

    threshold: Bound
    """The bounds applied: the policy's, each tightened by the request's parameter when given ({min},
    {max} or both)
    """

    policy_threshold: Bound
    """The operator's bounds of the check (same shape as threshold)"""

    verdict: str
    """pass (within threshold), fail, or not_measurable (value null, reason says why)"""

    source: str
    """The route that serves the figure: information_ratio portfolio.ledger, deflated_sharpe
    analytics.significance, turnover portfolio.ledger, max_weight portfolio.positions,
    recent_information_ratio portfolio.ledger, yearly_consistency portfolio.ledger,
    stressed_net_information_ratio analytics.costs, production_correlation analytics.correlation,
    residual_information_ratio analytics.residual, ic_t_statistic performance.metrics, fragility
    analytics.attribution, live_information_ratio analytics.live, decay_ratio analytics.live,
    information_ratio_lower_bound analytics.uncertainty, sharpe_t_statistic analytics.significance,
    pbo analytics.overfitting, sub_universe analytics.sub_universe
    """

    book: str | None
    """The book whose figures the value is built from: the requested book (the live checks too),
    long_short for deflated_sharpe and production_correlation (as significance and correlation serve
    them), null for ic_t_statistic (the conditioned signal)
    """

    horizon: str
    """What the value is over: window, window_last_504_sessions (recent_information_ratio),
    whole_history (production_correlation, ic_t_statistic: from/to do not narrow them) or
    approval_split (live_information_ratio, decay_ratio: the history split at the approval,
    in-sample every session up to it, out-of-sample those after it up to `to`; from does not narrow
    it)
    """

    reason: str
    """Why the verdict, in words. A pass or a fail: the comparison that decided it, the value against
    the threshold it was held to ('0.744 < 0.95', '0.01 <= 0.0823 <= 0.7'; fractions in percent, as
    '13.9% > 10%'; as many digits as keep the two apart), then what the value means ('the
    probability that ...'), from the check's declaration: information_ratio: the book's annualised
    information ratio over the window's {sessions} sessions; deflated_sharpe: the probability that
    the long_short book's Sharpe ratio is above what the best of {trials} trials {basis} without
    skill would reach by chance (the Deflated Sharpe Ratio); turnover: the fraction of the book's
    equity it trades in a year (one way), from its {sessions} sessions; max_weight: the largest
    absolute weight the book held, {symbol} at the close of {date} (its realised weight, not a
    target); recent_information_ratio: the book's annualised information ratio over the window's
    last {sessions} sessions; yearly_consistency: the share of the window's calendar years in which
    the book made money ({positive} of {years}); stressed_net_information_ratio: the book's
    annualised information ratio paying 2 times its modelled execution cost; production_correlation:
    the largest |correlation| of the alpha's daily returns with a production alpha's, {nearest}'s
    (of {compared} compared); residual_information_ratio: the book's annualised information ratio
    beyond what SPY and {regressed} ({reference}) explain over {sessions} sessions: its intercept
    {intercept} a year, t-statistic {t_statistic} (Newey-West, lag {lag}); ic_t_statistic: the
    Newey-West t-statistic of the signal's mean weekly IC over the whole history (is the IC
    distinguishable from 0?); fragility: the share of its information ratio ({information_ratio})
    the book keeps without its best {days} days ({without}); live_information_ratio: the book's
    annualised information ratio over the {sessions} sessions first published after its approval
    (its backtest ends {split_date}); decay_ratio: the share of its in-sample information ratio
    ({backtest}) the book kept over the {sessions} sessions first published after its approval
    ({live} live); information_ratio_lower_bound: the lower bound of the 95% bootstrap interval of
    the book's annualised information ratio ({point}) over {sessions} sessions; sharpe_t_statistic:
    the t-statistic of the book's daily Sharpe ratio over the window's {sessions} sessions (is its
    mean return distinguishable from 0 after many trials?); pbo: the probability that the best of
    its family's {trials} trials in sample ranks at or below the median out of sample (family
    {family}); sub_universe: the liquid half's ICIR ({liquid}) over the full ICIR ({full}) scaled by
    sqrt({n_sub} / {n} names): is the signal there where it can be traded? ({names} are the figure's
    own: sessions counted, trials, the symbol and date held, the nearest production alpha, the live
    part's sessions and split date). not_measurable: why there is no value; starts with
    access_limited when the key may not read the data it is built from, not_applicable for a live
    check of an alpha never approved
    """

    compared: int | None | UnsetType = UNSET
    """production_correlation only: how many alphas of the reference set (see reference) value is the
    maximum over, those with a correlation with the alpha (at least 3 common sessions, variance on
    both sides); the others are not compared. Null when the key may not have the figure
    """

    of: int | None | UnsetType = UNSET
    """production_correlation only: how many alphas the reference set (see reference) holds, the alpha
    excluded (compared is below it when some have too little overlap with the alpha); null as
    compared
    """

    nearest: str | None | UnsetType = UNSET
    """production_correlation only: the alpha of the reference set whose |Pearson| is value (the
    nearest); null when none is compared
    """

    reference: str | UnsetType = UNSET
    """production_correlation and residual_information_ratio only: the reference set compared with
    (regressed on), approved (the production alphas: those in force in the live book, approved by
    alpha-results promote or by their seal at their first publish, that the key may read, the alpha
    itself excepted; empty, saying why, when there is none) (docs/analytics.md, "The reference set")
    """

    symbol: str | None | UnsetType = UNSET
    """max_weight only: the name held at the largest |weight| (the first by date, then symbol, on a
    tie); null when not measurable
    """

    date: dt.date | None | UnsetType = UNSET
    """max_weight only: the session at whose close symbol was held at that weight; null when not
    measurable
    """

    split_date: dt.date | None | UnsetType = UNSET
    """live_information_ratio and decay_ratio only: the split, the last session the lake had published
    when the alpha's latest approval was recorded (in force or since retired; /analytics/live
    split_date with split_origin approval): sessions after it are the live part. Null when the alpha
    was never approved
    """


class ChecksSummary(ApiStruct, kw_only=True, frozen=True):
    """`summary` of the checks object."""

    passed: int
    """Checks that pass"""

    failed: int
    """Checks that fail"""

    not_measurable: int
    """Checks without a value (the live checks of an alpha not measured live included)"""

    verdict: str
    """fail when any check fails (a live check too), else incomplete when a check other than the live
    ones (live_information_ratio, decay_ratio) is not_measurable, else pass. A live check counts
    once it has a value: while the alpha was never approved or fewer than 63 sessions follow its
    approval it is not_measurable and leaves the verdict as the rest of the battery makes it
    """


class Checks(ApiStruct, ChecksTables, kw_only=True, frozen=True):
    """The pass/fail battery of one alpha and book (`/analytics/checks`)."""

    alpha: str
    """The alpha served"""

    book: str
    """The book checked"""

    window: Window
    """The window echoed: from and to, null when open"""

    sessions: int | None
    """Sessions of the book in the window; null for a key that may not read the ledger (a count of it,
    withheld as its figures are)
    """

    policy: Policy
    """The operator's policy, echoed (the request's bounds are in each check's threshold)"""

    checks: list[CheckResult]
    """The checks, in the documented order: information_ratio, deflated_sharpe, turnover, max_weight,
    recent_information_ratio, yearly_consistency, stressed_net_information_ratio,
    production_correlation, residual_information_ratio, ic_t_statistic, fragility,
    live_information_ratio, decay_ratio, information_ratio_lower_bound, sharpe_t_statistic, pbo,
    sub_universe
    """

    summary: ChecksSummary
    """Counts of the verdicts and the overall verdict"""


class ChecksResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/analytics/checks` (analytics.checks)."""

    data: Checks

    meta: Meta


class CheckChange(ApiStruct, kw_only=True, frozen=True):
    """A check of another alpha whose value the decision changes (its default reference set does)."""

    check: str
    """The check's id, as /analytics/checks (a check over the reference set)."""

    before: str
    """Its verdict with the standings before the decision."""

    after: str
    """Its verdict with the standings after the decision."""

    value_before: float | None
    """Its value before, in the check's unit; null when not measurable."""

    value_after: float | None
    """Its value after, in the check's unit; null when not measurable."""

    flips: bool
    """Whether the verdict changes (before differs from after)."""


class OtherAlpha(ApiStruct, kw_only=True, frozen=True):
    """Another alpha whose reference-set checks the decision moves."""

    alpha_id: str
    """The other alpha (one the caller may read)."""

    live_book: bool
    """Whether it is in the live book (approved before or after the decision): its checks are listed
    with every value that moves; any other alpha is listed only when a verdict flips.
    """

    changes: list[CheckChange]
    """Its reference-set checks whose value or verdict moves (outside the live book: whose verdict
    flips); empty: its checks do not move.
    """


class PromotionPreview(ApiStruct, kw_only=True, frozen=True):
    """What the alpha's next decision would record and change, before anything is recorded: what
    `alpha-results promote --dry-run` (or `retire --dry-run`) says, in the caller's scope.
    """

    alpha: str
    """The alpha."""

    action: str
    """The decision previewed: approved (promote) when the alpha is not approved, retired when it is
    (the only decision that follows from its last).
    """

    as_of: dt.date
    """The date the decision would take effect: today (a decision is dated when it is recorded), or the
    earlier day asked (effective) of an import of a decision taken elsewhere.
    """

    imported: bool
    """Whether it previews an import (as_of before today: recorded with alpha-results promote
    --import); its live part would still start when it is recorded.
    """

    approval_before: dt.date | None
    """as_of of the alpha's latest approval before the decision; null when never approved."""

    approval_recorded_at: str | None
    """When that approval was recorded (UTC, ISO 8601): its live part is the sessions first published
    after it; null when never approved.
    """

    build_id: str
    """The build the catalogue serves, which the decision would record."""

    verdict: str
    """The checks' overall verdict up to as_of, as /analytics/checks summary.verdict of the long_short
    book for this caller: pass, fail or incomplete.
    """

    refused: str | None
    """Why the decision would be refused as previewed (an approval of a failing alpha without
    --override); null when it would be recorded.
    """

    policy: Policy
    """The operator's policy the checks are judged against."""

    checks: list[CheckResult]
    """Every check up to as_of, in the battery's order (the failed ones are those with verdict fail)."""

    approved_before: list[str]
    """The approved alphas the caller may read before the decision: the set every other alpha's default
    reference set is drawn from (empty: the default reference set is empty).
    """

    approved_after: list[str]
    """The same set after the decision."""

    others: list[OtherAlpha]
    """The other alphas the caller may read whose reference-set checks the decision moves: those of the
    live book (the approved ones, before or after: the production alphas) with every value that
    moves, then any other whose verdict flips, each group in id order. Alphas the caller may not
    read are neither named nor counted.
    """

    others_unchecked: int
    """Alphas the caller may read, outside the live book, whose reference-set checks were not computed:
    beyond the first 500 (in catalogue order) a preview checks; 0 on a catalogue of up to 500 more.
    """

    command: str
    """The command an operator runs to record the decision (who decided and why to fill in; --override
    when the verdict is fail).
    """


class PromotionPreviewResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/analytics/promotion_preview`
    (analytics.promotion_preview).
    """

    data: PromotionPreview

    meta: Meta


class RollingWindow(ApiStruct, kw_only=True, frozen=True):
    """`rolling_window` of the comparison object: the trailing windows of the rolling series."""

    sessions: int
    """Trailing common sessions of rolling_return_correlation (the request's window)"""

    weeks: int
    """Trailing common weeks of rolling_ic_correlation: the same span (21 -> 4, 63 -> 13, 126 -> 26,
    252 -> 52)
    """


class CompareEquityRow(ApiStruct, kw_only=True, frozen=True):
    """An entry of `equity` of the comparison object."""

    date: dt.date
    """The common session"""

    cumulative_return_alpha: float | None
    """The path alpha's compounded return to this session"""

    cumulative_return_with: float | None
    """The compared alpha's compounded return to this session"""

    difference: float | None
    """cumulative_return_alpha - cumulative_return_with"""


class RollingCorrelationRow(ApiStruct, kw_only=True, frozen=True):
    """An entry of `rolling_return_correlation` or `rolling_ic_correlation`; what each means is
    declared where the series is.
    """

    date: dt.date
    """The common session or week ending the trailing window."""

    correlation: float | None
    """Null until the trailing window is full, or where a side is constant over it."""


class DifferenceTest(ApiStruct, kw_only=True, frozen=True):
    """The paired test of a difference (docs/analytics.md, Comparison)."""

    name: str
    """The test's name, in words: a paired t-test (mean daily return, mean weekly IC) or the
    Jobson-Korkie test with Memmel's correction (information ratio)
    """

    statistic: float | None
    """The test statistic, a t-statistic or a z-statistic as statistic_kind says; null when the test
    cannot run
    """

    statistic_kind: str
    """What statistic is: t (a paired t-test's t-statistic, n - 1 degrees of freedom) or z (the
    Jobson-Korkie-Memmel z-statistic, read against the normal distribution)
    """

    p_value: float | None
    """Two-sided p-value; null when the test cannot run"""

    significant: bool | None
    """p_value < level; null when the test cannot run"""

    level: float
    """The significance level the test is read at (0.05)"""

    withheld_reason: str | UnsetType = UNSET
    """Why the test cannot run (present only then)"""


class ComparedFigure(ApiStruct, kw_only=True, frozen=True):
    """One headline figure of both alphas over their common sessions (or weeks); what each part means
    is declared where the figure is (`compared`).
    """

    alpha: AnalyticsStat
    """The figure of the path alpha."""

    with_: AnalyticsStat = msgspec.field(name="with")
    """The figure of the alpha `with` names."""

    difference: float | None
    """alpha - with; null where either side is not measurable."""

    test: DifferenceTest | None
    """Null for volatility, max_drawdown_pct and icir (no test is stated for them)."""

    common_sessions: int | None | UnsetType = UNSET
    """The return figures (information_ratio, annualised_return, volatility, max_drawdown_pct): the
    common sessions both sides are over (the answer's sessions); null for a key that may not read
    the ledger.
    """

    common_weeks: int | None | UnsetType = UNSET
    """The IC figures (rebuilt_mean_ic, icir): the common weeks both sides are over (the answer's
    weeks). Both are rebuilt from the cross-sections (weekly_signal.ic) over these weeks only, so
    they differ on purpose from each alpha's /metrics core.ic and core.icir and the screener's ic
    and icir (the run's sealed figures, over all its weeks). Null for a key that may not read the
    rebalance cross-sections.
    """


class ComparedFigures(ApiStruct, kw_only=True, frozen=True):
    """`figures` of the comparison object."""

    information_ratio: ComparedFigure
    """Information ratio of daily book returns (after costs, not in excess of the risk-free rate),
    daily times sqrt(252) as /metrics core.information_ratio: quantstats' sharpe(r) and empyrical's
    sharpe_ratio, risk-free rate 0; not quantstats' information_ratio(r, benchmark), the mean over
    the standard deviation of r - benchmark, not annualised: both alphas over the common sessions
    (dates both books hold in the window), each side's figure included
    """

    annualised_return: ComparedFigure
    """Mean daily book return, annualised: arithmetic; empyrical's annual_return and quantstats' cagr
    compound (the risk route's cagr): both alphas over the common sessions (dates both books hold in
    the window), each side's figure included
    """

    volatility: ComparedFigure
    """Volatility of daily book returns, annualised: both alphas over the common sessions (dates both
    books hold in the window), each side's figure included
    """

    max_drawdown_pct: ComparedFigure
    """Largest fall of the compounded equity from a running peak, in percentage points of the peak
    (20.0 is 20%), as /metrics core.max_drawdown_pct: both alphas over the common sessions (dates
    both books hold in the window), each side's figure included
    """

    rebuilt_mean_ic: ComparedFigure
    """Mean weekly conditioned IC (weekly_signal.ic, whatever the book): both alphas over the common
    weeks (weeks both alphas have a weekly IC in the window, common_weeks), each side's figure
    included: rebuilt from the cross-sections over those weeks only, so it differs on purpose from
    /metrics core.ic and core.icir and the screener's ic and icir (each run's sealed figures over
    all its weeks)
    """

    icir: ComparedFigure
    """Weekly IC information ratio (conditioned IC, whatever the book), annualised with the path
    alpha's weeks_per_year (52) on both sides, the basis of every icir (/metrics core.icir and the
    screener's): both alphas over the common weeks (weeks both alphas have a weekly IC in the
    window, common_weeks), each side's figure included: rebuilt from the cross-sections over those
    weeks only, so it differs on purpose from /metrics core.ic and core.icir and the screener's ic
    and icir (each run's sealed figures over all its weeks)
    """


class Comparison(ApiStruct, ComparisonTables, kw_only=True, frozen=True):
    """Two alphas side by side over their common sessions (`/analytics/compare`)."""

    alpha: str
    """The alpha served (meta.run)"""

    with_: str = msgspec.field(name="with")
    """The alpha compared with"""

    book: str
    """The book of both alphas compared"""

    window: Window
    """The window echoed: from and to, null when open"""

    rolling_window: RollingWindow
    """The trailing windows of the rolling correlations"""

    sessions: int | None
    """Common sessions: dates both books hold in the window with a daily return on each side; null for
    a key that may not read the ledger
    """

    weeks: int | None
    """Common weeks: weeks both alphas have a weekly IC in the window; null for a key that may not read
    the rebalance cross-sections
    """

    equity: list[CompareEquityRow] | None
    """One entry per common session: both books' returns compounded from the window's first common
    session (returns of sessions only one book holds are left out); null for a key that may not read
    the ledger
    """

    rolling_return_correlation: list[RollingCorrelationRow] | None
    """One entry per common session: Pearson correlation of the two books' daily returns over the
    trailing rolling_window.sessions common sessions of the window; null for a key that may not read
    the ledger
    """

    rolling_ic_correlation: list[RollingCorrelationRow] | None
    """One entry per common week: Pearson correlation of the two weekly IC series over the trailing
    rolling_window.weeks common weeks of the window; null for a key that may not read the rebalance
    cross-sections
    """

    return_correlation: AnalyticsStat
    """Pearson correlation of the two books' daily returns over the window's common sessions (at least
    3, neither side constant)
    """

    ic_correlation: AnalyticsStat
    """Pearson correlation of the two weekly conditioned IC series over the window's common weeks (at
    least 3, neither side constant)
    """

    figures: ComparedFigures
    """Each headline figure of both alphas over the common observations only (so the difference
    compares like with like), the difference, and its paired test where one is stated. Annualised
    with the path alpha's sessions_per_year on both sides
    """


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
    name and units as the equity curve, so the two join on `date`. Unit: fraction.
    """

    drawdown_pct: float | None
    """`(peak - close) / peak x 100`, peak measured inside the window. Unit: percentage points (1.0 =
    1%). Null where the peak is not positive.
    """


class BenchmarkSummary(ApiStruct, kw_only=True, frozen=True):
    """`meta.summary` of `GET /v1/benchmarks/{symbol}/daily` (benchmarks.daily): figures over the whole
    window, before paging.
    """

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


class SourceDownloadResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/source/download` (catalog.alphas.source.download)."""

    data: SourceDownload

    meta: Meta


class SourceArchiveState(ApiStruct, kw_only=True, frozen=True):
    """`source_archive` of a readiness: the run's source archive record."""

    status: str | None
    """The archive record's status, as the run recorded it."""

    delivered: bool
    """Whether the archive was delivered to the lake."""


class TableSize(ApiStruct, kw_only=True, frozen=True):
    """A published table's size, in `tables` of a readiness."""

    rows: int
    """Rows of the build in the table. Unit: rows."""

    bytes: int
    """Bytes of the build's data files in the open table, at the build's version. Unit: bytes."""


class Readiness(ApiStruct, kw_only=True, frozen=True):
    """`GET /v1/admin/alphas/{alpha}/readiness` `data`: what the served build of one alpha holds."""

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

    source_archive: SourceArchiveState | None
    """`{status, delivered}` of the source archive record. Null when none was recorded."""

    tables: dict[str, TableSize]
    """Per open table the build has rows in: `{rows, bytes}`, by table name."""


class ReadinessResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/admin/alphas/{alpha}/readiness` (admin.alphas.readiness)."""

    data: Readiness

    meta: Meta


class KeyUsage(ApiStruct, kw_only=True, frozen=True):
    """`GET /v1/admin/keys/{key_id}/usage` `data`: any key's envelope and live usage."""

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

    account_usage: AccountUsage
    """Requests of every credential of the owner's account (its keys, access tokens and dashboard
    sessions) counted in each window, and what remains of the account's pooled envelope: a request
    is admitted only when both its credential's envelope and the account's admit it.
    """


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
    """A row of `GET /v1/admin/builds`: one build kept in the lake, of an alpha or a benchmark."""

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


class Event(ApiStruct, kw_only=True, frozen=True):
    """One event: a row of `GET /v1/events`, the `data:` of one message of `GET /v1/events/stream`, and
    the body of one webhook delivery.
    """

    id: str
    """The event's cursor: 32 lower-case hex digits, unique, the same wherever the event is delivered
    (the feed, the stream's `id:`, a webhook): pass it as `after` (or `Last-Event-ID`) to resume
    after this event, and use it to drop a duplicate. Opaque: two cursors cannot be compared; the
    order is the order they are served in.
    """

    type: str
    """What happened: alpha.published, alpha.republished, alpha.checks_changed, alpha.approved,
    alpha.retired, alpha.nominated, alpha.restated, alpha.decay, alpha.alarm, alpha.health (about
    one alpha, seen by the keys that may read it), build.refused (administrators only) or
    webhook.disabled (the key whose webhook it was only).
    """

    alpha: str | None
    """The alpha the event is about. Null on build.refused and webhook.disabled, which are about no one
    alpha.
    """

    created_at: dt.datetime
    """When the event was recorded: UTC, ISO 8601 with microseconds and `Z`
    (2026-11-25T18:00:00.000000Z).
    """

    data: dict[str, Any]
    """What the event says, its keys set by its type (docs/events.md, 'What is recorded'; one Struct
    per type, docs/reference.md 'Events'); in the CSV, Arrow and Parquet pages one JSON text column.
    """


class EventMeta(Meta, kw_only=True, frozen=True):
    """The `meta` object of `GET /v1/events`."""

    next_cursor: str | UnsetType = UNSET
    """Where to resume (`after=`): the cursor of the page's last event; with no event, the `after`
    given, or without one the start of the log. Polling with it returns exactly the events not yet
    seen. On `/v1/events` only.
    """


class EventPage(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/events` (events.list)."""

    data: list[Event]

    pagination: Pagination

    meta: EventMeta


class StreamedEvent(ApiStruct, kw_only=True, frozen=True):
    """One message's `data:` of `GET /v1/events/stream` (events.stream), Server-Sent Events."""

    id: str
    """The event's cursor: 32 lower-case hex digits, unique, the same wherever the event is delivered
    (the feed, the stream's `id:`, a webhook): pass it as `after` (or `Last-Event-ID`) to resume
    after this event, and use it to drop a duplicate. Opaque: two cursors cannot be compared; the
    order is the order they are served in.
    """

    type: str
    """What happened: alpha.published, alpha.republished, alpha.checks_changed, alpha.approved,
    alpha.retired, alpha.nominated, alpha.restated, alpha.decay, alpha.alarm, alpha.health (about
    one alpha, seen by the keys that may read it), build.refused (administrators only) or
    webhook.disabled (the key whose webhook it was only).
    """

    alpha: str | None
    """The alpha the event is about. Null on build.refused and webhook.disabled, which are about no one
    alpha.
    """

    created_at: dt.datetime
    """When the event was recorded: UTC, ISO 8601 with microseconds and `Z`
    (2026-11-25T18:00:00.000000Z).
    """

    data: dict[str, Any]
    """What the event says, its keys set by its type (docs/events.md, 'What is recorded'; one Struct
    per type, docs/reference.md 'Events'); in the CSV, Arrow and Parquet pages one JSON text column.
    """


# -- endpoints --------------------------------------------------------------------------------------

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
            Param("as_of", "as_of", "string", None, required=False, enum=None),
        ),
        AlphaListRowPage,
        collection=True,
    ),
    "catalog.families.list": Endpoint(
        "catalog.families.list",
        "/v1/families",
        (
            Param("family", "family", "string", None, required=False, enum=None),
            Param("limit", "limit", "integer", 100, required=False, enum=None),
            Param("offset", "offset", "integer", 0, required=False, enum=None),
            Param("as_of", "as_of", "string", None, required=False, enum=None),
        ),
        FamilyMemberRowPage,
        collection=True,
    ),
    "catalog.alphas.get": Endpoint(
        "catalog.alphas.get",
        "/v1/alphas/{alpha}",
        (Param("as_of", "as_of", "string", None, required=False, enum=None),),
        AlphaDescriptionResponse,
        collection=False,
    ),
    "catalog.alphas.promotions": Endpoint(
        "catalog.alphas.promotions",
        "/v1/alphas/{alpha}/promotions",
        (Param("as_of", "as_of", "string", None, required=False, enum=None),),
        PromotionsResponse,
        collection=False,
    ),
    "catalog.alphas.restatements": Endpoint(
        "catalog.alphas.restatements",
        "/v1/alphas/{alpha}/restatements",
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
            Param("as_of", "as_of", "string", None, required=False, enum=None),
        ),
        RestatementRowPage,
        collection=True,
    ),
    "catalog.review": Endpoint(
        "catalog.review",
        "/v1/review",
        (Param("as_of", "as_of", "string", None, required=False, enum=None),),
        ReviewQueueResponse,
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
            Param("as_of", "as_of", "string", None, required=False, enum=None),
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
            Param("as_of", "as_of", "string", None, required=False, enum=None),
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
            Param("as_of", "as_of", "string", None, required=False, enum=None),
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
            Param("as_of", "as_of", "string", None, required=False, enum=None),
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
            Param("as_of", "as_of", "string", None, required=False, enum=None),
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
            Param("as_of", "as_of", "string", None, required=False, enum=None),
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
            Param("as_of", "as_of", "string", None, required=False, enum=None),
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
            Param("as_of", "as_of", "string", None, required=False, enum=None),
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
            Param("as_of", "as_of", "string", None, required=False, enum=None),
        ),
        EquityRowPage,
        collection=True,
        series=True,
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
            Param("as_of", "as_of", "string", None, required=False, enum=None),
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
    "analytics.costs": Endpoint(
        "analytics.costs",
        "/v1/alphas/{alpha}/analytics/costs",
        (
            Param("book", "book", "string", "long_short", required=False, enum=None),
            Param("from", "start", "date", None, required=False, enum=None),
            Param("to", "end", "date", None, required=False, enum=None),
            Param(
                "regime",
                "regime",
                "string",
                None,
                required=False,
                enum=(
                    "trend:up",
                    "trend:down",
                    "trend:unlabelled",
                    "volatility:low",
                    "volatility:mid",
                    "volatility:high",
                    "volatility:unlabelled",
                    "drawdown:in",
                    "drawdown:out",
                    "drawdown:unlabelled",
                ),
            ),
            Param("as_of", "as_of", "string", None, required=False, enum=None),
        ),
        CostsResponse,
        collection=False,
    ),
    "analytics.regimes": Endpoint(
        "analytics.regimes",
        "/v1/alphas/{alpha}/analytics/regimes",
        (
            Param("book", "book", "string", "long_short", required=False, enum=None),
            Param("from", "start", "date", None, required=False, enum=None),
            Param("to", "end", "date", None, required=False, enum=None),
            Param(
                "regime",
                "regime",
                "string",
                None,
                required=False,
                enum=(
                    "trend:up",
                    "trend:down",
                    "trend:unlabelled",
                    "volatility:low",
                    "volatility:mid",
                    "volatility:high",
                    "volatility:unlabelled",
                    "drawdown:in",
                    "drawdown:out",
                    "drawdown:unlabelled",
                ),
            ),
            Param("as_of", "as_of", "string", None, required=False, enum=None),
        ),
        RegimesResponse,
        collection=False,
    ),
    "analytics.uncertainty": Endpoint(
        "analytics.uncertainty",
        "/v1/alphas/{alpha}/analytics/uncertainty",
        (
            Param("book", "book", "string", "long_short", required=False, enum=None),
            Param("from", "start", "date", None, required=False, enum=None),
            Param("to", "end", "date", None, required=False, enum=None),
            Param("as_of", "as_of", "string", None, required=False, enum=None),
        ),
        UncertaintyResponse,
        collection=False,
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
            Param("as_of", "as_of", "string", None, required=False, enum=None),
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
            Param("as_of", "as_of", "string", None, required=False, enum=None),
        ),
        RollingRowPage,
        collection=True,
    ),
    "analytics.risk": Endpoint(
        "analytics.risk",
        "/v1/alphas/{alpha}/analytics/risk",
        (
            Param("book", "book", "string", "long_short", required=False, enum=None),
            Param("from", "start", "date", None, required=False, enum=None),
            Param("to", "end", "date", None, required=False, enum=None),
            Param("as_of", "as_of", "string", None, required=False, enum=None),
        ),
        RiskResponse,
        collection=False,
    ),
    "analytics.returns": Endpoint(
        "analytics.returns",
        "/v1/alphas/{alpha}/analytics/returns",
        (
            Param("book", "book", "string", "long_short", required=False, enum=None),
            Param("from", "start", "date", None, required=False, enum=None),
            Param("to", "end", "date", None, required=False, enum=None),
            Param("as_of", "as_of", "string", None, required=False, enum=None),
        ),
        BookReturnsResponse,
        collection=False,
    ),
    "analytics.live": Endpoint(
        "analytics.live",
        "/v1/alphas/{alpha}/analytics/live",
        (
            Param("book", "book", "string", "long_short", required=False, enum=None),
            Param("split", "split", "date", None, required=False, enum=None),
            Param("as_of", "as_of", "string", None, required=False, enum=None),
        ),
        LiveResponse,
        collection=False,
    ),
    "analytics.attribution": Endpoint(
        "analytics.attribution",
        "/v1/alphas/{alpha}/analytics/attribution",
        (
            Param("book", "book", "string", "long_short", required=False, enum=None),
            Param("from", "start", "date", None, required=False, enum=None),
            Param("to", "end", "date", None, required=False, enum=None),
            Param("top", "top", "integer", 10, required=False, enum=None),
            Param("drop", "drop", "integer", 5, required=False, enum=None),
            Param("as_of", "as_of", "string", None, required=False, enum=None),
        ),
        AttributionResponse,
        collection=False,
    ),
    "analytics.capacity": Endpoint(
        "analytics.capacity",
        "/v1/alphas/{alpha}/analytics/capacity",
        (
            Param("book", "book", "string", "long_short", required=False, enum=None),
            Param("from", "start", "date", None, required=False, enum=None),
            Param("to", "end", "date", None, required=False, enum=None),
            Param("capital", "capital", "number", 100000000.0, required=False, enum=None),
            Param("grid", "grid", "string", None, required=False, enum=None),
            Param("as_of", "as_of", "string", None, required=False, enum=None),
        ),
        CapacityResponse,
        collection=False,
    ),
    "analytics.factors": Endpoint(
        "analytics.factors",
        "/v1/alphas/{alpha}/analytics/factors",
        (
            Param("book", "book", "string", "long_short", required=False, enum=None),
            Param("from", "start", "date", None, required=False, enum=None),
            Param("to", "end", "date", None, required=False, enum=None),
            Param("as_of", "as_of", "string", None, required=False, enum=None),
        ),
        FactorsResponse,
        collection=False,
    ),
    "analytics.quantiles": Endpoint(
        "analytics.quantiles",
        "/v1/alphas/{alpha}/analytics/quantiles",
        (
            Param("score", "score", "string", "score", required=False, enum=("score", "raw_score")),
            Param("quantiles", "quantiles", "integer", 5, required=False, enum=None),
            Param("from", "start", "date", None, required=False, enum=None),
            Param("to", "end", "date", None, required=False, enum=None),
            Param("as_of", "as_of", "string", None, required=False, enum=None),
        ),
        QuantilesResponse,
        collection=False,
    ),
    "analytics.sub_universe": Endpoint(
        "analytics.sub_universe",
        "/v1/alphas/{alpha}/analytics/sub_universe",
        (
            Param("from", "start", "date", None, required=False, enum=None),
            Param("to", "end", "date", None, required=False, enum=None),
            Param("as_of", "as_of", "string", None, required=False, enum=None),
        ),
        SubUniverseResponse,
        collection=False,
    ),
    "analytics.significance": Endpoint(
        "analytics.significance",
        "/v1/alphas/{alpha}/analytics/significance",
        (
            Param("from", "start", "date", None, required=False, enum=None),
            Param("to", "end", "date", None, required=False, enum=None),
            Param("sr_benchmark", "sr_benchmark", "number", 0.0, required=False, enum=None),
            Param("trials", "trials", "integer", None, required=False, enum=None),
            Param("as_of", "as_of", "string", None, required=False, enum=None),
        ),
        SignificanceResponse,
        collection=False,
    ),
    "analytics.catalogue_bound": Endpoint(
        "analytics.catalogue_bound",
        "/v1/alphas/{alpha}/analytics/catalogue_bound",
        (),
        CatalogueBoundResponse,
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
            Param("as_of", "as_of", "string", None, required=False, enum=None),
        ),
        CorrelationRowPage,
        collection=True,
    ),
    "analytics.overfitting": Endpoint(
        "analytics.overfitting",
        "/v1/alphas/{alpha}/analytics/overfitting",
        (
            Param("splits", "splits", "integer", 16, required=False, enum=None),
            Param("as_of", "as_of", "string", None, required=False, enum=None),
        ),
        OverfittingResponse,
        collection=False,
    ),
    "analytics.family_tests": Endpoint(
        "analytics.family_tests",
        "/v1/alphas/{alpha}/analytics/family_tests",
        (Param("as_of", "as_of", "string", None, required=False, enum=None),),
        FamilyTestsResponse,
        collection=False,
    ),
    "analytics.decay": Endpoint(
        "analytics.decay",
        "/v1/alphas/{alpha}/analytics/decay",
        (
            Param("book", "book", "string", "long_short", required=False, enum=None),
            Param("split", "split", "date", None, required=False, enum=None),
            Param("as_of", "as_of", "string", None, required=False, enum=None),
        ),
        DecayResponse,
        collection=False,
    ),
    "analytics.monitoring": Endpoint(
        "analytics.monitoring",
        "/v1/alphas/{alpha}/analytics/monitoring",
        (
            Param("book", "book", "string", "long_short", required=False, enum=None),
            Param("split", "split", "date", None, required=False, enum=None),
            Param("as_of", "as_of", "string", None, required=False, enum=None),
        ),
        MonitoringResponse,
        collection=False,
    ),
    "analytics.drawdown_odds": Endpoint(
        "analytics.drawdown_odds",
        "/v1/alphas/{alpha}/analytics/drawdown_odds",
        (
            Param("book", "book", "string", "long_short", required=False, enum=None),
            Param("split", "split", "date", None, required=False, enum=None),
            Param("horizon_weeks", "horizon_weeks", "integer", 52, required=False, enum=None),
            Param("depths", "depths", "string", None, required=False, enum=None),
            Param("as_of", "as_of", "string", None, required=False, enum=None),
        ),
        DrawdownOddsResponse,
        collection=False,
    ),
    "analytics.expectation": Endpoint(
        "analytics.expectation",
        "/v1/alphas/{alpha}/analytics/expectation",
        (
            Param("split", "split", "date", None, required=False, enum=None),
            Param("as_of", "as_of", "string", None, required=False, enum=None),
        ),
        ExpectationResponse,
        collection=False,
    ),
    "analytics.residual": Endpoint(
        "analytics.residual",
        "/v1/alphas/{alpha}/analytics/residual",
        (
            Param("book", "book", "string", "long_short", required=False, enum=None),
            Param("reference", "reference", "string", None, required=False, enum=None),
            Param("from", "start", "date", None, required=False, enum=None),
            Param("to", "end", "date", None, required=False, enum=None),
            Param("as_of", "as_of", "string", None, required=False, enum=None),
        ),
        ResidualResponse,
        collection=False,
    ),
    "analytics.mmc": Endpoint(
        "analytics.mmc",
        "/v1/alphas/{alpha}/analytics/mmc",
        (
            Param("from", "start", "date", None, required=False, enum=None),
            Param("to", "end", "date", None, required=False, enum=None),
            Param("as_of", "as_of", "string", None, required=False, enum=None),
        ),
        MmcResponse,
        collection=False,
    ),
    "analytics.doc": Endpoint(
        "analytics.doc",
        "/v1/alphas/{alpha}/analytics/_doc",
        (),
        AnalyticsDocResponse,
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
            Param("family", "family", "string", None, required=False, enum=None),
            Param("complete_only", "complete_only", "boolean", False, required=False, enum=None),
            Param("production", "production", "boolean", None, required=False, enum=None),
            Param("standing", "standing", "string", None, required=False, enum=None),
            Param("ic_reproduces", "ic_reproduces", "boolean", None, required=False, enum=None),
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
                    "ic",
                    "-ic",
                    "icir",
                    "-icir",
                    "max_drawdown_pct",
                    "-max_drawdown_pct",
                    "turnover",
                    "-turnover",
                    "sessions",
                    "-sessions",
                    "live_information_ratio",
                    "-live_information_ratio",
                    "backtest_information_ratio",
                    "-backtest_information_ratio",
                    "decay_ratio",
                    "-decay_ratio",
                    "live_sessions",
                    "-live_sessions",
                    "residual_information_ratio",
                    "-residual_information_ratio",
                    "residual_t_statistic",
                    "-residual_t_statistic",
                    "weeks",
                    "-weeks",
                    "first_date",
                    "-first_date",
                    "last_date",
                    "-last_date",
                    "live_split",
                    "-live_split",
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
            Param("as_of", "as_of", "string", None, required=False, enum=None),
            Param(
                "min_information_ratio", "min_information_ratio", "number", None, required=False, enum=None
            ),
            Param(
                "max_information_ratio", "max_information_ratio", "number", None, required=False, enum=None
            ),
            Param("min_excess_sharpe", "min_excess_sharpe", "number", None, required=False, enum=None),
            Param("max_excess_sharpe", "max_excess_sharpe", "number", None, required=False, enum=None),
            Param("min_ic", "min_ic", "number", None, required=False, enum=None),
            Param("max_ic", "max_ic", "number", None, required=False, enum=None),
            Param("min_icir", "min_icir", "number", None, required=False, enum=None),
            Param("max_icir", "max_icir", "number", None, required=False, enum=None),
            Param("min_max_drawdown_pct", "min_max_drawdown_pct", "number", None, required=False, enum=None),
            Param("max_max_drawdown_pct", "max_max_drawdown_pct", "number", None, required=False, enum=None),
            Param("min_turnover", "min_turnover", "number", None, required=False, enum=None),
            Param("max_turnover", "max_turnover", "number", None, required=False, enum=None),
            Param("min_sessions", "min_sessions", "integer", None, required=False, enum=None),
            Param("max_sessions", "max_sessions", "integer", None, required=False, enum=None),
            Param(
                "min_live_information_ratio",
                "min_live_information_ratio",
                "number",
                None,
                required=False,
                enum=None,
            ),
            Param(
                "max_live_information_ratio",
                "max_live_information_ratio",
                "number",
                None,
                required=False,
                enum=None,
            ),
            Param(
                "min_backtest_information_ratio",
                "min_backtest_information_ratio",
                "number",
                None,
                required=False,
                enum=None,
            ),
            Param(
                "max_backtest_information_ratio",
                "max_backtest_information_ratio",
                "number",
                None,
                required=False,
                enum=None,
            ),
            Param("min_decay_ratio", "min_decay_ratio", "number", None, required=False, enum=None),
            Param("max_decay_ratio", "max_decay_ratio", "number", None, required=False, enum=None),
            Param("min_live_sessions", "min_live_sessions", "integer", None, required=False, enum=None),
            Param("max_live_sessions", "max_live_sessions", "integer", None, required=False, enum=None),
            Param(
                "min_residual_information_ratio",
                "min_residual_information_ratio",
                "number",
                None,
                required=False,
                enum=None,
            ),
            Param(
                "max_residual_information_ratio",
                "max_residual_information_ratio",
                "number",
                None,
                required=False,
                enum=None,
            ),
            Param(
                "min_residual_t_statistic",
                "min_residual_t_statistic",
                "number",
                None,
                required=False,
                enum=None,
            ),
            Param(
                "max_residual_t_statistic",
                "max_residual_t_statistic",
                "number",
                None,
                required=False,
                enum=None,
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
            Param("fit_to", "fit_to", "date", None, required=False, enum=None),
            Param("from", "start", "date", None, required=False, enum=None),
            Param("to", "end", "date", None, required=False, enum=None),
            Param("limit", "limit", "integer", 500, required=False, enum=None),
            Param("offset", "offset", "integer", 0, required=False, enum=None),
            Param("as_of", "as_of", "string", None, required=False, enum=None),
        ),
        CombinedRowPage,
        collection=True,
    ),
    "analytics.contribution": Endpoint(
        "analytics.contribution",
        "/v1/alphas/{alpha}/analytics/contribution",
        (
            Param("reference", "reference", "string", None, required=False, enum=None),
            Param(
                "weighting",
                "weighting",
                "string",
                None,
                required=False,
                enum=("equal", "given", "inverse_volatility", "max_ir"),
            ),
            Param("weights", "weights", "string", None, required=False, enum=None),
            Param("shrinkage", "shrinkage", "number", None, required=False, enum=None),
            Param("fit_to", "fit_to", "date", None, required=False, enum=None),
            Param("weight", "weight", "number", None, required=False, enum=None),
            Param("from", "start", "date", None, required=False, enum=None),
            Param("to", "end", "date", None, required=False, enum=None),
            Param("as_of", "as_of", "string", None, required=False, enum=None),
        ),
        ContributionResponse,
        collection=False,
    ),
    "analytics.crowding": Endpoint(
        "analytics.crowding",
        "/v1/analytics/crowding",
        (
            Param("from", "start", "date", None, required=False, enum=None),
            Param("to", "end", "date", None, required=False, enum=None),
            Param("as_of", "as_of", "string", None, required=False, enum=None),
        ),
        CrowdingResponse,
        collection=False,
    ),
    "analytics.approved_health": Endpoint(
        "analytics.approved_health",
        "/v1/analytics/approved_health",
        (
            Param("book", "book", "string", "long_short", required=False, enum=None),
            Param("as_of", "as_of", "string", None, required=False, enum=None),
        ),
        ApprovedHealthResponse,
        collection=False,
    ),
    "analytics.checks": Endpoint(
        "analytics.checks",
        "/v1/alphas/{alpha}/analytics/checks",
        (
            Param("book", "book", "string", "long_short", required=False, enum=None),
            Param("from", "start", "date", None, required=False, enum=None),
            Param("to", "end", "date", None, required=False, enum=None),
            Param("as_of", "as_of", "string", None, required=False, enum=None),
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
            Param(
                "min_residual_information_ratio",
                "min_residual_information_ratio",
                "number",
                None,
                required=False,
                enum=None,
            ),
            Param("min_ic_t_statistic", "min_ic_t_statistic", "number", None, required=False, enum=None),
            Param("min_fragility", "min_fragility", "number", None, required=False, enum=None),
            Param(
                "min_live_information_ratio",
                "min_live_information_ratio",
                "number",
                None,
                required=False,
                enum=None,
            ),
            Param("min_decay_ratio", "min_decay_ratio", "number", None, required=False, enum=None),
            Param(
                "min_information_ratio_lower_bound",
                "min_information_ratio_lower_bound",
                "number",
                None,
                required=False,
                enum=None,
            ),
            Param(
                "min_sharpe_t_statistic", "min_sharpe_t_statistic", "number", None, required=False, enum=None
            ),
            Param("max_pbo", "max_pbo", "number", None, required=False, enum=None),
            Param("min_sub_universe", "min_sub_universe", "number", None, required=False, enum=None),
        ),
        ChecksResponse,
        collection=False,
    ),
    "analytics.promotion_preview": Endpoint(
        "analytics.promotion_preview",
        "/v1/alphas/{alpha}/analytics/promotion_preview",
        (Param("effective", "effective", "date", None, required=False, enum=None),),
        PromotionPreviewResponse,
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
            Param("as_of", "as_of", "string", None, required=False, enum=None),
        ),
        ComparisonResponse,
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
            Param("as_of", "as_of", "string", None, required=False, enum=None),
        ),
        BenchmarkRowPage,
        collection=True,
        series=True,
    ),
    "catalog.alphas.source.download": Endpoint(
        "catalog.alphas.source.download",
        "/v1/alphas/{alpha}/source/download",
        (),
        SourceDownloadResponse,
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
            Param("as_of", "as_of", "string", None, required=False, enum=None),
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
    "events.list": Endpoint(
        "events.list",
        "/v1/events",
        (
            Param("after", "after", "string", None, required=False, enum=None),
            Param("order", "order", "string", "oldest", required=False, enum=("oldest", "newest")),
            Param("type", "type", "string", None, required=False, enum=None),
            Param("alpha", "alpha", "string", None, required=False, enum=None),
            Param("limit", "limit", "integer", 100, required=False, enum=None),
            Param(
                "format",
                "format",
                "string",
                None,
                required=False,
                enum=("json", "arrow", "csv", "ndjson", "parquet"),
            ),
        ),
        EventPage,
        collection=True,
    ),
    "events.stream": Endpoint(
        "events.stream",
        "/v1/events/stream",
        (
            Param("after", "after", "string", None, required=False, enum=None),
            Param("type", "type", "string", None, required=False, enum=None),
            Param("alpha", "alpha", "string", None, required=False, enum=None),
        ),
        StreamedEvent,
        collection=False,
        stream=True,
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


# -- methods ----------------------------------------------------------------------------------------

METHODS: dict[str, str] = {
    "meta.health": "health",
    "meta.me": "me",
    "meta.keys": "keys",
    "catalog.alphas.list": "alphas",
    "catalog.families.list": "families",
    "catalog.alphas.get": "alpha",
    "catalog.alphas.promotions": "promotions",
    "catalog.alphas.restatements": "restatements",
    "catalog.review": "review",
    "signals.rebalances.list": "rebalances",
    "signals.rebalances.get": "cross_section",
    "signals.scores": "scores",
    "portfolio.books": "books",
    "portfolio.ledger": "portfolio",
    "portfolio.positions": "positions",
    "portfolio.pnl": "pnl",
    "portfolio.trades": "trades",
    "portfolio.equity_curve": "equity_curve",
    "performance.metrics": "metrics",
    "performance.metrics.doc": "metrics_doc",
    "analytics.costs": "costs",
    "analytics.regimes": "regimes",
    "analytics.uncertainty": "uncertainty",
    "analytics.drawdowns": "drawdowns",
    "analytics.rolling": "rolling",
    "analytics.risk": "risk",
    "analytics.returns": "returns",
    "analytics.live": "live",
    "analytics.attribution": "attribution",
    "analytics.capacity": "capacity",
    "analytics.factors": "factors",
    "analytics.quantiles": "quantiles",
    "analytics.sub_universe": "sub_universe",
    "analytics.significance": "significance",
    "analytics.catalogue_bound": "catalogue_bound",
    "analytics.correlation": "correlation",
    "analytics.overfitting": "overfitting",
    "analytics.family_tests": "family_tests",
    "analytics.decay": "decay",
    "analytics.monitoring": "monitoring",
    "analytics.drawdown_odds": "drawdown_odds",
    "analytics.expectation": "expectation",
    "analytics.residual": "residual",
    "analytics.mmc": "mmc",
    "analytics.doc": "analytics_doc",
    "analytics.screen": "screen",
    "analytics.combine": "combine",
    "analytics.contribution": "contribution",
    "analytics.crowding": "crowding",
    "analytics.approved_health": "approved_health",
    "analytics.checks": "checks",
    "analytics.promotion_preview": "promotion_preview",
    "analytics.compare": "compare",
    "benchmarks.daily": "benchmark",
    "catalog.alphas.source.download": "source_download",
    "exports.list": "exports",
    "exports.download": "export",
    "admin.alphas.readiness": "admin_readiness",
    "admin.keys.usage": "admin_key_usage",
    "admin.builds.list": "admin_builds",
    "events.list": "events",
    "events.stream": "stream_events",
}
"""The method of `GeneratedMethods` (and so of `Client`) of each route, by registry id."""


class GeneratedMethods:
    """The typed method of every route, generated from its operation: positional path parameters
    (then the required query parameters, and `book`, `start`, `end` where the route takes them),
    every other parameter keyword-only with its served default and choices; `None` means not
    sent. A collection comes back as a lazy `Collection` (a `Series` with its `.summary`), a
    single object as its typed 200 body. `alpha_results_client.Client` inherits it.
    """

    if TYPE_CHECKING:

        def _answer(self, endpoint_id: str, path_values: dict[str, Any], values: dict[str, Any]) -> Any:
            """The request of one route (`ClientBase._answer`)."""

    def health(self) -> Health:
        """Health probe.

        `GET /v1/health` (`meta.health`).
        """
        return self._answer("meta.health", {}, {})

    def me(self) -> MeResponse:
        """Identity, limits and usage of the calling key.

        `GET /v1/me` (`meta.me`).
        """
        return self._answer("meta.me", {}, {})

    def keys(self) -> Collection[KeyInventoryRow]:
        """Inventory of the caller's keys.

        `GET /v1/me/keys` (`meta.keys`).
        """
        return self._answer("meta.keys", {}, {})

    def alphas(
        self, search: str | None = None, complete_only: bool = False, *, as_of: str | None = None
    ) -> Collection[AlphaListRow]:
        """List of alphas.

        `GET /v1/alphas` (`catalog.alphas.list`).

        `search`: Case-insensitive substring over alpha_id, name and tldr.

        `complete_only`: Omit alphas still missing required kinds.

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer(
            "catalog.alphas.list", {}, {"search": search, "complete_only": complete_only, "as_of": as_of}
        )

    def families(self, *, family: str | None = None, as_of: str | None = None) -> Collection[FamilyMemberRow]:
        """Trial families and their members the key may read.

        `GET /v1/families` (`catalog.families.list`).

        `family`: Only this trial family's members (its slug).

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer("catalog.families.list", {}, {"family": family, "as_of": as_of})

    def alpha(self, alpha: str, *, as_of: str | None = None) -> AlphaDescriptionResponse:
        """Written description of one alpha.

        `GET /v1/alphas/{alpha}` (`catalog.alphas.get`).

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer("catalog.alphas.get", {"alpha": alpha}, {"as_of": as_of})

    def promotions(self, alpha: str, *, as_of: str | None = None) -> PromotionsResponse:
        """The operator's decisions about one alpha.

        `GET /v1/alphas/{alpha}/promotions` (`catalog.alphas.promotions`).

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer("catalog.alphas.promotions", {"alpha": alpha}, {"as_of": as_of})

    def restatements(
        self,
        alpha: str,
        start: dt.date | str | None = None,
        end: dt.date | str | None = None,
        *,
        as_of: str | None = None,
    ) -> Collection[RestatementRow]:
        """Published values later runs changed, with both values.

        `GET /v1/alphas/{alpha}/restatements` (`catalog.alphas.restatements`).

        `start`: First trading day, inclusive (YYYY-MM-DD); default: the window start.

        `end`: Last trading day, inclusive (YYYY-MM-DD); default: the window end.

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer(
            "catalog.alphas.restatements", {"alpha": alpha}, {"start": start, "end": end, "as_of": as_of}
        )

    def review(self, *, as_of: str | None = None) -> ReviewQueueResponse:
        """The review queue: nominated alphas and their verdicts.

        `GET /v1/review` (`catalog.review`).

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer("catalog.review", {}, {"as_of": as_of})

    def rebalances(
        self,
        alpha: str,
        start: dt.date | str | None = None,
        end: dt.date | str | None = None,
        *,
        as_of: str | None = None,
    ) -> Collection[RebalanceIndexRow]:
        """Rebalance index.

        `GET /v1/alphas/{alpha}/rebalances` (`signals.rebalances.list`).

        `start`: First trading day, inclusive (YYYY-MM-DD); default: the window start.

        `end`: Last trading day, inclusive (YYYY-MM-DD); default: the window end.

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer(
            "signals.rebalances.list", {"alpha": alpha}, {"start": start, "end": end, "as_of": as_of}
        )

    def cross_section(
        self,
        alpha: str,
        date: dt.date | str,
        book: Literal["long_short", "long_only"] = "long_short",
        *,
        symbol: str | Iterable[str] | None = None,
        direction: Literal["1", "long", "-1", "short", "0", "flat", "neutral", 1, -1, 0] | None = None,
        min_abs_weight: float | None = None,
        sort: Literal["score", "rank", "symbol", "weight"] = "score",
        order: Literal["asc", "desc"] | None = None,
        as_of: str | None = None,
    ) -> Collection[DecisionRow]:
        """Cross-section of one rebalance week.

        `GET /v1/alphas/{alpha}/rebalances/{date}` (`signals.rebalances.get`).

        `date`: The rebalance week: a date of the rebalance index.

        `book`: Target-weight column for min_abs_weight and sort=weight.

        `symbol`: One ticker or a comma-separated list (matched upper-cased).

        `direction`: Keep one side (case-insensitive; neutral is a synonym of flat).

        `min_abs_weight`: Drop names whose absolute target weight (column chosen by book) is below
        it.

        `sort`: Sort key (rank sorts on average_rank, weight on the book column).

        `order`: desc for score and weight, asc for rank and symbol; ticker tiebreak.

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer(
            "signals.rebalances.get",
            {"alpha": alpha, "date": date},
            {
                "book": book,
                "symbol": symbol,
                "direction": direction,
                "min_abs_weight": min_abs_weight,
                "sort": sort,
                "order": order,
                "as_of": as_of,
            },
        )

    def scores(
        self,
        alpha: str,
        start: dt.date | str | None = None,
        end: dt.date | str | None = None,
        *,
        symbol: str | Iterable[str] | None = None,
        fields: Literal["core", "all"] = "core",
        as_of: str | None = None,
    ) -> Collection[ScoreRow]:
        """Per-symbol per-week score panel.

        `GET /v1/alphas/{alpha}/scores` (`signals.scores`).

        `start`: First trading day, inclusive (YYYY-MM-DD); default: the window start.

        `end`: Last trading day, inclusive (YYYY-MM-DD); default: the window end.

        `symbol`: One ticker or a comma-separated list (matched upper-cased).

        `fields`: Column set: core or all.

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer(
            "signals.scores",
            {"alpha": alpha},
            {"start": start, "end": end, "symbol": symbol, "fields": fields, "as_of": as_of},
        )

    def books(self, alpha: str, *, as_of: str | None = None) -> Collection[BookRow]:
        """Books and kinds written.

        `GET /v1/alphas/{alpha}/books` (`portfolio.books`).

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer("portfolio.books", {"alpha": alpha}, {"as_of": as_of})

    def portfolio(
        self,
        alpha: str,
        book: str = "long_short",
        start: dt.date | str | None = None,
        end: dt.date | str | None = None,
        *,
        as_of: str | None = None,
    ) -> Collection[LedgerRow]:
        """Daily ledger of a book.

        `GET /v1/alphas/{alpha}/portfolio` (`portfolio.ledger`).

        `book`: Book to serve (see /books); unknown or invisible books are 400 unknown_book.

        `start`: First trading day, inclusive (YYYY-MM-DD); default: the window start.

        `end`: Last trading day, inclusive (YYYY-MM-DD); default: the window end.

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer(
            "portfolio.ledger", {"alpha": alpha}, {"book": book, "start": start, "end": end, "as_of": as_of}
        )

    def positions(
        self,
        alpha: str,
        book: str = "long_short",
        start: dt.date | str | None = None,
        end: dt.date | str | None = None,
        *,
        symbol: str | Iterable[str] | None = None,
        as_of: str | None = None,
    ) -> Collection[PositionRow]:
        """Daily positions.

        `GET /v1/alphas/{alpha}/positions` (`portfolio.positions`).

        `book`: Book to serve (see /books); unknown or invisible books are 400 unknown_book.

        `start`: First trading day, inclusive (YYYY-MM-DD); default: the window start.

        `end`: Last trading day, inclusive (YYYY-MM-DD); default: the window end.

        `symbol`: One ticker or a comma-separated list (matched upper-cased).

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer(
            "portfolio.positions",
            {"alpha": alpha},
            {"book": book, "start": start, "end": end, "symbol": symbol, "as_of": as_of},
        )

    def pnl(
        self,
        alpha: str,
        book: str = "long_short",
        start: dt.date | str | None = None,
        end: dt.date | str | None = None,
        *,
        symbol: str | Iterable[str] | None = None,
        as_of: str | None = None,
    ) -> Collection[PnlRow]:
        """Daily per-symbol P&L.

        `GET /v1/alphas/{alpha}/pnl` (`portfolio.pnl`).

        `book`: Book to serve (see /books); unknown or invisible books are 400 unknown_book.

        `start`: First trading day, inclusive (YYYY-MM-DD); default: the window start.

        `end`: Last trading day, inclusive (YYYY-MM-DD); default: the window end.

        `symbol`: One ticker or a comma-separated list (matched upper-cased).

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer(
            "portfolio.pnl",
            {"alpha": alpha},
            {"book": book, "start": start, "end": end, "symbol": symbol, "as_of": as_of},
        )

    def trades(
        self,
        alpha: str,
        book: str,
        start: dt.date | str | None = None,
        end: dt.date | str | None = None,
        *,
        symbol: str | Iterable[str] | None = None,
        as_of: str | None = None,
    ) -> Collection[TradeRow]:
        """Fills of a book.

        `GET /v1/alphas/{alpha}/trades` (`portfolio.trades`).

        `book`: Book to serve (required; see /books).

        `start`: First trading day, inclusive (YYYY-MM-DD); default: the window start.

        `end`: Last trading day, inclusive (YYYY-MM-DD); default: the window end.

        `symbol`: One ticker or a comma-separated list (matched upper-cased).

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer(
            "portfolio.trades",
            {"alpha": alpha},
            {"book": book, "start": start, "end": end, "symbol": symbol, "as_of": as_of},
        )

    def equity_curve(
        self,
        alpha: str,
        book: str = "long_short",
        start: dt.date | str | None = None,
        end: dt.date | str | None = None,
        *,
        as_of: str | None = None,
    ) -> Series[EquityRow, EquitySummary]:
        """Equity curve of a book.

        `GET /v1/alphas/{alpha}/equity-curve` (`portfolio.equity_curve`).

        `book`: Book to serve (see /books); unknown or invisible books are 400 unknown_book.

        `start`: First trading day, inclusive (YYYY-MM-DD); default: the window start.

        `end`: Last trading day, inclusive (YYYY-MM-DD); default: the window end.

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer(
            "portfolio.equity_curve",
            {"alpha": alpha},
            {"book": book, "start": start, "end": end, "as_of": as_of},
        )

    def metrics(
        self,
        alpha: str,
        start: dt.date | str | None = None,
        end: dt.date | str | None = None,
        *,
        granularity: Literal["overall", "yearly", "monthly"] = "overall",
        doc: bool = False,
        panel: bool = False,
        as_of: str | None = None,
    ) -> MetricsResponse:
        """Metrics.

        `GET /v1/alphas/{alpha}/metrics` (`performance.metrics`).

        `start`: First trading day, inclusive (YYYY-MM-DD); default: the window start.

        `end`: Last trading day, inclusive (YYYY-MM-DD); default: the window end.

        `granularity`: overall, or yearly/monthly to add periods.

        `doc`: Embed the documentation block under data.doc.

        `panel`: Add the weekly panel block (data.panel).

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer(
            "performance.metrics",
            {"alpha": alpha},
            {
                "start": start,
                "end": end,
                "granularity": granularity,
                "doc": doc,
                "panel": panel,
                "as_of": as_of,
            },
        )

    def metrics_doc(self, alpha: str) -> MetricsDocResponse:
        """Metrics documentation block.

        `GET /v1/alphas/{alpha}/metrics/_doc` (`performance.metrics.doc`).
        """
        return self._answer("performance.metrics.doc", {"alpha": alpha}, {})

    def costs(
        self,
        alpha: str,
        book: str = "long_short",
        start: dt.date | str | None = None,
        end: dt.date | str | None = None,
        *,
        regime: Literal[
            "trend:up",
            "trend:down",
            "trend:unlabelled",
            "volatility:low",
            "volatility:mid",
            "volatility:high",
            "volatility:unlabelled",
            "drawdown:in",
            "drawdown:out",
            "drawdown:unlabelled",
        ]
        | None = None,
        as_of: str | None = None,
    ) -> CostsResponse:
        """Break-even cost, turnover by score decile and holding period of a book.

        `GET /v1/alphas/{alpha}/analytics/costs` (`analytics.costs`).

        `book`: Book to serve (see /books); unknown or invisible books are 400 unknown_book.

        `start`: First trading day, inclusive (YYYY-MM-DD); default: the window start.

        `end`: Last trading day, inclusive (YYYY-MM-DD); default: the window end.

        `regime`: Keep only the sessions (and weekly ICs) of one regime of SPY, dimension:label
        (docs/analytics.md "Regimes"); absent: every session.

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer(
            "analytics.costs",
            {"alpha": alpha},
            {"book": book, "start": start, "end": end, "regime": regime, "as_of": as_of},
        )

    def regimes(
        self,
        alpha: str,
        book: str = "long_short",
        start: dt.date | str | None = None,
        end: dt.date | str | None = None,
        *,
        regime: Literal[
            "trend:up",
            "trend:down",
            "trend:unlabelled",
            "volatility:low",
            "volatility:mid",
            "volatility:high",
            "volatility:unlabelled",
            "drawdown:in",
            "drawdown:out",
            "drawdown:unlabelled",
        ]
        | None = None,
        as_of: str | None = None,
    ) -> RegimesResponse:
        """A book's information ratio, mean IC and hit rate in each regime of SPY.

        `GET /v1/alphas/{alpha}/analytics/regimes` (`analytics.regimes`).

        `book`: Book to serve (see /books); unknown or invisible books are 400 unknown_book.

        `start`: First trading day, inclusive (YYYY-MM-DD); default: the window start.

        `end`: Last trading day, inclusive (YYYY-MM-DD); default: the window end.

        `regime`: Keep only the sessions (and weekly ICs) of one regime of SPY, dimension:label
        (docs/analytics.md "Regimes"); absent: every session.

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer(
            "analytics.regimes",
            {"alpha": alpha},
            {"book": book, "start": start, "end": end, "regime": regime, "as_of": as_of},
        )

    def uncertainty(
        self,
        alpha: str,
        book: str = "long_short",
        start: dt.date | str | None = None,
        end: dt.date | str | None = None,
        *,
        as_of: str | None = None,
    ) -> UncertaintyResponse:
        """Bootstrap confidence intervals of a book's headline figures.

        `GET /v1/alphas/{alpha}/analytics/uncertainty` (`analytics.uncertainty`).

        `book`: Book to serve (see /books); unknown or invisible books are 400 unknown_book.

        `start`: First trading day, inclusive (YYYY-MM-DD); default: the window start.

        `end`: Last trading day, inclusive (YYYY-MM-DD); default: the window end.

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer(
            "analytics.uncertainty",
            {"alpha": alpha},
            {"book": book, "start": start, "end": end, "as_of": as_of},
        )

    def drawdowns(
        self,
        alpha: str,
        book: str = "long_short",
        start: dt.date | str | None = None,
        end: dt.date | str | None = None,
        *,
        as_of: str | None = None,
    ) -> Collection[DrawdownRow]:
        """Drawdown episodes of a book.

        `GET /v1/alphas/{alpha}/analytics/drawdowns` (`analytics.drawdowns`).

        `book`: Book to serve (see /books); unknown or invisible books are 400 unknown_book.

        `start`: First trading day, inclusive (YYYY-MM-DD); default: the window start.

        `end`: Last trading day, inclusive (YYYY-MM-DD); default: the window end.

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer(
            "analytics.drawdowns",
            {"alpha": alpha},
            {"book": book, "start": start, "end": end, "as_of": as_of},
        )

    def rolling(
        self,
        alpha: str,
        book: str = "long_short",
        start: dt.date | str | None = None,
        end: dt.date | str | None = None,
        *,
        window: Literal["13", "26", "52", 13, 26, 52] = "26",
        as_of: str | None = None,
    ) -> Collection[RollingRow]:
        """Trailing-window IC and return figures per rebalance week.

        `GET /v1/alphas/{alpha}/analytics/rolling` (`analytics.rolling`).

        `book`: Book to serve (see /books); unknown or invisible books are 400 unknown_book.

        `start`: First trading day, inclusive (YYYY-MM-DD); default: the window start.

        `end`: Last trading day, inclusive (YYYY-MM-DD); default: the window end.

        `window`: Trailing window in weeks.

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer(
            "analytics.rolling",
            {"alpha": alpha},
            {"book": book, "start": start, "end": end, "window": window, "as_of": as_of},
        )

    def risk(
        self,
        alpha: str,
        book: str = "long_short",
        start: dt.date | str | None = None,
        end: dt.date | str | None = None,
        *,
        as_of: str | None = None,
    ) -> RiskResponse:
        """Benchmark-relative and tail figures of a book against SPY.

        `GET /v1/alphas/{alpha}/analytics/risk` (`analytics.risk`).

        `book`: Book to serve (see /books); unknown or invisible books are 400 unknown_book.

        `start`: First trading day, inclusive (YYYY-MM-DD); default: the window start.

        `end`: Last trading day, inclusive (YYYY-MM-DD); default: the window end.

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer(
            "analytics.risk", {"alpha": alpha}, {"book": book, "start": start, "end": end, "as_of": as_of}
        )

    def returns(
        self,
        alpha: str,
        book: str = "long_short",
        start: dt.date | str | None = None,
        end: dt.date | str | None = None,
        *,
        as_of: str | None = None,
    ) -> BookReturnsResponse:
        """Monthly and yearly returns of a book and its trailing beta to SPY.

        `GET /v1/alphas/{alpha}/analytics/returns` (`analytics.returns`).

        `book`: Book to serve (see /books); unknown or invisible books are 400 unknown_book.

        `start`: First trading day, inclusive (YYYY-MM-DD); default: the window start.

        `end`: Last trading day, inclusive (YYYY-MM-DD); default: the window end.

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer(
            "analytics.returns", {"alpha": alpha}, {"book": book, "start": start, "end": end, "as_of": as_of}
        )

    def live(
        self,
        alpha: str,
        book: str = "long_short",
        *,
        split: dt.date | str | None = None,
        as_of: str | None = None,
    ) -> LiveResponse:
        """In-sample against out-of-sample of a book (live against backtest).

        `GET /v1/alphas/{alpha}/analytics/live` (`analytics.live`).

        `book`: Book to serve (see /books); unknown or invisible books are 400 unknown_book.

        `split`: The last in-sample date (YYYY-MM-DD), a what-if: sessions after it are
        out-of-sample. Absent: the alpha's own split, its approval's as_of, else its seal's
        research_cutoff, else the date the catalogue first published it (the answer's split_origin
        says which).

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer(
            "analytics.live", {"alpha": alpha}, {"book": book, "split": split, "as_of": as_of}
        )

    def attribution(
        self,
        alpha: str,
        book: str = "long_short",
        start: dt.date | str | None = None,
        end: dt.date | str | None = None,
        *,
        top: int = 10,
        drop: int = 5,
        as_of: str | None = None,
    ) -> AttributionResponse:
        """Where a book's P&L came from: by name, leg and sector; fragility; concentration.

        `GET /v1/alphas/{alpha}/analytics/attribution` (`analytics.attribution`).

        `book`: Book to serve (see /books); unknown or invisible books are 400 unknown_book.

        `start`: First trading day, inclusive (YYYY-MM-DD); default: the window start.

        `end`: Last trading day, inclusive (YYYY-MM-DD); default: the window end.

        `top`: Contributors and detractors listed, each (names of largest and smallest window P&L).

        `drop`: N of the fragility figures: the information ratio without the N best days and
        without the N best names.

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer(
            "analytics.attribution",
            {"alpha": alpha},
            {"book": book, "start": start, "end": end, "top": top, "drop": drop, "as_of": as_of},
        )

    def capacity(
        self,
        alpha: str,
        book: str = "long_short",
        start: dt.date | str | None = None,
        end: dt.date | str | None = None,
        *,
        capital: float = 100000000.0,
        grid: str | Iterable[float] | None = None,
        as_of: str | None = None,
    ) -> CapacityResponse:
        """Participation and net information ratio of a book against its capital.

        `GET /v1/alphas/{alpha}/analytics/capacity` (`analytics.capacity`).

        `book`: Book to serve (see /books); unknown or invisible books are 400 unknown_book.

        `start`: First trading day, inclusive (YYYY-MM-DD); default: the window start.

        `end`: Last trading day, inclusive (YYYY-MM-DD); default: the window end.

        `capital`: The reference capital K0: the book's size at inception in its own currency (the
        seal's ledger is normalised to 1.0 and states none); the seal's modelled costs are taken as
        the costs at it. Default 1e+08.

        `grid`: The capitals to show the book at: comma-separated decimals (1e9 is accepted), at
        most 25, each in [1, 1e+15]. Default: 1e6 to 1e10 in half-decades.

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer(
            "analytics.capacity",
            {"alpha": alpha},
            {"book": book, "start": start, "end": end, "capital": capital, "grid": grid, "as_of": as_of},
        )

    def factors(
        self,
        alpha: str,
        book: str = "long_short",
        start: dt.date | str | None = None,
        end: dt.date | str | None = None,
        *,
        as_of: str | None = None,
    ) -> FactorsResponse:
        """Factor attribution of a book and the signal's feature-neutral IC.

        `GET /v1/alphas/{alpha}/analytics/factors` (`analytics.factors`).

        `book`: Book to serve (see /books); unknown or invisible books are 400 unknown_book.

        `start`: First trading day, inclusive (YYYY-MM-DD); default: the window start.

        `end`: Last trading day, inclusive (YYYY-MM-DD); default: the window end.

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer(
            "analytics.factors", {"alpha": alpha}, {"book": book, "start": start, "end": end, "as_of": as_of}
        )

    def quantiles(
        self,
        alpha: str,
        start: dt.date | str | None = None,
        end: dt.date | str | None = None,
        *,
        score: Literal["score", "raw_score"] = "score",
        quantiles: int = 5,
        as_of: str | None = None,
    ) -> QuantilesResponse:
        """Mean forward return by score quantile, the top-minus-bottom spread, and the IC by month and
        sector.

        `GET /v1/alphas/{alpha}/analytics/quantiles` (`analytics.quantiles`).

        `start`: First trading day, inclusive (YYYY-MM-DD); default: the window start.

        `end`: Last trading day, inclusive (YYYY-MM-DD); default: the window end.

        `score`: The score bucketed: score (the conditioned signal) or raw_score (keys with raw-book
        access only).

        `quantiles`: Number of score quantiles per week (2..10; alphalens' default 5).

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer(
            "analytics.quantiles",
            {"alpha": alpha},
            {"start": start, "end": end, "score": score, "quantiles": quantiles, "as_of": as_of},
        )

    def sub_universe(
        self,
        alpha: str,
        start: dt.date | str | None = None,
        end: dt.date | str | None = None,
        *,
        as_of: str | None = None,
    ) -> SubUniverseResponse:
        """Is the signal robust to where it trades? Its IC and ICIR on the liquid and illiquid halves
        by adv and on random halves.

        `GET /v1/alphas/{alpha}/analytics/sub_universe` (`analytics.sub_universe`).

        `start`: First trading day, inclusive (YYYY-MM-DD); default: the window start.

        `end`: Last trading day, inclusive (YYYY-MM-DD); default: the window end.

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer(
            "analytics.sub_universe", {"alpha": alpha}, {"start": start, "end": end, "as_of": as_of}
        )

    def significance(
        self,
        alpha: str,
        start: dt.date | str | None = None,
        end: dt.date | str | None = None,
        *,
        sr_benchmark: float = 0.0,
        trials: int | None = None,
        as_of: str | None = None,
    ) -> SignificanceResponse:
        """Significance of the long_short Sharpe ratio and the IC, corrected for the catalogue's
        trials.

        `GET /v1/alphas/{alpha}/analytics/significance` (`analytics.significance`).

        `start`: First trading day, inclusive (YYYY-MM-DD); default: the window start.

        `end`: Last trading day, inclusive (YYYY-MM-DD); default: the window end.

        `sr_benchmark`: Annualised Sharpe ratio the PSR and MinTRL test against (per session: /
        sqrt(252)).

        `trials`: Number of trials for the Deflated Sharpe Ratio; default: the published
        catalogue's.

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer(
            "analytics.significance",
            {"alpha": alpha},
            {"start": start, "end": end, "sr_benchmark": sr_benchmark, "trials": trials, "as_of": as_of},
        )

    def catalogue_bound(self, alpha: str) -> CatalogueBoundResponse:
        """A lower bound on the alpha's Sharpe ratio and IC over the alphas the key may read
        (Rademacher anti-serum).

        `GET /v1/alphas/{alpha}/analytics/catalogue_bound` (`analytics.catalogue_bound`).
        """
        return self._answer("analytics.catalogue_bound", {"alpha": alpha}, {})

    def correlation(
        self,
        alpha: str,
        basis: Literal["returns", "ic", "scores"] = "returns",
        start: dt.date | str | None = None,
        end: dt.date | str | None = None,
        *,
        as_of: str | None = None,
    ) -> Collection[CorrelationRow]:
        """Correlation with every other alpha the key may read.

        `GET /v1/alphas/{alpha}/analytics/correlation` (`analytics.correlation`).

        `basis`: returns (daily long_short), ic (weekly IC) or scores (weekly cross-sections).

        `start`: First trading day, inclusive (YYYY-MM-DD); default: the window start.

        `end`: Last trading day, inclusive (YYYY-MM-DD); default: the window end.

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer(
            "analytics.correlation",
            {"alpha": alpha},
            {"basis": basis, "start": start, "end": end, "as_of": as_of},
        )

    def overfitting(self, alpha: str, *, splits: int = 16, as_of: str | None = None) -> OverfittingResponse:
        """Probability of backtest overfitting of the alpha's trial family.

        `GET /v1/alphas/{alpha}/analytics/overfitting` (`analytics.overfitting`).

        `splits`: S: the blocks (even, 4 to 16) the family's common sessions are cut into; C(S, S/2)
        cross-validations (12,870 at 16).

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer("analytics.overfitting", {"alpha": alpha}, {"splits": splits, "as_of": as_of})

    def family_tests(self, alpha: str, *, as_of: str | None = None) -> FamilyTestsResponse:
        """Which members of the alpha's trial family are indistinguishable from the best, and how
        stable its Sharpe ratio is across each parameter.

        `GET /v1/alphas/{alpha}/analytics/family_tests` (`analytics.family_tests`).

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer("analytics.family_tests", {"alpha": alpha}, {"as_of": as_of})

    def decay(
        self,
        alpha: str,
        book: str = "long_short",
        *,
        split: dt.date | str | None = None,
        as_of: str | None = None,
    ) -> DecayResponse:
        """The IC's half-life by forecast horizon and the book's backtest information ratio after the
        live haircut.

        `GET /v1/alphas/{alpha}/analytics/decay` (`analytics.decay`).

        `book`: Book to serve (see /books); unknown or invisible books are 400 unknown_book.

        `split`: The last in-sample date (YYYY-MM-DD), a what-if: sessions after it are
        out-of-sample. Absent: the alpha's own split, its approval's as_of, else its seal's
        research_cutoff, else the date the catalogue first published it (the answer's split_origin
        says which).

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer(
            "analytics.decay", {"alpha": alpha}, {"book": book, "split": split, "as_of": as_of}
        )

    def monitoring(
        self,
        alpha: str,
        book: str = "long_short",
        *,
        split: dt.date | str | None = None,
        as_of: str | None = None,
    ) -> MonitoringResponse:
        """Is it still working? A CUSUM on each live week of the book's return and IC against the
        expected level.

        `GET /v1/alphas/{alpha}/analytics/monitoring` (`analytics.monitoring`).

        `book`: Book to serve (see /books); unknown or invisible books are 400 unknown_book.

        `split`: The last in-sample date (YYYY-MM-DD), a what-if: sessions after it are
        out-of-sample. Absent: the alpha's own split, its approval's as_of, else its seal's
        research_cutoff, else the date the catalogue first published it (the answer's split_origin
        says which).

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer(
            "analytics.monitoring", {"alpha": alpha}, {"book": book, "split": split, "as_of": as_of}
        )

    def drawdown_odds(
        self,
        alpha: str,
        book: str = "long_short",
        *,
        split: dt.date | str | None = None,
        horizon_weeks: int = 52,
        depths: str | Iterable[float] | None = None,
        as_of: str | None = None,
    ) -> DrawdownOddsResponse:
        """Is it still working? The odds of a drawdown deeper than x within h weeks at the expected
        level, and the live path's place in the forward cone.

        `GET /v1/alphas/{alpha}/analytics/drawdown_odds` (`analytics.drawdown_odds`).

        `book`: Book to serve (see /books); unknown or invisible books are 400 unknown_book.

        `split`: The last backtest date (YYYY-MM-DD), a what-if: the backtest resampled ends there
        and the live path starts after it. Absent: the alpha's own split, as /analytics/live's.

        `horizon_weeks`: h: the weeks after the split the drawdown odds and the cone cover. Default
        52 (a year).

        `depths`: The drawdown depths x to give the odds of, as fractions of the peak:
        comma-separated decimals, at most 12, each in (0, 1) (0.1: a fall of 10%). Default:
        0.05,0.1,0.2,0.3.

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer(
            "analytics.drawdown_odds",
            {"alpha": alpha},
            {"book": book, "split": split, "horizon_weeks": horizon_weeks, "depths": depths, "as_of": as_of},
        )

    def expectation(
        self, alpha: str, *, split: dt.date | str | None = None, as_of: str | None = None
    ) -> ExpectationResponse:
        """Is it still working? The expected live information ratio and IC, shrunk toward the alpha's
        family, with intervals.

        `GET /v1/alphas/{alpha}/analytics/expectation` (`analytics.expectation`).

        `split`: The last backtest date (YYYY-MM-DD), a what-if: the alpha's backtest ends there and
        its live weeks follow. Absent: the alpha's own split, as /analytics/live's.

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer("analytics.expectation", {"alpha": alpha}, {"split": split, "as_of": as_of})

    def residual(
        self,
        alpha: str,
        reference: str | Iterable[str] | None = None,
        book: str = "long_short",
        start: dt.date | str | None = None,
        end: dt.date | str | None = None,
        *,
        as_of: str | None = None,
    ) -> ResidualResponse:
        """What is new in a book against the catalogue: its daily returns regressed on a reference
        set's and SPY's.

        `GET /v1/alphas/{alpha}/analytics/residual` (`analytics.residual`).

        `reference`: The reference set: up to 50 ids the key may read (the alpha itself is left
        out); absent: the default reference set (the approved alphas the key may read, empty when
        none is).

        `book`: Book to serve (see /books); unknown or invisible books are 400 unknown_book.

        `start`: First trading day, inclusive (YYYY-MM-DD); default: the window start.

        `end`: Last trading day, inclusive (YYYY-MM-DD); default: the window end.

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer(
            "analytics.residual",
            {"alpha": alpha},
            {"reference": reference, "book": book, "start": start, "end": end, "as_of": as_of},
        )

    def mmc(
        self,
        alpha: str,
        start: dt.date | str | None = None,
        end: dt.date | str | None = None,
        *,
        as_of: str | None = None,
    ) -> MmcResponse:
        """What the alpha's scores add to the approved alphas' combined scores (meta-model
        contribution).

        `GET /v1/alphas/{alpha}/analytics/mmc` (`analytics.mmc`).

        `start`: First trading day, inclusive (YYYY-MM-DD); default: the window start.

        `end`: Last trading day, inclusive (YYYY-MM-DD); default: the window end.

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer("analytics.mmc", {"alpha": alpha}, {"start": start, "end": end, "as_of": as_of})

    def analytics_doc(self, alpha: str) -> AnalyticsDocResponse:
        """Analytics documentation block.

        `GET /v1/alphas/{alpha}/analytics/_doc` (`analytics.doc`).
        """
        return self._answer("analytics.doc", {"alpha": alpha}, {})

    def screen(
        self,
        search: str | None = None,
        *,
        tag: str | Iterable[str] | None = None,
        structure: str | None = None,
        method: str | None = None,
        family: str | None = None,
        complete_only: bool = False,
        production: bool | None = None,
        standing: str | Iterable[str] | None = None,
        ic_reproduces: bool | None = None,
        max_correlation: float | None = None,
        correlated_to: str | None = None,
        correlation_basis: Literal["returns", "ic"] = "returns",
        sort: Literal[
            "alpha_id",
            "-alpha_id",
            "name",
            "-name",
            "information_ratio",
            "-information_ratio",
            "excess_sharpe",
            "-excess_sharpe",
            "ic",
            "-ic",
            "icir",
            "-icir",
            "max_drawdown_pct",
            "-max_drawdown_pct",
            "turnover",
            "-turnover",
            "sessions",
            "-sessions",
            "live_information_ratio",
            "-live_information_ratio",
            "backtest_information_ratio",
            "-backtest_information_ratio",
            "decay_ratio",
            "-decay_ratio",
            "live_sessions",
            "-live_sessions",
            "residual_information_ratio",
            "-residual_information_ratio",
            "residual_t_statistic",
            "-residual_t_statistic",
            "weeks",
            "-weeks",
            "first_date",
            "-first_date",
            "last_date",
            "-last_date",
            "live_split",
            "-live_split",
        ]
        | None = None,
        as_of: str | None = None,
        min_information_ratio: float | None = None,
        max_information_ratio: float | None = None,
        min_excess_sharpe: float | None = None,
        max_excess_sharpe: float | None = None,
        min_ic: float | None = None,
        max_ic: float | None = None,
        min_icir: float | None = None,
        max_icir: float | None = None,
        min_max_drawdown_pct: float | None = None,
        max_max_drawdown_pct: float | None = None,
        min_turnover: float | None = None,
        max_turnover: float | None = None,
        min_sessions: int | None = None,
        max_sessions: int | None = None,
        min_live_information_ratio: float | None = None,
        max_live_information_ratio: float | None = None,
        min_backtest_information_ratio: float | None = None,
        max_backtest_information_ratio: float | None = None,
        min_decay_ratio: float | None = None,
        max_decay_ratio: float | None = None,
        min_live_sessions: int | None = None,
        max_live_sessions: int | None = None,
        min_residual_information_ratio: float | None = None,
        max_residual_information_ratio: float | None = None,
        min_residual_t_statistic: float | None = None,
        max_residual_t_statistic: float | None = None,
    ) -> Collection[ScreenRow]:
        """Alphas the key may read, filtered and sorted on their headline figures and classification.

        `GET /v1/analytics/screen` (`analytics.screen`).

        `search`: Case-insensitive substring over alpha_id, name and tldr.

        `tag`: Keep alphas carrying every tag listed: comma-separated, or the parameter repeated
        (case-insensitive, whole tags).

        `structure`: Keep alphas of this classification structure (case-insensitive, whole value).

        `method`: Keep alphas of this classification method (case-insensitive, whole value).

        `family`: Keep the members of this trial family (its slug, exactly: the `family` column, as
        `/v1/families` names it); an alpha whose seal names no family is in none.

        `complete_only`: Omit alphas still missing required kinds.

        `production`: true: production alphas only, those standing approved (the `standing` column:
        approved by a recorded decision: alpha-results promote or the approval policy); false: the
        others (never approved, or retired); absent: both.

        `standing`: Keep alphas standing as one of these after the operator's decisions (the
        `standing` column): approved, nominated, retired, never; comma-separated, or the parameter
        repeated. Absent: every alpha.

        `ic_reproduces`: true: alphas whose sealed mean IC the weekly IC rebuilt from their
        cross-sections reproduces; false: those whose does not (the `ic_reproduces` flag); absent:
        both. An alpha with nothing to check (`ic_reproduces` null) passes neither. Needs the
        cross-sections (signals.rebalances.get or signals.scores).

        `max_correlation`: Keep alphas whose absolute Pearson correlation, over the whole history,
        to `correlated_to` (default: the approved alphas the key may read, the alpha itself
        excepted; `meta.reference` says which, and why when there is none) is at most this
        (inclusive); an alpha with no defined correlation to any of them fails it.

        `correlated_to`: The alpha `max_correlation` compares with (absent: the default reference
        set); it is never in the answer.

        `correlation_basis`: The series `max_correlation` correlates: returns (daily long_short) or
        ic (weekly IC).

        `sort`: Sort column, - first for descending; nulls last, ties by alpha_id; default:
        catalogue order.

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.

        `min_information_ratio`: Keep alphas whose information_ratio is at least this (ratio,
        annualised, inclusive); a null information_ratio fails it.

        `max_information_ratio`: Keep alphas whose information_ratio is at most this (ratio,
        annualised, inclusive); a null information_ratio fails it.

        `min_excess_sharpe`: Keep alphas whose excess_sharpe is at least this (ratio, annualised,
        inclusive); a null excess_sharpe fails it.

        `max_excess_sharpe`: Keep alphas whose excess_sharpe is at most this (ratio, annualised,
        inclusive); a null excess_sharpe fails it.

        `min_ic`: Keep alphas whose ic is at least this (ratio, inclusive); a null ic fails it.

        `max_ic`: Keep alphas whose ic is at most this (ratio, inclusive); a null ic fails it.

        `min_icir`: Keep alphas whose icir is at least this (ratio, annualised, inclusive); a null
        icir fails it.

        `max_icir`: Keep alphas whose icir is at most this (ratio, annualised, inclusive); a null
        icir fails it.

        `min_max_drawdown_pct`: Keep alphas whose max_drawdown_pct is at least this
        (percentage_points, inclusive); a null max_drawdown_pct fails it.

        `max_max_drawdown_pct`: Keep alphas whose max_drawdown_pct is at most this
        (percentage_points, inclusive); a null max_drawdown_pct fails it.

        `min_turnover`: Keep alphas whose turnover is at least this (see unit on the entry,
        inclusive); a null turnover fails it.

        `max_turnover`: Keep alphas whose turnover is at most this (see unit on the entry,
        inclusive); a null turnover fails it.

        `min_sessions`: Keep alphas whose sessions is at least this (sessions, inclusive); a null
        sessions fails it.

        `max_sessions`: Keep alphas whose sessions is at most this (sessions, inclusive); a null
        sessions fails it.

        `min_live_information_ratio`: Keep alphas whose live_information_ratio is at least this
        (ratio, annualised, inclusive); a null live_information_ratio fails it.

        `max_live_information_ratio`: Keep alphas whose live_information_ratio is at most this
        (ratio, annualised, inclusive); a null live_information_ratio fails it.

        `min_backtest_information_ratio`: Keep alphas whose backtest_information_ratio is at least
        this (ratio, annualised, inclusive); a null backtest_information_ratio fails it.

        `max_backtest_information_ratio`: Keep alphas whose backtest_information_ratio is at most
        this (ratio, annualised, inclusive); a null backtest_information_ratio fails it.

        `min_decay_ratio`: Keep alphas whose decay_ratio is at least this (ratio, inclusive); a null
        decay_ratio fails it.

        `max_decay_ratio`: Keep alphas whose decay_ratio is at most this (ratio, inclusive); a null
        decay_ratio fails it.

        `min_live_sessions`: Keep alphas whose live_sessions is at least this (trading sessions,
        inclusive); a null live_sessions fails it.

        `max_live_sessions`: Keep alphas whose live_sessions is at most this (trading sessions,
        inclusive); a null live_sessions fails it.

        `min_residual_information_ratio`: Keep alphas whose residual_information_ratio is at least
        this (ratio, annualised, inclusive); a null residual_information_ratio fails it.

        `max_residual_information_ratio`: Keep alphas whose residual_information_ratio is at most
        this (ratio, annualised, inclusive); a null residual_information_ratio fails it.

        `min_residual_t_statistic`: Keep alphas whose residual_t_statistic is at least this
        (t-statistic, inclusive); a null residual_t_statistic fails it.

        `max_residual_t_statistic`: Keep alphas whose residual_t_statistic is at most this
        (t-statistic, inclusive); a null residual_t_statistic fails it.
        """
        return self._answer(
            "analytics.screen",
            {},
            {
                "search": search,
                "tag": tag,
                "structure": structure,
                "method": method,
                "family": family,
                "complete_only": complete_only,
                "production": production,
                "standing": standing,
                "ic_reproduces": ic_reproduces,
                "max_correlation": max_correlation,
                "correlated_to": correlated_to,
                "correlation_basis": correlation_basis,
                "sort": sort,
                "as_of": as_of,
                "min_information_ratio": min_information_ratio,
                "max_information_ratio": max_information_ratio,
                "min_excess_sharpe": min_excess_sharpe,
                "max_excess_sharpe": max_excess_sharpe,
                "min_ic": min_ic,
                "max_ic": max_ic,
                "min_icir": min_icir,
                "max_icir": max_icir,
                "min_max_drawdown_pct": min_max_drawdown_pct,
                "max_max_drawdown_pct": max_max_drawdown_pct,
                "min_turnover": min_turnover,
                "max_turnover": max_turnover,
                "min_sessions": min_sessions,
                "max_sessions": max_sessions,
                "min_live_information_ratio": min_live_information_ratio,
                "max_live_information_ratio": max_live_information_ratio,
                "min_backtest_information_ratio": min_backtest_information_ratio,
                "max_backtest_information_ratio": max_backtest_information_ratio,
                "min_decay_ratio": min_decay_ratio,
                "max_decay_ratio": max_decay_ratio,
                "min_live_sessions": min_live_sessions,
                "max_live_sessions": max_live_sessions,
                "min_residual_information_ratio": min_residual_information_ratio,
                "max_residual_information_ratio": max_residual_information_ratio,
                "min_residual_t_statistic": min_residual_t_statistic,
                "max_residual_t_statistic": max_residual_t_statistic,
            },
        )

    def combine(
        self,
        alphas: str | Iterable[str],
        book: Literal["long_short"] = "long_short",
        start: dt.date | str | None = None,
        end: dt.date | str | None = None,
        *,
        weighting: Literal["equal", "given", "inverse_volatility", "max_ir"] = "equal",
        weights: str | Iterable[float] | None = None,
        shrinkage: float | None = None,
        fit_to: dt.date | str | None = None,
        as_of: str | None = None,
    ) -> Collection[CombinedRow]:
        """A weighted combination of alphas: its daily series, figures, weights and correlations.

        `GET /v1/analytics/combine` (`analytics.combine`).

        `alphas`: The alphas to combine: 2 to 50 ids, comma-separated or the parameter repeated,
        each one the key may read; no id twice.

        `book`: The book of each alpha combined. The catalogue index holds every alpha's long_short
        daily returns, so only long_short can be combined.

        `start`: First trading day, inclusive (YYYY-MM-DD); default: the window start.

        `end`: Last trading day, inclusive (YYYY-MM-DD); default: the window end.

        `weighting`: How the weights are chosen (docs/analytics.md).

        `weights`: With weighting=given: one weight per alpha, in the order of `alphas`,
        comma-separated decimals (fractions of the book's capital, used as given), each in [-10, 10]
        and not all zero (sum |w| > 0). Weights under which the combined book loses all its equity
        on a session (a daily return <= -100%) are refused.

        `shrinkage`: With weighting=max_ir: the weight of the diagonal target in the shrunk
        covariance; absent: the Ledoit-Wolf estimate.

        `fit_to`: With weighting=inverse_volatility or max_ir: fit the weights on the set's common
        sessions of the window up to and including this date (YYYY-MM-DD), and judge them (rows,
        figures, correlations) on those after it; each side needs at least 20 sessions, and it must
        lie in the window (on or after `from`, before `to`). Absent: the weights are fitted on the
        sessions they are judged on (in-sample, warned as `in_sample_weights`).

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer(
            "analytics.combine",
            {},
            {
                "alphas": alphas,
                "book": book,
                "start": start,
                "end": end,
                "weighting": weighting,
                "weights": weights,
                "shrinkage": shrinkage,
                "fit_to": fit_to,
                "as_of": as_of,
            },
        )

    def contribution(
        self,
        alpha: str,
        reference: str | Iterable[str] | None = None,
        start: dt.date | str | None = None,
        end: dt.date | str | None = None,
        *,
        weighting: Literal["equal", "given", "inverse_volatility", "max_ir"] | None = None,
        weights: str | Iterable[float] | None = None,
        shrinkage: float | None = None,
        fit_to: dt.date | str | None = None,
        weight: float | None = None,
        as_of: str | None = None,
    ) -> ContributionResponse:
        """What adding the alpha does to a reference set's figures.

        `GET /v1/alphas/{alpha}/analytics/contribution` (`analytics.contribution`).

        `reference`: The reference set: up to 50 ids the key may read (the alpha itself is left out;
        with weighting=given its entry of `weights` is its weight after, the others' book before
        theirs over 1 - w); absent: every approved alpha the key may read (a 400 when none is).

        `start`: First trading day, inclusive (YYYY-MM-DD); default: the window start.

        `end`: Last trading day, inclusive (YYYY-MM-DD); default: the window end.

        `weighting`: How the reference set is weighted, as /analytics/combine weights its `alphas`
        (needs `reference`): `before` is then that combination, at its weights. Absent: the equally
        weighted book as it grew (docs/analytics.md).

        `weights`: With weighting=given: one weight per alpha of `reference`, in its order, as
        /analytics/combine's `weights` (comma-separated decimals, fractions of the book's capital
        used as given, each in [-10, 10], not all zero; a book that loses all its equity on a
        session is refused).

        `shrinkage`: With weighting=max_ir: the weight of the diagonal target in the shrunk
        covariance; absent: the Ledoit-Wolf estimate.

        `fit_to`: With weighting=inverse_volatility or max_ir: fit the weights on the set's common
        sessions of the window up to and including this date (YYYY-MM-DD), and judge them (rows,
        figures, correlations) on those after it; each side needs at least 20 sessions, and it must
        lie in the window (on or after `from`, before `to`). Absent: the weights are fitted on the
        sessions they are judged on (in-sample, warned as `in_sample_weights`).

        `weight`: The alpha's weight in the book after (the set keeps the rest, equally weighted);
        absent: the weight that maximises the information ratio after, or with weighting=given and
        `reference` naming the alpha its entry of `weights` (then not with it).

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer(
            "analytics.contribution",
            {"alpha": alpha},
            {
                "reference": reference,
                "start": start,
                "end": end,
                "weighting": weighting,
                "weights": weights,
                "shrinkage": shrinkage,
                "fit_to": fit_to,
                "weight": weight,
                "as_of": as_of,
            },
        )

    def crowding(
        self,
        start: dt.date | str | None = None,
        end: dt.date | str | None = None,
        *,
        as_of: str | None = None,
    ) -> CrowdingResponse:
        """How alike the approved books are: name and weight overlap, shared factor loadings.

        `GET /v1/analytics/crowding` (`analytics.crowding`).

        `start`: First trading day, inclusive (YYYY-MM-DD); default: the window start.

        `end`: Last trading day, inclusive (YYYY-MM-DD); default: the window end.

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer("analytics.crowding", {}, {"start": start, "end": end, "as_of": as_of})

    def approved_health(
        self, book: str = "long_short", *, as_of: str | None = None
    ) -> ApprovedHealthResponse:
        """Is every approved alpha still working? Live track against expectation, CUSUM, false
        discovery.

        `GET /v1/analytics/approved_health` (`analytics.approved_health`).

        `book`: Book to serve (see /books); unknown or invisible books are 400 unknown_book.

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer("analytics.approved_health", {}, {"book": book, "as_of": as_of})

    def checks(
        self,
        alpha: str,
        book: str = "long_short",
        start: dt.date | str | None = None,
        end: dt.date | str | None = None,
        *,
        as_of: str | None = None,
        min_information_ratio: float | None = None,
        min_deflated_sharpe: float | None = None,
        min_turnover: float | None = None,
        max_turnover: float | None = None,
        max_weight: float | None = None,
        min_recent_information_ratio: float | None = None,
        min_yearly_consistency: float | None = None,
        min_stressed_net_information_ratio: float | None = None,
        max_production_correlation: float | None = None,
        min_residual_information_ratio: float | None = None,
        min_ic_t_statistic: float | None = None,
        min_fragility: float | None = None,
        min_live_information_ratio: float | None = None,
        min_decay_ratio: float | None = None,
        min_information_ratio_lower_bound: float | None = None,
        min_sharpe_t_statistic: float | None = None,
        max_pbo: float | None = None,
        min_sub_universe: float | None = None,
    ) -> ChecksResponse:
        """Pass/fail checks of a book against the operator's policy.

        `GET /v1/alphas/{alpha}/analytics/checks` (`analytics.checks`).

        `book`: Book to serve (see /books); unknown or invisible books are 400 unknown_book.

        `start`: First trading day, inclusive (YYYY-MM-DD); default: the window start.

        `end`: Last trading day, inclusive (YYYY-MM-DD); default: the window end.

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.

        `min_information_ratio`: Tighten the `information_ratio` check: pass only at least this
        (ratio); it may not be looser than the operator's policy (400).

        `min_deflated_sharpe`: Tighten the `deflated_sharpe` check: pass only at least this
        (probability); it may not be looser than the operator's policy (400).

        `min_turnover`: Tighten the `turnover` check: pass only at least this (per year); it may not
        be looser than the operator's policy (400).

        `max_turnover`: Tighten the `turnover` check: pass only at most this (per year); it may not
        be looser than the operator's policy (400).

        `max_weight`: Tighten the `max_weight` check: pass only at most this (fraction); it may not
        be looser than the operator's policy (400).

        `min_recent_information_ratio`: Tighten the `recent_information_ratio` check: pass only at
        least this (ratio); it may not be looser than the operator's policy (400).

        `min_yearly_consistency`: Tighten the `yearly_consistency` check: pass only at least this
        (fraction); it may not be looser than the operator's policy (400).

        `min_stressed_net_information_ratio`: Tighten the `stressed_net_information_ratio` check:
        pass only at least this (ratio); it may not be looser than the operator's policy (400).

        `max_production_correlation`: Tighten the `production_correlation` check: pass only at most
        this (correlation); it may not be looser than the operator's policy (400).

        `min_residual_information_ratio`: Tighten the `residual_information_ratio` check: pass only
        at least this (ratio); it may not be looser than the operator's policy (400).

        `min_ic_t_statistic`: Tighten the `ic_t_statistic` check: pass only at least this (t
        statistic); it may not be looser than the operator's policy (400).

        `min_fragility`: Tighten the `fragility` check: pass only at least this (ratio); it may not
        be looser than the operator's policy (400).

        `min_live_information_ratio`: Tighten the `live_information_ratio` check: pass only at least
        this (ratio); it may not be looser than the operator's policy (400).

        `min_decay_ratio`: Tighten the `decay_ratio` check: pass only at least this (ratio); it may
        not be looser than the operator's policy (400).

        `min_information_ratio_lower_bound`: Bound the optional `information_ratio_lower_bound`
        check (off unless the operator's policy bounds it): pass only at least this (ratio); it may
        not be looser than the operator's policy (400).

        `min_sharpe_t_statistic`: Bound the optional `sharpe_t_statistic` check (off unless the
        operator's policy bounds it): pass only at least this (t statistic); it may not be looser
        than the operator's policy (400).

        `max_pbo`: Tighten the `pbo` check: pass only at most this (probability); it may not be
        looser than the operator's policy (400).

        `min_sub_universe`: Bound the optional `sub_universe` check (off unless the operator's
        policy bounds it): pass only at least this (ratio); it may not be looser than the operator's
        policy (400).
        """
        return self._answer(
            "analytics.checks",
            {"alpha": alpha},
            {
                "book": book,
                "start": start,
                "end": end,
                "as_of": as_of,
                "min_information_ratio": min_information_ratio,
                "min_deflated_sharpe": min_deflated_sharpe,
                "min_turnover": min_turnover,
                "max_turnover": max_turnover,
                "max_weight": max_weight,
                "min_recent_information_ratio": min_recent_information_ratio,
                "min_yearly_consistency": min_yearly_consistency,
                "min_stressed_net_information_ratio": min_stressed_net_information_ratio,
                "max_production_correlation": max_production_correlation,
                "min_residual_information_ratio": min_residual_information_ratio,
                "min_ic_t_statistic": min_ic_t_statistic,
                "min_fragility": min_fragility,
                "min_live_information_ratio": min_live_information_ratio,
                "min_decay_ratio": min_decay_ratio,
                "min_information_ratio_lower_bound": min_information_ratio_lower_bound,
                "min_sharpe_t_statistic": min_sharpe_t_statistic,
                "max_pbo": max_pbo,
                "min_sub_universe": min_sub_universe,
            },
        )

    def promotion_preview(
        self, alpha: str, effective: dt.date | str | None = None
    ) -> PromotionPreviewResponse:
        """What approving (or retiring) the alpha would record and change, read-only.

        `GET /v1/alphas/{alpha}/analytics/promotion_preview` (`analytics.promotion_preview`).

        `effective`: The date the decision would take effect (YYYY-MM-DD): the checks are measured
        up to it. Absent: today (a decision is dated when it is recorded); an earlier day previews
        an import of a decision taken elsewhere (alpha-results promote --import), a later one is
        refused.
        """
        return self._answer("analytics.promotion_preview", {"alpha": alpha}, {"effective": effective})

    def compare(
        self,
        alpha: str,
        other: str,
        book: str = "long_short",
        start: dt.date | str | None = None,
        end: dt.date | str | None = None,
        *,
        window: Literal["21", "63", "126", "252", 21, 63, 126, 252] = "63",
        as_of: str | None = None,
    ) -> ComparisonResponse:
        """Two alphas side by side: curves, rolling correlations and the significance of differences.

        `GET /v1/alphas/{alpha}/analytics/compare` (`analytics.compare`).

        `other`: The alpha to compare with (one the key may read, not this one).

        `book`: Book to serve (see /books); unknown or invisible books are 400 unknown_book.

        `start`: First trading day, inclusive (YYYY-MM-DD); default: the window start.

        `end`: Last trading day, inclusive (YYYY-MM-DD); default: the window end.

        `window`: Trailing sessions of the rolling return correlation (the weekly IC's is the same
        span in weeks: 21 -> 4, 63 -> 13, 126 -> 26, 252 -> 52).

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer(
            "analytics.compare",
            {"alpha": alpha},
            {"other": other, "book": book, "start": start, "end": end, "window": window, "as_of": as_of},
        )

    def benchmark(
        self,
        symbol: Literal["SPY"],
        start: dt.date | str | None = None,
        end: dt.date | str | None = None,
        *,
        as_of: str | None = None,
    ) -> Series[BenchmarkRow, BenchmarkSummary]:
        """Daily benchmark series.

        `GET /v1/benchmarks/{symbol}/daily` (`benchmarks.daily`).

        `symbol`: A served benchmark.

        `start`: First trading day, inclusive (YYYY-MM-DD); default: the window start.

        `end`: Last trading day, inclusive (YYYY-MM-DD); default: the window end.

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer(
            "benchmarks.daily", {"symbol": symbol}, {"start": start, "end": end, "as_of": as_of}
        )

    def source_download(self, alpha: str) -> SourceDownloadResponse:
        """Signed download URL of the alpha's source archive.

        `GET /v1/alphas/{alpha}/source/download` (`catalog.alphas.source.download`).
        """
        return self._answer("catalog.alphas.source.download", {"alpha": alpha}, {})

    def exports(self, alpha: str, *, as_of: str | None = None) -> Collection[ExportRow]:
        """Parquet exports of the alpha's datasets.

        `GET /v1/alphas/{alpha}/exports` (`exports.list`).

        `as_of`: Answer as of this moment (RFC 3339 with its offset, e.g.
        2026-11-27T16:00:00.123456Z; a real calendar date and time, ASCII digits, offset within
        +-18:00): the catalogue generation and builds the API served then and the decisions recorded
        by then, so an answer seen then (a decision's snapshot: its read.at) is given again. Absent:
        now. 410 as_of_gone past the history the lake keeps (ALPHA_RESULTS_BUILD_HISTORY_DAYS)
        unless a decision pinned it.
        """
        return self._answer("exports.list", {"alpha": alpha}, {"as_of": as_of})

    def export(self, alpha: str, dataset: str, book: str | None = None) -> ExportDownloadResponse:
        """Signed download URL of one dataset as a Parquet file.

        `GET /v1/alphas/{alpha}/exports/{dataset}` (`exports.download`).

        `book`: Book of a book dataset (portfolio, positions, pnl, trades, equity-curve; see
        /books): default long_short, required for trades; not accepted by the other datasets.
        """
        return self._answer("exports.download", {"alpha": alpha, "dataset": dataset}, {"book": book})

    def admin_readiness(self, alpha: str) -> ReadinessResponse:
        """Readiness of one alpha.

        `GET /v1/admin/alphas/{alpha}/readiness` (`admin.alphas.readiness`).
        """
        return self._answer("admin.alphas.readiness", {"alpha": alpha}, {})

    def admin_key_usage(self, key_id: str) -> KeyUsageResponse:
        """Usage of one key.

        `GET /v1/admin/keys/{key_id}/usage` (`admin.keys.usage`).
        """
        return self._answer("admin.keys.usage", {"key_id": key_id}, {})

    def admin_builds(self) -> Collection[BuildRow]:
        """Catalogue of published builds.

        `GET /v1/admin/builds` (`admin.builds.list`).
        """
        return self._answer("admin.builds.list", {}, {})

    def events(
        self,
        *,
        after: str | None = None,
        order: Literal["oldest", "newest"] = "oldest",
        type: str | Iterable[str] | None = None,
        alpha: str | Iterable[str] | None = None,
    ) -> Collection[Event]:
        """Events after a cursor, oldest first (order=newest: newest first).

        `GET /v1/events` (`events.list`).

        `after`: Resume after this event, in the page's order: a cursor the service wrote (an
        event's `id`, or `meta.next_cursor` of a page). Absent: from the oldest event kept
        (order=newest: from the newest). A cursor older than the retention resumes at the oldest
        event kept.

        `order`: oldest: oldest first, each page after the last (the feed's order: new events come
        after); newest: newest first, each page older than the last (an activity list, most recent
        on top).

        `type`: Only events of these types: comma-separated or the parameter repeated, each one of
        alpha.published, alpha.republished, alpha.checks_changed, alpha.approved, alpha.retired,
        alpha.nominated, alpha.restated, alpha.decay, alpha.alarm, alpha.health, build.refused,
        webhook.disabled. Absent: every type.

        `alpha`: Only events about these alphas: comma-separated or the parameter repeated. An alpha
        the key may not read gives no event, exactly as one that does not exist. Absent: every alpha
        the key may read (and the events about no alpha it may see).
        """
        return self._answer("events.list", {}, {"after": after, "order": order, "type": type, "alpha": alpha})

    def stream_events(
        self,
        *,
        after: str | None = None,
        type: str | Iterable[str] | None = None,
        alpha: str | Iterable[str] | None = None,
    ) -> Iterator[StreamedEvent]:
        """Events as they are recorded (Server-Sent Events).

        `GET /v1/events/stream` (`events.stream`).

        `after`: Start after this event (a cursor, as on /v1/events); the `Last-Event-ID` header
        wins over it. Neither: only events recorded from now on.

        `type`: Only events of these types: comma-separated or the parameter repeated, each one of
        alpha.published, alpha.republished, alpha.checks_changed, alpha.approved, alpha.retired,
        alpha.nominated, alpha.restated, alpha.decay, alpha.alarm, alpha.health, build.refused,
        webhook.disabled. Absent: every type.

        `alpha`: Only events about these alphas: comma-separated or the parameter repeated. An alpha
        the key may not read gives no event, exactly as one that does not exist. Absent: every alpha
        the key may read (and the events about no alpha it may see).
        """
        return self._answer("events.stream", {}, {"after": after, "type": type, "alpha": alpha})


__all__ = [
    "AccountInactiveError",
    "AccountUsage",
    "Allow",
    "AllowList",
    "AlphaDescription",
    "AlphaDescriptionNotFoundError",
    "AlphaDescriptionResponse",
    "AlphaHealth",
    "AlphaListRow",
    "AlphaListRowPage",
    "AlphaNotAllowedError",
    "AlphaNotFoundError",
    "AnalyticsDoc",
    "AnalyticsDocResponse",
    "AnalyticsFieldDoc",
    "AnalyticsNotBuiltError",
    "AnalyticsStat",
    "AnnualisationFactors",
    "ApprovedHealth",
    "ApprovedHealthResponse",
    "ApprovedSet",
    "AsOfBudgetExceededError",
    "AsOfGoneError",
    "Attribution",
    "AttributionResponse",
    "AutocorrelationPoint",
    "BadRequestError",
    "BenchmarkEcho",
    "BenchmarkNotConfiguredError",
    "BenchmarkRow",
    "BenchmarkRowMeta",
    "BenchmarkRowPage",
    "BenchmarkSummary",
    "BenchmarkUnavailableError",
    "BestDay",
    "BetaPoint",
    "BookFigures",
    "BookReturns",
    "BookReturnsResponse",
    "BookRow",
    "BookRowPage",
    "Bootstrap",
    "Bound",
    "BuildRow",
    "BuildRowPage",
    "ByLeg",
    "ByName",
    "BySector",
    "Capacity",
    "CapacityParticipation",
    "CapacityPoint",
    "CapacityResponse",
    "CatalogueBound",
    "CatalogueBoundResponse",
    "CheckChange",
    "CheckResult",
    "CheckSeen",
    "Checks",
    "ChecksResponse",
    "ChecksSummary",
    "Classification",
    "CombinationFit",
    "CombinationShrinkage",
    "CombinationWeight",
    "CombinedRow",
    "CombinedRowMeta",
    "CombinedRowPage",
    "CompareEquityRow",
    "ComparedFigure",
    "ComparedFigures",
    "Comparison",
    "ComparisonMeta",
    "ComparisonResponse",
    "Concentration",
    "ConeWeek",
    "Contribution",
    "ContributionAbsent",
    "ContributionCombination",
    "ContributionReference",
    "ContributionResponse",
    "ContributionWeight",
    "CoreStats",
    "CorrelationMatrix",
    "CorrelationRow",
    "CorrelationRowMeta",
    "CorrelationRowPage",
    "CostAtCapital",
    "CostLevel",
    "Costs",
    "CostsResponse",
    "Crowding",
    "CrowdingResponse",
    "CusumChart",
    "CusumWeek",
    "DailyNeweyWest",
    "DataField",
    "DataRequirements",
    "Decay",
    "DecayPoint",
    "DecayResponse",
    "DecileBucket",
    "Decision",
    "DecisionRead",
    "DecisionRow",
    "DecisionRowMeta",
    "DecisionRowPage",
    "DepthOdds",
    "DifferenceTest",
    "DownloadUrlExpiredError",
    "DownloadUrlInvalidError",
    "DrawdownOdds",
    "DrawdownOddsResponse",
    "DrawdownRow",
    "DrawdownRowPage",
    "DsrTrials",
    "EgressBudgetExceededError",
    "EndpointNotAllowedError",
    "EquityRow",
    "EquityRowMeta",
    "EquityRowPage",
    "EquitySummary",
    "ErrorBody",
    "ErrorEnvelope",
    "Event",
    "EventMeta",
    "EventPage",
    "Expectation",
    "ExpectationResponse",
    "ExpectedSeries",
    "ExpectedWeek",
    "ExportDownload",
    "ExportDownloadNotConfiguredError",
    "ExportDownloadResponse",
    "ExportDownloadUnavailableError",
    "ExportNotFoundError",
    "ExportRow",
    "ExportRowPage",
    "ExportsNotBuiltError",
    "FactorFigures",
    "FactorRunningSums",
    "FactorWeek",
    "FactorWeekExposure",
    "Factors",
    "FactorsResponse",
    "FalseDiscoveryPrior",
    "FalsificationCriterion",
    "FamilyMember",
    "FamilyMemberRow",
    "FamilyMemberRowPage",
    "FamilyTestMember",
    "FamilyTests",
    "FamilyTestsResponse",
    "FieldPolicy",
    "Fragility",
    "HaircutMethod",
    "Health",
    "HealthLake",
    "HealthSignal",
    "IcBySector",
    "IcDecay",
    "IcDeciles",
    "InformationRatioSides",
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
    "LargestFill",
    "LargestWeight",
    "LedgerRow",
    "LedgerRowPage",
    "LegPart",
    "Live",
    "LiveConsistency",
    "LiveHaircut",
    "LivePart",
    "LiveResponse",
    "LiveWeek",
    "LogitBin",
    "MalformedApiKeyError",
    "Me",
    "MeMeta",
    "MeResponse",
    "Meta",
    "MethodNotAllowedError",
    "Metrics",
    "MetricsDoc",
    "MetricsDocResponse",
    "MetricsFieldDoc",
    "MetricsResponse",
    "MissingApiKeyError",
    "Mmc",
    "MmcResponse",
    "MmcWeek",
    "Monitoring",
    "MonitoringResponse",
    "Monotonicity",
    "MonthIc",
    "MonthOfYearIc",
    "MonthReturn",
    "MultipleTesting",
    "NameAttribution",
    "NeutralIc",
    "NeutralIcWeek",
    "NeweyWest",
    "NeweyWestTests",
    "Nomination",
    "NotAcceptableError",
    "NotFoundError",
    "OtherAlpha",
    "Overfitting",
    "OverfittingResponse",
    "OverlapWeek",
    "Pagination",
    "Panel",
    "PanelSignals",
    "Parameter",
    "ParameterStability",
    "Period",
    "PnlRow",
    "PnlRowPage",
    "Policy",
    "PolicySeen",
    "PolicyThresholds",
    "PositionRow",
    "PositionRowPage",
    "PromotionPreview",
    "PromotionPreviewResponse",
    "Promotions",
    "PromotionsResponse",
    "QuantileBucket",
    "QuantileSpread",
    "Quantiles",
    "QuantilesResponse",
    "QuotaExceededError",
    "RandomHalves",
    "RankIc",
    "RankIcConditioned",
    "RankIcRaw",
    "RateLimit",
    "RateLimitDayError",
    "RateLimitMinuteError",
    "RateLimitSecondError",
    "Readiness",
    "ReadinessResponse",
    "RebalanceIndexRow",
    "RebalanceIndexRowPage",
    "RebalanceNotFoundError",
    "RegimeRow",
    "Regimes",
    "RegimesResponse",
    "RequestBodyTimeoutError",
    "RequestHeadTimeoutError",
    "RequestHeadTooLargeError",
    "RequestTargetTooLongError",
    "Residual",
    "ResidualBenchmark",
    "ResidualBeta",
    "ResidualDrop",
    "ResidualDropped",
    "ResidualReference",
    "ResidualResponse",
    "ResponseWarning",
    "RestatementRow",
    "RestatementRowPage",
    "ReviewEntry",
    "ReviewQueue",
    "ReviewQueueResponse",
    "Risk",
    "RiskBenchmark",
    "RiskResponse",
    "RollingCorrelationRow",
    "RollingRow",
    "RollingRowMeta",
    "RollingRowPage",
    "RollingWindow",
    "RunNotAllowedError",
    "RunNotFoundError",
    "ScoreRow",
    "ScoreRowMeta",
    "ScoreRowPage",
    "ScreenRow",
    "ScreenRowMeta",
    "ScreenRowPage",
    "SectorIc",
    "SectorPart",
    "SharedFactor",
    "SharpeHaircut",
    "Signal",
    "SignalProcessing",
    "Significance",
    "SignificanceResponse",
    "Snapshot",
    "SourceArchiveState",
    "SourceDownload",
    "SourceDownloadNotConfiguredError",
    "SourceDownloadResponse",
    "SourceDownloadUnavailableError",
    "SourceNotReadyError",
    "SourceObjectMissingError",
    "SourcePaper",
    "Stat",
    "StreamedEvent",
    "SubUniverse",
    "SubUniverseHalf",
    "SubUniverseResponse",
    "TableSize",
    "Tenure",
    "TermPoint",
    "Thesis",
    "TooManyConnectionsError",
    "TooManyRequestBodiesError",
    "TooManyStreamsError",
    "Totals",
    "TradeRow",
    "TradeRowPage",
    "TrailingBeta",
    "TurnoverBucket",
    "TurnoverByDecile",
    "Uncertainty",
    "UncertaintyResponse",
    "UnknownBookError",
    "UpstreamUnavailableError",
    "Usage",
    "WeeklyCoverage",
    "WeeklyIc",
    "WeeklySpread",
    "Window",
    "YearReturn",
]
