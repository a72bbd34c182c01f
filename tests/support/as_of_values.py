"""Values of `as_of`: the reported and further ones that name no real moment (each with the rule
its refusal names), and a hypothesis strategy of generated ones, mostly in range."""

from __future__ import annotations

from hypothesis import strategies as st

REPORTED = {  # audit 7's examples: each was 200 as "now" or a 500
    "2021-11-31T15:00:00Z": "names no calendar date",
    "2021-13-01T15:00:00Z": "names no calendar date",
    "2021-02-30T15:00:00Z": "names no calendar date",
    "2021-06-01T24:00:00Z": "names no time of day",
    "0000-06-01T15:00:00Z": "names no calendar date",
    "2021-06-01T15:00:00+25:00": "offsets run from -18:00 to +18:00",
    "٢٠٢١-٠٦-٠١T15:00:00Z": "ASCII digits",
    "0001-01-01T00:00:00+01:00": "outside years 0001-9999",
    "9999-12-31T23:59:59-01:00": "outside years 0001-9999",
}
MORE = {
    "2021-06-01T15:60:00Z": "names no time of day",
    "2021-06-01T15:00:60Z": "names no time of day",
    "2021-06-01T15:00:00+18:01": "offsets run from -18:00 to +18:00",
    "2021-06-01T15:00:00+05:60": "offsets run from -18:00 to +18:00",
    "2021-06-01T15:00:00": "with its offset",
    "2021-06-01 15:00:00Z": "with its offset",
    "2021-06-01T15:00:00.1234567Z": "with its offset",
    "2021-06-01T15:00:00z": "with its offset",
    "2021-06-01T15:00:00Z ": "with its offset",
    "2021-06-01T1５:00:00Z": "ASCII digits",  # a full-width digit
}


DIGIT = st.sampled_from("0123456789")
ANY_DIGIT = st.one_of(DIGIT, DIGIT, DIGIT, st.sampled_from("٠١٢٣٤٥٦٧٨٩０１２９۵"))


def digits(count: int) -> st.SearchStrategy[str]:
    return st.lists(ANY_DIGIT, min_size=count, max_size=count).map("".join)


def near(low: int, high: int, width: int) -> st.SearchStrategy[str]:
    """A field mostly in its range, sometimes just past it, sometimes any digits."""
    return st.one_of(
        st.integers(low, high).map(lambda n: str(n).zfill(width)),
        st.integers(max(0, low - 1), high + 2).map(lambda n: str(n).zfill(width)),
        digits(width),
    )


MOMENTS = st.builds(
    lambda y, mo, d, h, mi, s, frac, off: f"{y}-{mo}-{d}T{h}:{mi}:{s}{frac}{off}",
    st.one_of(near(1, 9999, 4), st.sampled_from(["0000", "0001", "9999"])),
    near(1, 12, 2),
    near(1, 31, 2),
    near(0, 23, 2),
    near(0, 59, 2),
    near(0, 59, 2),
    st.one_of(st.just(""), st.integers(1, 7).flatmap(digits).map(lambda f: "." + f)),
    st.one_of(
        st.just("Z"),
        st.builds(lambda sign, h, m: f"{sign}{h}:{m}", st.sampled_from("+-"), near(0, 18, 2), near(0, 59, 2)),
    ),
)
