"""The bodies every route shares, and the health body: the error envelope (serve/envelope.py
`error_response`), `pagination`, a `meta.warnings` entry, and `GET /v1/health`
(serve/routes/meta.py `health_body`, served without an envelope).

`Warning` is built in more than one place, not always with its keys in one order
(`kind_missing` warnings put `kind` before `message`, `/metrics` ones `message` before `block`);
it keeps the order the document has always listed.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from msgspec import UNSET, UnsetType

from schemas import choices, units
from schemas.bodies.base import Body
from schemas.bodies.formats import TEXT, Timestamp, doc, one_of


class ErrorBody(Body, kw_only=True, frozen=True):
    """The `error` object of a failure."""

    code: Annotated[str, doc("Machine-readable error code (e.g. `bad_request`, `unknown_book`).")]
    message: Annotated[str, doc("Human-readable explanation of the failure.")]
    details: Annotated[
        dict[str, Any],
        doc(
            "Code-specific details, e.g. `parameters` for `bad_request`, `available` for `unknown_book`; "
            "empty on `internal_error`."
        ),
    ]
    request_id: Annotated[str, doc("Id of this request (also in `X-Request-ID`); quote it to support.")]


class Error(Body, kw_only=True, frozen=True):
    """The body of every failure: `{error: {...}}`."""

    error: Annotated[ErrorBody, doc("The failure: code, message, details and request_id.")]


class Pagination(Body, kw_only=True, frozen=True):
    """`pagination` of a collection: the page applied and whether another follows."""

    limit: Annotated[int, doc("The applied page size (request value or default).", unit=units.ROWS)]
    offset: Annotated[int, doc("The applied offset.", unit=units.ROWS)]
    returned: Annotated[
        int,
        doc(
            "Number of rows in this page; equals `data.length`; below `limit` on the last page.",
            unit=units.ROWS,
        ),
    ]
    total: Annotated[
        int, doc("Rows matching the query across all pages, counted before paging.", unit=units.ROWS)
    ]
    has_more: Annotated[
        bool, doc("`offset + returned < total`; false on the last page; clients stop paging when false.")
    ]


class Warning(Body, kw_only=True, frozen=True):
    """An entry of `meta.warnings`: a part of the answer degraded, and why."""

    code: Annotated[
        str,
        one_of(choices.WARNING_CODES),
        doc("Warning code from the documented vocabulary (e.g. `kind_missing`)."),
    ]
    message: Annotated[str, doc("Human-readable explanation of the warning.")]
    block: (
        Annotated[
            str,
            doc(
                "The `/metrics` block the warning is about (e.g. `ic`, `portfolio`).",
                absent="Present on `/metrics` warnings that concern one block.",
            ),
        ]
        | UnsetType
    ) = UNSET
    kind: (
        Annotated[
            str,
            doc(
                "The dataset (seal kind) the warning is about.", absent="Present on `kind_missing` warnings."
            ),
        ]
        | UnsetType
    ) = UNSET


class HealthLake(Body, kw_only=True, frozen=True):
    """Damage found in the lake's builds."""

    degraded_alphas: Annotated[
        dict[str, str],
        doc(
            "Damaged builds: alpha_id (a benchmark as `benchmark:<SYMBOL>`) to reason code "
            "(`missing_file`, `truncated_file`, `corrupt_file`, `no_manifest`, `unreadable`; "
            "`corrupt_archive` when only the alpha's source archive does not match its SHA-256)."
        ),
    ]


REGISTRY_VERSION = doc(
    "Identifies the endpoint-registry version; changes when an endpoint's id, group, path or admin flag changes."
)
"""`registry_version` of `/v1/health` and `/v1/me`."""


class Health(Body, kw_only=True, frozen=True):
    """The body of `GET /v1/health` (no envelope)."""

    outside_envelope: ClassVar[bool] = True

    status: Annotated[
        Literal["ok", "degraded"],
        TEXT,
        doc("`ok`, or `degraded` when a backend is down or a build is damaged."),
    ]
    service: Annotated[str, doc("Name of the service.")]
    environment: Annotated[str, doc("Deployment environment word (e.g. `live`).")]
    version: Annotated[str, doc("The running build's version string.")]
    registry_version: Annotated[str, REGISTRY_VERSION]
    time: Annotated[Timestamp, doc("Server clock at answer time.", unit=units.TIMESTAMP)]
    down: (
        Annotated[
            list[str],
            doc(
                "Backends that cannot be used (`lake`, `keystore`, `limiter`); possibly empty.",
                absent="Present only when `status` is `degraded`.",
            ),
        ]
        | UnsetType
    ) = UNSET
    lake: (
        Annotated[
            HealthLake,
            doc("Damage found in the lake's builds.", absent="Present only when some build is damaged."),
        ]
        | UnsetType
    ) = UNSET
    worker: (
        Annotated[
            str,
            doc(
                "A resource (open files, memory or maps) the answering worker ran out of in the last "
                "minute, and what it did (closed its least recently used builds). The worker's own "
                "problem: no build is reported damaged for it.",
                absent="Present only after such a failure, for a minute.",
            ),
        ]
        | UnsetType
    ) = UNSET
