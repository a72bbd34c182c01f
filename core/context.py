"""Who is calling: the caller as the request path sees it after authentication.

Authentication (serve/auth) builds one `Caller` per request, already clamped to the account
ceiling, and keeps it on the request's `serve.exchange.Exchange`. Handlers never read keys or accounts; they ask
the caller (`may_call`, `may_read_alpha`, `may_read_run`, `expose_raw_book`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    import pyarrow as pa

AllowMode = Literal["all", "list", "prefix"]


@dataclass(frozen=True)
class AllowList:
    """`{mode: all}`, `{mode: list, ids}` or `{mode: prefix, prefixes}`."""

    mode: AllowMode
    ids: tuple[str, ...] = ()
    prefixes: tuple[str, ...] = ()

    @classmethod
    def all(cls) -> AllowList:
        return cls("all")

    @classmethod
    def of_ids(cls, ids: list[str] | tuple[str, ...]) -> AllowList:
        return cls("list", ids=tuple(sorted(set(ids))))

    @classmethod
    def of_prefixes(cls, prefixes: list[str] | tuple[str, ...]) -> AllowList:
        return cls("prefix", prefixes=tuple(sorted(set(prefixes))))

    @classmethod
    def from_wire(cls, value: dict[str, Any]) -> AllowList:
        mode = value.get("mode")
        if mode == "all":
            return cls.all()
        if mode == "list":
            return cls.of_ids([str(v) for v in value.get("ids", [])])
        if mode == "prefix":
            return cls.of_prefixes([str(v) for v in value.get("prefixes", [])])
        raise ValueError(f"allow-list mode must be one of all, list, prefix; got {mode!r}")

    def to_wire(self) -> dict[str, Any]:
        if self.mode == "all":
            return {"mode": "all"}
        if self.mode == "list":
            return {"mode": "list", "ids": list(self.ids)}
        return {"mode": "prefix", "prefixes": list(self.prefixes)}

    def mask(self, values: pa.Array) -> pa.Array | None:
        """`permits` of every value, vectorised; None when every value is permitted."""
        # Start-up time: the operator CLI (`keys`, `accounts`) imports this module and starts without
        # numpy and pyarrow (tests/identity/test_cli_start.py).
        import numpy as np
        import pyarrow as pa
        import pyarrow.compute as pc

        if self.mode == "all":
            return None
        if self.mode == "list":
            return pc.is_in(values, value_set=pa.array(self.ids, pa.string()))
        # One kernel pass per prefix, never a Python object per value (catalogues of 10,000 alphas).
        found: pa.Array | None = None
        for prefix in self.prefixes:
            starts = pc.starts_with(values, prefix)
            found = starts if found is None else pc.or_(found, starts)
        return pa.array(np.zeros(len(values), dtype=bool)) if found is None else found

    def permits(self, value: str) -> bool:
        if self.mode == "all":
            return True
        if self.mode == "list":
            return value in self.ids
        return any(value.startswith(p) for p in self.prefixes)

    def intersect(self, ceiling: AllowList) -> AllowList:
        """The largest allow-list permitted by both; exact for every pair of modes."""
        if self.mode == "all":
            return ceiling
        if ceiling.mode == "all":
            return self
        if self.mode == "list":
            return AllowList.of_ids([i for i in self.ids if ceiling.permits(i)])
        if ceiling.mode == "list":
            return AllowList.of_ids([i for i in ceiling.ids if self.permits(i)])
        # prefix ∩ prefix: the longer of each pair of nested prefixes.
        kept = [p for p in self.prefixes if ceiling.permits(p)]
        kept += [q for q in ceiling.prefixes if self.permits(q)]
        return AllowList.of_prefixes(kept)


@dataclass(frozen=True)
class Caller:
    key_id: str
    key_name: str
    user_id: str
    email: str
    role: str
    is_admin: bool
    endpoints: frozenset[str]  # registry ids the key may actually call (clamped)
    endpoint_allow: AllowList  # the key's endpoint allow-list as served (clamped)
    alphas: AllowList  # clamped
    runs: AllowList  # clamped
    expose_raw_book: bool
    ip: str
    rate_limit: dict[str, int | None] = field(default_factory=dict)
    account_rate_limit: dict[str, int | None] | None = None
    """The account's pooled envelope (`per_second` ... `monthly_requests`, None in a window without
    a pooled cap), which every credential of the account spends together on top of its own
    `rate_limit`; None: the account has none (its pooled usage is still counted)."""
    credential: str = "key"  # what the request presented: "key", "oauth" (an access token) or "session"
    step_up: frozenset[str] = frozenset()
    """Endpoints the account may call that this credential's scopes leave out (an access token's):
    asking one is 403 `insufficient_scope`, naming the scope that would open it."""

    @cached_property
    def field_policy(self) -> str:
        """Everything about the key that shapes an answer's data (which fields, books, alphas and
        blocks it sees); part of every entity tag (serve/conditional.py)."""
        grants = (self.endpoint_allow.to_wire(), self.alphas.to_wire(), self.runs.to_wire())
        return f"raw={int(self.expose_raw_book)};endpoints={','.join(sorted(self.endpoints))};{grants}"

    def may_call(self, endpoint_id: str) -> bool:
        return endpoint_id in self.endpoints

    def may_read_alpha(self, alpha_id: str) -> bool:
        return self.alphas.permits(alpha_id)

    def may_read_run(self, alpha_id: str) -> bool:
        return self.runs.permits(alpha_id)

    def may_read(self, alpha_id: str) -> bool:
        """May read the alpha and its run: what a set of alphas a parameter names needs of each."""
        return self.may_read_alpha(alpha_id) and self.may_read_run(alpha_id)
