"""The metrics documentation block (`/metrics/_doc`, and `data.doc` with `doc=1`).

Identical for every alpha and every call. `fields` has an entry for every dotted path the metrics
payload can contain (objects and leaves, array elements written `name[]`, so `periods[].core.ic`),
read from the declaration of the payload (`schemas.bodies.metrics`), where each field states its
meaning, formula, unit and facts; `tests/metrics` walks served payloads and fails on a path
without an entry. Written here: the prose on the endpoint and the warning codes.
"""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

from analytics.newey_west import MIN_N
from schemas.bodies.metrics import LAG_RULE, metrics_fields
from schemas.choices import WARNING_CODES
from schemas.wire import WEIGHT_WARNINGS

SCHEMA_VERSION = "2.0.0"

_WARNINGS: dict[str, str] = {
    "missing_kind": "A kind a block needs was not sealed; `kind` names it and the block is null.",
    "missing_core_metrics": "Stored metrics behind some core statistics are absent; those statistics are "
    "served as not_measurable (never zero).",
    "access_limited": "The key may not call the endpoints whose data a block is built from (rebalance "
    "cross-sections: signals.rebalances.get or signals.scores; ledger: portfolio.ledger); the block is null.",
    "forward_returns_absent": "The run sealed no forward returns; ic_deciles, nwt.ic_score_panel and panel are "
    "null.",
    "insufficient_data": f"Too few observations for the block (Newey-West needs {MIN_N}; ic_deciles needs a "
    "week with at least 20 scored names, at least 2 distinct raw_score values and forward returns); the block "
    "is null.",
    "nonpositive_variance": "The long-run variance of the series is zero, so no t statistic exists; the block "
    "is null.",
    "window_lifetime_only": "from/to were given, but the named block describes the run's full window "
    "(stored metrics, nwt.ic).",
    "block_error": "The block failed to compute; it is null and the failure was logged.",
    "ic_family_mismatch": "The run has no rebalance cross-sections, so the conditioned IC cannot be rebuilt "
    "and nwt.ic is null.",
    "ic_reproduction_mismatch": "mean(weekly IC) rebuilt from the cross-sections differs from the sealed mean "
    "IC by more than 1e-6 (or no mean IC was sealed); nwt.ic is null because it would not test core.ic.",
    "headline_reproduction_mismatch": "a sealed overall headline figure (information_ratio, max_drawdown_pct) "
    "differs from what the run's own long_short ledger rebuilds by more than 1e-6 relative: core serves the "
    "sealed value, the analytics routes and /equity-curve the ledger's.",
    "restated": "a value in the answer's window was restated: a later run changed it after the lake first "
    "published it (both values on /v1/alphas/{alpha}/restatements).",
    "kind_missing": "Emitted by collection endpoints for a kind that was not sealed; the metrics endpoint "
    "reports the same condition as missing_kind.",
    **WEIGHT_WARNINGS,
}

_ENDPOINT: dict[str, str] = {
    "path": "GET /v1/alphas/{alpha}/metrics with from, to (YYYY-MM-DD), granularity (overall, yearly, "
    "monthly), doc (boolean: embed this block under data.doc), panel (boolean: add data.panel).",
    "identity": "data.alpha is the collection served (meta.run); data.alpha_id is the run's research source "
    "id. Every figure is measured on the long_short book; there is no book parameter.",
    "parameters": "granularity adds periods ([{period, core}]) from the run's stored yearly or monthly "
    "metrics. panel=1 adds weekly series. doc=1 embeds this block.",
    "window_semantics": "from/to narrow the derived blocks (ic_deciles, nwt.ic_score_panel, nwt.ir, "
    "core.tenure, panel) and select the periods that overlap the window. Stored statistics (core except "
    "tenure, rank_ic) and nwt.ic describe the run's full window; a window_lifetime_only warning says so.",
    "access": "The key needs performance.metrics. Blocks built from rebalance cross-sections (ic_deciles, "
    "nwt.ic, nwt.ic_score_panel, panel) need signals.rebalances.get or signals.scores; blocks built from the "
    "ledger (nwt.ir, the tenure fallback) need portfolio.ledger. Otherwise they are null with access_limited.",
    "signal_families": "conditioned = score (smoothed; what the books trade); raw = raw_score (before "
    "smoothing). core.ic, core.icir, nwt.ic and panel.ic_weekly are conditioned; rank_ic.raw, "
    "nwt.ic_score_panel, ic_deciles and the other panel series are raw. They never substitute for each other.",
    "annualisation": "Weekly series annualise by sqrt(52), daily by sqrt(252); each annualised entry carries "
    "periods_per_year and data.annualisation_factors echoes both.",
    "newey_west": f"Bartlett kernel, {LAG_RULE}; the minimum lag is h-1 for overlapping h-week horizons and 0 "
    f"otherwise. Series are sorted by date and non-finite values dropped; fewer than {MIN_N} observations is "
    "refused with insufficient_data. No small-sample correction; p-values two-sided from the standard "
    "normal (statsmodels OLS on a constant with cov_type='HAC' and its defaults gives identical numbers).",
    "not_measurable": "A statistic that cannot be measured is {status: not_measurable, value: null, "
    "withheld_reason}, never zero.",
    "warnings": "meta.warnings entries are {code, message, block?, kind?}; codes are listed under warnings.",
}


@cache
def _doc() -> dict[str, Any]:
    return {
        "schema_version": SCHEMA_VERSION,
        "endpoint": _ENDPOINT,
        "fields": metrics_fields(),
        "warnings": {code: _WARNINGS[code] for code in WARNING_CODES},
    }


def metrics_doc() -> dict[str, Any]:
    """The documentation block (a copy: callers may not alter the shared one)."""
    return copy.deepcopy(_doc())


def shared_metrics_doc() -> dict[str, Any]:
    """The cached block itself, for encoders that never mutate it (the request path)."""
    return _doc()
