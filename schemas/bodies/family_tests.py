"""`/analytics/family_tests`: which members of the alpha's trial family are indistinguishable from
the best (SPA, StepM, the model confidence set) and how stable its Sharpe ratio is across its
parameters (analytics/family_tests.py; docs/analytics.md "Family tests")."""

from __future__ import annotations

from typing import Annotated

from schemas import terms
from schemas.bodies.analytics import AnalyticsStat
from schemas.bodies.base import Body
from schemas.bodies.figures import figure

FAMILY_RETURNS = "catalogue_index:returns (each member's daily long_short returns)"


class FamilyTestMember(Body, kw_only=True, frozen=True):
    """One member of the family the key may read: its parameters, its Sharpe ratio over the common
    sessions, whether StepM finds it superior to the family's average and its model confidence set p-value."""

    alpha_id: Annotated[str, figure("The member's alpha id.")]
    parameters: Annotated[
        dict[str, float | int | str],
        figure(
            "The parameters its seal names (a flat mapping of names to numbers or short texts; empty if none)"
        ),
    ]
    family_sharpe: Annotated[
        float | None,
        figure(
            "The member's annualised Sharpe ratio over the family's common sessions; null without variance or "
            "when the figures are withheld",
            "mean(r) / std(r, ddof 1) * sqrt(252) over the common sessions",
            term=terms.FAMILY_SHARPE,
        ),
    ]
    stepm_superior: Annotated[
        bool | None,
        figure(
            "Whether Romano and Wolf's StepM (studentized) rejects, at test_size, that the member's mean daily return "
            "is at most the family's equal-weighted mean return; null when the tests are not measurable"
        ),
    ]
    stepm_p_value: Annotated[
        float | None,
        figure(
            "The member's StepM p-value: the share of the resampled maxima of the step that decided it (the step "
            "it was found superior at, else the last) above its statistic; below test_size as it is found superior "
            "(up to the quantile's interpolation, inside its Monte Carlo error); null when not measurable",
            "P*(max_{j not yet found} t*_j > t_k) at the member's deciding step",
            term=terms.STEPM_P_VALUE,
        ),
    ]
    stepm_p_value_monte_carlo_error: Annotated[
        float | None,
        figure(
            "The Monte Carlo standard error of stepm_p_value; null when not measurable",
            "sqrt(p (1 - p) / B), B = comparison_resamples",
            term=terms.STEPM_P_VALUE_MONTE_CARLO_ERROR,
        ),
    ]
    stepm_within_monte_carlo_error: Annotated[
        bool | None,
        figure(
            "Whether stepm_p_value lies within 2 Monte Carlo standard errors of test_size: stepm_superior is "
            "not settled by the resamples drawn (another seed could turn it); null when not measurable"
        ),
    ]
    mcs_p_value: Annotated[
        float | None,
        figure(
            "The member's model confidence set p-value (Hansen, Lunde and Nason, T_R, loss = -daily return): the "
            "largest elimination p-value up to its own elimination, 1 for the last member; null when not measurable",
            "max over the eliminations up to the member's of P*(T_R* > T_R)",
            term=terms.MCS_P_VALUE,
        ),
    ]
    in_confidence_set: Annotated[
        bool | None,
        figure(
            "Whether the member is in the model confidence set at test_size (mcs_p_value > test_size): "
            "indistinguishable from the best; null when not measurable"
        ),
    ]
    mcs_p_value_monte_carlo_error: Annotated[
        float | None,
        figure(
            "The Monte Carlo standard error of mcs_p_value, measured by batch means of the resamples; null when "
            "not measurable",
            "std(the MCS p-value of each of 10 batches of the resamples, ddof 1) / sqrt(10)",
            term=terms.MCS_P_VALUE_MONTE_CARLO_ERROR,
        ),
    ]
    mcs_within_monte_carlo_error: Annotated[
        bool | None,
        figure(
            "Whether mcs_p_value lies within 2 Monte Carlo standard errors of test_size: in_confidence_set is not "
            "settled by the resamples drawn (another seed could turn it); null when not measurable"
        ),
    ]


class ParameterStability(Body, kw_only=True, frozen=True):
    """One parameter of the family: the members' Sharpe ratios against its value."""

    parameter: Annotated[str, figure("The parameter's name, as the members' seals name it.")]
    members_with_parameter: Annotated[
        int,
        figure(
            "The members with a numeric value of the parameter and a Sharpe ratio.",
            term=terms.MEMBERS_WITH_PARAMETER,
        ),
    ]
    distinct_values: Annotated[
        int, figure("The parameter's distinct values among them.", term=terms.DISTINCT_VALUES)
    ]
    sharpe_spearman: Annotated[
        float | None,
        figure(
            "Spearman's rank correlation of the members' family_sharpe with the parameter's value (average ranks); "
            "null with a reason when the parameter takes one value, is not numeric or fewer than 3 members name it",
            "corr(rank(parameter), rank(family_sharpe))",
            term=terms.SHARPE_SPEARMAN,
        ),
    ]
    neighbour_deviation: Annotated[
        float | None,
        figure(
            "The neighbour-stability score: the mean absolute difference of a member's Sharpe ratio from the mean of "
            "its neighbours' (the members at the next lower and next higher value of the parameter, every other "
            "parameter equal), over the spread of the members' Sharpe ratios. 0: each equals its neighbours' mean "
            "(smooth); about 1: neighbours unrelated; null when no member has a neighbour",
            "mean_i |SR_i - mean(SR_neighbours(i))| / std(SR, ddof 1)",
            term=terms.NEIGHBOUR_DEVIATION,
        ),
    ]
    reason: Annotated[str | None, figure("Why sharpe_spearman is null (null when it is measured).")]


