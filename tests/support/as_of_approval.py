"""The demo's approval of the alpha the `as_of` tests ask about, read from its records with
sqlite3."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

ALPHA = "momentum_12_1"  # nominated by its seal, approved with an override, then restated


def approval(records: Path) -> dict[str, Any]:
    with sqlite3.connect(records) as db:
        row = db.execute(
            "SELECT snapshot, recorded_at FROM promotions WHERE alpha_id = ? AND action = 'approved' ORDER BY id LIMIT 1",
            (ALPHA,),
        ).fetchone()
    assert row is not None
    return {"snapshot": json.loads(row[0]), "recorded_at": row[1]}
