"""The probability of backtest overfitting of a trial family (issue 50, items 1 and 2):
`/analytics/overfitting` against CSCV written again from the paper (Bailey, Borwein, López de Prado
and Zhu 2015, section 2.2: one loop over the combinations, pandas' Sharpe ratio, scipy's ranks,
numpy's least squares, a loop over the combinations) over the lake's ledger files, to 1e-9; the key's scope (a member it may not
read is never in a figure; 3 readable members are too few); the refusals; and the known answers of
the demo's two families on the full-size market (noise above 0.5, planted below 0.2).

A lake of two small families (8 variants of the demo's planted family and 10 of its noise family,
on the small market) is built once per run: about 17 s of one core. The noise family's 10 make the
pbo check on by default (`schemas.checks.PBO_DEFAULT_MIN_TRIALS`), the planted family's 8 do not.
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
from schemas.checks import LIVE_CHECKS
from tests.analytics import reference as ref
from tests.analytics import sharpe_reference
from tests.analytics.conftest import CALLERS, Api, FamilyRuns, endpoints_only, serving
from tests.analytics.helpers import close
from tests.callers import DATA_IDS, make_caller
from tests.support.families import NOISE, PLANTED, family_returns
from tests.support.families import families_lake as families_lake  # a fixture
from tests.support.round_trips import round_trip

PATH = "/v1/alphas/{}/analytics/overfitting"
RawData = dict[str, msgspec.Raw]
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
    """Seven of the ten: the figures are the seven's (a member it may not read never enters);
    three: too few, not measurable, saying so, and nothing of the others named."""
    lake = ref.Lake(families_lake)
    body = families_api.ok(PATH.format(SEVEN[0]), "seven", splits=8)["data"]
    members = sorted(SEVEN, reverse=True)
    check_against_paper(body, paper_cscv(family_returns(lake, members), 8), members)
    whole = families_api.ok(PATH.format(SEVEN[0]), splits=8)["data"]
    assert whole["family_trials"] == len(NOISE) and body["family_trials"] == 7

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
def test_the_demo_families_known_answers(full_family_runs: dict[str, FamilyRuns]) -> None:
    """On the full-size market (the full demo corpus's), every variant of both families run by the
    demo engine: the noise family's PBO above 0.5, the planted family's below 0.2 (S = 16), by the
    paper's steps over the sealed ledgers, and the service's CSCV equal to them."""
    from analytics.overfitting import cscv

    # the near-duplicates have no known PBO
    by_family = {f: full_family_runs[f].returns for f in ("planted_latent", "pure_noise")}
    found = {}
    measured: dict[tuple[str, int], Any] = {}
    for family, series in by_family.items():
        frame = series.dropna().sort_index()
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


# -- the pbo check of /analytics/checks ------------------------------------------------------------------

CHECKS = "/v1/alphas/{}/analytics/checks"


def pbo_entry(answer: dict[str, Any]) -> dict[str, Any]:
    return next(c for c in answer["checks"] if c["id"] == "pbo")


def test_the_pbo_check_is_on_by_default_for_a_family_of_ten(families_api: Api) -> None:
    """Issue 65, item 2: a family of 10 members the key may read is judged by its PBO in the default
    verdict, the value /analytics/overfitting's; a bound of the request still tightens it."""
    default = families_api.ok(CHECKS.format(NOISE[0]))["data"]
    assert default["policy"]["thresholds"]["pbo"] == {"max": 0.5}
    overfitting = families_api.ok(PATH.format(NOISE[0]))["data"]
    pbo = overfitting["pbo"]["value"]
    assert overfitting["family_trials"] == 10 and pbo is not None
    entry = pbo_entry(default)
    assert entry["value"] == pbo and entry["threshold"] == entry["policy_threshold"] == {"max": 0.5}
    assert entry["verdict"] == ("pass" if pbo <= 0.5 else "fail"), entry
    assert "family pure_noise" in entry["reason"] and "10 trials" in entry["reason"]
    assert default["summary"]["failed"] == sum(c["verdict"] == "fail" for c in default["checks"])
    for bound, verdict in ((pbo, "pass"), (0.0, "fail")):
        found = families_api.ok(CHECKS.format(NOISE[0]), max_pbo=bound)["data"]
        entry = pbo_entry(found)
        assert entry["value"] == pbo and entry["verdict"] == verdict, entry
        assert entry["threshold"] == {"max": bound} and entry["policy_threshold"] == {"max": 0.5}


def test_below_ten_readable_members_the_default_pbo_check_says_why(families_api: Api) -> None:
    """The planted family's 8, and 7 of the noise family's 10 for a key reading those 7 (the count
    is the key's: never the 10 it may not read): not applicable by default, the verdict as the rest
    of the battery makes it; bounded by the request, measured from 6 as the route measures it."""
    planted = families_api.ok(CHECKS.format(PLANTED[0]))["data"]
    entry = pbo_entry(planted)
    assert entry["value"] is None and entry["verdict"] == "not_measurable"
    assert entry["reason"].startswith("not_applicable: the trial family planted_latent has 8 member(s)")
    assert "on by default from 10" in entry["reason"]
    asked = pbo_entry(families_api.ok(CHECKS.format(PLANTED[0]), max_pbo=0.5)["data"])
    assert asked["value"] == families_api.ok(PATH.format(PLANTED[0]))["data"]["pbo"]["value"] is not None
    seven = pbo_entry(families_api.ok(CHECKS.format(SEVEN[0]), "seven")["data"])
    assert seven["verdict"] == "not_measurable" and "pure_noise has 7 member(s)" in seven["reason"]
    assert "10 trials" not in seven["reason"] and "has 10" not in seven["reason"]
    # Three readable members, bounded by the request: not measurable with the overfitting answer's
    # reason, and the verdict as the rest of the battery makes it.
    three = families_api.ok(CHECKS.format(THREE[0]), "three", max_pbo=0.5)["data"]
    entry = pbo_entry(three)
    assert entry["verdict"] == "not_measurable" and "at least 6 trials" in entry["reason"]
    without = families_api.ok(CHECKS.format(THREE[0]), "three")["data"]
    assert three["summary"]["verdict"] == without["summary"]["verdict"]


def test_an_alpha_without_a_family_has_the_pbo_check_not_applicable(api: Api) -> None:
    answer = api.ok(CHECKS.format("momentum_12_1"))["data"]
    entry = pbo_entry(answer)
    assert entry["verdict"] == "not_measurable" and entry["value"] is None
    assert entry["reason"] == "not_applicable: the seal of momentum_12_1 names no trial family"
    others = [c for c in answer["checks"] if c["id"] != "pbo"]
    assert answer["summary"]["verdict"] == (
        "fail"
        if any(c["verdict"] == "fail" for c in others)
        else "incomplete"
        if any(c["verdict"] == "not_measurable" and c["id"] not in LIVE_CHECKS for c in others)
        else "pass"
    )


def test_an_operator_policy_turns_the_pbo_check_on_or_off(tmp_path: Path) -> None:
    from analytics.policy import PolicyError, load_policy
    from schemas.query import ChecksQuery

    default = load_policy("")
    assert dict(default.thresholds["pbo"]) == {"max": 0.5} and default.bounded == frozenset()
    path = tmp_path / "policy.toml"
    path.write_text("[checks.pbo]\nmax = 0.4\n")
    policy = load_policy(str(path))
    assert dict(policy.thresholds["pbo"]) == {"max": 0.4} and policy.bounded == {"pbo"}
    assert policy.tightened(ChecksQuery(max_pbo=0.3))["pbo"] == {"max": 0.3}
    with pytest.raises(Exception, match="max_pbo"):
        policy.tightened(ChecksQuery(max_pbo=0.5))
    assert policy.tag() != default.tag()
    path.write_text("[checks.pbo]\noff = true\n")
    off = load_policy(str(path))
    assert "pbo" not in off.thresholds and "pbo" not in off.tightened(ChecksQuery())
    assert off.tightened(ChecksQuery(max_pbo=0.5))["pbo"] == {"max": 0.5}  # a request turns it on
    for text in (
        "[checks.pbo]\nmin = 0.4\n",
        "[checks.pbo]\noff = true\nmax = 0.4\n",
        "[checks.pbo]\noff = 1\n",
    ):
        path.write_text(text)
        with pytest.raises(PolicyError, match="bounded by max only|off = true"):
            load_policy(str(path))
    path.write_text("[checks.turnover]\noff = true\n")
    with pytest.raises(PolicyError, match="bounded by min and max only"):
        load_policy(str(path))


def test_an_operator_policy_that_turns_it_off_leaves_it_out(families_lake: Path, tmp_path: Path) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text("[checks.pbo]\noff = true\n")
    with serving(families_lake, CALLERS, checks_policy_file=str(policy)) as api:
        answer = api.ok(CHECKS.format(NOISE[0]))["data"]
    assert "pbo" not in answer["policy"]["thresholds"] and "pbo" not in [c["id"] for c in answer["checks"]]


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
        lambda: key in overfitting._flights.flying and overfitting._flights.flying[key].waiting == 3,
        "three askers waiting",
    )
    release.set()
    for asker in askers:
        asker.join(60)
    assert len(reads) == 1
    assert len(answers) == 4 and all(answer is answers[0] for answer in answers)
    assert answers[0][0] is not None and key not in overfitting._flights.flying


