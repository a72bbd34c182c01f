"""The operator routes' bodies (serve/routes/admin.py): an alpha's readiness, a key's usage, and a
row of the builds catalogue. Their timestamps are `utc_seconds` text without a declared format,
as the document has always said."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from msgspec import UNSET, UnsetType

from schemas import units
from schemas.bodies.base import Body
from schemas.bodies.formats import SEAL_TEXT, TEXT, doc
from schemas.bodies.identity import (
    ACCOUNT_USAGE,
    EXPIRES_AT,
    KEY_ID,
    KEY_NAME,
    RATE_LIMIT,
    USAGE,
    USER_ID,
    AccountUsage,
    RateLimit,
    Usage,
)

PIPELINE_VERSION = doc(
    "Version of the pipeline that built the build.", null="Null when not recorded (always for benchmarks)."
)
BUILT_AT = doc(
    "When the build was published.",
    unit=units.TIMESTAMP,
    null="Null when not recorded (always for benchmarks).",
)
SEALED_AT = doc(
    "When the run sealed.", unit=units.TIMESTAMP, null="Null when not recorded (always for benchmarks)."
)
"""The meanings of the fields `Readiness` and `BuildRow` share."""


class SourceArchiveState(Body, kw_only=True, frozen=True):
    """`source_archive` of a readiness: the run's source archive record."""

    status: Annotated[str | None, doc("The archive record's status, as the run recorded it.")]
    delivered: Annotated[bool, doc("Whether the archive was delivered to the lake.")]


class TableSize(Body, kw_only=True, frozen=True):
    """A published table's size, in `tables` of a readiness."""

    rows: Annotated[int, doc("Rows of the build in the table.", unit=units.ROWS)]
    bytes: Annotated[
        int,
        doc("Bytes of the build's data files in the open table, at the build's version.", unit=units.BYTES),
    ]


class Readiness(Body, kw_only=True, frozen=True):
    """`GET /v1/admin/alphas/{alpha}/readiness` `data`: what the served build of one alpha holds."""

    alpha_id: Annotated[str, doc("The alpha.")]
    complete: Annotated[bool, doc("Every required kind is present.")]
    kinds_present: Annotated[list[str], doc("Kinds the run sealed.")]
    required_kinds: Annotated[list[str], doc("Kinds the run requires.")]
    missing_kinds: Annotated[list[str], doc("Required kinds not sealed.")]
    build_id: Annotated[str, doc("The alpha's served build.")]
    pipeline_version: Annotated[str | None, PIPELINE_VERSION]
    engine_version: Annotated[
        str | None,
        SEAL_TEXT,
        doc("Version of the engine that produced the seal.", null="Null when not recorded."),
    ]
    built_at: Annotated[str | None, BUILT_AT]
    sealed_at: Annotated[str | None, SEALED_AT]
    started_at: Annotated[
        str | None, doc("When the run started.", unit=units.TIMESTAMP, null="Null when not recorded.")
    ]
    has_description: Annotated[bool, doc("Whether a written description was sealed.")]
    source_archive: Annotated[
        SourceArchiveState | None,
        doc("`{status, delivered}` of the source archive record.", null="Null when none was recorded."),
    ]
    tables: Annotated[
        dict[str, TableSize], doc("Per open table the build has rows in: `{rows, bytes}`, by table name.")
    ]


class KeyUsage(Body, kw_only=True, frozen=True):
    """`GET /v1/admin/keys/{key_id}/usage` `data`: any key's envelope and live usage."""

    key_id: Annotated[str, KEY_ID]
    user_id: Annotated[str, USER_ID]
    name: Annotated[str, KEY_NAME]
    status: Annotated[str, doc("Key status: `active` or `suspended` (see `revoked` and `expires_at`).")]
    revoked: Annotated[bool, doc("Whether the key was revoked.")]
    expires_at: Annotated[str | None, EXPIRES_AT]
    rate_limit: Annotated[RateLimit, RATE_LIMIT]
    usage: Annotated[Usage, USAGE]
    account_usage: Annotated[AccountUsage, ACCOUNT_USAGE]


class BuildRow(Body, kw_only=True, frozen=True):
    """A row of `GET /v1/admin/builds`: one build kept in the lake, of an alpha or a benchmark."""

    kind: Annotated[Literal["alpha", "benchmark"], TEXT, doc("`alpha` or `benchmark`.")]
    name: Annotated[str, doc("alpha_id or benchmark symbol.")]
    build_id: Annotated[str, doc("The build.")]
    current: Annotated[bool, doc("Whether the pointer serves this build now.")]
    built_at: Annotated[str | None, BUILT_AT]
    sealed_at: Annotated[str | None, SEALED_AT]
    pipeline_version: Annotated[str | None, PIPELINE_VERSION]
    complete: Annotated[
        bool | None,
        doc("Every required kind is present (true for benchmarks).", null="Null when not recorded."),
    ]
    rows: Annotated[
        int | None, doc("Rows over all tables of the build.", unit=units.ROWS, null="Null when not recorded.")
    ]
    bytes: Annotated[
        int | None,
        doc("Bytes over all tables of the build.", unit=units.BYTES, null="Null when not recorded."),
    ]
    first_date: (
        Annotated[
            dt.date | None,
            doc(
                "First session of a benchmark's series.",
                unit=units.DATE,
                null="Null when not recorded.",
                absent="Present on benchmark builds only.",
            ),
        ]
        | UnsetType
    ) = UNSET
    last_date: (
        Annotated[
            dt.date | None,
            doc(
                "Last session of a benchmark's series.",
                unit=units.DATE,
                null="Null when not recorded.",
                absent="Present on benchmark builds only.",
            ),
        ]
        | UnsetType
    ) = UNSET
