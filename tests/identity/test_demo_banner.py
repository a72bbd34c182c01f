"""`serve --init-demo` prints each demo key once, with what it can and cannot do and its limits."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from access import authenticate, open_store
from access.demo import DEMO_IDENTITIES, limits_text
from access.tokens import parse_token
from cli.serve import init_demo
from core.settings import Settings
from schemas.registry import ALL_IDS, META_IDS


def test_the_banner_states_each_demo_key_and_its_limits(
    demo_lake: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = Settings(
        lake=str(demo_lake),
        keystore_url=f"sqlite:///{tmp_path}/keys.sqlite3",
        signing_key_file=str(tmp_path / "signing.key"),
    )
    init_demo(settings)
    banner = capsys.readouterr().out
    store = open_store(settings.keystore_url)
    try:
        for demo in DEMO_IDENTITIES:
            line = next(line for line in banner.splitlines() if line.strip().startswith(f"{demo.label} "))
            token = line.split()[-1]
            key = store.get_key(parse_token(token).key_id)
            assert key is not None and key.rate_limit == demo.rate_limit
            assert f"limits: {limits_text(demo.rate_limit)}" in banner
            assert f"can:    {demo.can}" in banner and f"cannot: {demo.cannot}" in banner
        # What the banner says each key can and cannot do is what authentication grants it.
        tokens = {
            line.split()[0]: line.split()[-1]
            for line in banner.splitlines()
            if line.strip().split(" ")[0] in ("admin", "member") and "@example.com" in line
        }
        now = datetime.now(UTC)
        admin = authenticate(store, f"Bearer {tokens['admin']}", "127.0.0.1", now)
        member = authenticate(store, f"Bearer {tokens['member']}", "127.0.0.1", now)
        assert admin.may_call("admin.builds.list") and admin.may_call("signals.scores")
        assert admin.expose_raw_book and admin.may_read_alpha("momentum_12_1")
        assert member.endpoints == {"meta.health", "meta.me", "meta.keys"}
        assert not member.may_call("signals.scores") and not member.expose_raw_book
    finally:
        store.close()
    # What each key reads, from the stored key and account (the member is at its ceiling).
    assert (
        f"reads:  endpoints: all ({len(ALL_IDS)} callable); alphas: all; runs: all; "
        "raw books and raw fields: on"
    ) in banner
    assert (
        f"reads:  endpoints: {','.join(META_IDS)} ({len(META_IDS)} callable); alphas: prefix:Test_; "
        "runs: prefix:Test_; raw books and raw fields: off"
    ) in banner
    assert "That is all the ceiling of account demo@example.com allows" in banner
    assert "200/s, 12,000/min, 1,000,000/day, unlimited/month" in banner  # the administrator's
    assert "5/s, 60/min, 5,000/day, 100,000/month" in banner  # the member's (a new key's default)
    init_demo(settings)
    assert "Demo keys already exist" in capsys.readouterr().out
