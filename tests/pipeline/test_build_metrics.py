"""`alpha-results build --metrics-file PATH` (docs/operations.md "Monitoring"): each run adds its
seals by outcome to the counters of a node-exporter textfile that the next run reads back."""

from __future__ import annotations

from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from cli.main import main


def samples(path: Path) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(path.read_text())
        for sample in family.samples
    }


def seals(path: Path) -> dict[str, float]:
    return {
        labels[0][1]: value
        for (name, labels), value in samples(path).items()
        if name == "alpha_results_build_seals_total"
    }


def test_runs_add_their_seals_to_the_counters(factory_seal: Path, tmp_path: Path) -> None:
    lake, metrics = tmp_path / "lake", tmp_path / "textfile" / "alpha_results_build.prom"
    broken = tmp_path / "Test_broken"
    broken.mkdir()
    (broken / "manifest.json").write_text("{}")
    argv = ["build", str(factory_seal), str(broken), "--lake", str(lake), "--jobs", "1"]
    assert main([*argv, "--metrics-file", str(metrics)]) == 1  # a refused seal fails the run
    assert seals(metrics) == {"published": 1, "unchanged": 0, "refused": 1, "failed": 0}
    first = samples(metrics)[("alpha_results_build_last_run_timestamp_seconds", ())]

    assert main(["build", str(factory_seal), "--lake", str(lake), "--metrics-file", str(metrics)]) == 0
    assert seals(metrics) == {"published": 1, "unchanged": 1, "refused": 1, "failed": 0}
    assert samples(metrics)[("alpha_results_build_last_run_timestamp_seconds", ())] >= first
    assert samples(metrics)[("alpha_results_build_catalogue_step_failures_total", ())] == 0
    assert not list(metrics.parent.glob("*.tmp"))  # written whole, then renamed
