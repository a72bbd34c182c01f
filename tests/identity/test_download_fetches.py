"""The fetch cap of signed download URLs at the store level, on SQLite and PostgreSQL: one count per
URL shared by every connection (worker, machine), atomic under concurrency, surviving a restart,
keyed by a hash of the signature, and purged once the URL has expired."""

from __future__ import annotations

import hashlib
from concurrent.futures import ThreadPoolExecutor

import pytest

from access import open_store
from access.download_fetches import (
    FETCH_UNITS,
    PURGE_GRACE_SECONDS,
    PURGE_INTERVAL_SECONDS,
    DownloadFetches,
    range_units,
)
from access.store import SqlKeyStore

NOW = 1_750_000_000.0
EXPIRES = int(NOW) + 3600
SIGNATURE = "ab" * 32  # the shape of a URL's signature: 64 lowercase hex digits
OTHER_SIGNATURE = "cd" * 32


def stored_rows(store: SqlKeyStore) -> list[tuple[object, ...]]:
    rows, _ = store._execute("SELECT signature_sha256, url_expires, fetches FROM download_fetch_units")
    return rows


def test_a_url_answers_its_limit_then_is_refused_and_refusals_consume_nothing(store: SqlKeyStore) -> None:
    fetches = DownloadFetches(store, limit=3)
    assert [fetches.count_fetch(SIGNATURE, EXPIRES, NOW) for _ in range(5)] == [1, 2, 3, None, None]
    assert stored_rows(store) == [(hashlib.sha256(SIGNATURE.encode()).hexdigest(), EXPIRES, 3 * FETCH_UNITS)]
    # The refused fetches added nothing: a limit one higher grants exactly one more.
    raised = DownloadFetches(store, limit=4)
    assert [raised.count_fetch(SIGNATURE, EXPIRES, NOW) for _ in range(2)] == [4, None]
    # Another URL has a count of its own.
    assert fetches.count_fetch(OTHER_SIGNATURE, EXPIRES, NOW) == 1


def test_the_signature_itself_is_never_stored(store: SqlKeyStore) -> None:
    DownloadFetches(store, limit=5).count_fetch(SIGNATURE, EXPIRES, NOW)
    assert SIGNATURE not in repr(stored_rows(store))


def test_every_connection_shares_one_count_and_it_survives_a_restart(
    store: SqlKeyStore, store_url: str
) -> None:
    """Two stores on one database stand for two workers (or machines); closing and reopening one
    stands for a restart."""
    other = open_store(store_url)
    try:
        first, second = DownloadFetches(store, limit=4), DownloadFetches(other, limit=4)
        assert first.count_fetch(SIGNATURE, EXPIRES, NOW) == 1
        assert second.count_fetch(SIGNATURE, EXPIRES, NOW) == 2
        assert first.count_fetch(SIGNATURE, EXPIRES, NOW) == 3
    finally:
        other.close()
    restarted = open_store(store_url)
    try:
        again = DownloadFetches(restarted, limit=4)
        assert again.count_fetch(SIGNATURE, EXPIRES, NOW) == 4
        assert again.count_fetch(SIGNATURE, EXPIRES, NOW) is None
    finally:
        restarted.close()


def test_concurrent_fetches_over_two_connections_never_exceed_the_limit(
    store: SqlKeyStore, store_url: str
) -> None:
    other = open_store(store_url)
    try:
        counters = [DownloadFetches(store, limit=5), DownloadFetches(other, limit=5)]
        with ThreadPoolExecutor(max_workers=8) as pool:
            answers = list(
                pool.map(lambda i: counters[i % 2].count_fetch(SIGNATURE, EXPIRES, NOW), range(40))
            )
    finally:
        other.close()
    assert sorted(a for a in answers if a is not None) == [1, 2, 3, 4, 5]
    assert answers.count(None) == 35
    assert stored_rows(store)[0][2] == 5 * FETCH_UNITS


def test_byte_ranges_count_their_share_of_the_file(store: SqlKeyStore) -> None:
    """A reader of Parquet over HTTP fetches ranges: a URL serves at most `limit` times its file's
    bytes however they are asked for (a third of the file is a third of a fetch, rounded up)."""
    fetches = DownloadFetches(store, limit=2)
    size = 3_000_000
    third = range_units(size // 3, size)
    assert third == FETCH_UNITS // 3 + 1  # rounded up: 333.33 units -> 334
    assert range_units(1, size) == 1  # the smallest range still counts
    assert range_units(size, size) == FETCH_UNITS
    # Five thirds fit under two fetches (5 x 334 = 1670 <= 2000), a sixth does not (2004).
    answers = [fetches.count_fetch(SIGNATURE, EXPIRES, NOW, third) for _ in range(7)]
    assert answers == [1, 1, 2, 2, 2, None, None]
    # What is left (330 units) still serves small ranges (a footer), never a whole fetch.
    assert fetches.count_fetch(SIGNATURE, EXPIRES, NOW, range_units(65_536, size)) == 2
    assert fetches.count_fetch(SIGNATURE, EXPIRES, NOW) is None


def test_rows_of_expired_urls_are_purged_after_the_grace(store: SqlKeyStore) -> None:
    fetches = DownloadFetches(store, limit=5)
    fetches.count_fetch(SIGNATURE, EXPIRES, NOW)
    fetches.count_fetch(OTHER_SIGNATURE, EXPIRES + 3600, NOW)
    assert fetches.purge_expired(EXPIRES + PURGE_GRACE_SECONDS) == 0  # within the grace: kept
    assert fetches.purge_expired(EXPIRES + PURGE_GRACE_SECONDS + 1) == 1
    assert [row[1] for row in stored_rows(store)] == [EXPIRES + 3600]


def test_a_fetch_purges_opportunistically_at_most_once_per_interval(store: SqlKeyStore) -> None:
    old_expiry = int(NOW) - PURGE_GRACE_SECONDS - 10  # a URL long expired
    store._execute(
        "INSERT INTO download_fetch_units (signature_sha256, url_expires, fetches) VALUES (?, ?, ?)",
        ("0" * 64, old_expiry, 5),
    )
    fetches = DownloadFetches(store, limit=5)
    fetches.count_fetch(SIGNATURE, EXPIRES, NOW)  # the first fetch of a process purges
    assert {row[0] for row in stored_rows(store)} == {hashlib.sha256(SIGNATURE.encode()).hexdigest()}
    store._execute(
        "INSERT INTO download_fetch_units (signature_sha256, url_expires, fetches) VALUES (?, ?, ?)",
        ("1" * 64, old_expiry, 5),
    )
    fetches.count_fetch(SIGNATURE, EXPIRES, NOW + PURGE_INTERVAL_SECONDS - 1)  # not due yet
    assert len(stored_rows(store)) == 2
    fetches.count_fetch(SIGNATURE, EXPIRES, NOW + PURGE_INTERVAL_SECONDS)  # due again
    assert len(stored_rows(store)) == 1


def test_a_limit_below_one_is_refused(store: SqlKeyStore) -> None:
    with pytest.raises(ValueError):
        DownloadFetches(store, limit=0)
