"""Schemathesis hooks of the fuzz runs (`SCHEMATHESIS_HOOKS=tests.fuzz.hooks`, set by the harness).

Four rules of the contract depend on more than one parameter or on the stored data, so no OpenAPI
schema can state them, and a request that satisfies every parameter's schema may still be a 400:
`from` after `to`, a screener's `min_X` above its `max_X` or its `correlated_to` without the
`max_correlation` it bounds, and a `book` the run did not simulate or the key may not see
(`unknown_book`). A positive case (one schemathesis expects to be accepted) is adjusted to respect
them: the window and each range are put in order, a `correlated_to` without its bound dropped, and
the book made one the server lists as readable for that route, its path
values and the key (dropped where the route takes none, added where it requires one):
`FUZZ_BOOKS_FILE`, written by the harness from the server's own answers. Its text values are also
shortened until the request target fits the server's cap (`within_target_cap`). The decision
routes' rules over the stored alphas and the operator's policy are kept likewise
(`decision_rules`, with `FUZZ_ALPHAS_FILE`: the alphas the key may read).
Negative cases are left as generated; they are refused for their own violation.
"""

from __future__ import annotations

import json
import os
import zlib
from functools import cache
from typing import Any
from urllib.parse import quote_plus, urlencode

import schemathesis

from core.settings import Settings
from schemas.wire import BASE_BOOKS
from serve.params import parse_date

BOOKS_FILE = "FUZZ_BOOKS_FILE"
ALPHAS_FILE = "FUZZ_ALPHAS_FILE"


def rule_key(template: str, path_values: dict[str, Any]) -> str:
    return template + json.dumps(sorted((k, str(v)) for k, v in path_values.items()))


@cache
def book_rules() -> dict[str, dict[str, Any]]:
    """The rules the harness recorded for the key of this run (tests.fuzz.harness.book_rules)."""
    path = os.environ.get(BOOKS_FILE)
    if not path:
        return {}
    with open(path) as handle:
        rules: dict[str, dict[str, Any]] = json.load(handle)
    return rules


@cache
def readable_alphas() -> tuple[str, ...]:
    """The alphas the run's key may read (`FUZZ_ALPHAS_FILE`, written by the harness)."""
    path = os.environ.get(ALPHAS_FILE)
    if not path:
        return ()
    with open(path) as handle:
        return tuple(json.load(handle))


def _pick(value: Any, choices: list[str]) -> str:
    """One of `choices`, picked by the generated value (stable)."""
    return choices[zlib.crc32(str(value).encode()) % len(choices)]


def decision_rules(path: str, query: dict[str, Any], path_values: dict[str, Any]) -> None:
    """The decision routes' rules no schema states (docs/analytics.md): the alphas named must exist
    and be readable (`with`, `reference`, `alphas`), `with` another alpha than the path's;
    `weights` only with weighting=given (one per alpha), `shrinkage` only with max_ir, no `fit_to`; a set's
    window must hold 20 common sessions, risk's, checks' and attribution's 2, compare's 3, quantiles' and factors' 2
    weeks, residual's 63 sessions (each dropped: a
    generated window rarely does), promotion_preview's `effective` likewise; overfitting's `splits` even;
    checks' bounds may only tighten the policy (each pulled to the default's side); capacity's `grid`
    and drawdown_odds' `depths` valid lists."""
    alphas = [a for a in readable_alphas() if a != path_values.get("alpha")]
    windowed = ("compare", "risk", "checks", "quantiles", "attribution", "factors", "residual", "capacity")
    if path.endswith(tuple(f"/analytics/{route}" for route in windowed)):
        # A window must hold the sessions the route's figures need (dropped: a generated window
        # rarely falls inside the history).
        query.pop("from", None), query.pop("to", None)
    if path.endswith("/analytics/compare"):
        if alphas and query.get("with") not in alphas:
            query["with"] = _pick(query.get("with"), alphas)
        if query.get("book") not in (None, *BASE_BOOKS):
            query.pop("book")  # a variant book the other alpha may not have simulated: a 400
    if path.endswith("/analytics/quantiles") and query.get("score") == "raw_score":
        query.pop("score")  # raw-book access only: a self-service key's 400 (tested in test_quantiles)
    if path.endswith("/analytics/residual") and "reference" in query:
        # The reference set names alphas the key may read (never the path's own alone).
        if alphas:
            query["reference"] = _pick(query["reference"], alphas)
        else:
            query.pop("reference")
    if path.endswith("/analytics/contribution"):
        query.pop("from", None), query.pop("to", None)
        if alphas:  # the default set (production alphas the key may read) may be empty: a 400
            query["reference"] = _pick(query.get("reference"), alphas)
            weighting_rule(query, 1)
        else:  # a weighting needs a reference
            for name in ("weighting", "weights", "shrinkage", "fit_to"):
                query.pop(name, None)
    if path.endswith("/analytics/combine"):
        query.pop("from", None), query.pop("to", None)
        if len(alphas) >= 2:
            first = _pick(query.get("alphas"), alphas)
            query["alphas"] = f"{first},{_pick(first + 'x', [a for a in alphas if a != first])}"
        weighting_rule(query, 2)
    # `as_of` must name a moment the lake keeps and not after now (dropped: a generated timestamp
    # rarely does; tests/pipeline/test_decisions.py and tests/api/test_as_of.py answer it).
    query.pop("as_of", None)
    if path.endswith("/analytics/promotion_preview"):
        # `effective` must leave the checks' window sessions to measure (dropped: a generated date
        # rarely falls inside the history).
        query.pop("effective", None)
    if path.endswith("/analytics/overfitting") and "splits" in query:
        # S is even (S/2 blocks in sample, S/2 out): the schema states the range only.
        try:
            splits = int(query["splits"])
        except (TypeError, ValueError):
            splits = None
        if splits is not None and splits % 2:
            query["splits"] = splits - 1 if splits > 4 else splits + 1
    if path.endswith("/analytics/capacity") and "grid" in query:
        # At most 25 capitals, each in [1, 1e15]: the schema says only that it is text.
        query["grid"] = _pick(query["grid"], ["1e6", "1e7,1e9", "2.5e8,1e6,3e10"])
    if path.endswith("/analytics/drawdown_odds") and "depths" in query:
        # At most 12 depths, each in (0, 1): the schema says only that it is text.
        query["depths"] = _pick(query["depths"], ["0.1", "0.05,0.2", "0.3,0.5,0.9"])
    if path.endswith("/analytics/checks"):
        from analytics.policy import CHECKS

        for check in CHECKS:
            for side, parameter in check.parameters.items():
                if parameter not in query:
                    continue
                try:
                    asked = float(query[parameter])
                except (TypeError, ValueError):
                    continue
                default = check.defaults.get(side)  # None: an optional check, off: any bound turns it on
                if default is not None and (asked < default if side == "min" else asked > default):
                    query[parameter] = repr(default)
            if len(check.parameters) == 2:  # a band: a tightened side past the other's default
                query.pop(check.parameters["min"], None), query.pop(check.parameters["max"], None)


