"""The `/analytics/_doc` fields of `/analytics/combine` (merged by serve.analytics.doc).

Its rows are `combine[]`; its figures, weights and correlations travel in the page's meta, whose
paths are `combine.meta.*` (the envelope's own meta fields, request_id and the like, are not
documented here)."""

from __future__ import annotations

from typing import Any

SOURCE = "catalogue:returns"
COMMON = "over the window's sessions on which every alpha of the set has a long_short return"


def figure_fields(prefix: str, book: str) -> dict[str, dict[str, Any]]:
    """The five figures of a book (`analytics.combination.figures`), as stat entries under `prefix`."""
    from serve.analytics.doc import _f, _stat

    year = {"periods_per_year": _f("Sessions per year used to annualise (252)", unit="sessions")}
    fields: dict[str, dict[str, Any]] = {}
    fields |= _stat(
        f"{prefix}.information_ratio",
        _f(
            f"Information ratio of {book}'s daily returns (not in excess of the risk-free rate), daily times "
            "sqrt(252) as /metrics core.information_ratio",
            "mean(r) / std(r, ddof=1) * sqrt(252)",
            "ratio",
            "annualised",
            SOURCE,
        ),
        **year,
    )
    fields |= _stat(
        f"{prefix}.excess_sharpe",
        _f(
            f"Sharpe ratio of {book}'s daily returns in excess of the risk-free return its alphas' ledgers "
            "accrued, weighted as the returns are; not_measurable on a catalogue index written before it held "
            "risk-free returns",
            "mean(r - rf) / std(r - rf, ddof=1) * sqrt(252), rf = sum_i w_i rf_i",
            "ratio",
            "annualised",
            "catalogue:returns,risk_free",
        ),
        **year,
    )
    fields |= _stat(
        f"{prefix}.max_drawdown_pct",
        _f(
            f"Deepest fall of {book}'s compounded equity from its running peak (the opening 1.0 counts), in "
            "percentage points of the peak (25.0 is 25%), as /metrics core.max_drawdown_pct",
            "max over sessions of (peak - level) / peak * 100, level = prod(1 + r)",
            "percentage_points",
            source=SOURCE,
        ),
    )
    fields |= _stat(
        f"{prefix}.annualised_return",
        _f(f"Mean daily return of {book}, annualised", "mean(r) * 252", "fraction", "annualised", SOURCE),
        **year,
    )
    fields |= _stat(
        f"{prefix}.volatility",
        _f(
            f"Volatility of {book}'s daily returns, annualised",
            "std(r, ddof=1) * sqrt(252)",
            "fraction",
            "annualised",
            SOURCE,
        ),
        **year,
    )
    return fields


def fields() -> dict[str, dict[str, Any]]:
    """Dotted path (under "combine") -> entry built with serve.analytics.doc's _f / _stat helpers."""
    from serve.analytics.doc import _f, window_fields

    r, m = "combine[]", "combine.meta"
    out = {
        "combine": _f("One row per session of the combined long_short book, " + COMMON),
        f"{r}.date": _f("A common session"),
        f"{r}.period_return": _f(
            "The combined book's daily return", "sum_i w_i r_i", "fraction", source=SOURCE
        ),
        f"{r}.cumulative_return": _f(
            "Compounded from 1.0 before the first common session", "prod(1 + period_return) - 1", "fraction"
        ),
        f"{r}.drawdown_pct": _f(
            "Fall of the compounded equity below its running peak (the opening 1.0 counts), as the equity curve's",
            "(peak - level) / peak * 100, level = 1 + cumulative_return",
            "percentage_points",
        ),
        f"{r}.benchmark_cumulative_return": _f(
            "SPY's daily total returns on the same sessions, compounded from the first; null for a key that may "
            "not call benchmarks.daily",
            "prod(1 + spy_return) - 1",
            "fraction",
            source="benchmark:SPY",
        ),
        m: _f("The combination's description and figures, in the page's meta (the same on every page)"),
        f"{m}.book": _f("Always long_short: the catalogue's returns matrix holds that book alone"),
        **window_fields(m),
        f"{m}.benchmark": _f(
            "The benchmark of benchmark_cumulative_return; null when the key may not read it"
        ),
        f"{m}.benchmark.symbol": _f("SPY"),
        f"{m}.benchmark.basis": _f("adjusted_close when every row has one, else close (as /v1/benchmarks)"),
        f"{m}.alphas": _f("The alphas combined, in the request's order"),
        f"{m}.weighting": _f("equal, given, inverse_volatility or max_ir"),
        f"{m}.shrinkage": _f("max_ir only (null otherwise): the shrinkage of the covariance used"),
        f"{m}.shrinkage.value": _f(
            "d in Sigma_d = (1 - d) S + d diag(S)",
            "given, or the Ledoit-Wolf (2004) intensity: sum_{i!=j} pi_ij / sum_{i!=j} s_ij^2 / T, clipped to [0, 1]",
            "ratio",
        ),
        f"{m}.shrinkage.source": _f("given (the request's shrinkage) or ledoit_wolf"),
        f"{m}.weights": _f("The weights used, one per alpha in the request's order"),
        f"{m}.weights[].alpha": _f("The alpha"),
        f"{m}.weights[].weight": _f(
            "Its fraction of the book's capital: 1/n (equal), as given (never renormalised), "
            "(1/sigma_i) / sum_j (1/sigma_j) (inverse_volatility), Sigma_d^-1 mu scaled to sum |w| = 1 (max_ir)",
            None,
            "fraction",
        ),
        f"{m}.sessions": _f("The common sessions the figures and rows are over", unit="sessions"),
        f"{m}.session_rule": _f("Which sessions count: their intersection over the set"),
        f"{m}.figures": _f("The combined book's figures " + COMMON),
        f"{m}.correlation": _f("Pearson correlations of the alphas' daily returns " + COMMON),
        f"{m}.correlation.alphas": _f("The matrix's rows and columns, in the request's order"),
        f"{m}.correlation.matrix": _f(
            "matrix[i][j] = corr(r_i, r_j); null where a side has no variance", "Pearson", "ratio"
        ),
    }
    out |= combined_fields(f"{m}.figures", "the combined book")
    return out


def combined_fields(prefix: str, book: str) -> dict[str, dict[str, Any]]:
    """A combination's figures under `prefix`: the five (`figure_fields`), the turnover and the
    diversification ratio (combine's meta.figures, and a contribution's with a weighting)."""
    from serve.analytics.doc import _f, _stat

    out = figure_fields(prefix, book)
    out |= _stat(
        f"{prefix}.turnover",
        _f(
            f"Approximate turnover of {book}, in the alphas' common turnover_unit; not_measurable when an alpha has "
            "none or their units differ",
            "sum_i |w_i| turnover_i, turnover_i the alpha's whole-history /metrics core.turnover",
            "turnover_unit",
            source="catalogue_index:turnover",
        ),
        approximation=_f(
            "Why it is an approximation: whole histories, and no netting between alphas (an upper bound)"
        ),
        periods_per_year=_f(
            "Sessions per year of a per_year turnover (252); absent for any other unit", unit="sessions"
        ),
    )
    out |= _stat(
        f"{prefix}.diversification_ratio",
        _f(
            f"Weighted volatility of the alphas over {book}'s: 1 when they move together, above 1 the more their "
            "risks offset",
            "sum_i |w_i| sigma_i / sigma_c (std ddof 1)",
            "ratio",
            source=SOURCE,
        ),
    )
    return out
