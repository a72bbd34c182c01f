"""The usage ledger in the key store, on SQLite and PostgreSQL, against the in-process ledger as
the reference: counts never go down, an admission counts in both windows or in neither."""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from access import open_store
from access.usage_ledger import SqlUsageLedger
from serve.limits import MemoryLedger

DAY, NEXT_DAY, MONTH = 1_893_456_000, 1_893_542_400, 1_893_456_000


@pytest.fixture(params=["memory", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def ledger(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    if request.param == "memory":
        yield MemoryLedger()
        return
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path}/keys.sqlite3"
    else:
        url = str(request.getfixturevalue("postgres_schema_url"))
    store = open_store(url)
    yield SqlUsageLedger(store)
    store.close()


def test_nothing_recorded_reads_zero(ledger: Any) -> None:
    assert ledger.read("k1", DAY, MONTH) == (0, 0)


def test_raise_to_never_lowers_a_count(ledger: Any) -> None:
    assert ledger.raise_to([("k1", DAY, 7, MONTH, 40)]) == {"k1": (7, 40)}
    assert ledger.raise_to([("k1", DAY, 3, MONTH, 50)]) == {"k1": (7, 50)}
    assert ledger.read("k1", DAY, MONTH) == (7, 50)
    # A new day starts from zero; the month goes on.
    assert ledger.raise_to([("k1", NEXT_DAY, 2, MONTH, 52)]) == {"k1": (2, 52)}
    assert ledger.read("k1", DAY, MONTH) == (7, 52)


def test_raise_to_many_keys_in_one_call(ledger: Any) -> None:
    rows = [(f"k{i}", DAY, i, MONTH, 10 * i) for i in range(450)]  # more than one statement's worth
    recorded = ledger.raise_to(rows)
    assert recorded == {f"k{i}": (i, 10 * i) for i in range(450)}
    assert ledger.read("k449", DAY, MONTH) == (449, 4490)


def admit_one(ledger: Any, key: str, day: int, per_day: int | None, per_month: int | None) -> tuple[Any, ...]:
    """One envelope's admission, as `(admitted, day, month)`."""
    admitted, [(day_count, month_count)] = ledger.admit([(key, per_day, per_month)], day, MONTH)
    return admitted, day_count, month_count


def test_admit_counts_both_windows_or_neither(ledger: Any) -> None:
    assert admit_one(ledger, "k1", DAY, 2, 3) == (True, 1, 1)
    assert admit_one(ledger, "k1", DAY, 2, 3) == (True, 2, 2)
    assert admit_one(ledger, "k1", DAY, 2, 3) == (False, 2, 2)  # day full: the month is not counted
    assert admit_one(ledger, "k1", NEXT_DAY, 2, 3) == (True, 1, 3)
    assert admit_one(ledger, "k1", NEXT_DAY, 2, 3) == (False, 1, 3)  # month full: the day is not counted
    assert ledger.read("k1", NEXT_DAY, MONTH) == (1, 3)
    assert admit_one(ledger, "k2", DAY, 5, None) == (True, 1, 1)  # no monthly quota
    assert admit_one(ledger, "k3", DAY, None, None) == (True, 1, 1)  # no limit at all (a pool without a cap)


def test_admit_counts_every_envelope_or_none(ledger: Any) -> None:
    """A key's and its account's pooled windows: counted together, refused when either is full, and
    then counted in neither (issue 80, item 3)."""
    key_a, key_b, pool = ("key_a", 10, None), ("key_b", 10, None), ("pool_1", 3, None)
    assert ledger.admit([key_a, pool], DAY, MONTH) == (True, [(1, 1), (1, 1)])
    assert ledger.admit([key_b, pool], DAY, MONTH) == (True, [(1, 1), (2, 2)])
    assert ledger.admit([key_a, pool], DAY, MONTH) == (True, [(2, 2), (3, 3)])
    # The pool's day is full: refused, and neither the key's nor the pool's count moved.
    assert ledger.admit([key_b, pool], DAY, MONTH) == (False, [(1, 1), (3, 3)])
    assert ledger.read("key_b", DAY, MONTH) == (1, 1)
    # The key's own day full refuses as well, the pool (without a cap) untouched.
    key_c, uncapped = ("key_c", 1, None), ("pool_2", None, None)
    assert ledger.admit([key_c, uncapped], DAY, MONTH) == (True, [(1, 1), (1, 1)])
    assert ledger.admit([key_c, uncapped], DAY, MONTH) == (False, [(1, 1), (1, 1)])
    assert ledger.read("pool_2", DAY, MONTH) == (1, 1)


def test_admit_matches_the_reference_on_random_sequences(ledger: Any) -> None:
    reference = MemoryLedger()
    chooser = random.Random(7)
    for _ in range(300):
        key = chooser.choice(["a", "b"])
        day = chooser.choice([DAY, NEXT_DAY])
        if chooser.random() < 0.2:
            row = (key, day, chooser.randrange(0, 12), MONTH, chooser.randrange(0, 30))
            assert ledger.raise_to([row]) == reference.raise_to([row])
        else:
            month_limit = chooser.choice([None, 25, 40])
            envelopes = [(key, 10, month_limit)]
            if chooser.random() < 0.5:
                envelopes.append(("pool", chooser.choice([None, 15]), chooser.choice([None, 60])))
            expected = reference.admit(envelopes, day, MONTH)
            assert ledger.admit(envelopes, day, MONTH) == expected


def test_concurrent_admissions_stop_at_the_quota(store_url: str) -> None:
    """Two store connections (two workers) admitting at once: the day quota of 50 is reached
    and, on one database, not passed by more than the number of concurrent writers."""
    stores = [open_store(store_url) for _ in range(2)]
    ledgers = [SqlUsageLedger(store) for store in stores]
    admitted = [0, 0]

    def worker(index: int) -> None:
        for _ in range(40):
            if ledgers[index].admit([("busy", 50, None)], DAY, MONTH)[0]:
                admitted[index] += 1

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    day, month = ledgers[0].read("busy", DAY, MONTH)
    assert day == month == sum(admitted)
    bound = 0 if store_url.startswith("sqlite") else len(stores) - 1
    assert 50 <= sum(admitted) <= 50 + bound
    for store in stores:
        store.close()
