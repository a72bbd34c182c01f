"""Clamping a key to its account: what a key may actually do, computed on every request.

effective = key grants ∩ account ceiling, per allow-list, and raw-book = key flag AND ceiling
flag. A key with `mode: all` therefore gets the ceiling as is. An admin account's ceiling is
`mode: all` everywhere with raw allowed (read live from the role). Administrative endpoints are
never callable from a non-admin account, whatever both lists say.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from functools import lru_cache

from access.records import AccountRecord, Grants, KeyRecord
from core.context import AllowList, Caller
from schemas.registry import ADMIN_IDS, ALL_IDS


def clamp(key_grants: Grants, account: AccountRecord) -> Grants:
    return _effective(key_grants, account.effective_ceiling, account.is_admin)[0]


def endpoint_allow(ids: Iterable[str]) -> AllowList:
    """The endpoint allow-list of `ids`, registry ids. Raises ValueError naming the ids the registry
    does not know (and the ones it does)."""
    named = list(ids)
    unknown = sorted(set(named) - set(ALL_IDS))
    if unknown:
        raise ValueError(f"unknown endpoint id(s): {', '.join(unknown)} (known: {', '.join(ALL_IDS)})")
    return AllowList.of_ids(named)


def callable_endpoints(
    endpoints: AllowList, is_admin: bool, registry_ids: Iterable[str] = ALL_IDS
) -> list[str]:
    """Registry ids an (already clamped) endpoint allow-list opens, sorted."""
    return sorted(i for i in registry_ids if endpoints.permits(i) and (is_admin or i not in ADMIN_IDS))


@lru_cache(maxsize=1024)
def _effective(key_grants: Grants, ceiling: Grants, is_admin: bool) -> tuple[Grants, frozenset[str]]:
    """The clamped grants and the endpoints they open: a pure function of values read live, so
    identical inputs (every request of one key) skip the set arithmetic."""
    effective = Grants(
        endpoints=key_grants.endpoints.intersect(ceiling.endpoints),
        alphas=key_grants.alphas.intersect(ceiling.alphas),
        runs=key_grants.runs.intersect(ceiling.runs),
        expose_raw_book=key_grants.expose_raw_book and ceiling.expose_raw_book,
    )
    return effective, frozenset(callable_endpoints(effective.endpoints, is_admin))


def build_caller(key: KeyRecord, account: AccountRecord, client_ip: str) -> Caller:
    effective, endpoints = _effective(key.grants, account.effective_ceiling, account.is_admin)
    return Caller(
        key_id=key.key_id,
        key_name=key.name,
        user_id=account.user_id,
        email=account.email,
        role=account.role,
        is_admin=account.is_admin,
        endpoints=endpoints,
        endpoint_allow=effective.endpoints,
        alphas=effective.alphas,
        runs=effective.runs,
        expose_raw_book=effective.expose_raw_book,
        ip=client_ip,
        rate_limit=key.rate_limit.to_wire(),
        account_rate_limit=None if account.pooled_limit is None else account.pooled_limit.to_wire(),
    )


def ip_allowed(ip_allow: tuple[str, ...] | None, client_ip: str) -> bool:
    """None allows any address; otherwise the address must fall in one entry (address or CIDR)."""
    if ip_allow is None:
        return True
    try:
        address = ipaddress.ip_address(client_ip.strip())
    except ValueError:
        return False
    candidates: list[ipaddress.IPv4Address | ipaddress.IPv6Address] = [address]
    # An IPv4 client seen through a dual-stack socket arrives as ::ffff:a.b.c.d.
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        candidates.append(address.ipv4_mapped)
    networks = [ipaddress.ip_network(entry, strict=False) for entry in ip_allow]
    return any(candidate in network for candidate in candidates for network in networks)
