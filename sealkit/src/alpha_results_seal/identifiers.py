"""The identifiers a seal names and the lake files them under: declared here, in the kit, because
a research team's seal is checked against them without the server; `datasets.layout`,
`schemas.query` and `schemas.wire` import them from here."""

from __future__ import annotations

import re

# Matched whole (`fullmatch`): `re.match` with `$` lets a trailing newline through.
ALPHA_ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")
BENCHMARK_SYMBOL_PATTERN = re.compile(r"[A-Z][A-Z0-9.]{0,15}")
FAMILY_PATTERN = re.compile(r"[a-z][a-z0-9_]{0,63}")
"""A trial family's slug (a manifest's `family`, `/v1/families?family=`): the catalogue groups the
alphas that name it (docs/seal.md "Trial families")."""
TICKER = r"[A-Za-z0-9][A-Za-z0-9._-]{0,23}"
"""A name's symbol (a seal's `symbol` column, a `symbol` query parameter's ticker)."""

BENCHMARK_SYMBOLS = ("SPY",)
MARKET_BENCHMARK = BENCHMARK_SYMBOLS[0]
"""The benchmark the decision routes measure a book against (risk's beta, combine's curve)."""


def check_alpha_id(alpha_id: str) -> str:
    if not ALPHA_ID_PATTERN.fullmatch(alpha_id):
        raise ValueError(f"alpha_id {alpha_id!r} does not match {ALPHA_ID_PATTERN.pattern}")
    return alpha_id


def join(*parts: str) -> str:
    """A storage path from parts: one `/` between each, none doubled."""
    return "/".join(p.strip("/") if i else p.rstrip("/") for i, p in enumerate(parts) if p != "")
