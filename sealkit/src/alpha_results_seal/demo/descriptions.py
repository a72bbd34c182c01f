"""Written descriptions (`description.json`) of the demo alphas.

Every key of the spec's "Alpha description" table is present; a partly sealed description
carries null for what the engine did not seal. `data_requirements` holds exactly one of the
counts form (`lookback_bars`, `warmup_bars`) or the prose `history_requirement`; the other is null.
"""

from __future__ import annotations

from typing import Any

from alpha_results_seal.demo.alphas import AlphaSpec

COPYRIGHT = "Copyright (c) 2026 Demo Research Ltd. Synthetic data; for demonstration only."

PRICE_FIELDS = [
    {"name": "open", "category": "price", "required": True},
    {"name": "close", "category": "price", "required": True},
    {"name": "dollar_volume", "category": "liquidity", "required": True},
    {"name": "borrow_available", "category": "borrow", "required": False},
]


def _parameter(
    name: str,
    type_: str,
    default: Any,
    search: list[Any],
    range_: list[float],
    unit: str,
    description: str,
    selected: dict[str, str | None],
) -> dict[str, Any]:
    return {
        "name": name,
        "type": type_,
        "default": default,
        "search_values": search,
        "range": range_,
        "tunable": len(search) > 1,
        "unit": unit,
        "description": description,
        "selected_value_by_test_year": selected,
    }


def _selected(years: list[str], values: list[str | None]) -> dict[str, str | None]:
    return {year: values[i % len(values)] for i, year in enumerate(years)}


def _counts(lookback: int, warmup: int) -> dict[str, Any]:
    return {
        "universe": "US listed common stocks, demo universe",
        "granularity": "daily",
        "lookback_bars": lookback,
        "warmup_bars": warmup,
        "adjustment": "split_and_dividend_adjusted",
        "fields": PRICE_FIELDS,
        "history_requirement": None,
    }


def _history(text: str) -> dict[str, Any]:
    return {
        "universe": "US listed common stocks, demo universe",
        "granularity": "daily",
        "lookback_bars": None,
        "warmup_bars": None,
        "adjustment": "split_and_dividend_adjusted",
        "fields": PRICE_FIELDS + [{"name": "book_value", "category": "fundamental", "required": True}],
        "history_requirement": text,
    }


def _signal(direction: str, math: str, logic: str, pseudocode: list[str]) -> dict[str, Any]:
    return {
        "score_direction": direction,
        "decision_timing": "Scores are computed at the close of the last session of each week; books act at the next open.",
        "core_math_framework": math,
        "signal_logic": logic,
        "pseudocode": pseudocode,
        "validity_rules": [
            "A name without a price at the decision close has no score that week.",
            "Names untradeable at the next open keep a score but get zero target weight.",
            "A week with constant scores or too few scored tradeable names is not traded.",
        ],
        "output_contract": "One conditioned score per scored name per week; higher means more attractive.",
    }


