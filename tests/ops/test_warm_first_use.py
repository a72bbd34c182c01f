"""A worker's warm-up pays every first-use cost of the significance answer (issue 81, item 10).

Before, the warm-up answered the significance of one alpha (the first by id with analytics tables)
and so paid only what that alpha's numbers asked: the Harvey-Liu haircut's simulated panel of the
catalogue's M tests is asked only for a positive Sharpe ratio, and the bootstrap's kept streams grow
with the history resampled. Over 150 alphas whose first had a negative Sharpe ratio, the first
significance of a positive one after a start paid the panel (about 0.4 s of CPU on a loaded
machine, 199-209 ms of wall on a quiet one against 57 before). The durations are in
docs/benchmarks.md; what is checked here is the cause: after `warm`, the caches those costs fill
are full, for the M a reader of every alpha is answered."""

from __future__ import annotations

from pathlib import Path

from analytics import bootstrap, haircut, uncertainty
from analytics.figures import Figures
from datasets.reader import LakeReader
from serve.warm import warm, warm_alpha


def test_after_the_warm_up_the_haircut_panel_and_the_kept_streams_are_made(demo_lake: Path) -> None:
    haircut._panel.cache_clear()
    bootstrap._prefix.cache_clear()
    reader = LakeReader(str(demo_lake))
    reader.refresh()
    try:
        warm(reader)
        alpha = warm_alpha(reader)
        assert alpha is not None
        tests = Figures(reader).reading().seen(alpha).sharpe_variance_alphas
        assert tests >= 2 and haircut.simulations_for(tests) > 0
        made = haircut._panel.cache_info().misses
        # A haircut among the catalogue's M tests, of a Sharpe ratio every alpha could have: its
        # panel is the one the warm-up made (no new panel simulated).
        found = haircut.haircut_sharpe(0.08, 1000, 252, 0.0, tests)
        assert found is not None and found.simulations == haircut.simulations_for(tests)
        assert haircut._panel.cache_info().misses == made
        for stream in uncertainty.STREAM_IDS:
            kept = bootstrap._prefix(bootstrap.SEED, stream)
            assert kept.values.size == bootstrap.KEPT_UNIFORMS, stream
    finally:
        reader.close()
