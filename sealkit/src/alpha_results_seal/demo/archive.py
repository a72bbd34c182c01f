"""The alpha's source archive (`source.zip`) and the manifest's record of it.

The zip is byte-for-byte deterministic: fixed member order, fixed timestamps and permissions,
so the recorded size and sha256 are stable across runs with the same inputs.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from typing import Any

from alpha_results_seal.demo.alphas import AlphaSpec

FIXED_TIMESTAMP = (2026, 1, 1, 0, 0, 0)


def _signal_source(spec: AlphaSpec) -> str:
    return (
        f'"""{spec.name}: weekly raw score and its smoothing."""\n\n'
        "import numpy as np\n\n"
        f"HALF_LIFE_WEEKS = {spec.half_life_weeks}\n\n\n"
        "def smooth(raw_by_week):\n"
        "    decay = 0.5 ** (1.0 / HALF_LIFE_WEEKS)\n"
        "    state = None\n"
        "    for raw in raw_by_week:\n"
        "        state = raw if state is None else decay * state + (1 - decay) * raw\n"
        "        yield state\n\n\n"
        "def rank_descending(scores):\n"
        "    return (-np.asarray(scores)).argsort().argsort() + 1\n"
    )


def archive_bytes(spec: AlphaSpec) -> bytes:
    members = {
        "README.md": f"# {spec.name}\n\n{spec.tldr or ''}\n\nSignal: `{spec.signal}`, smoothing half-life "
        f"{spec.half_life_weeks} weeks. Rebalanced weekly at the close; books act at the next open.\n",
        "params.json": json.dumps(
            {
                "signal": spec.signal,
                "half_life_weeks": spec.half_life_weeks,
                "long_short_tail": 0.1,
                "long_only_tail": 0.2,
            },
            indent=2,
            sort_keys=True,
        )
        + "\n",
        "signal.py": _signal_source(spec),
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name in sorted(members):
            info = zipfile.ZipInfo(f"{spec.alpha_id}/{name}", date_time=FIXED_TIMESTAMP)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, members[name])
    return buffer.getvalue()


def archive_record(spec: AlphaSpec) -> tuple[dict[str, Any] | None, bytes | None]:
    """The manifest's `source_archive` record and the zip to write into the seal (None when the
    seal carries no zip: not packaged, failed, or delivered but absent)."""
    filename = f"{spec.alpha_id}.zip"
    if spec.archive == "none":
        return None, None
    if spec.archive in ("packaging", "failed"):
        return {"status": spec.archive, "filename": filename, "size_bytes": None, "sha256": None}, None
    data = archive_bytes(spec)
    record = {
        "status": "ready",
        "filename": filename,
        "size_bytes": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
    }
    return record, (data if spec.archive == "ready" else None)
