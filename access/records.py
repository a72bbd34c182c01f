"""What the key store holds: accounts, keys, their grants and rate limits, and the defaults."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import datetime
from functools import cached_property
from typing import Any

from core.context import AllowList
from records.times import as_utc
from schemas.alpha_ids import TEST_PREFIX
from schemas.registry import META_IDS

ROLES: tuple[str, ...] = ("admin", "member")
ACCOUNT_STATUSES: tuple[str, ...] = ("active", "deactivated", "deleted")
KEY_STATUSES: tuple[str, ...] = ("active", "suspended")


@dataclass(frozen=True)
class Restriction:
    """The spec's access rule: an alpha whose id does not start with `open_prefix` is *restricted*,
    a key reads it only by an administrator's grant (a new account's ceiling and a key created
    without grants read the open alphas alone: `SELF_SERVICE_GRANTS`, `DEFAULT_KEY_GRANTS`).

    Access only: it says nothing of an alpha's standing. The production alphas are the approved
    set (`analytics.standings`; docs/analytics.md, "The reference set"), whatever their id: only
    an operator's decision approves (issue 64)."""

    open_prefix: str

    def __contains__(self, alpha_id: object) -> bool:
        """Whether `alpha_id` is restricted: its id does not start with the open prefix."""
        return isinstance(alpha_id, str) and not alpha_id.startswith(self.open_prefix)

    def open_alphas(self) -> AllowList:
        """The allow-list of the alphas (or runs) that are not restricted: `prefix:Test_`."""
        return AllowList.of_prefixes([self.open_prefix])


RESTRICTED = Restriction(open_prefix=TEST_PREFIX)
"""The restricted alphas: ids not starting with `Test_` (docs/access.md, "Defaults")."""


@dataclass(frozen=True)
class Grants:
    """Endpoint, alpha and run allow-lists plus the raw-book flag: a key's grants or an account ceiling."""

    endpoints: AllowList
    alphas: AllowList
    runs: AllowList
    expose_raw_book: bool

    def allow_to_wire(self) -> dict[str, Any]:
        return {
            "endpoints": self.endpoints.to_wire(),
            "alphas": self.alphas.to_wire(),
            "runs": self.runs.to_wire(),
        }


SELF_SERVICE_GRANTS = Grants(
    endpoints=AllowList.of_ids(META_IDS),
    alphas=RESTRICTED.open_alphas(),
    runs=RESTRICTED.open_alphas(),
    expose_raw_book=False,
)
"""The ceiling of a new account."""

DEFAULT_KEY_GRANTS = Grants(
    endpoints=AllowList.all(),
    alphas=RESTRICTED.open_alphas(),
    runs=RESTRICTED.open_alphas(),
    expose_raw_book=False,
)
"""The grants of a key created without any. Endpoints `all` means the account ceiling as-is (spec:
an omitted endpoint allow-list gives the ceiling), which is meta-only on a self-service account."""

ADMIN_CEILING = Grants(AllowList.all(), AllowList.all(), AllowList.all(), expose_raw_book=True)
"""The ceiling of every admin account, whatever ceiling is stored (the role is read live)."""


@dataclass(frozen=True)
class RateLimit:
    per_second: int
    per_minute: int
    per_day: int
    monthly_requests: int | None  # None: unlimited month

    def to_wire(self) -> dict[str, int | None]:
        return asdict(self)


DEFAULT_RATE_LIMIT = RateLimit(per_second=5, per_minute=60, per_day=5000, monthly_requests=100_000)


@dataclass(frozen=True)
class PooledLimit:
    """An account's pooled envelope: what every credential of the account (its keys, its access
    tokens, its dashboard sessions) may spend together, on top of each credential's own envelope.
    None in a window: no pooled cap there. An account without one (`AccountRecord.pooled_limit`
    None, the default) is counted in its pooled windows but never refused by them."""

    per_second: int | None = None
    per_minute: int | None = None
    per_day: int | None = None
    monthly_requests: int | None = None

    def to_wire(self) -> dict[str, int | None]:
        return asdict(self)

    @property
    def is_empty(self) -> bool:
        """No window capped: the same as no pooled envelope."""
        return all(value is None for value in self.to_wire().values())