def _content(spec: AlphaSpec, years: list[str]) -> dict[str, Any]:
    hl = str(int(spec.half_life_weeks))
    if spec.signal == "momentum_12_1":
        return {
            "structure": "cross_sectional_long_short",
            "method": "price_momentum",
            "thesis": {
                "hypothesis": "Stocks with high returns over the past twelve months, excluding the most recent month, outperform over the following weeks.",
                "mechanism": "Investors underreact to gradual news flow, so prices drift in the direction of past performance.",
                "who_loses": "Contrarian holders and investors anchored to stale valuations who sell winners too early.",
                "economic_rationale": "Slow diffusion of information and the disposition effect delay price adjustment.",
                "falsification_criteria": [],
            },
            "signal": _signal(
                "higher_is_long",
                "log(close[t-21]) - log(close[t-252]), smoothed exponentially across weeks",
                "Rank names by their 12-1 month log return; hold the top decile long and the bottom decile short.",
                [
                    "r = log(close[t-21] / close[t-252])",
                    f"score = ewm(r, halflife={hl} weeks)",
                    "rank descending",
                ],
            ),
            "parameters": [
                _parameter(
                    "lookback_sessions",
                    "int",
                    252,
                    [189, 252],
                    [126.0, 378.0],
                    "sessions",
                    "Length of the formation window.",
                    _selected(years, ["252", "252", "189"]),
                ),
                _parameter(
                    "skip_sessions",
                    "int",
                    21,
                    [0, 21],
                    [0.0, 42.0],
                    "sessions",
                    "Most recent sessions excluded to avoid short-term reversal.",
                    _selected(years, ["21"]),
                ),
                _parameter(
                    "half_life_weeks",
                    "float",
                    spec.half_life_weeks,
                    [2, 4, 8],
                    [1.0, 12.0],
                    "weeks",
                    "Half-life of the exponential smoothing of the raw score.",
                    _selected(years, [hl]),
                ),
            ],
            "data_requirements": _counts(252, 273),
            "source_papers": [
                {
                    "title": "Returns to Buying Winners and Selling Losers: Implications for Stock Market Efficiency",
                    "published_date": "1993-03-01",
                    "role": "seed",
                    "rationale": "Documents the 12-month momentum premium this alpha implements.",
                },
                {
                    "title": "Momentum Crashes",
                    "published_date": "2016-11-01",
                    "role": "contradiction",
                    "rationale": "Shows the strategy's severe losses after market rebounds.",
                },
                {
                    "title": "Value and Momentum Everywhere",
                    "published_date": "2013-06-01",
                    "role": "validation",
                    "rationale": "Finds the effect across asset classes and markets.",
                },
            ],
        }
    if spec.signal == "planted_factor":
        return {
            "structure": "cross_sectional_long_short",
            "method": "synthetic_factor",
            "thesis": {
                "hypothesis": "A persistent per-name characteristic planted in the demo market predicts next-week returns.",
                "mechanism": "The simulator adds a small drift proportional to the characteristic to each name's next-week return.",
                "who_loses": "Nobody: the effect is synthetic and exists to validate the measurement stack.",
                "economic_rationale": "A known, planted effect lets the metrics be checked against a ground truth.",
                "falsification_criteria": [],
            },
            "signal": _signal(
                "higher_is_long",
                "noisy observation of an AR(1) characteristic, smoothed exponentially",
                "Rank names by the observed characteristic; the smoothing averages out the observation noise.",
                ["x = observe(latent) + noise", f"score = ewm(x, halflife={hl} weeks)", "rank descending"],
            ),
            "parameters": [
                _parameter(
                    "half_life_weeks",
                    "float",
                    spec.half_life_weeks,
                    [2, 4, 6],
                    [1.0, 12.0],
                    "weeks",
                    "Half-life of the exponential smoothing.",
                    _selected(years, [hl, "4", "6"]),
                ),
            ],
            "data_requirements": _counts(1, 5),
            "source_papers": [
                {
                    "title": "Fundamental Law of Active Management",
                    "published_date": "1989-01-01",
                    "role": "seed",
                    "rationale": "Relates information coefficient and breadth to the expected information ratio.",
                },
            ],
        }
    if spec.signal == "short_term_reversal":
        return {
            "structure": "cross_sectional_long_short",
            "method": "price_reversal",
            "thesis": {
                "hypothesis": "Last week's losers outperform last week's winners over the next week.",
                "mechanism": "Liquidity providers are paid to absorb temporary order imbalances that overshoot prices.",
                "who_loses": "Impatient traders demanding immediacy in one direction.",
                "economic_rationale": "Compensation for providing liquidity against transient price pressure.",
                "falsification_criteria": [],
            },
            "signal": None,
            "parameters": [
                _parameter(
                    "formation_sessions",
                    "int",
                    5,
                    [5, 10],
                    [3.0, 20.0],
                    "sessions",
                    "Sessions over which the past return is measured.",
                    _selected(years, ["5", None]),
                ),
                _parameter(
                    "half_life_weeks",
                    "float",
                    spec.half_life_weeks,
                    [1, 2],
                    [1.0, 4.0],
                    "weeks",
                    "Half-life of the exponential smoothing.",
                    {y: None for y in years},
                ),
            ],
            "data_requirements": _counts(5, 10),
            "source_papers": [
                {
                    "title": "Evidence of Predictable Behavior of Security Returns",
                    "published_date": "1990-07-01",
                    "role": "seed",
                    "rationale": "Documents weekly and monthly return reversals.",
                },
                {
                    "title": "Short-Term Return Reversals and Liquidity Provision",
                    "published_date": None,
                    "role": "mechanism",
                    "rationale": None,
                },
            ],
        }
    if spec.signal == "low_volatility":
        return {
            "structure": "cross_sectional_long_short",
            "method": "risk_anomaly",
            "thesis": {
                "hypothesis": "Low-volatility stocks deliver higher risk-adjusted returns than high-volatility stocks.",
                "mechanism": "Leverage-constrained investors bid up high-beta, high-volatility names.",
                "who_loses": "Investors who reach for volatility in place of leverage.",
                "economic_rationale": "Betting-against-beta: constraints distort the risk-return trade-off.",
                "falsification_criteria": [],
            },
            "signal": _signal(
                "higher_is_long",
                "minus the 60-session idiosyncratic volatility (daily log returns net of beta x market)",
                "Rank names by negative idiosyncratic volatility, so the long/short book is roughly beta-neutral.",
                [
                    "r = diff(log(close))[-60:]",
                    "m = mean(r over the universe)",
                    "v = std(r - beta(r, m) * m)",
                    "score = ewm(-v)",
                    "rank descending",
                ],
            ),
            "parameters": [
                _parameter(
                    "window_sessions",
                    "int",
                    60,
                    [20, 60, 120],
                    [20.0, 250.0],
                    "sessions",
                    "Volatility estimation window.",
                    _selected(years, ["60", "120"]),
                ),
            ],
            "data_requirements": _counts(60, 80),
            "source_papers": [
                {
                    "title": "Betting Against Beta",
                    "published_date": "2014-01-01",
                    "role": "seed",
                    "rationale": "Explains the low-risk anomaly through leverage constraints.",
                },
            ],
        }
    if spec.signal == "momentum_reversal_blend":
        return {
            "structure": "cross_sectional_long_short",
            "method": "blend",
            "thesis": {
                "hypothesis": "Medium-term momentum and short-term reversal are distinct effects whose blend diversifies.",
                "mechanism": "Underreaction over months, overreaction over days.",
                "who_loses": "Liquidity demanders in the short run, slow updaters over the year.",
                "economic_rationale": "Two weakly correlated premia combine into a steadier one.",
                "falsification_criteria": [],
            },
            "signal": _signal(
                "higher_is_long",
                "0.5 z(momentum 12-1) + 0.5 z(minus one-week return)",
                "Equal-weight blend of the standardised signals.",
                ["m = z(mom_12_1)", "r = z(-ret_1w)", "score = ewm(0.5*m + 0.5*r)"],
            ),
            "parameters": [
                _parameter(
                    "blend_weight",
                    "float",
                    0.5,
                    [0.25, 0.5, 0.75],
                    [0.0, 1.0],
                    "ratio",
                    "Weight of momentum in the blend.",
                    _selected(years, ["0.5"]),
                ),
            ],
            "data_requirements": _counts(252, 273),
            "source_papers": [
                {
                    "title": "Returns to Buying Winners and Selling Losers: Implications for Stock Market Efficiency",
                    "published_date": "1993-03-01",
                    "role": "seed",
                    "rationale": "Momentum leg.",
                },
                {
                    "title": "Evidence of Predictable Behavior of Security Returns",
                    "published_date": "1990-07-01",
                    "role": "mechanism",
                    "rationale": "Reversal leg.",
                },
            ],
        }
    return {
        "structure": "cross_sectional_long_short",
        "method": "fundamental_value",
        "thesis": {
            "hypothesis": "Stocks cheap on a composite of book-to-price, earnings yield and cash-flow yield outperform.",
            "mechanism": "Investors extrapolate past growth and overprice glamour stocks.",
            "who_loses": "Growth-chasing investors paying for optimistic extrapolation.",
            "economic_rationale": "Distress risk premium and behavioural overextrapolation.",
            "falsification_criteria": [],
        },
        "signal": _signal(
            "higher_is_long",
            "average of cross-sectional z-scores of valuation ratios",
            "Rank names by the composite; slow smoothing because accounting data updates quarterly.",
            ["c = mean(z(bp), z(ey), z(cfy))", f"score = ewm(c, halflife={hl} weeks)", "rank descending"],
        ),
        "parameters": [
            _parameter(
                "half_life_weeks",
                "float",
                spec.half_life_weeks,
                [4, 8, 13],
                [1.0, 26.0],
                "weeks",
                "Half-life of the exponential smoothing.",
                _selected(years, ["8", "13"]),
            ),
        ],
        "data_requirements": _history(
            "Five years of quarterly fundamentals with point-in-time reporting dates."
        ),
        "source_papers": [
            {
                "title": "The Cross-Section of Expected Stock Returns",
                "published_date": "1992-06-01",
                "role": "seed",
                "rationale": "Establishes book-to-market as a predictor.",
            },
            {
                "title": "Contrarian Investment, Extrapolation, and Risk",
                "published_date": "1994-12-01",
                "role": "mechanism",
                "rationale": "Attributes the premium to extrapolation.",
            },
        ],
    }


def description(spec: AlphaSpec, years: list[str]) -> dict[str, Any] | None:
    """The sealed description, or None when the engine sealed none. `years` are the test years."""
    if spec.description == "none":
        return None
    content = _content(spec, years)
    partial = spec.description == "partial"
    return {
        "algo_id": spec.alpha_id,
        "alpha_id": spec.alpha_id,
        "name": spec.name,
        "tldr": spec.tldr,
        "copyright": None if partial else COPYRIGHT,
        "classification": {
            "structure": content["structure"],
            "method": content["method"],
            "frequency": ["weekly"] if partial else ["daily", "weekly"],
            "tags": list(spec.tags),
        },
        "thesis": content["thesis"],
        "signal": content["signal"],
        "parameters": content["parameters"],
        "data_requirements": content["data_requirements"],
        "source_papers": content["source_papers"],
    }
