"""The written description of an alpha (`GET /v1/alphas/{alpha}`), declared for the contract.

The server serves `description.json` of the build as the pipeline wrote it, and the lake writer
sorts keys (`datasets.writer`): every object below is declared with its fields in alphabetical
order, which is the order served. The pipeline fills every key of the nested groups
(`alpha_results_seal.description`, null where unsealed), so those are required; list items (parameters,
data fields, papers, falsification criteria) are served as sealed, so their optional keys may be
absent.
"""

from __future__ import annotations

from typing import Annotated

from msgspec import UNSET, Meta, UnsetType

from schemas.bodies.base import Body
from schemas.bodies.formats import SEAL_TEXT


class Classification(Body, kw_only=True, frozen=True):
    """`classification` of the alpha description."""

    frequency: Annotated[
        list[str] | None,
        Meta(description="Lowercase cadences from `intraday`, `daily`, `weekly`, as sealed."),
    ]
    method: Annotated[str | None, Meta(description="The alpha's method, such as `blend`.")]
    structure: Annotated[
        str | None, Meta(description="The alpha's structure, such as `cross_sectional_long_short`.")
    ]
    tags: Annotated[list[str] | None, Meta(description="Labels of the alpha, as sealed.")]


class FalsificationCriterion(Body, kw_only=True, frozen=True):
    """An entry of `thesis.falsification_criteria`, as sealed."""

    horizon: (
        Annotated[str | None, Meta(description="Horizon over which the metric is judged.")] | UnsetType
    ) = UNSET
    metric: Annotated[str | None, Meta(description="The metric the kill condition tests.")] | UnsetType = (
        UNSET
    )
    threshold: (
        Annotated[
            float | str | None, Meta(description="Value of the metric at which the alpha is falsified.")
        ]
        | UnsetType
    ) = UNSET


class Thesis(Body, kw_only=True, frozen=True):
    """`thesis` of the alpha description."""

    economic_rationale: Annotated[
        str | None, Meta(description="Why the effect should persist: the economic rationale.")
    ]
    falsification_criteria: Annotated[
        list[FalsificationCriterion],
        Meta(description="Pre-committed kill conditions; empty on every delivered alpha."),
    ]
    hypothesis: Annotated[str | None, Meta(description="The hypothesis the alpha tests.")]
    mechanism: Annotated[
        str | None, Meta(description="The mechanism by which the hypothesised effect arises.")
    ]
    who_loses: Annotated[
        str | None, Meta(description="Who is on the other side of the trade and loses to it.")
    ]


class Signal(Body, kw_only=True, frozen=True):
    """`signal` of the alpha description."""

    core_math_framework: Annotated[str | None, Meta(description="The core mathematics of the score.")]
    decision_timing: Annotated[
        str | None, Meta(description="When scores are computed and when the books act on them.")
    ]
    output_contract: Annotated[
        str | None, Meta(description="What the signal emits per decision, and which end is attractive.")
    ]
    pseudocode: Annotated[
        list[str] | None, Meta(description="The score's computation, one line of pseudocode per string.")
    ]
    score_direction: Annotated[
        str | None, Meta(description="Which end of the score is held long, such as `higher_is_long`.")
    ]
    signal_logic: Annotated[
        str | None, Meta(description="How the signal is built from its inputs, in prose.")
    ]
    validity_rules: Annotated[
        list[str] | None, Meta(description="When a name or a week has a usable score, one rule per string.")
    ]


class Parameter(Body, kw_only=True, frozen=True):
    """An entry of `parameters`, as sealed."""

    default: (
        Annotated[int | float | str | bool | None, Meta(description="The parameter's default value.")]
        | UnsetType
    ) = UNSET
    description: Annotated[str | None, Meta(description="What the parameter controls.")] | UnsetType = UNSET
    name: Annotated[str, Meta(description="The parameter's name.")]
    range: (
        Annotated[list[float] | None, Meta(description="Two numbers: the lower and upper bound.")] | UnsetType
    ) = UNSET
    search_values: (
        Annotated[
            list[int | float | str | bool | None] | None,
            Meta(description="The values the parameter search tries."),
        ]
        | UnsetType
    ) = UNSET
    selected_value_by_test_year: (
        Annotated[
            dict[str, str | None] | None,
            Meta(description="Map from test year (string) to the value selected for it (string)."),
        ]
        | UnsetType
    ) = UNSET
    tunable: (
        Annotated[bool | None, Meta(description="Whether the parameter search tunes the parameter.")]
        | UnsetType
    ) = UNSET
    type: Annotated[str | None, Meta(description="Value type, such as `float`.")] | UnsetType = UNSET
    unit: Annotated[str | None, Meta(description="Unit of the value, such as `ratio`.")] | UnsetType = UNSET


