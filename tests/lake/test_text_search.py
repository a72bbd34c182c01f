"""The listing's trigram index (datasets/text_search.py, issue 51): the rows it finds are exactly
the rows a substring match over every text finds, for needles of every length, with the
separator, non-ASCII text, nulls and empty strings; and `Listing.select` with a search is the
brute-force filter, with a readable mask and `complete_only`."""

from __future__ import annotations

import random

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from datasets.served import SEPARATOR, Listing
from datasets.text_search import TrigramIndex

ALPHABET = "abcé#1 _-ü"


def _texts(rng: random.Random, count: int) -> list[str | None]:
    found: list[str | None] = []
    for _ in range(count):
        if rng.random() < 0.05:
            found.append(None if rng.random() < 0.5 else "")
            continue
        parts = ["".join(rng.choice(ALPHABET) for _ in range(rng.randrange(0, 12))) for _ in range(3)]
        found.append(SEPARATOR.join(parts))
    return found


def _brute(texts: list[str | None], needle: str) -> list[int]:
    return [row for row, text in enumerate(texts) if text is not None and needle in text]


def test_the_rows_found_are_the_substring_matches() -> None:
    rng = random.Random(51)
    texts = _texts(rng, 600)
    array = pa.array(texts, pa.string())
    index = TrigramIndex.of(array)
    needles = ["", "a", "é", "ab", "#1", "abc", "üü", "a b", "zzz", SEPARATOR, "a" + SEPARATOR + "b"]
    for text in rng.sample([t for t in texts if t], 80):
        start = rng.randrange(len(text))
        needles.append(text[start : start + rng.randrange(1, 9)])
    for needle in needles:
        if not needle:
            continue
        found = index.find(array, needle)
        assert found.tolist() == _brute(texts, needle), needle
        assert (
            found.tolist()
            == np.flatnonzero(
                pc.fill_null(pc.match_substring(array, needle), False).to_numpy(zero_copy_only=False)
            ).tolist()
        )


def test_candidates_hold_every_match() -> None:
    texts = ["momentum value", "value carry", "carry momentum", "mom", "entum"]
    index = TrigramIndex.of(pa.array(texts))
    candidates = index.candidates("momentum")
    assert candidates is not None and set(_brute(texts, "momentum")) <= set(candidates.tolist())
    assert index.candidates("mo") is None  # no trigram: matched over every row
    assert index.candidates("xyz") is not None and not index.candidates("xyz").size  # type: ignore[union-attr]


def test_an_empty_text_or_one_without_trigrams() -> None:
    for texts in ([], ["ab"], ["a\x00b\x00c"], [None, ""]):
        array = pa.array(texts, pa.string())
        index = TrigramIndex.of(array)
        for needle in ("ab", "abc", "a"):
            assert index.find(array, needle).tolist() == _brute(texts, needle)


def test_listing_select_with_a_search_is_the_brute_force_filter() -> None:
    rng = random.Random(7)
    count = 400
    ids = [f"alpha_{i:04d}" for i in range(count)]
    names = [rng.choice([None, "Momentum Value", "Carry #1", "Ünïcode Reversal", "value"]) for _ in ids]
    tldrs = [rng.choice([None, "", "a weekly momentum signal", "CARRY and value"]) for _ in ids]
    complete = [rng.random() < 0.7 for _ in ids]
    listing = Listing.of(ids, ["b"] * count, names, tldrs, complete)
    assert listing.search is not None
    texts = [
        SEPARATOR.join(v.casefold() for v in (alpha, str(name or alpha), tldr or ""))
        for alpha, name, tldr in zip(ids, names, tldrs, strict=True)
    ]
    readable = [rng.random() < 0.8 for _ in ids]
    for needle in ("momentum", "value", "carry #1", "ünï", "alpha_00", "_01", "a", "zz", "0042"):
        for mask in (None, readable):
            for complete_only in (False, True):
                found = listing.select(None if mask is None else pa.array(mask), complete_only, needle)
                expected = [
                    row
                    for row, text in enumerate(texts)
                    if needle in text and (mask is None or mask[row]) and (not complete_only or complete[row])
                ]
                assert list(found) == expected, (needle, mask is None, complete_only)
