"""Clamping of a key to its account ceiling, against a brute-force reference."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from access.access import callable_endpoints, clamp, ip_allowed
from access.records import (
    ADMIN_CEILING,
    DEFAULT_KEY_GRANTS,
    RESTRICTED,
    SELF_SERVICE_GRANTS,
    AccountRecord,
    Grants,
)
from core.context import AllowList
from schemas.registry import ADMIN_IDS, ALL_IDS

SAMPLE_IDS = [
    "Test_",
    "Test_a",
    "Test_ab",
    "Test_b",
    "Test_mom_v2",
    "Tes",
    "Prod_a",
    "Prod_ab",
    "Prod_b",
    "a",
    "ab",
    "b",
    "",
]
SAMPLE_PREFIXES = ["Test_", "Test_a", "Te", "Prod_", "Prod_a", "a", ""]


def account(role: str = "member", ceiling: Grants = SELF_SERVICE_GRANTS) -> AccountRecord:
    return AccountRecord("u_1", "m@example.com", role, "active", ceiling, datetime(2025, 1, 1, tzinfo=UTC))


def allow_lists() -> st.SearchStrategy[AllowList]:
    return st.one_of(
        st.just(AllowList.all()),
        st.lists(st.sampled_from(SAMPLE_IDS), max_size=5).map(AllowList.of_ids),
        st.lists(st.sampled_from(SAMPLE_PREFIXES), max_size=3).map(AllowList.of_prefixes),
    )


@settings(max_examples=400)
@given(key=allow_lists(), ceiling=allow_lists())
def test_intersection_permits_exactly_what_both_permit(key: AllowList, ceiling: AllowList) -> None:
    clamped = clamp(Grants(key, key, key, False), account(ceiling=Grants(ceiling, ceiling, ceiling, False)))
    for allow in (clamped.alphas, clamped.runs):
        for candidate in SAMPLE_IDS:
            assert allow.permits(candidate) == (key.permits(candidate) and ceiling.permits(candidate)), (
                candidate
            )


KINDS = {
    "all": AllowList.all(),
    "list": AllowList.of_ids(["Test_a", "Prod_a", "b"]),
    "prefix": AllowList.of_prefixes(["Test_", "Prod_a"]),
}


@pytest.mark.parametrize(("key_kind", "ceiling_kind"), list(itertools.product(KINDS, KINDS)))
def test_clamping_table(key_kind: str, ceiling_kind: str) -> None:
    """Every pair of modes, spelled out: the 3x3 table of the docs."""
    key, ceiling = KINDS[key_kind], KINDS[ceiling_kind]
    clamped = clamp(
        Grants(key, key, key, True), account(ceiling=Grants(ceiling, ceiling, ceiling, True))
    ).alphas
    permitted = sorted(i for i in {*SAMPLE_IDS, "Test_a_x"} if clamped.permits(i))
    expected = {
        ("all", "all"): None,  # everything
        ("all", "list"): ["Prod_a", "Test_a", "b"],
        ("all", "prefix"): [
            "Prod_a",
            "Prod_ab",
            "Test_",
            "Test_a",
            "Test_a_x",
            "Test_ab",
            "Test_b",
            "Test_mom_v2",
        ],
        ("list", "all"): ["Prod_a", "Test_a", "b"],
        ("list", "list"): ["Prod_a", "Test_a", "b"],
        ("list", "prefix"): ["Prod_a", "Test_a"],
        ("prefix", "all"): [
            "Prod_a",
            "Prod_ab",
            "Test_",
            "Test_a",
            "Test_a_x",
            "Test_ab",
            "Test_b",
            "Test_mom_v2",
        ],
        ("prefix", "list"): ["Prod_a", "Test_a"],
        ("prefix", "prefix"): [
            "Prod_a",
            "Prod_ab",
            "Test_",
            "Test_a",
            "Test_a_x",
            "Test_ab",
            "Test_b",
            "Test_mom_v2",
        ],
    }[(key_kind, ceiling_kind)]
    if expected is None:
        assert clamped.mode == "all"
    else:
        assert permitted == expected


def test_mode_all_gives_the_ceiling_as_is() -> None:
    ceiling = Grants(AllowList.of_ids(["meta.me", "catalog.alphas.list"]), AllowList.of_prefixes(["Test_"]),
                     AllowList.of_ids(["Test_a"]), True)  # fmt: skip
    everything = Grants(AllowList.all(), AllowList.all(), AllowList.all(), True)
    assert clamp(everything, account(ceiling=ceiling)) == ceiling


def test_a_meta_only_ceiling_stays_meta_only() -> None:
    everything = Grants(AllowList.all(), AllowList.all(), AllowList.all(), True)
    clamped = clamp(everything, account())
    assert callable_endpoints(clamped.endpoints, is_admin=False) == ["meta.health", "meta.keys", "meta.me"]
    assert clamped.expose_raw_book is False
    assert not clamped.alphas.permits("Prod_momentum")


@pytest.mark.parametrize(
    "key_endpoints",
    [AllowList.all(), AllowList.of_ids(sorted(ADMIN_IDS)), AllowList.of_prefixes(["admin."])],
)
def test_admin_routes_are_never_callable_from_a_member_account(key_endpoints: AllowList) -> None:
    open_ceiling = Grants(AllowList.all(), AllowList.all(), AllowList.all(), True)
    for ceiling in (
        open_ceiling,
        Grants(AllowList.of_ids(list(ALL_IDS)), AllowList.all(), AllowList.all(), True),
    ):
        clamped = clamp(
            Grants(key_endpoints, AllowList.all(), AllowList.all(), True), account(ceiling=ceiling)
        )
        callable_ids = callable_endpoints(clamped.endpoints, is_admin=False)
        assert not set(callable_ids) & ADMIN_IDS
    member_all = callable_endpoints(AllowList.all(), is_admin=False)
    assert member_all == sorted(set(ALL_IDS) - ADMIN_IDS)


def test_admin_account_gets_admin_routes_only_when_the_key_names_them() -> None:
    admin = account(role="admin")  # stored ceiling is self-service; the role overrides it
    assert admin.effective_ceiling == ADMIN_CEILING
    everything = Grants(AllowList.all(), AllowList.all(), AllowList.all(), True)
    assert callable_endpoints(clamp(everything, admin).endpoints, is_admin=True) == sorted(ALL_IDS)
    assert clamp(everything, admin).alphas.permits("Prod_x") and clamp(everything, admin).expose_raw_book
    meta_only = clamp(SELF_SERVICE_GRANTS, admin)
    assert callable_endpoints(meta_only.endpoints, is_admin=True) == ["meta.health", "meta.keys", "meta.me"]


@pytest.mark.parametrize(("key_raw", "ceiling_raw"), list(itertools.product([True, False], repeat=2)))
def test_raw_book_needs_both_flags(key_raw: bool, ceiling_raw: bool) -> None:
    ceiling = Grants(AllowList.all(), AllowList.all(), AllowList.all(), ceiling_raw)
    key = Grants(AllowList.all(), AllowList.all(), AllowList.all(), key_raw)
    assert clamp(key, account(ceiling=ceiling)).expose_raw_book is (key_raw and ceiling_raw)


def test_callable_endpoints_are_sorted_registry_ids() -> None:
    allow = AllowList.of_ids(["performance.metrics", "meta.me", "not.in.registry", "catalog.alphas.list"])
    assert callable_endpoints(allow, is_admin=False) == [
        "catalog.alphas.list",
        "meta.me",
        "performance.metrics",
    ]


@pytest.mark.parametrize(
    ("allow", "ip", "expected"),
    [
        (None, "198.51.100.1", True),
        (("198.51.100.0/24",), "198.51.100.255", True),
        (("198.51.100.0/24",), "198.51.101.0", False),
        (("198.51.100.7/32",), "198.51.100.7", True),
        (("2001:db8::/48",), "2001:db8:0:1::5", True),
        (("2001:db8::/48",), "2001:db8:1::5", False),
        (("198.51.100.0/24",), "::ffff:198.51.100.3", True),
        (("198.51.100.0/24",), "", False),
        (("198.51.100.0/24",), "unknown", False),
    ],
)
def test_ip_allowed(allow: tuple[str, ...] | None, ip: str, expected: bool) -> None:
    assert ip_allowed(allow, ip) is expected


@pytest.mark.parametrize(
    ("alpha", "restricted"),
    [
        ("momentum_12_1", True),
        ("value_composite_legacy", True),
        ("Test_planted_factor", False),
        ("test_x", True),
    ],
)
def test_restricted_alphas_are_those_without_the_open_prefix(alpha: str, restricted: bool) -> None:
    """The spec's access rule has its own name (issue 47, item 1): an id not starting with `Test_`
    is restricted, read only by an administrator's grant; a new account's ceiling and a key created
    without grants admit exactly the others. The id approves nothing: production is the approved
    standing, which only a decision gives (docs/analytics.md, "The reference set")."""
    assert (alpha in RESTRICTED) is restricted
    for grants in (SELF_SERVICE_GRANTS, DEFAULT_KEY_GRANTS):
        assert grants.alphas == grants.runs == RESTRICTED.open_alphas()
        assert grants.alphas.permits(alpha) is not restricted


def test_the_access_docs_name_restricted_alphas_never_production() -> None:
    """docs/access.md and docs/security.md call the prefix rule "restricted alphas": "production"
    is the approved set, not an access rule."""
    docs = Path(__file__).parents[2] / "docs"
    access = (docs / "access.md").read_text()
    assert "**Restricted alphas** (ids not starting with `Test_`: `access.records.RESTRICTED`)" in access
    for name in ("access.md", "security.md"):
        text = (docs / name).read_text()
        assert "Production alphas (ids" not in text and "sealed production set" not in text, name