class DataField(Body, kw_only=True, frozen=True):
    """An entry of `data_requirements.fields`, as sealed."""

    category: (
        Annotated[str | None, Meta(description="Kind of data, such as `price` or `liquidity`.")] | UnsetType
    ) = UNSET
    name: Annotated[str, Meta(description="The data field's name, such as `close`.")]
    required: (
        Annotated[bool | None, Meta(description="Whether the alpha cannot run without the field.")]
        | UnsetType
    ) = UNSET


class DataRequirements(Body, kw_only=True, frozen=True):
    """`data_requirements` of the alpha description."""

    adjustment: Annotated[
        str | None, Meta(description="Price adjustment of the inputs, such as `split_and_dividend_adjusted`.")
    ]
    fields: Annotated[
        list[DataField] | None,
        Meta(description="The data fields the alpha reads, each `{name, category, required}`."),
    ]
    granularity: Annotated[
        str | None, Meta(description="Granularity of the input bars, the unit the bar counts are counted in.")
    ]
    history_requirement: Annotated[
        str | None, Meta(description="Prose; populated instead of the bar counts.")
    ]
    lookback_bars: Annotated[
        int | None,
        Meta(description="Counted in the granularity unit; null when `history_requirement` is used instead."),
    ]
    universe: Annotated[str | None, Meta(description="The universe of names the alpha scores.")]
    warmup_bars: Annotated[
        int | None,
        Meta(
            description="Bars before the first score, in the granularity unit; null when "
            "`history_requirement` is used instead."
        ),
    ]


class SourcePaper(Body, kw_only=True, frozen=True):
    """An entry of `source_papers`, as sealed."""

    published_date: Annotated[str | None, Meta(description="Publication date, such as `1993-03-01`.")]
    rationale: Annotated[str | None, Meta(description="Why the paper is cited for this alpha.")]
    role: Annotated[
        str | None,
        Meta(description="`seed`, `mechanism`, `validation` or `contradiction`; exactly one `seed`."),
    ]
    title: Annotated[str | None, Meta(description="Title of the paper.")]


class AlphaDescription(Body, kw_only=True, frozen=True):
    """The written description of one alpha: every key present, unsealed values null."""

    data_meaning = (
        "The alpha description (algo_id, alpha_id, name, tldr, copyright, classification, thesis, "
        "signal, parameters, data_requirements, source_papers): every key is always present, "
        "unsealed values are null."
    )

    algo_id: Annotated[str, Meta(description="The alpha identifier (collection name).")]
    alpha_id: Annotated[
        str, Meta(description="Identical to `algo_id` (the older name, kept for compatibility).")
    ]
    classification: Annotated[
        Classification, SEAL_TEXT, Meta(description="Structure, method, frequency and tags of the alpha.")
    ]
    copyright: Annotated[str | None, SEAL_TEXT, Meta(description="Copyright line.")]
    data_requirements: Annotated[
        DataRequirements,
        SEAL_TEXT,
        Meta(description="Universe, granularity, history, adjustment and data fields the alpha needs."),
    ]
    name: Annotated[str, SEAL_TEXT, Meta(description="Display name.")]
    parameters: Annotated[
        list[Parameter] | None,
        SEAL_TEXT,
        Meta(description="The alpha's parameters with their defaults and search."),
    ]
    signal: Annotated[Signal, SEAL_TEXT, Meta(description="How the score is computed, timed and read.")]
    source_papers: Annotated[
        list[SourcePaper],
        SEAL_TEXT,
        Meta(description="The papers the alpha cites, exactly one with role `seed`; empty when none sealed."),
    ]
    thesis: Annotated[
        Thesis,
        SEAL_TEXT,
        Meta(description="Hypothesis, mechanism, who loses, economic rationale and falsification criteria."),
    ]
    tldr: Annotated[str | None, SEAL_TEXT, Meta(description="One-line thesis.")]
