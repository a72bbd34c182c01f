"""Every endpoint method against the real server, with the parameters each one takes."""

from __future__ import annotations

import hashlib
import io
import zipfile
from datetime import date

import polars as pl
import pytest
from msgspec import UNSET

from alpha_results_client import ENDPOINTS, Client
from tests.client.conftest import Key

pytestmark = pytest.mark.e2e

ALPHA = "momentum_12_1"


def test_meta_methods(plain: Client, plain_key: Key) -> None:
    health = plain.health()
    assert health.status == "ok" and health.down is UNSET
    me = plain.me()
    assert me.data.key_id == plain_key.key_id and me.meta.key_id == plain_key.key_id
    assert set(me.data.callable_endpoints) >= {e for e in ENDPOINTS if not ENDPOINTS[e].admin}
    assert plain_key.key_id in [row.key_id for row in plain.keys()]


def test_catalogue_methods(plain: Client) -> None:
    everything = {row.alpha_id for row in plain.alphas()}
    complete = {row.alpha_id for row in plain.alphas(complete_only=True)}
    assert "Test_low_vol_incomplete" in everything - complete
    matches = plain.alphas(search="REVERSAL")  # case-insensitive, over alpha_id, name and tldr
    assert "Test_short_term_reversal" in [row.alpha_id for row in matches] and matches.total < len(everything)
    description = plain.alpha(ALPHA)
    assert description.data.algo_id == description.data.alpha_id == ALPHA
    assert [p.role for p in description.data.source_papers].count("seed") == 1
    signed = plain.source_download(ALPHA).data
    assert signed.expires_in == 3600 and signed.filename == f"{ALPHA}.zip"
    archive = plain.download_source(ALPHA)
    assert hashlib.sha256(archive).hexdigest() == signed.sha256
    assert zipfile.ZipFile(io.BytesIO(archive)).namelist()


def test_signal_and_portfolio_methods(plain: Client) -> None:
    weeks = plain.rebalances(ALPHA, start="2021-03-01", end=date(2021, 3, 31)).to_list()
    assert [w.date and w.date.month for w in weeks] == [3] * len(weeks) and len(weeks) in (4, 5)
    scores = plain.scores(ALPHA, start="2021-03-01", end="2021-03-31", symbol="FWC").to_list()
    assert {s.symbol for s in scores} == {"FWC"} and len(scores) == len(weeks)
    books = plain.books(ALPHA).to_polars()
    assert books.height == 12 and set(books["kind"]) == {"portfolio", "positions", "pnl", "trades"}
    ledger = plain.portfolio(ALPHA, "long_only", "2021-02-01", "2021-02-28").to_polars()
    assert ledger.height > 15 and ledger["date"].max() <= date(2021, 2, 28)
    pnl = plain.pnl(ALPHA, start="2021-02-01", end="2021-02-28").to_polars()
    market = pnl.group_by("date").agg(pl.col("market_pnl").sum().alias("names")).sort("date")
    by_book = plain.portfolio(ALPHA, start="2021-02-01", end="2021-02-28").to_polars().join(market, on="date")
    assert (by_book["market_pnl"] - by_book["names"]).abs().max() < 1e-12  # names sum to the book
    fills = plain.trades(ALPHA, "long_short_adjustments", symbol=["FWC"]).to_list()
    assert fills and {f.symbol for f in fills} == {"FWC"}


def test_performance_and_export_methods(plain: Client) -> None:
    monthly = plain.metrics(ALPHA, start="2021-06-01", end="2021-12-31", granularity="monthly")
    assert monthly.data.window.from_ == date(2021, 6, 1) and monthly.data.periods
    assert [p.period for p in monthly.data.periods][:2] == ["2021-06", "2021-07"]
    assert "window_lifetime_only" in [w.code for w in monthly.meta.warnings or []]
    with_doc = plain.metrics(ALPHA, doc=True, panel=True).data
    assert with_doc.doc is not UNSET and with_doc.panel is not UNSET
    assert plain.metrics_doc(ALPHA).data.schema_version == "2.0.0"
    listing = {(e.dataset, e.book) for e in plain.exports(ALPHA)}
    assert ("decisions", None) in listing and ("trades", "long_short") in listing
    parquet = plain.download_export(ALPHA, "equity-curve", "long_short")
    assert pl.read_parquet(io.BytesIO(parquet)).height == plain.equity_curve(ALPHA).total


