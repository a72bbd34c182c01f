"""The two documentation blocks (`/metrics/_doc`, `/analytics/_doc`), declared for the contract.

Their `fields` are read from the bodies' declarations (`schemas.bodies.figures.documented`), their
prose in serve/doc_blocks/metrics_doc.py and serve/doc_blocks/analytics_doc.py; only their shape is declared here. `endpoint` and `warnings` stay maps of prose (their keys grow with the routes and
the warning vocabulary, and each value is a sentence), while a `fields` entry has fixed keys, so
it is declared as a Struct and a client reads `meaning` without probing a dict.
"""

from __future__ import annotations

from typing import Annotated

from msgspec import UNSET, Meta, UnsetType

from schemas.bodies.base import Body


class MetricsFieldDoc(Body, kw_only=True, frozen=True):
    """One entry of the metrics documentation block's `fields`."""

    meaning: Annotated[str, Meta(description="What the field means.")]
    formula: Annotated[
        str | None, Meta(description="How the field is computed; null for an echo or an object.")
    ]
    horizon: Annotated[
        str,
        Meta(
            description="The span the field covers: the requested window (from/to), else the run's "
            "full evaluation window, which from/to do not narrow for stored figures."
        ),
    ]
    granularity: Annotated[
        str,
        Meta(
            description="One figure for the window (`overall`), per period (`yearly or monthly`) or per week."
        ),
    ]
    source: Annotated[
        str,
        Meta(
            description="Where the figure comes from: `metrics` (stored by the run), `rebalances`, "
            "`portfolio`, `computed` and others."
        ),
    ]
    unit: Annotated[
        str | None, Meta(description="Unit of the field, such as `ratio`; null when it has none.")
    ]
    signal: (
        Annotated[
            str, Meta(description="IC-family entries only: `conditioned` (score) or `raw` (raw_score).")
        ]
        | UnsetType
    ) = UNSET
    availability: (
        Annotated[str, Meta(description="`ic_deciles` and `panel` entries only: when the field is null.")]
        | UnsetType
    ) = UNSET


class MetricsDoc(Body, kw_only=True, frozen=True):
    """The metrics documentation block (`/metrics/_doc`, or `data.doc` with `doc=1`)."""

    data_meaning = (
        "The metrics documentation block: schema_version, endpoint, fields (meaning, formula, "
        "horizon, granularity, source and unit per dotted payload path) and warnings; identical "
        "for every alpha."
    )

    schema_version: Annotated[str, Meta(description="Version of the block's schema, `2.0.0`.")]
    endpoint: Annotated[
        dict[str, str],
        Meta(
            description="Prose on the path, identity, parameters, window semantics, access and signal "
            "families."
        ),
    ]
    fields: Annotated[
        dict[str, MetricsFieldDoc],
        Meta(
            description="Dotted payload path (`core.ic`, `periods[].core.ic`) to `{meaning, formula, "
            "horizon, granularity, source, unit}`."
        ),
    ]
    warnings: Annotated[dict[str, str], Meta(description="Warning code to its meaning.")]


class AnalyticsFieldDoc(Body, kw_only=True, frozen=True):
    """One entry of the analytics documentation block's `fields`."""

    meaning: Annotated[str, Meta(description="What the field means.")]
    formula: Annotated[
        str | None, Meta(description="How the field is computed; null for an echo or an object.")
    ]
    horizon: Annotated[
        str,
        Meta(
            description="The span the field covers: the requested window (from/to), else the whole "
            "history, a trailing window, or whole histories that from/to do not narrow."
        ),
    ]
    granularity: Annotated[
        str,
        Meta(
            description="One figure for the window (`overall`), or one row per other alpha, episode, "
            "rebalance week or common session."
        ),
    ]
    source: Annotated[str, Meta(description="What the figure is computed from.")]
    unit: Annotated[
        str | None, Meta(description="Unit of the field, such as `ratio`; null when it has none.")
    ]
    annualisation: Annotated[str, Meta(description="`annualised`, `per_period` or `not_annualisable`.")]


class AnalyticsDoc(Body, kw_only=True, frozen=True):
    """The analytics documentation block (`/analytics/_doc`), shaped as `MetricsDoc`."""

    schema_version: Annotated[str, Meta(description="Version of the block's schema.")]
    endpoint: Annotated[
        dict[str, str],
        Meta(
            description="Prose on the routes: `paths`, `access`, `catalogue`, `window_semantics`, "
            "`signal_families`, `sharpe_convention`, `name_conventions`, `min_overlap`, `not_measurable`, "
            "`combination`, `risk`, `references`."
        ),
    ]
    fields: Annotated[
        dict[str, AnalyticsFieldDoc],
        Meta(
            description="Dotted payload path prefixed by the route (`significance.psr`, `rolling[].rebuilt_mean_ic`) "
            "to `{meaning, formula, horizon, granularity, source, unit, annualisation}`."
        ),
    ]
    warnings: Annotated[
        dict[str, str], Meta(description="Warning code (`kind_missing`, `access_limited`) to its meaning.")
    ]