# -- the deflated Sharpe ratio over the family's trials (issue 65, item 2) ----------------------------------

SIGNIFICANCE = "/v1/alphas/{}/analytics/significance"


def family_dsr(lake: ref.Lake, alpha: str, members: list[str]) -> tuple[float, int, float]:
    """(DSR, N, V) by the reference code of López de Prado, Lipton and Zoonekynd (2025): the
    members' per-session Sharpe ratios (mean / std, ddof 1, of each whole history's daily returns),
    V their variance (ddof 1), E[max SR] of Bailey and López de Prado (2014), and the PSR of the
    alpha's whole-history returns against it, its variance that of the maximum of N Sharpe ratios
    (biased skewness, Pearson kurtosis, lag-1 autocorrelation)."""
    from scipy import stats

    sharpes = []
    for member in members:
        r = lake.returns(member, "long_short", (None, None)).to_numpy()
        r = r[np.isfinite(r)]
        sharpes.append(r.mean() / r.std(ddof=1))
    n, v = len(sharpes), float(np.var(sharpes, ddof=1))
    sr0 = sharpe_reference.expected_maximum_sharpe_ratio(n, v)
    r = lake.returns(alpha, "long_short", (None, None)).to_numpy()
    r = r[np.isfinite(r)]
    sr = r.mean() / r.std(ddof=1)
    moments = {
        "gamma3": stats.skew(r),
        "gamma4": stats.kurtosis(r, fisher=False),
        "rho": sharpe_reference.autocorrelation(r),
    }
    return float(sharpe_reference.probabilistic_sharpe_ratio(sr, sr0, T=r.size, K=n, **moments)), n, v