class FamilyTests(Body, kw_only=True, frozen=True):
    """Which members of the alpha's trial family beat the family's average (SPA, StepM) and which are
    indistinguishable from the best (MCS), over the members the key may read, and the stability of
    their Sharpe ratio across each parameter."""

    family: Annotated[
        str | None,
        figure("The trial family the alpha's seal names (null: it names none, and no figure is given)"),
    ]
    compared_members: Annotated[
        int,
        figure(
            "The family's members the key may read whose daily long_short returns are in the catalogue: the "
            "members compared (2 needed)",
            term=terms.COMPARED_MEMBERS,
        ),
    ]
    compared_sessions: Annotated[
        int,
        figure(
            "The sessions on which every compared member has a daily return (20 needed).",
            term=terms.COMPARED_SESSIONS,
        ),
    ]
    test_size: Annotated[
        float, figure("The level of StepM and of the model confidence set.", term=terms.TEST_SIZE)
    ]
    comparison_resamples: Annotated[
        int,
        figure(
            "Stationary-bootstrap resamples of the common sessions, one draw for every member.",
            term=terms.COMPARISON_RESAMPLES,
        ),
    ]
    comparison_block_length: Annotated[
        float | None,
        figure(
            "The resamples' mean block length: the mean over the members of Politis and White's automatic choice; "
            "null when not measurable",
            "mean_k b_PW(r_k)",
            term=terms.COMPARISON_BLOCK_LENGTH,
        ),
    ]
    spa_p_value: Annotated[
        AnalyticsStat,
        figure(
            "Hansen's SPA consistent p-value (studentized) of H0: no member's mean daily long_short return exceeds "
            "the family's (the benchmark: each session's equal-weighted mean of the members compared); below "
            "test_size, some variant beats the family's average after the search over its variants",
            "P*(max(max_k sqrt(T) (mean*(d_k) - mu_k) / omega_k, 0) > max(max_k sqrt(T) mean(d_k) / omega_k, 0)), "
            "d_k = r_k - mean_j r_j, mu_k = mean(d_k) when mean(d_k) >= -sqrt(omega_k^2 / T * 2 ln ln T), else 0",
            source=FAMILY_RETURNS,
            term=terms.SPA_P_VALUE,
        ),
    ]
    spa_p_value_lower: Annotated[
        AnalyticsStat,
        figure(
            "SPA's lower p-value: the resamples re-centred at max(mean(d_k), 0)",
            "as spa_p_value with mu_k = max(mean(d_k), 0)",
            source=FAMILY_RETURNS,
            term=terms.SPA_P_VALUE_LOWER,
        ),
    ]
    spa_p_value_upper: Annotated[
        AnalyticsStat,
        figure(
            "SPA's upper p-value (White's reality check, studentized): every member re-centred at its mean",
            "as spa_p_value with mu_k = mean(d_k)",
            source=FAMILY_RETURNS,
            term=terms.SPA_P_VALUE_UPPER,
        ),
    ]
    spa_p_value_monte_carlo_error: Annotated[
        float | None,
        figure(
            "The Monte Carlo standard error of spa_p_value; null when it is not measurable",
            "sqrt(p (1 - p) / B), B = comparison_resamples",
            term=terms.SPA_P_VALUE_MONTE_CARLO_ERROR,
        ),
    ]
    spa_p_value_lower_monte_carlo_error: Annotated[
        float | None,
        figure(
            "The Monte Carlo standard error of spa_p_value_lower; null when it is not measurable",
            "sqrt(p (1 - p) / B), B = comparison_resamples",
            term=terms.SPA_P_VALUE_LOWER_MONTE_CARLO_ERROR,
        ),
    ]
    spa_p_value_upper_monte_carlo_error: Annotated[
        float | None,
        figure(
            "The Monte Carlo standard error of spa_p_value_upper; null when it is not measurable",
            "sqrt(p (1 - p) / B), B = comparison_resamples",
            term=terms.SPA_P_VALUE_UPPER_MONTE_CARLO_ERROR,
        ),
    ]
    spa_within_monte_carlo_error: Annotated[
        bool | None,
        figure(
            "Whether spa_p_value lies within 2 Monte Carlo standard errors of test_size: whether it is below the "
            "cut-off is not settled by the resamples drawn (another seed could turn it); null when not measurable"
        ),
    ]
    members: Annotated[
        list[FamilyTestMember],
        figure("The family's members the key may read, in catalogue order, with their tests' figures."),
    ]
    parameters: Annotated[
        list[ParameterStability],
        figure("Each parameter the members' seals name, by name: its Sharpe ratio stability."),
    ]
