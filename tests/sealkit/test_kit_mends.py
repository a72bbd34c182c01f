"""The seal kit's review mends: a book name cannot leave the seal, one home for the trade variants'
phases and a fill's session, hostile frames refused by name (`BuildError`), non-finite figures
refused, and the check's command line naming an unreadable seal with exit 2."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pyarrow as pa
import pytest

from alpha_results_seal.builders import Book, BuildError, Facts, SealTables, write_seal, write_tables

FACTS = Facts("Test_x", "1.0", dt.datetime(2024, 1, 2, tzinfo=dt.UTC))


@pytest.mark.parametrize("book", ["../../../escaped", "a/b", "..", "", "Long", "x" * 65, "/abs"])
def test_a_book_name_outside_the_manifests_rule_is_refused_before_anything_is_written(
    tmp_path: Path, book: str
) -> None:
    dest = tmp_path / "trav" / "sub" / "seal"
    with pytest.raises(BuildError, match="book name") as refused:
        write_seal(str(dest), FACTS, None, {book: Book(None, None)})
    assert repr(book) in str(refused.value)
    assert list(tmp_path.rglob("*")) == []


def test_a_hand_assembled_seal_with_a_path_outside_it_is_refused(tmp_path: Path) -> None:
    built = SealTables({"portfolio/../../escaped.parquet": pa.table({"a": [1]})}, {"books": []})
    with pytest.raises(BuildError, match="escaped"):
        write_tables(built, str(tmp_path / "seal"))
    assert list(tmp_path.rglob("*")) == []


def _check(seal: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(Path(sys.executable).parent / "alpha-results-seal"), "check", seal],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


@pytest.mark.s3
def test_a_seal_in_a_missing_bucket_is_one_line_and_exit_2(s3_endpoint: str) -> None:
    seal = f"s3://no-such-bucket-{uuid.uuid4().hex[:8]}/seal"
    done = _check(seal, dict(os.environ))
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().count("\n") == 0 and seal in done.stderr
    assert done.stdout == ""


@pytest.mark.s3
def test_a_seal_on_s3_without_credentials_is_one_line_naming_the_cause_and_exit_2(
    s3_endpoint: str, tmp_path: Path
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    missing = str(tmp_path / "none")
    env |= {
        "AWS_ENDPOINT_URL": s3_endpoint,
        "AWS_SHARED_CREDENTIALS_FILE": missing,
        "AWS_CONFIG_FILE": missing,
        "AWS_EC2_METADATA_DISABLED": "true",
    }
    done = _check("s3://any-bucket/seal", env)
    assert done.returncode == 2, done.stderr
    assert done.stderr == (
        "alpha-results-seal check: s3://any-bucket/seal could not be read: "
        "NoCredentialsError: Unable to locate credentials\n"
    )


def test_a_seal_behind_an_endpoint_that_does_not_answer_is_one_line_and_exit_2(tmp_path: Path) -> None:
    from tests.s3_server import S3_ENV, free_port

    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env |= S3_ENV | {"AWS_ENDPOINT_URL": f"http://127.0.0.1:{free_port()}"}  # nothing listens
    done = _check("s3://a-bucket/seal", env)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(
        "alpha-results-seal check: s3://a-bucket/seal could not be read: EndpointConnectionError: "
    )
    assert done.stderr.count("\n") == 1