def weighting_rule(query: dict[str, Any], members: int) -> None:
    """`weights` only with weighting=given (one per member, summing to 1), `shrinkage` only with
    weighting=max_ir: combine's rule, which contribution shares. `fit_to` is dropped: a generated
    date rarely leaves 20 common sessions on each side of it."""
    weighting = str(query.get("weighting", "equal")).strip().lower()
    if weighting == "given":
        query["weights"] = ",".join([repr(1 / members)] * members)
    else:
        query.pop("weights", None)
    if weighting != "max_ir":
        query.pop("shrinkage", None)
    query.pop("fit_to", None)


def _is_positive(case: Any) -> bool:
    meta = getattr(case, "meta", None)
    return meta is not None and meta.generation.mode.is_positive


def ordered_window(query: dict[str, Any]) -> None:
    start, end = query.get("from"), query.get("to")
    if not isinstance(start, str) or not isinstance(end, str):
        return
    first, last = parse_date(start), parse_date(end)
    if first is not None and last is not None and first > last:
        query["from"], query["to"] = end, start


def ordered_ranges(query: dict[str, Any]) -> None:
    """Swap each `min_X` / `max_X` pair given out of order and drop a `correlated_to` without
    `max_correlation` (the screener's rules)."""
    for name in [k for k in query if k.startswith("min_")]:
        upper = "max_" + name.removeprefix("min_")
        low, high = query.get(name), query.get(upper)
        try:
            swapped = float(low) > float(high)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            continue
        if swapped:
            query[name], query[upper] = high, low
    if "max_correlation" not in query:
        query.pop("correlated_to", None)


def readable_book(query: dict[str, Any], rule: dict[str, Any]) -> None:
    """Drop a book the route refuses; add a required one; replace an unreadable one by a readable
    book picked by the generated value (stable)."""
    if not rule.get("accepted", True):
        query.pop("book", None)
        return
    available = rule["available"]
    if not available:
        return
    book = query.get("book")
    if book is None:
        if rule["required"]:
            query["book"] = available[0]
    elif book not in available:
        query["book"] = available[zlib.crc32(str(book).encode()) % len(available)]


TARGET_CAP = Settings().max_request_target_bytes
"""The request-target cap of the fuzzed server (its default; 414 above it, declared on every route)."""
TARGET_MARGIN = 512
"""Bytes left for the path and for encodings other than `urlencode`'s (schemathesis' client)."""


def within_target_cap(path: str, query: dict[str, Any], cap: int = TARGET_CAP) -> None:
    """Shorten the longest text values until the encoded request target fits under `cap`: each
    free-text parameter may be up to 200 characters, and the screener's five, URL-encoded as 4-byte
    characters (12 bytes each), would make a 12,000-byte target, which the server refuses with 414
    before reading any parameter. A positive case is one the server must accept, so it stays under
    the cap; the 414 itself is tested in tests/e2e/test_refusal_contract.py."""
    while len(path) + 1 + len(urlencode(query, doseq=True)) > cap - TARGET_MARGIN:
        texts = [name for name, value in query.items() if isinstance(value, str) and value]
        if not texts:
            return
        longest = max(texts, key=lambda name: len(quote_plus(query[name])))
        query[longest] = query[longest][: len(query[longest]) // 2]


@schemathesis.hook
def map_case(context: Any, case: Any) -> Any:
    if not _is_positive(case) or not isinstance(case.query, (dict, type(None))):
        return case
    query = dict(case.query or {})
    ordered_window(query)
    ordered_ranges(query)
    path_values = case.path_parameters if isinstance(case.path_parameters, dict) else {}
    decision_rules(case.operation.path, query, path_values)
    if case.operation.path == "/v1/events":
        query.pop("after", None)  # a cursor must be one the service wrote: no schema can say so
    rule = book_rules().get(rule_key(case.operation.path, path_values))
    if rule is not None:
        readable_book(query, rule)
    within_target_cap(str(case.formatted_path), query)
    if query != (case.query or {}):
        case.query = query  # a dict, never None: the checks copy it
    return case
