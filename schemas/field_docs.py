"""What the response fields no Struct declares mean: one table, from the API specification's field
tables (`data`, `pagination`, the identity, error, health, administration and download objects).

Each entry gives a field's meaning (one sentence, in the specification's words where it has them),
its unit, when and why it is `null`, and when the key is left out of the object (no field here is
raw-only: those are row fields). serve/openapi/annotations.py attaches these to the response
properties of the OpenAPI document, and docs/reference.md shows them.

Keys: a field name alone where the name means the same wherever it is served; `(context, field)`
where the same name means different things in different places. A context names the object the
field is a property of:
- a registry id for the top level of that endpoint's 200 body (`data`, `meta`, `pagination`);
- `DATA_CONTEXTS[endpoint]` for the endpoint's `data` object, or each row of its `data` array;
- `COMPONENT_CONTEXTS[name]` for a shared schema under `components.schemas`;
- `NESTED_CONTEXTS[property]` for any other nested object.
The collection rows, `meta.summary` (`schemas.bodies.rows`), the keys of `meta` and the objects it
holds (`schemas.bodies.envelope`) are not here: their Structs declare each field's meaning.
`field_doc(context, name)` looks a field up: the `(context, name)` entry, else the `name` entry.

tests/api/test_field_docs.py fails when a property of the served document has no entry, or an
entry names a field nothing serves.
"""

from __future__ import annotations

from dataclasses import dataclass

from schemas.units import (
    BYTES,
    DATE,
    REQUESTS,
    ROWS,
    SECONDS,
    TIMESTAMP,
)


@dataclass(frozen=True)
class FieldDoc:
    meaning: str
    unit: str | None = None
    null: str | None = None
    """When and why the value is `null`; None: the specification never serves it as null."""
    absent: str | None = None
    """When the key is left out of its object; None: always present (raw-only fields aside)."""


# -- where each context applies --------------------------------------------------------------------

DATA_CONTEXTS: dict[str, str] = {
    "meta.health": "health",
    "meta.me": "me",
    "meta.keys": "key_inventory_row",
    "catalog.alphas.get": "alpha_description",
    "catalog.alphas.source.download": "source_download",
    "performance.metrics": "metrics",
    "performance.metrics.doc": "metrics_doc",
    "exports.list": "export_row",
    "exports.download": "export_download",
    "admin.alphas.readiness": "readiness",
    "admin.keys.usage": "key_usage",
    "admin.builds.list": "build_row",
    "analytics.significance": "significance",
    "analytics.costs": "costs",
    "analytics.contribution": "contribution",
    "analytics.doc": "analytics_doc",
}
"""The context of each endpoint's `data`: the object of a single-object endpoint, each row of a
collection."""

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
and those they hold; the bodies of `schemas.bodies.DOCUMENTED` are documented by their documentation
blocks instead)."""

NESTED_CONTEXTS: dict[str, str] = {
    "pagination": "pagination",
}
"""The context of a nested object, by the name of the property holding it (besides `data`, whose
context depends on the endpoint)."""

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
        "Identifies the endpoint-registry version; changes when an endpoint's id, group, path or admin flag changes."
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


def field_doc(context: str, name: str) -> FieldDoc | None:
    """The entry of field `name` in `context`: the `(context, name)` entry, else the `name` entry."""
    return FIELD_DOCS.get((context, name)) or FIELD_DOCS.get(name)
