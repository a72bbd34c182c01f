"""The `/analytics/_doc` fields of `/analytics/contribution` (merged by serve.analytics.doc)."""

from __future__ import annotations

from typing import Any

from analytics.correlation import MIN_OVERLAP
from serve.analytics.combine_doc import SOURCE, combined_fields
from serve.analytics.contribution import MAX_LISTED


def fields() -> dict[str, dict[str, Any]]:
    """Dotted path (under "contribution") -> entry built with serve.analytics.doc's _f / _stat helpers."""
    from serve.analytics.doc import _f, _stat, window_fields

    p = "contribution"
    out = {
        p: _f(
            "A reference set's equally weighted long_short book before and after adding the alpha at weight w, over "
            "the window's sessions on which the alpha has a return and at least one reference alpha does; on each, "
            "the reference book holds the reference alphas with a return that session (the book as it grew). With a "
            "weighting, the reference book is instead the set combined as /analytics/combine combines it"
        ),
        f"{p}.alpha": _f("The alpha added"),
        f"{p}.book": _f("Always long_short: the catalogue's returns matrix holds that book alone"),
        f"{p}.reference": _f("The reference set"),
        f"{p}.reference.source": _f(
            "given (the request's reference) or production (every production alpha the key may read)"
        ),
        f"{p}.reference.alphas": _f("The reference alphas, the alpha itself never among them"),
        f"{p}.reference.count": _f("How many reference alphas were named or considered", unit="alphas"),
        f"{p}.reference.alpha_excluded": _f(
            "The alpha was in the set named (or is a production alpha) and was left out"
        ),
        f"{p}.reference.members_in_window": _f(
            "How many reference alphas have a return on at least one of the sessions counted: the figures are over "
            "these (below count when some have none)",
            unit="alphas",
        ),
        f"{p}.reference.without_returns": _f(
            "The reference alphas without a return on any session counted (a history outside the window, or no "
            "ledger): named, counted, never held"
        ),
        f"{p}.reference.without_returns.count": _f("How many (count - members_in_window)", unit="alphas"),
        f"{p}.reference.without_returns.alphas": _f(
            f"Their ids, in the order of reference.alphas; the first {MAX_LISTED} when there are more"
        ),
        f"{p}.reference.combination": _f(
            "With a weighting only: the reference set combined as /analytics/combine combines it (its meta's "
            "weighting, shrinkage, weights and sessions)"
        ),
        f"{p}.reference.combination.weighting": _f("equal, given, inverse_volatility or max_ir"),
        f"{p}.reference.combination.shrinkage": _f(
            "max_ir only (null otherwise): the shrinkage of the covariance used"
        ),
        f"{p}.reference.combination.shrinkage.value": _f(
            "d in Sigma_d = (1 - d) S + d diag(S)",
            "given, or the Ledoit-Wolf (2004) intensity: sum_{i!=j} pi_ij / sum_{i!=j} s_ij^2 / T, clipped to [0, 1]",
            "ratio",
        ),
        f"{p}.reference.combination.shrinkage.source": _f("given (the request's shrinkage) or ledoit_wolf"),
        f"{p}.reference.combination.weights": _f(
            "The set's weights, one per alpha in the order of reference.alphas"
        ),
        f"{p}.reference.combination.weights[].alpha": _f("The reference alpha"),
        f"{p}.reference.combination.weights[].weight": _f(
            "Its fraction of the reference book's capital, as /analytics/combine meta.weights serves it: from the "
            "set's common sessions of the window",
            None,
            "fraction",
        ),
        f"{p}.reference.combination.sessions": _f(
            "The set's common sessions of the window (combine's meta.sessions); sessions is below it when the alpha "
            "has no return on some of them, and before is then over those the alpha trades",
            unit="sessions",
        ),
        **window_fields(p),
        f"{p}.weight": _f("The alpha's weight w in the book after"),
        f"{p}.weight.value": _f(
            "w: the request's weight, or the w in [0, 1] that maximises the information ratio after",
            "tangency w* = u_a / (u_a + u_b), u_a = var_b mu_a - cov mu_b, u_b = var_a mu_b - cov mu_a, kept when in "
            "(0, 1); the best of w*, 0 and 1",
            "fraction",
        ),
        f"{p}.weight.chosen": _f("given or optimal"),
        f"{p}.sessions": _f("The sessions the figures are over", unit="sessions"),
        f"{p}.session_rule": _f(
            "Which sessions count: those of the window on which the alpha has a return and at least one reference "
            "alpha does (not their intersection: a production book grows as alphas are added); with a weighting, "
            "those on which every reference alpha and the alpha do"
        ),
        f"{p}.before": _f(
            "The reference set's book: before_t = mean of r_i,t over the reference alphas with a return on t; its "
            "risk-free return the mean of the same alphas'. With a weighting: sum_i w_i r_i,t at "
            "reference.combination's weights, with /analytics/combine's figures (turnover and diversification_ratio "
            "too), equal to its meta.figures when sessions is reference.combination.sessions"
        ),
        f"{p}.after": _f(
            "after_t = (1 - w) before_t + w a_t (with a weighting: the alpha one more member at w, the set's "
            "weights scaled by 1 - w)"
        ),
        f"{p}.change": _f(
            "after - before of each figure (a stat entry each; not_measurable when either side is)"
        ),
    }
    out |= combined_fields(f"{p}.before", "the reference book")
    out |= combined_fields(f"{p}.after", "the book after")
    for path, entry in combined_fields(f"{p}.change", "the book").items():
        if path.endswith(".approximation"):
            continue  # the change states none
        out[path] = (
            {**entry, "meaning": "after - before: " + entry["meaning"]} if path.count(".") == 2 else entry
        )
    out |= _stat(
        f"{p}.correlation_to_set",
        _f(
            "Pearson correlation of the alpha's daily returns with the before book's",
            "corr(a, before)",
            "ratio",
            source=SOURCE,
        ),
    )
    out |= _stat(
        f"{p}.max_correlation_to_member",
        _f(
            "The Pearson correlation of the alpha with the reference alpha it correlates with most in absolute value "
            "(the signed value), each over the sessions both have a return",
            "corr(a, r_k), k = argmax_i |corr(a, r_i)|",
            "ratio",
            source=SOURCE,
        ),
        alpha=_f("That reference alpha"),
    )
    out |= _stat(
        f"{p}.mean_correlation_to_member",
        _f(
            "Mean Pearson correlation of the alpha with each reference alpha, each over the sessions both have a "
            "return",
            "mean_i corr(a, r_i) over the members with a correlation",
            "ratio",
            source=SOURCE,
        ),
        members=_f(
            f"Reference alphas with a correlation (none below {MIN_OVERLAP} sessions in common with the alpha, or "
            "with a side without variance)",
            unit="alphas",
        ),
    )
    return out
