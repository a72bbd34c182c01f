"""docs/notebooks/quickstart.ipynb runs top to bottom against a test server, with the URL and the
token passed as the notebook expects them (ALPHA_RESULTS_URL, ALPHA_RESULTS_TOKEN)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.client.conftest import Api, Key

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

NOTEBOOK = Path(__file__).resolve().parents[2] / "docs" / "notebooks" / "quickstart.ipynb"


def test_the_quickstart_notebook_runs(
    api: Api, plain_key: Key, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The dev extra installs these: a missing one is a broken setup, never a skip.
    import ipykernel  # noqa: F401
    import matplotlib  # noqa: F401
    import nbclient
    import nbformat

    monkeypatch.setenv("ALPHA_RESULTS_URL", api.base_url)
    monkeypatch.setenv("ALPHA_RESULTS_TOKEN", plain_key.token)
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel's inline backend draws the figures
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    assert not any(cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code"), (
        "commit the notebook without outputs"
    )
    nbclient.NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    outputs = [output for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    images = [o for o in outputs if o.output_type == "display_data" and "image/png" in o.get("data", {})]
    assert len(images) == 2  # the equity curve against SPY, the IC deciles
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert "unknown_book - readable books:" in text and "mean weekly IC" in text
    assert plain_key.token.partition(".")[2] not in str(outputs)
