"""The probability of backtest overfitting of a trial family (issue 50, items 1 and 2):
`/analytics/overfitting` against CSCV written again from the paper (Bailey, Borwein, López de Prado
and Zhu 2015, section 2.2: one loop over the combinations, pandas' Sharpe ratio, scipy's ranks,
numpy's least squares, a loop over the combinations) over the lake's ledger files, to 1e-9; the key's scope (a member it may not
read is never in a figure; 3 readable members are too few); the refusals; and the known answers of
the demo's two families on the full-size market (noise above 0.5, planted below 0.2).

A lake of two small families (8 variants each of the demo's two families, on the small market)
is built once per run: about 15 s of one core.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
import pandas as pd
import pytest
from scipy.stats import rankdata

from core.context import AllowList
from schemas.bodies.overfitting import FamilyMemberRow
from tests.analytics import reference as ref
from tests.analytics.conftest import CALLERS, Api, endpoints_only, serving
from tests.analytics.helpers import close
from tests.api.test_bodies import round_trip
from tests.callers import DATA_IDS, make_caller
from tests.conftest import built_once

PATH = "/v1/alphas/{}/analytics/overfitting"
RawData = dict[str, msgspec.Raw]
PLANTED = [f"Test_family_planted_{i:02d}" for i in range(1, 9)]
NOISE = [f"Test_family_noise_{i:02d}" for i in range(1, 9)]
THREE = NOISE[:3]
SEVEN = NOISE[1:8]


def paper_cscv(returns: pd.DataFrame, splits: int) -> dict[str, Any]:
    """CSCV as the paper's steps say, over `returns` (sessions x trials, no gap), one combination
    at a time: M cut into S
    submatrices of T // S rows (the oldest T mod S rows dropped), every combination C of S/2 of
    them the training set J and the rest the testing set, the trial with the best Sharpe ratio in J,
    its relative rank in the testing set w = rank / (N + 1), the logit ln(w / (1 - w))."""
    t, n = returns.shape
    size = t // splits
    values = returns.to_numpy()[t - size * splits :]
    blocks = [values[i * size : (i + 1) * size] for i in range(splits)]
    logits, ins, outs, picks = [], [], [], []
    for combo in itertools.combinations(range(splits), splits // 2):
        train = np.concatenate([blocks[i] for i in combo])
        test = np.concatenate([blocks[i] for i in range(splits) if i not in combo])
        sr_train = train.mean(axis=0) / train.std(axis=0, ddof=1)
        sr_test = test.mean(axis=0) / test.std(axis=0, ddof=1)
        best = int(np.argmax(sr_train))
        rank = rankdata(sr_test, method="average")[best]
        w = rank / (n + 1)
        logits.append(math.log(w / (1 - w)))
        ins.append(float(sr_train[best]))
        outs.append(float(sr_test[best]))
        picks.append(best)
    slope, intercept = np.polyfit(np.array(ins), np.array(outs), 1)
    return {
        "pbo": float(np.mean(np.array(logits) <= 0)),
        "slope": float(slope),
        "intercept": float(intercept),
        "loss": float(np.mean(np.array(outs) < 0)),
        "logits": np.array(logits),
        "picks": np.bincount(picks, minlength=n) / len(picks),
        "sessions": size * splits,
    }


def family_returns(lake: ref.Lake, members: list[str]) -> pd.DataFrame:
    """The members' daily long_short returns on the sessions every one of them has, by date."""
    frame = pd.DataFrame({alpha: lake.returns(alpha, "long_short", (None, None)) for alpha in members})
    return frame.dropna().sort_index()


