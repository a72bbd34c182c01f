"""The walker that reads a documentation block out of a body's declaration
(`schemas.bodies.figures.documented`): each rule it applies, on a small body of its own."""

from __future__ import annotations

from typing import Annotated

import pytest
from msgspec import UNSET, UnsetType

from schemas.bodies.base import Body
from schemas.bodies.figures import Block, documented, figure

BLOCK = Block(
    keys=("meaning", "formula", "horizon", "unit", "signal"),
    defaults={"horizon": "window"},
    inherited=frozenset({"horizon", "signal"}),
    omitted_when_none=frozenset({"signal"}),
)


class Trial(Body, kw_only=True, frozen=True):
    mean: Annotated[float, figure("Mean of {what}", "sum / n", unit="ratio")]
    lag: Annotated[int, figure("Lag used")]
    frequency: str | UnsetType = UNSET  # documented only where a holder names it


class Part(Body, kw_only=True, frozen=True):
    value: Annotated[float, figure("A value", unit="ratio")]
    plain: Annotated[float, figure("Without a signal", signal=None)]


class Whole(Body, kw_only=True, frozen=True):
    part: Annotated[Part, figure("A part", horizon="history", signal="raw")]
    other: Annotated[Part, figure("Another part", lead="change: ")]
    daily: Annotated[
        Trial,
        figure("Trial of {what}", what="daily returns", keys={"frequency": figure("daily")}),
    ]
    weekly: Annotated[
        Trial, figure("Trial of {what}", what="the weekly IC", where={"weekly": {"horizon": "whole history"}})
    ]


def test_each_rule_of_the_walk() -> None:
    fields = documented(Whole, BLOCK)
    assert list(fields) == sorted(fields)
    # facts a field states hold for what it holds; a fact stated as None is not inherited
    assert fields["part.value"] == {
        "meaning": "A value",
        "formula": None,
        "horizon": "history",
        "unit": "ratio",
        "signal": "raw",
    }
    assert "signal" not in fields["part.plain"] and fields["part.plain"]["horizon"] == "history"
    assert fields["other.value"]["horizon"] == "window"  # the block's default
    # `lead` is written before the meanings of the fields held directly
    assert fields["other.value"]["meaning"] == "change: A value"
    assert fields["other"]["meaning"] == "Another part"
    # `what` fills the meanings of the field and of what it holds
    assert fields["daily"]["meaning"] == "Trial of daily returns"
    assert fields["daily.mean"]["meaning"] == "Mean of daily returns"
    assert fields["weekly.mean"]["meaning"] == "Mean of the weekly IC"
    # `keys` documents a field at that path only; an optional field undescribed is left out elsewhere
    assert fields["daily.frequency"]["meaning"] == "daily"
    assert "weekly.frequency" not in fields
    # `where` changes the facts under a path prefix
    assert fields["weekly.lag"]["horizon"] == "whole history"
    assert fields["daily.lag"]["horizon"] == "window"


def test_the_meaning_the_openapi_document_reads_is_the_fields() -> None:
    from schemas.bodies.base import meanings

    assert meanings(Trial)["mean"] == "Mean of the series tested"  # `{what}` named where the test is held
    assert meanings(Part)["value"] == "A value"


def test_a_key_naming_no_field_is_refused() -> None:
    class Typo(Body, kw_only=True, frozen=True):
        daily: Annotated[Trial, figure("Trial", keys={"frequncy": figure("daily")})]

    with pytest.raises(ValueError, match=r"\['frequncy'\] name no field of Trial"):
        documented(Typo, BLOCK)


def test_a_field_without_a_meaning_is_refused() -> None:
    class Undescribed(Body, kw_only=True, frozen=True):
        count: int

    with pytest.raises(ValueError, match="Undescribed.count declares no meaning"):
        documented(Undescribed, BLOCK)
