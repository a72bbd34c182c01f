"""The server's settings: one declared list, read once from the environment at app creation.

Every setting is `ALPHA_RESULTS_<NAME>`; docs/settings.md documents each one (a test fails when
one is missing there).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

ENV_PREFIX = "ALPHA_RESULTS_"


@dataclass(frozen=True)
class Setting:
    name: str
    default: Any
    parse: Callable[[str], Any]
    help: str

    @property
    def env(self) -> str:
        return ENV_PREFIX + self.name.upper()


def _bool(text: str) -> bool:
    value = text.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off", ""):
        return False
    raise ValueError(f"expected a boolean (true/false), got {text!r}")


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise ValueError(f"expected an integer >= 1, got {text!r}")
    return value


def _non_negative_int(text: str) -> int:
    value = int(text)
    if value < 0:
        raise ValueError(f"expected an integer >= 0, got {text!r}")
    return value


DOWNLOAD_FETCH_LIMIT_MAX = 100


def _download_fetch_limit(text: str) -> int:
    value = int(text)
    if not 1 <= value <= DOWNLOAD_FETCH_LIMIT_MAX:
        raise ValueError(f"expected an integer from 1 to {DOWNLOAD_FETCH_LIMIT_MAX}, got {text!r}")
    return value


def _positive_seconds(text: str) -> float:
    value = float(text)
    if not 0 < value < math.inf:
        raise ValueError(f"expected a finite number of seconds > 0, got {text!r}")
    return value


ACCOUNT_RULES = ("subject", "email")


def _account_rule(text: str) -> str:
    value = text.strip().lower()
    if value not in ACCOUNT_RULES:
        raise ValueError(f"expected one of {', '.join(ACCOUNT_RULES)}, got {text!r}")
    return value


def _refresh_seconds(text: str) -> float:
    value = float(text)
    if not 0 < value <= 60:
        raise ValueError(f"expected seconds in (0, 60], got {text!r}")
    return value


SETTINGS: tuple[Setting, ...] = (
    Setting("lake", "var/lake", str, "Lake root: a local folder or s3://bucket/prefix."),
    Setting(
        "keystore_url",
        "sqlite:///var/keys.sqlite3",
        str,
        "Key store: sqlite:///relative/path, sqlite:////absolute/path or postgresql://...",
    ),
    Setting(
        "limiter_url", "memory://", str, "Rate limiter: memory:// (one process) or redis://host:port/db."
    ),
    Setting("host", "127.0.0.1", str, "Address uvicorn binds to."),
    Setting("port", 8000, _positive_int, "Port uvicorn binds to."),
    Setting("workers", 1, _positive_int, "Uvicorn worker processes (use shared backends when > 1)."),
    Setting("environment", "development", str, "Environment name served by /v1/health."),
    Setting("service_name", "alpha-results", str, "Service name served by /v1/health."),
    Setting(
        "trusted_proxy_hops",
        0,
        _non_negative_int,
        "Reverse proxies in front of the server; the caller address is read that many hops back "
        "in X-Forwarded-For (0: the socket peer).",
    ),
    Setting(
        "lake_refresh_seconds",
        2.0,
        _refresh_seconds,
        "How often a background thread of each worker re-reads the lake's pointers (new builds are "
        "served within this) and checks the served builds' files (at most 60: publishing relies on it).",
    ),
    Setting(
        "serving_cache_dir",
        "var/cache/serving",
        str,
        "Local folder of what the workers keep on their machine's disk: on an S3 lake the served builds'"
        " serving files, copied and mapped from there; on any lake, under .derived/, the row bytes they"
        " derive from the serving tables.",
    ),
    Setting(
        "serving_cache_bytes",
        8 << 30,
        _positive_int,
        "Size each of the S3 copies and .derived/ is kept under before least recently used builds are"
        " removed (bytes).",
    ),
    Setting(
        "answer_cache_bytes",
        64 << 20,
        _non_negative_int,
        "Bytes of encoded collection pages a worker keeps to answer again without computing them "
        "(a run's pages: per build, query, representation and key scope; least recently used out; "
        "0: none kept). docs/operations.md, 'Answers made once'.",
    ),
    Setting(
        "max_open_builds",
        64,
        _positive_int,
        "Builds a worker keeps open at once (least recently used closed first). Each holds no "
        "file descriptor and one memory map per serving file it read (at most 13): this bounds a "
        "worker's maps whatever the catalogue's size (docs/operations.md, 'File limits').",
    ),
    Setting(
        "malloc_arenas",
        2,
        _non_negative_int,
        "glibc malloc arenas a worker may use (0: glibc's default, 8 per core). More arenas let "
        "threads allocate without contention but fragment memory: with the default a worker's "
        "memory grew about 30 MiB over ten minutes of load before levelling (docs/operations.md).",
    ),
    Setting(
        "scrub_builds_per_pass",
        8,
        _positive_int,
        "Open builds whose files' sizes each refresh pass re-checks, in turn (a file removed or "
        "truncated after the build was opened is noticed within open builds / this passes).",
    ),
    Setting(
        "hash_bytes_per_pass",
        256 << 20,
        _positive_int,
        "Bytes of files a worker checks against their SHA-256 in the background per refresh "
        "interval (the CPU budget of the check of newly opened builds and of files written since "
        "their check).",
    ),
    Setting("log_level", "info", str, "Log level of the server (debug, info, warning, error)."),
    Setting(
        "public_base_url",
        "http://127.0.0.1:8000",
        str,
        "Base URL clients reach this server at; signed source-archive URLs of a local lake start with it.",
    ),
    Setting(
        "mcp_allowed_hosts",
        "",
        str,
        "Host header values /mcp answers besides the server's own (the public base URL's host and the "
        "bound host and port, loopback names included), comma-separated host[:port]; any other Host is "
        "403 (DNS rebinding protection).",
    ),
    Setting(
        "mcp_allowed_origins",
        "",
        str,
        "Origin header values /mcp answers besides the server's own origins, comma-separated "
        "scheme://host[:port]; a request with any other Origin is 403 (one without an Origin is not a "
        "browser's, and is judged by its Host alone).",
    ),
    Setting(
        "oauth_issuer",
        "",
        str,
        "The authorization server whose access tokens /mcp accepts besides keys: empty (keys only), "
        "`builtin` (this server's own, at the public base URL) or the issuer URL of the organisation's "
        "provider (its signing keys read from its discovery document).",
    ),
    Setting(
        "oauth_resource_url",
        "",
        str,
        "This server's MCP resource URL (RFC 8707/9728: the audience a token must name); empty: the "
        "public base URL followed by /mcp.",
    ),
    Setting(
        "oauth_token_seconds",
        900,
        _positive_int,
        "Lifetime of the built-in authorization server's access tokens (seconds): a person removed or "
        "deactivated keeps a token no longer than this.",
    ),
    Setting(
        "oauth_signing_key_file",
        "",
        str,
        "PEM file of the built-in authorization server's RSA signing key (shared by every worker); "
        "empty: a key made at start, which only a one-worker server can use.",
    ),
    Setting(
        "oauth_client_metadata_documents",
        False,
        _bool,
        "Whether the built-in authorization server accepts a client_id that is an https URL of a "
        "Client ID Metadata Document, which it then fetches.",
    ),
    Setting(
        "oauth_client_metadata_allow_private",
        False,
        _bool,
        "Whether a Client ID Metadata Document may be fetched from a loopback or private address "
        "(and over http from loopback): for tests and closed networks only.",
    ),
    Setting(
        "oauth_create_accounts",
        False,
        _bool,
        "Whether a person whose verified e-mail names no account gets a member account at their first "
        "sign-in (off: they are refused until an operator creates it).",
    ),
    Setting(
        "oauth_account_rule",
        "subject",
        _account_rule,
        "How a person of the organisation's provider (/mcp tokens, dashboard sign-in) names their account: "
        "`subject` (the account linked to the token's issuer and `sub`; a first sign-in links it by "
        "verified e-mail, once) or `email` (the verified e-mail at every sign-in).",
    ),
    Setting(
        "oidc_issuer",
        "",
        str,
        "Issuer URL of the OpenID provider people sign in to the dashboard with (its discovery at "
        "/.well-known/openid-configuration); empty: the dashboard takes a pasted key only.",
    ),
    Setting("oidc_client_id", "", str, "The dashboard's client id at the OpenID provider."),
    Setting(
        "oidc_client_secret", "", str, "The dashboard's client secret at the OpenID provider (never logged)."
    ),
    Setting(
        "oidc_session_seconds",
        28800,
        _positive_int,
        "Lifetime of a dashboard session after signing in (seconds); then the person signs in again.",
    ),
    Setting(
        "oidc_session_key_file",
        "",
        str,
        "File of the secret (32 bytes or more) that seals dashboard session cookies, the same for "
        "every worker; empty: one made at start (a one-worker server; a restart signs everyone out).",
    ),
    Setting(
        "signing_key_file",
        "var/signing.key",
        str,
        "File holding the HMAC key that signs source-archive URLs of a local lake (absent: "
        "503 source_download_not_configured).",
    ),
    Setting(
        "download_fetch_limit",
        10,
        _download_fetch_limit,
        "Fetches one signed download URL of a local lake answers with the file (1 to 100; a byte "
        "range counts its share of the file); the next is 403 download_url_expired. Counted in the "
        "key store, shared by every worker.",
    ),
    Setting(
        "max_request_target_bytes",
        8 << 10,
        _positive_int,
        "Longest request target (path and query string) a worker reads; a longer one is 414 "
        "request_target_too_long and the connection is closed.",
    ),
    Setting(
        "max_request_head_bytes",
        64 << 10,
        _positive_int,
        "Largest request head (request line and header fields) a worker reads; a larger one is 431 "
        "request_head_too_large, refused as soon as that many bytes arrived (never buffered whole).",
    ),
    Setting(
        "request_head_timeout_seconds",
        10.0,
        _positive_seconds,
        "Time a request head has to arrive whole, from its first byte (from the connection's opening "
        "for the first request): then 408 request_head_timeout, or a silent close if nothing came.",
    ),
    Setting(
        "max_connections_per_worker",
        512,
        _positive_int,
        "Connections a worker holds at once. At the limit a new connection closes an idle connection "
        "(nothing asked yet, or kept alive after an answer) or else an unfinished request head of the "
        "address holding the most in the block holding the most; only when every one is busy is it "
        "answered 503 too_many_connections and closed.",
    ),
    Setting(
        "max_connections_per_peer",
        128,
        _positive_int,
        "Connections a worker holds from one client address (an IPv6 client's /64). At the bound the "
        "client's new connection closes its own idle one held longest, else it is answered 503 "
        "too_many_connections. Not applied when ALPHA_RESULTS_TRUSTED_PROXY_HOPS > 0: every "
        "connection then comes from the proxy.",
    ),
    Setting(
        "max_connections_per_address_block",
        256,
        _positive_int,
        "Connections a worker holds from one address block (an IPv4 /24, an IPv6 /48). At the bound a "
        "new connection from the block closes an idle connection or an unfinished request head of the "
        "block's address holding the most, else it is answered 503 too_many_connections. Not applied "
        "when ALPHA_RESULTS_TRUSTED_PROXY_HOPS > 0.",
    ),
    Setting(
        "send_timeout_seconds",
        30.0,
        _positive_seconds,
        "Time an answer waiting to be sent may go without the client reading any of it; then the "
        "connection is closed with a reset (a client that never reads cannot hold one of the worker's "
        "connections), and the kernel drops a connection whose queued bytes make no progress for twice this.",
    ),
    Setting(
        "send_buffer_bytes",
        256 << 10,
        _positive_int,
        "Kernel send buffer of each connection (SO_SNDBUF; Linux queues about 1.5 times this). An answer "
        "larger waits in the worker, where the send timeout applies; a connection's throughput is at "
        "most about this per round trip.",
    ),
    Setting(
        "request_body_timeout_seconds",
        10.0,
        _positive_seconds,
        "Time a request body has to arrive, from the request's start, plus 1 s for every "
        "ALPHA_RESULTS_REQUEST_BODY_MIN_BYTES_PER_SECOND bytes of it received; then 408 "
        "request_body_timeout and the connection is closed (serve/slow_clients.py).",
    ),
    Setting(
        "request_body_min_bytes_per_second",
        1024,
        _positive_int,
        "The byte-rate floor of a request body: each this many bytes received give it 1 s more, so a "
        "body arriving faster is never cut and one that stops or trickles slower is.",
    ),
    Setting(
        "max_request_bodies_per_key",
        8,
        _positive_int,
        "Request bodies a worker reads at once for one key (/mcp, Delta Sharing's query); the next is "
        "429 too_many_request_bodies before a byte of it is read.",
    ),
    Setting(
        "max_request_bodies_per_account",
        32,
        _positive_int,
        "Request bodies a worker reads at once for all the keys of one account; the next is 429 "
        "too_many_request_bodies.",
    ),
    Setting(
        "max_streams_per_key",
        8,
        _positive_int,
        "Event streams (/v1/events/stream) a worker holds open at once for one key; the next is 429 "
        "too_many_streams.",
    ),
    Setting(
        "max_streams_per_account",
        32,
        _positive_int,
        "Event streams a worker holds open at once for all the keys of one account; the next is 429 "
        "too_many_streams.",
    ),
    Setting(
        "egress_rows_per_day",
        1_000_000,
        _non_negative_int,
        "Rows one key may take in a UTC day across every surface: collection pages (the route's own, "
        "through MCP too) and Delta Sharing's; past it every keyed request is 429 egress_budget_exceeded "
        "until 00:00 UTC. 0: no budget. Administrators' keys have none.",
    ),
    Setting(
        "egress_bytes_per_day",
        1 << 30,
        _non_negative_int,
        "Answer bytes one key may take in a UTC day across every surface (pages, exports and signed "
        "downloads, Delta Sharing, MCP); past it 429 egress_budget_exceeded, and a download that "
        "would pass it is refused before a byte is sent. 0: no budget. Administrators' keys have none.",
    ),
    Setting(
        "egress_account_rows_per_day",
        0,
        _non_negative_int,
        "Rows all the credentials of one account (its keys, access tokens and dashboard sessions) may "
        "take together in a UTC day, on top of each key's own budget; past it 429 "
        "egress_budget_exceeded (details.envelope account). 0: no pooled budget (the pooled rows are "
        "still counted while a key budget is on). Administrators have none.",
    ),
    Setting(
        "egress_account_bytes_per_day",
        0,
        _non_negative_int,
        "Answer bytes all the credentials of one account may take together in a UTC day, on top of "
        "each key's own budget; past it 429 egress_budget_exceeded (details.envelope account). 0: no "
        "pooled budget. Administrators have none.",
    ),
    Setting(
        "as_of_per_second",
        4,
        _non_negative_int,
        "Distinct as_of moments one key may ask a worker to resolve in a second (each a past catalogue "
        "generation looked up, read once and kept); past it 429 as_of_budget_exceeded with Retry-After. "
        "A moment the key asked within the minute is not counted again. 0: no budget. Administrators' keys "
        "have none.",
    ),
    Setting(
        "as_of_per_minute",
        60,
        _non_negative_int,
        "Distinct as_of moments one key may ask a worker to resolve in a minute; past it 429 "
        "as_of_budget_exceeded with Retry-After. 0: no budget.",
    ),
    Setting(
        "checks_policy_file",
        "",
        str,
        "TOML file of the operator's thresholds for /analytics/checks (empty: the documented defaults); "
        "a file that cannot be read or breaks a rule stops the server from starting.",
    ),
    Setting(
        "events_retention_days",
        90,
        _positive_int,
        "Days an event is kept (docs/events.md): older ones are deleted by each build run and by "
        "`alpha-results events purge`; a cursor older than that resumes at the oldest event kept.",
    ),
    Setting(
        "events_poll_seconds",
        0.5,
        _refresh_seconds,
        "How often each worker looks for new events for its open streams (/v1/events/stream): one "
        "query per worker, however many streams it holds.",
    ),
    Setting(
        "events_heartbeat_seconds",
        15.0,
        _positive_seconds,
        "Seconds an open event stream may go without sending anything before a heartbeat comment "
        "(`: heartbeat`) is sent, so proxies and clients can tell a quiet stream from a dead one.",
    ),
    Setting(
        "webhook_allow_private",
        False,
        _bool,
        "Allow webhook destinations on private, loopback and link-local addresses and plain http "
        "(development and tests only; refused otherwise, docs/events.md 'Webhooks').",
    ),
    Setting(
        "prometheus",
        False,
        _bool,
        "Serve Prometheus metrics at GET /metrics (docs/operations.md 'Monitoring'); off, /metrics is "
        "404 like any unknown path and nothing is recorded.",
    ),
    Setting(
        "prometheus_token_file",
        "",
        str,
        "File holding the bearer token /metrics asks for (empty: none asked); a file that cannot be "
        "read or holds no token stops the server from starting.",
    ),
)

_BY_NAME = {s.name: s for s in SETTINGS}


@dataclass(frozen=True)
class Settings:
    lake: str = "var/lake"
    keystore_url: str = "sqlite:///var/keys.sqlite3"
    limiter_url: str = "memory://"
    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = 1
    environment: str = "development"
    service_name: str = "alpha-results"
    trusted_proxy_hops: int = 0
    lake_refresh_seconds: float = 2.0
    serving_cache_dir: str = "var/cache/serving"
    serving_cache_bytes: int = 8 << 30
    answer_cache_bytes: int = 64 << 20
    max_open_builds: int = 64
    malloc_arenas: int = 2
    scrub_builds_per_pass: int = 8
    hash_bytes_per_pass: int = 256 << 20
    log_level: str = "info"
    public_base_url: str = "http://127.0.0.1:8000"
    mcp_allowed_hosts: str = ""
    mcp_allowed_origins: str = ""
    oauth_issuer: str = ""
    oauth_resource_url: str = ""
    oauth_token_seconds: int = 900
    oauth_signing_key_file: str = ""
    oauth_client_metadata_documents: bool = False
    oauth_client_metadata_allow_private: bool = False
    oauth_create_accounts: bool = False
    oauth_account_rule: str = "subject"
    oidc_issuer: str = ""
    oidc_client_id: str = ""
    oidc_client_secret: str = field(default="", repr=False)  # never in a log line or a traceback
    oidc_session_seconds: int = 28800
    oidc_session_key_file: str = ""
    signing_key_file: str = "var/signing.key"
    download_fetch_limit: int = 10
    max_request_target_bytes: int = 8 << 10
    max_request_head_bytes: int = 64 << 10
    request_head_timeout_seconds: float = 10.0
    max_connections_per_worker: int = 512
    max_connections_per_peer: int = 128
    max_connections_per_address_block: int = 256
    send_timeout_seconds: float = 30.0
    send_buffer_bytes: int = 256 << 10
    request_body_timeout_seconds: float = 10.0
    request_body_min_bytes_per_second: int = 1024
    max_request_bodies_per_key: int = 8
    max_request_bodies_per_account: int = 32
    max_streams_per_key: int = 8
    max_streams_per_account: int = 32
    egress_rows_per_day: int = 1_000_000
    egress_bytes_per_day: int = 1 << 30
    egress_account_rows_per_day: int = 0
    egress_account_bytes_per_day: int = 0
    as_of_per_second: int = 4
    as_of_per_minute: int = 60
    checks_policy_file: str = ""
    events_retention_days: int = 90
    events_poll_seconds: float = 0.5
    events_heartbeat_seconds: float = 15.0
    webhook_allow_private: bool = False
    prometheus: bool = False
    prometheus_token_file: str = ""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
        """Settings from `ALPHA_RESULTS_*` variables; explicit overrides (CLI flags) win."""
        environ = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for setting in SETTINGS:
            raw = environ.get(setting.env)
            if raw is not None:
                try:
                    values[setting.name] = setting.parse(raw)
                except ValueError as exc:
                    raise ValueError(f"{setting.env}: {exc}") from exc
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)

    @property
    def mcp_resource_url(self) -> str:
        """The resource URL of `/mcp` (`oauth_resource_url`, else the public base URL's `/mcp`)."""
        return self.oauth_resource_url or self.public_base_url.rstrip("/") + "/mcp"

    def with_(self, **changes: Any) -> Settings:
        return replace(self, **changes)


def _check_declared() -> None:
    # The dataclass and the declared list must not drift apart (the list feeds the docs test).
    names = {f.name for f in fields(Settings)}
    if names != set(_BY_NAME):
        raise RuntimeError(f"Settings fields and SETTINGS differ: {sorted(names ^ set(_BY_NAME))}")
    for f in fields(Settings):
        if f.default != _BY_NAME[f.name].default:
            raise RuntimeError(f"default of {f.name} differs between Settings and SETTINGS")


_check_declared()
