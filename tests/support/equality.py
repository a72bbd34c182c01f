"""The recorded answers (tests/equality/recorded.jsonl.gz) and the differences between a recorded
body and today's, floats within the tolerance."""

from __future__ import annotations

import gzip
import json
import math
from collections.abc import Iterator
from typing import Any

from tests.equality.record import RECORDED

# Floats compare within a relative tolerance that fits the figures, never to the last bit. The
# recording was made on one CPU; the demo lake is rebuilt from seeded seals on the machine running
# the test, and numpy's SIMD kernels (AVX-512, AVX2, SSE) round the simulated ledger's reductions
# differently: measured, at most a few 1e-16 relative on values of order 1, growing to 1.4e-12
# through ill-conditioned figures (below). The equity curve's running products also multiply in
# another order than the recording's DuckDB did (2.2e-16). Relative 1e-9 is far above all of that
# and far below anything a user could see; a wrong row, column or sign is many orders above it,
# and every other value (strings, integers, nulls, order, keys) compares exactly.
# `just test-portable` runs the suite with numpy's dispatch narrowed to older CPUs.
REL_TOL = 1e-9
# Ill-conditioned figures, compared on a scale that is not. MinTRL = 1 + k (z / (SR - SR*))^2
# magnifies the rounding of the Sharpe ratio by 2 SR / (SR - SR*) (1.4e-12 relative on
# Test_short_term_reversal's 3,067,053 sessions). (MinTRL)^(-1/2) is proportional to SR - SR*,
# a per-session Sharpe gap of order 0.01-1 whose rounding is ordinary: it must agree within REL_TOL
# of the unit Sharpe scale (absolute), which still tells a wrong MinTRL by far.
ILL_CONDITIONED = {".min_track_record.value", ".min_track_record.years"}
# Object keys must come in the recorded order (the body's bytes, not only its value).
COMPARE_KEY_ORDER = True
MAX_DIFFS = 20


def _short(value: Any, width: int = 120) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= width else text[: width - 3] + "..."


def _floats_equal(a: float, b: float, where: str = "") -> bool:
    if a == b:
        return True
    if math.isnan(a) or math.isnan(b):
        return False
    if where.endswith(tuple(ILL_CONDITIONED)) and a > 0 and b > 0:
        return abs(a**-0.5 - b**-0.5) <= REL_TOL
    return abs(a - b) <= REL_TOL * max(1.0, abs(a), abs(b))


def differences(old: Any, new: Any, where: str, out: list[str], limit: int = MAX_DIFFS) -> None:
    """Append `where: recorded ... now ...` for each differing JSON path, up to `limit` entries."""
    if len(out) >= limit:
        return
    if isinstance(old, bool) or isinstance(new, bool) or type(old) is not type(new):
        if type(old) is not type(new) or old != new:
            out.append(f"{where}: recorded {_short(old)} != now {_short(new)}")
        return
    if isinstance(old, float):
        if not _floats_equal(old, new, where):
            out.append(f"{where}: recorded {old!r} != now {new!r} (diff {new - old:.3g})")
        return
    if isinstance(old, dict):
        missing = [k for k in old if k not in new]
        extra = [k for k in new if k not in old]
        if missing or extra:
            out.append(f"{where}: keys missing now {missing}, new keys {extra}")
        elif COMPARE_KEY_ORDER and list(old) != list(new):
            out.append(f"{where}: key order recorded {list(old)} != now {list(new)}")
        for key in old:
            if key in new:
                differences(old[key], new[key], f"{where}.{key}", out, limit)
        return
    if isinstance(old, list):
        if len(old) != len(new):
            out.append(f"{where}: recorded {len(old)} items != now {len(new)}")
        for index, (a, b) in enumerate(zip(old, new, strict=False)):
            differences(a, b, f"{where}[{index}]", out, limit)
        return
    if old != new:
        out.append(f"{where}: recorded {_short(old)} != now {_short(new)}")


def recorded_lines() -> Iterator[dict[str, Any]]:
    with gzip.open(RECORDED, "rt", encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)