def test_every_route_has_a_method() -> None:
    """Issue 47, items 6 and 8: every route the served document declares (the generated ENDPOINTS)
    has its typed method, generated from its operation (`GeneratedMethods`, which `Client`
    inherits), named after the id's last segment unless it was named otherwise before generation;
    a route added to the document gets one (tests/client/test_generated.py). The methods written
    by hand in client.py only override a generated one of the same name, or add a download."""
    import inspect

    from alpha_results_client._generated import METHODS, GeneratedMethods

    assert list(METHODS) == list(ENDPOINTS)
    for endpoint_id, name in METHODS.items():
        generated = GeneratedMethods.__dict__.get(name)
        assert callable(generated), endpoint_id
        assert f'"{endpoint_id}"' in inspect.getsource(generated), endpoint_id  # it asks its own route
        assert callable(getattr(Client, name)), endpoint_id
    hand_written = {
        name for name, value in vars(Client).items() if inspect.isfunction(value) and not name.startswith("_")
    }
    downloads = {"download_source", "download_export"}  # the bytes behind a route's signed URL
    assert hand_written - downloads <= set(METHODS.values()), "a hand-written method that is no route's"
    # Each with a comment saying what it adds; a new one is a decision, not a route's due.
    assert hand_written == {"health", "books", "benchmark", "events", "stream_events", *downloads}
    # The feed and the stream are read by their own helpers (alpha_results_client.events), by path.
    import alpha_results_client.events as events

    assert events.FEED_PATH == ENDPOINTS["events.list"].path
    assert events.STREAM_PATH == ENDPOINTS["events.stream"].path


def test_the_why_and_decision_methods(plain: Client) -> None:
    """The typed methods of the routes added after the first client: each answers its route's Struct,
    with the parameters it takes, as `call` does."""
    live = plain.live(ALPHA, split="2021-06-30").data
    assert (live.split_origin, str(live.split_date)) == ("request", "2021-06-30")
    # An earlier day previews an import of a decision taken elsewhere (this server's records are empty).
    preview = plain.promotion_preview(ALPHA, effective="2021-06-30").data
    assert (preview.alpha, str(preview.as_of), preview.action) == (ALPHA, "2021-06-30", "approved")
    assert preview.imported is True
    assert preview.command.startswith(f"alpha-results promote {ALPHA} --as-of 2021-06-30 --import ")
    attribution = plain.attribution(ALPHA, top=3, drop=2).data
    assert len(attribution.by_name.contributors) <= 3 and attribution.fragility.drop == 2
    capacity = plain.capacity(ALPHA, capital=1e7, grid=[1e6, 1e7, 1e8]).data
    assert (
        capacity
        == plain.call(
            "analytics.capacity", alpha=ALPHA, capital=1e7, grid="1000000.0,10000000.0,100000000.0"
        ).data
    )
    assert plain.factors(ALPHA).data == plain.call("analytics.factors", alpha=ALPHA).data
    quantiles = plain.quantiles(ALPHA, quantiles=4).data
    assert quantiles == plain.call("analytics.quantiles", alpha=ALPHA, quantiles=4).data
    residual = plain.residual(ALPHA, reference=["Test_planted_factor"]).data
    assert residual == plain.call("analytics.residual", alpha=ALPHA, reference="Test_planted_factor").data
    promotions = plain.promotions(ALPHA).data
    assert (promotions.alpha, promotions.standing) == (ALPHA, "never")
