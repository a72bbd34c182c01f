"""Decision analytics: see docs/analytics.md. (Filled in by the issue-24 work.)"""

from __future__ import annotations

from typing import Any

ROUTES: list[Any] = []