def test_the_family_dsr_deflates_by_the_familys_own_trials(families_api: Api, families_lake: Path) -> None:
    """dsr_family: N the family's members the key may read, V their Sharpe variance, equal to the
    paper's formula within 1e-9; dsr (the catalogue's) beside it with its own N; the
    deflated_sharpe check deflates by the family and says so."""
    lake = ref.Lake(families_lake)
    for alpha, family, token in (
        (NOISE[0], NOISE, "raw"),
        (PLANTED[2], PLANTED, "raw"),
        (SEVEN[0], SEVEN, "seven"),
    ):
        body = families_api.ok(SIGNIFICANCE.format(alpha), token)["data"]
        expected, n, v = family_dsr(lake, alpha, family)
        served = body["dsr_family"]
        assert served["trials"]["count"] == n == len(family) and served["trials"]["count_source"] == "family"
        assert abs(served["trials"]["sharpe_variance"] - v) <= 1e-9 * max(1.0, abs(v))
        assert abs(served["value"] - expected) <= 1e-9, (alpha, served, expected)
        assert body["dsr"]["trials"]["count_source"] == "catalogue"
        assert body["dsr"]["trials"]["count"] == len(PLANTED) + len(NOISE)  # every published alpha
        check = next(
            c
            for c in families_api.ok(CHECKS.format(alpha), token)["data"]["checks"]
            if c["id"] == "deflated_sharpe"
        )
        assert abs(check["value"] - expected) <= 1e-9
        family_name = "pure_noise" if family is not PLANTED else "planted_latent"
        assert f"best of {n} trials of its trial family {family_name}" in check["reason"], check


