"""`compute_metrics`: the `/metrics` object (`schemas.bodies.metrics.Metrics`) from one build's
inputs and the request.

Pure: no I/O, no HTTP. Never raises for partial data; a block that fails is served as null with a
`block_error` warning (and logged), so the endpoint answers 200 with what it could compute.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from typing import TypeVar

from msgspec import UNSET, UnsetType

from analytics.access import Access
from analytics.entries import DateWindow, Warnings, window_echo
from analytics.metrics import blocks
from analytics.metrics.inputs import MetricsInputs
from schemas.bodies.metrics import AnnualisationFactors, Metrics, NeweyWest, NeweyWestTests, Panel
from schemas.bodies.service import Warning

log = logging.getLogger(__name__)
GRANULARITIES = ("overall", "yearly", "monthly")
T = TypeVar("T")


def _guarded(block: str, warnings: Warnings, build: Callable[[], T]) -> T | None:
    try:
        return build()
    except Exception:  # one broken block must not take the whole payload down (spec: never 500)
        log.exception("metrics block %s failed", block)
        warnings.add("block_error", f"{block} could not be computed and is null.", block=block)
        return None


def compute_metrics(
    inputs: MetricsInputs,
    granularity: str,
    window_from: dt.date | None,
    window_to: dt.date | None,
    panel: bool,
    access: Access,
) -> tuple[Metrics, list[Warning]]:
    """Returns (the metrics object, its `meta.warnings`)."""
    if granularity not in GRANULARITIES:
        raise ValueError(f"granularity must be one of {GRANULARITIES}")
    window = DateWindow(window_from, window_to)
    warnings = Warnings()
    if window.narrowed:
        for block in ("core", "rank_ic", "nwt.ic"):
            warnings.add(
                "window_lifetime_only",
                f"{block} describes the run's full window; from/to do not narrow it.",
                block=block,
            )

    for kind in inputs.missing_required_kinds:
        warnings.add(
            "missing_kind",
            f"The run is incomplete: required kind {kind} was not sealed. Stored metrics are served as the "
            "run sealed them.",
            kind=kind,
        )

    core = _guarded("core", warnings, lambda: blocks.core_block(inputs, window, access, warnings))
    rank_ic = _guarded("rank_ic", warnings, lambda: blocks.rank_ic_block(inputs, warnings))
    signal_processing = _guarded(
        "signal_processing", warnings, lambda: blocks.signal_processing_block(inputs)
    )
    periods = _guarded(
        "periods", warnings, lambda: blocks.periods_block(inputs, granularity, window, access, warnings)
    )

    deciles_ready = blocks.signal_series_available(inputs, access, warnings, "ic_deciles")
    ic_deciles = (
        _guarded("ic_deciles", warnings, lambda: blocks.ic_deciles_block(inputs, window, warnings))
        if deciles_ready
        else None
    )
    nwt = NeweyWestTests(
        ic=_guarded("nwt.ic", warnings, lambda: _cached_nwt_ic(inputs, access, warnings)),
        ic_score_panel=_guarded(
            "nwt.ic_score_panel",
            warnings,
            lambda: blocks.nwt_ic_score_panel_block(inputs, window, access, warnings),
        ),
        ir=_guarded("nwt.ir", warnings, lambda: blocks.nwt_ir_block(inputs, window, access, warnings)),
    )
    panel_block: Panel | None | UnsetType = UNSET
    if panel and ic_deciles is not None:
        panel_block = _guarded("panel", warnings, lambda: blocks.panel_block(inputs, window, warnings))
    elif panel:
        _explain_null_panel(inputs, access, warnings)
        panel_block = None
    data = Metrics(
        granularity=granularity,
        window=window_echo((window_from, window_to)),
        core=core,
        rank_ic=rank_ic,
        signal_processing=signal_processing,
        periods=periods,
        ic_deciles=ic_deciles,
        nwt=nwt,
        panel=panel_block,
        doc_url=f"/v1/alphas/{inputs.alpha}/metrics/_doc",
        alpha=inputs.alpha,
        source_alpha_id=inputs.source_alpha_id,
        annualisation_factors=AnnualisationFactors(
            weekly=inputs.conventions.weeks_per_year, daily=inputs.conventions.sessions_per_year
        ),
    )
    return data, warnings.entries


def _explain_null_panel(inputs: MetricsInputs, access: Access, warnings: Warnings) -> None:
    """The panel follows ic_deciles; say why it is null, as every nulled block does."""
    if blocks.signal_series_available(inputs, access, warnings, "panel"):
        warnings.add(
            "insufficient_data",
            "panel is null because ic_deciles is null for this window (no week with at least 20 scored names "
            "with at least 2 distinct raw_score values and forward returns).",
            block="panel",
        )


def _cached_nwt_ic(inputs: MetricsInputs, access: Access, warnings: Warnings) -> NeweyWest | None:
    """nwt.ic never depends on the window: computed once per build, warnings replayed."""
    if not access.cross_sections:
        return blocks.nwt_ic_block(inputs, access, warnings)
    cached = inputs.derived.get("nwt.ic")
    if cached is None:
        own = Warnings()
        cached = (blocks.nwt_ic_block(inputs, access, own), own.entries)
        inputs.derived["nwt.ic"] = cached
    result, entries = cached
    warnings.extend(entries)
    return result