@pytest.fixture(scope="session")
def families_lake(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from alpha_results_seal.demo.corpus import write_corpus
    from pipeline.build import build_many

    def build(lake: Path) -> None:
        seals = lake.parent / f"{lake.name}-seals"
        write_corpus(seals, size="small", seed=7, only=[*PLANTED, *NOISE, "benchmark_SPY"])
        outcomes = build_many(sorted(str(p) for p in seals.iterdir()), str(lake), jobs=2)
        assert not [o for o in outcomes if o.status == "refused"]

    return built_once(tmp_path_factory, "families_lake", build)


@pytest.fixture(scope="module")
def families_api(families_lake: Path) -> Iterator[Api]:
    callers = {
        **CALLERS,
        "three": make_caller(alphas=AllowList.of_ids(THREE), runs=AllowList.of_ids(THREE)),
        "seven": make_caller(alphas=AllowList.of_ids(SEVEN), runs=AllowList.of_ids(SEVEN)),
        "no_portfolio": endpoints_only(frozenset(i for i in DATA_IDS if not i.startswith("portfolio."))),
    }
    with serving(families_lake, callers) as api:
        yield api


def check_against_paper(served: dict[str, Any], expected: dict[str, Any], members: list[str]) -> None:
    assert close(served["pbo"]["value"], expected["pbo"]), (served["pbo"], expected["pbo"])
    assert close(served["degradation_slope"]["value"], expected["slope"])
    assert close(served["degradation_intercept"]["value"], expected["intercept"])
    assert close(served["probability_of_loss"]["value"], expected["loss"])
    assert served["cscv_sessions"] == expected["sessions"]
    counts = [b["splits_in_bin"] for b in served["logit_distribution"]]
    edges = np.linspace(-4, 4, 21)
    assert counts == np.histogram(np.clip(expected["logits"], -4, 4), bins=edges)[0].tolist()
    assert [m["alpha_id"] for m in served["members"]] == members
    for member, share in zip(served["members"], expected["picks"], strict=True):
        assert close(member["pick_share"], float(share))


@pytest.mark.parametrize("splits", [16, 8, 4])
@pytest.mark.parametrize("family", [PLANTED, NOISE], ids=["planted", "noise"])
def test_every_figure_equals_the_papers_steps(
    families_api: Api, families_lake: Path, family: list[str], splits: int
) -> None:
    lake = ref.Lake(families_lake)
    members = sorted(family, reverse=True)  # catalogue order: the later variants started later
    body = families_api.ok(PATH.format(family[0]), splits=splits)["data"]
    assert body["family"] == ("planted_latent" if family is PLANTED else "pure_noise")
    assert body["family_trials"] == len(family) and body["splits"] == splits
    assert body["combinations"] == math.comb(splits, splits // 2)
    returns = family_returns(lake, members)
    check_against_paper(body, paper_cscv(returns, splits), members)
    for member in body["members"]:
        manifest = json.loads((lake.build(member["alpha_id"]) / "alpha.json").read_text())
        assert member["parameters"] == manifest["parameters"]


def test_a_key_is_answered_over_the_members_it_may_read(families_api: Api, families_lake: Path) -> None:
    """Seven of the eight: the figures are the seven's (a member it may not read never enters);
    three: too few, not measurable, saying so, and nothing of the others named."""
    lake = ref.Lake(families_lake)
    body = families_api.ok(PATH.format(SEVEN[0]), "seven", splits=8)["data"]
    members = sorted(SEVEN, reverse=True)
    check_against_paper(body, paper_cscv(family_returns(lake, members), 8), members)
    whole = families_api.ok(PATH.format(SEVEN[0]), splits=8)["data"]
    assert whole["pbo"]["value"] != body["pbo"]["value"] or whole["family_trials"] == 8

    three = families_api.ok(PATH.format(THREE[0]), "three")["data"]
    assert three["family_trials"] == 3
    assert [m["alpha_id"] for m in three["members"]] == sorted(THREE, reverse=True)
    for name in ("pbo", "degradation_slope", "degradation_intercept", "probability_of_loss"):
        entry = three[name]
        assert entry["value"] is None and entry["status"] == "not_measurable"
        assert (
            "at least 6 trials" in entry["withheld_reason"]
            and "may read 3 member" in entry["withheld_reason"]
        )
    assert three["logit_distribution"] == [] and all(m["pick_share"] is None for m in three["members"])


def test_refusals(families_api: Api, families_lake: Path) -> None:
    odd = families_api.get(PATH.format(NOISE[0]), splits=7)
    assert odd.status_code == 400
    assert odd.json()["error"]["details"]["parameters"] == [
        {"name": "splits", "rule": "must be even (S/2 blocks in sample, S/2 out), got 7"}
    ]
    for bad in (2, 18, "x"):
        response = families_api.get(PATH.format(NOISE[0]), splits=bad)
        assert response.status_code == 400, response.text
        assert response.json()["error"]["details"]["parameters"][0]["name"] == "splits"
    withheld = families_api.ok(PATH.format(NOISE[0]), "no_portfolio")
    assert withheld["data"]["pbo"]["withheld_reason"].startswith("access_limited")
    assert [w["code"] for w in withheld["meta"]["warnings"]] == ["access_limited"]


def test_an_alpha_without_a_family(api: Api) -> None:
    body = api.ok(PATH.format("momentum_12_1"))["data"]
    assert body["family"] is None and body["family_trials"] == 0 and body["members"] == []
    assert body["pbo"]["withheld_reason"] == "the seal of momentum_12_1 names no trial family"


@pytest.mark.slow
def test_the_demo_families_known_answers() -> None:
    """On the full-size market (the full demo corpus's), every variant of both families run by the
    demo engine: the noise family's PBO above 0.5, the planted family's below 0.2 (S = 16), by the
    paper's steps over the sealed ledgers, and the service's CSCV equal to them."""
    from alpha_results_seal.demo.alphas import FAMILIES
    from alpha_results_seal.demo.engine import run_alpha
    from alpha_results_seal.demo.market import simulate_market
    from analytics.overfitting import cscv

    market = simulate_market("full", 7)
    by_family: dict[str, dict[str, pd.Series]] = {}
    for spec in FAMILIES:
        ledger = run_alpha(spec, market, "full", 7).tables["portfolio/long_short.parquet"].to_pandas()
        returns = ledger["ending_equity"] / ledger["starting_equity"] - 1.0
        by_family.setdefault(str(spec.family), {})[spec.alpha_id] = pd.Series(
            returns.to_numpy(), index=ledger["date"].to_numpy()
        )
    found = {}
    measured: dict[tuple[str, int], Any] = {}
    for family, series in by_family.items():
        frame = pd.DataFrame(series).dropna().sort_index()
        assert frame.shape[1] == 16 and frame.shape[0] > 1_000
        expected = paper_cscv(frame, 16)
        ours = cscv(frame.to_numpy(), 16)
        assert close(ours.pbo, expected["pbo"]) and close(ours.slope, expected["slope"])
        found[family] = expected["pbo"]
        measured[family, 16], measured[family, 8] = ours, cscv(frame.to_numpy(), 8)
        measured["common", 0] = frame.shape[0]
    assert found["pure_noise"] > 0.5, found
    assert found["planted_latent"] < 0.2, found
    check_the_guides_known_answers(measured)


def check_the_guides_known_answers(measured: dict[tuple[str, int], Any]) -> None:
    """docs/analytics.md ("Overfitting", "The demo's known answers") states the demo families'
    figures: each as measured here (3 decimals, counts whole), so the paragraph cannot drift."""
    path = Path(__file__).resolve().parents[2] / "docs" / "analytics.md"
    text = " ".join(path.read_text().split())

    def stated(pattern: str) -> tuple[str, ...]:
        match = re.search(pattern, text)
        assert match is not None, f"docs/analytics.md no longer states {pattern!r}"
        return match.groups()

    planted, noise = measured["planted_latent", 16], measured["pure_noise", 16]
    assert stated(r"At S = 16 \(([\d,]+) common sessions, of which CSCV uses the latest ([\d,]+)") == (
        f"{measured['common', 0]:,}",
        f"{planted.sessions:,}",
    )
    three = "{:.3f}".format
    assert stated(r"planted family's PBO is (\d+\.\d+) \(([\d,]+) of the ([\d,]+) combinations") == (
        three(planted.pbo),
        f"{round(planted.pbo * planted.splits):,}",
        f"{planted.splits:,}",
    )
    assert stated(r"degradation slope (-?\d+\.\d+) and probability of loss (\d+\.\d+)") == (
        three(planted.slope),
        three(planted.probability_of_loss),
    )
    assert stated(r"noise family's PBO (\d+\.\d+) \(([\d,]+) of ([\d,]+);") == (
        three(noise.pbo),
        f"{round(noise.pbo * noise.splits):,}",
        f"{noise.splits:,}",
    )
    assert stated(r"probability of loss is (\d+\.\d+)\), slope (-?\d+\.\d+)") == (
        three(noise.probability_of_loss),
        three(noise.slope),
    )
    assert stated(r"At S = 8: (\d+\.\d+) and (\d+\.\d+)\.") == (
        three(measured["planted_latent", 8].pbo),
        three(measured["pure_noise", 8].pbo),
    )


def test_a_notebook_is_answered_the_served_struct(families_api: Api, families_lake: Path) -> None:
    """`Figures.overfitting` (derived from the declared answer) is the route's data byte for byte."""
    from analytics.figures import Figures

    figures = Figures.open(str(families_lake))
    try:
        for alpha, splits in ((PLANTED[0], 16), (NOISE[3], 6)):
            served = families_api.get(PATH.format(alpha), splits=splits)
            assert served.status_code == 200, served.text
            local = figures.overfitting(alpha, splits=splits)
            assert msgspec.json.encode(local) == bytes(
                msgspec.json.decode(served.content, type=RawData)["data"]
            )
    finally:
        figures.reader.close()


# -- the optional pbo check of /analytics/checks ------------------------------------------------------

CHECKS = "/v1/alphas/{}/analytics/checks"


def test_the_pbo_check_is_off_by_default_and_on_when_asked(families_api: Api) -> None:
    default = families_api.ok(CHECKS.format(NOISE[0]))["data"]
    assert "pbo" not in [c["id"] for c in default["checks"]]
    assert "pbo" not in default["policy"]["thresholds"]
    overfitting = families_api.ok(PATH.format(NOISE[0]))["data"]
    pbo = overfitting["pbo"]["value"]
    for bound, verdict in ((1.0, "pass"), (0.0, "fail")):
        found = families_api.ok(CHECKS.format(NOISE[0]), max_pbo=bound)["data"]
        entry = next(c for c in found["checks"] if c["id"] == "pbo")
        assert entry["value"] == pbo and entry["verdict"] == verdict, entry
        assert entry["threshold"] == {"max": bound} and entry["policy_threshold"] == {}
        assert "family pure_noise" in entry["reason"] and "8 trials" in entry["reason"]
    # Three readable members: not measurable, with the overfitting answer's reason, and the verdict
    # as the rest of the battery makes it.
    three = families_api.ok(CHECKS.format(THREE[0]), "three", max_pbo=0.5)["data"]
    entry = next(c for c in three["checks"] if c["id"] == "pbo")
    assert entry["verdict"] == "not_measurable" and "at least 6 trials" in entry["reason"]
    without = families_api.ok(CHECKS.format(THREE[0]), "three")["data"]
    assert three["summary"]["verdict"] == without["summary"]["verdict"]


def test_an_operator_policy_turns_the_pbo_check_on(tmp_path: Path) -> None:
    from analytics.policy import PolicyError, load_policy
    from schemas.query import ChecksQuery

    path = tmp_path / "policy.toml"
    path.write_text("[checks.pbo]\nmax = 0.4\n")
    policy = load_policy(str(path))
    assert dict(policy.thresholds["pbo"]) == {"max": 0.4}
    assert policy.tightened(ChecksQuery(max_pbo=0.3))["pbo"] == {"max": 0.3}
    with pytest.raises(Exception, match="max_pbo"):
        policy.tightened(ChecksQuery(max_pbo=0.5))
    assert "pbo" not in load_policy("").thresholds
    path.write_text("[checks.pbo]\nmin = 0.4\n")
    with pytest.raises(PolicyError, match="bounded by max only"):
        load_policy(str(path))


def test_the_families_listing_names_only_what_the_key_may_read(
    families_api: Api, families_lake: Path
) -> None:
    lake = ref.Lake(families_lake)
    rows = families_api.all_rows("/v1/families")  # paged (issue 60): every page read, 7 rows each
    grouped: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        grouped.setdefault(row["family"], []).append(row)
    assert list(grouped) == ["planted_latent", "pure_noise"]
    for row in rows:  # each row decodes strictly as its Struct and encodes back equal, key order too
        assert round_trip(FamilyMemberRow, row, "/v1/families") == []
    for members, expected in zip(grouped.values(), (PLANTED, NOISE), strict=True):
        assert [m["alpha_id"] for m in members] == sorted(expected, reverse=True)
        for member in members:
            manifest = json.loads((lake.build(member["alpha_id"]) / "alpha.json").read_text())
            assert member["parameters"] == manifest["parameters"]
    one = families_api.ok("/v1/families", family="pure_noise", limit="3", offset="2")
    assert one["pagination"]["total"] == len(NOISE)
    assert [m["alpha_id"] for m in one["data"]] == sorted(NOISE, reverse=True)[2:5]
    three = families_api.all_rows("/v1/families", "three")
    assert [(m["family"], m["alpha_id"]) for m in three] == [
        ("pure_noise", alpha) for alpha in sorted(THREE, reverse=True)
    ]
    assert "planted" not in json.dumps(three)
    bad = families_api.get("/v1/families", family="Not a slug")
    assert bad.status_code == 400, bad.text
    assert bad.json()["error"]["details"]["parameters"][0]["name"] == "family"


def test_the_families_listing_is_made_off_the_event_loop(
    families_api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 60, finding 3: the listing was one answer computed on the event loop (3.7 s at 50,000
    members, every other request of the worker waiting). Its page is made in a worker thread."""
    import asyncio

    from analytics import overfitting

    threads: list[bool] = []
    made = overfitting.families_page

    def watched(*args: Any, **kwargs: Any) -> Any:
        try:
            asyncio.get_running_loop()
            threads.append(False)  # on the event loop
        except RuntimeError:
            threads.append(True)
        return made(*args, **kwargs)

    monkeypatch.setattr(overfitting, "families_page", watched)
    assert families_api.ok("/v1/families", limit="1")["pagination"]["total"] > 1
    assert threads == [True]


def test_cscv_in_chunks_is_the_whole_computation_in_bounded_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 60, finding 2: CSCV held every split x trial array at once (592 MB at 1,000 members,
    5.9 GB at 10^4). It runs over the splits in chunks now: the same figures, and a peak of
    allocations (tracemalloc, not a timing) that does not grow with the splits."""
    import tracemalloc

    from analytics import overfitting

    rng = np.random.default_rng(60)
    returns = rng.normal(0.0, 0.01, size=(16 * 20, 600)) + rng.normal(0, 0.002, size=600)
    tracemalloc.start()
    chunked = overfitting.cscv(returns, 16)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 32 << 20, peak  # one array of every split: 12,870 x 600 x 8 bytes = 62 MB, and six of them
    monkeypatch.setattr(overfitting, "CHUNK_CELLS", 1 << 40)  # every split at once, as before
    whole = overfitting.cscv(returns, 16)
    assert chunked.pbo == whole.pbo and chunked.probability_of_loss == whole.probability_of_loss
    assert np.array_equal(chunked.logit_counts, whole.logit_counts)
    assert np.array_equal(chunked.pick_shares, whole.pick_shares)
    assert chunked.slope == pytest.approx(whole.slope, rel=1e-12)


def test_one_family_is_computed_once_however_many_ask_at_once() -> None:
    """Issue 60, finding 2: four first asks of one family all computed (`kept_cscv` computed outside
    its lock). Now the first computes and the others wait for its answer: the values are read once,
    and every asker gets the same figures."""
    import threading

    from analytics import overfitting
    from tests.health_wait import wait_until

    rng = np.random.default_rng(7)
    values = rng.normal(0.0, 0.01, size=(8, 16 * 10))
    release = threading.Event()
    reads: list[int] = []

    def read() -> np.ndarray:
        reads.append(1)
        assert release.wait(60)
        return values

    key = ("single-flight-test", tuple(f"m{i}" for i in range(8)), 16)
    answers: list[Any] = []
    askers = [
        threading.Thread(target=lambda: answers.append(overfitting.kept_cscv(*key[:2], read, 16)))
        for _ in range(4)
    ]
    for asker in askers:
        asker.start()
    wait_until(
        lambda: key in overfitting._in_flight and overfitting._in_flight[key].waiting == 3,
        "three askers waiting",
    )
    release.set()
    for asker in askers:
        asker.join(60)
    assert len(reads) == 1
    assert len(answers) == 4 and all(answer is answers[0] for answer in answers)
    assert answers[0][0] is not None and key not in overfitting._in_flight