@dataclass(frozen=True)
class AccountRecord:
    user_id: str
    email: str
    role: str
    status: str
    ceiling: Grants  # as stored; see `effective_ceiling`
    created_at: datetime
    pooled_limit: PooledLimit | None = None  # None: no pooled cap (the account's usage is still counted)

    @property
    def is_admin(self) -> bool:
        return self.role == "admin"

    @property
    def is_active(self) -> bool:
        return self.status == "active"

    @property
    def effective_ceiling(self) -> Grants:
        return ADMIN_CEILING if self.is_admin else self.ceiling


LINK_KINDS: tuple[str, ...] = ("email", "created", "operator")
"""How a provider's subject came to name an account: its verified e-mail named the account at its
first sign-in, its first sign-in created the account, or an operator linked it."""


@dataclass(frozen=True)
class SubjectLink:
    """A person of an organisation's provider, (`issuer`, `subject`: the tokens' `iss` and `sub`),
    linked to the account they sign in as (docs/access.md "Which account")."""

    issuer: str
    subject: str
    user_id: str
    linked_by: str  # one of LINK_KINDS
    created_at: datetime


@dataclass(frozen=True)
class KeyRecord:
    """A key as the store holds it, without its secret hash (see `Credentials`)."""

    key_id: str
    user_id: str
    name: str
    env: str
    status: str
    revoked_at: datetime | None
    expires_at: datetime | None
    grants: Grants  # as granted; clamp with `access.clamp` before use
    rate_limit: RateLimit
    ip_allow: tuple[str, ...] | None  # None: any address
    created_at: datetime

    @property
    def is_revoked(self) -> bool:
        return self.revoked_at is not None

    def is_expired(self, now: datetime) -> bool:
        return self.expires_at is not None and self.expires_at <= as_utc(now)


CALLERS_KEPT = 16
"""Callers kept per credentials, one per client address (`Credentials.caller`)."""


class Credentials:
    """What authentication needs in one read: the secret's hash, then the key and its owner.

    The key and the account are built from the row only when first asked for: authentication
    compares the secret first, so a wrong secret for a known key_id does the same work as an
    unknown key_id (a comparison against a fixed hash), and its timing tells nothing.
    """

    def __init__(
        self,
        secret_sha256: str,
        read_key: Callable[[], KeyRecord],
        read_account: Callable[[], AccountRecord],
    ) -> None:
        self.secret_sha256 = secret_sha256
        self._read_key, self._read_account = read_key, read_account

    def __repr__(self) -> str:
        return "Credentials(...)"  # never the hash

    def caller(self, client_ip: str, build: Callable[[KeyRecord, AccountRecord, str], Any]) -> Any:
        """`build(key, account, client_ip)`, the caller these credentials make from that address,
        made once per address (a value of what was read, like the key and the account: kept
        credentials are dropped whole when the key or its account changes, access/cache.py). At
        most `CALLERS_KEPT` addresses are kept, the oldest dropped first."""
        callers: dict[str, Any] = self.__dict__.setdefault("_callers", {})
        made = callers.get(client_ip)
        if made is None:
            made = build(self.key, self.account, client_ip)
            if len(callers) >= CALLERS_KEPT:
                del callers[next(iter(callers))]
            callers[client_ip] = made
        return made

    @cached_property
    def key(self) -> KeyRecord:
        return self._read_key()

    @cached_property
    def account(self) -> AccountRecord:
        return self._read_account()


def iso(moment: datetime | None) -> str | None:
    """ISO 8601 UTC with `Z`, to the second (docs/api.md); the store keeps microseconds for ordering."""
    return None if moment is None else as_utc(moment).isoformat(timespec="seconds").replace("+00:00", "Z")
