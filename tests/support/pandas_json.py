"""A pandas cell as the JSON spells it."""

from __future__ import annotations

import math
from datetime import UTC, date, datetime
from typing import Any

import pandas as pd


def json_of(value: Any) -> Any:
    """A pandas cell as the JSON spells it: null for NaN/NaT/None, dates YYYY-MM-DD, timestamps
    ISO UTC at seconds, numpy scalars as Python values."""
    if value is None or value is pd.NaT or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, pd.Timestamp):
        return value.tz_convert(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(value, datetime):
        return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(value, date):
        return value.isoformat()
    return value.item() if hasattr(value, "item") else value