def test_the_family_dsr_is_not_available_on_a_window_its_formula_cannot_support(
    families_api: Api, families_lake: Path
) -> None:
    """Issue 81, item 2, for the one figure no alpha of the small demo serves (none is in a trial
    family): dsr_family, like every DSR, needs the returns tests.support.short_windows.NEEDS states
    from the formulas (4: the lag-1 correlation and the kurtosis of its variance); on windows of 0
    to 10 sessions of a family's member it is never available below them, and available on 10."""
    from tests.support.short_windows import LENGTHS, NEEDS

    days = sorted(str(d)[:10] for d in ref.Lake(families_lake).ledger(NOISE[0], "long_short")["date"])
    start = len(days) // 3
    available = {}
    for length in LENGTHS:
        window = ("2021-02-13", "2021-02-14") if length == 0 else (days[start], days[start + length - 1])
        response = families_api.get(SIGNIFICANCE.format(NOISE[0]), **{"from": window[0], "to": window[1]})
        assert response.status_code < 500, (length, response.text[:300])
        if response.status_code == 200:
            entry = response.json()["data"]["dsr_family"]
            available[length] = entry["status"] == "available"
    assert not [n for n, yes in available.items() if yes and n < NEEDS["dsr_family"]], available
    assert available.get(max(LENGTHS)), available


def test_an_alpha_without_a_family_has_no_family_dsr(api: Api) -> None:
    body = api.ok(SIGNIFICANCE.format("momentum_12_1"))["data"]
    assert body["dsr_family"]["value"] is None and body["dsr_family"]["trials"]["count"] == 0
    assert (
        body["dsr_family"]["withheld_reason"]
        == "not_applicable: the seal of momentum_12_1 names no trial family"
    )
    check = next(
        c for c in api.ok(CHECKS.format("momentum_12_1"))["data"]["checks"] if c["id"] == "deflated_sharpe"
    )
    assert "trials of the catalogue" in check["reason"] and body["dsr"]["value"] == check["value"]


def test_unrelated_seals_leave_the_family_dsr_as_it_was(families_lake: Path, tmp_path: Path) -> None:
    """The issue's case: the catalogue's N grew with every unrelated publish ("best of 7" at 09:39,
    "best of 55" after 16 unrelated seals); the family's N and DSR do not move."""
    import shutil

    from alpha_results_seal.demo.corpus import write_corpus
    from pipeline.build import build_many

    def answers(lake: Path) -> dict[str, Any]:
        with serving(lake, CALLERS) as api:
            return api.ok(SIGNIFICANCE.format(NOISE[0]))["data"]

    before = answers(families_lake)
    lake = Path(shutil.copytree(families_lake, tmp_path / "lake"))
    seals = tmp_path / "seals"
    write_corpus(seals, size="small", seed=7, only=["momentum_12_1", "value_composite_legacy"])
    outcomes = build_many(sorted(str(p) for p in seals.iterdir()), str(lake), jobs=1)
    assert not [o for o in outcomes if o.status == "refused"]
    after = answers(lake)
    assert after["dsr"]["trials"]["count"] == before["dsr"]["trials"]["count"] + 2
    assert after["dsr_family"] == before["dsr_family"]


def test_a_key_without_the_ledger_is_told_why_not_how_many(families_api: Api) -> None:
    """The family's PBO and DSR are built from its members' ledgers: a key that may not read ledgers
    gets the check withheld under its own block, and no V or SR0 of the family."""
    body = families_api.ok(CHECKS.format(NOISE[0]), "no_portfolio")
    entry = pbo_entry(body["data"])
    assert entry["value"] is None and entry["reason"].startswith("access_limited"), entry
    assert "checks.pbo" in {w.get("block") for w in body["meta"]["warnings"]}
    family = families_api.ok(SIGNIFICANCE.format(NOISE[0]), "no_portfolio")["data"]["dsr_family"]
    assert family["value"] is None and family["trials"]["sharpe_variance"] is None
    assert family["trials"]["expected_max_sharpe"] is None


def test_a_lake_without_a_catalogue_index_leaves_the_pbo_check_not_measurable() -> None:
    from analytics.access import FULL_ACCESS
    from analytics.checks import pbo_figure
    from analytics.entries import Warnings

    figure = pbo_figure("momentum_12_1", None, False, FULL_ACCESS, Warnings())
    assert figure.value is None and "no catalogue index" in figure.reason
