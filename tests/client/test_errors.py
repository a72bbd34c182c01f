"""Every failure the real server answers arrives as the exception class of its code, carrying
the code, message, details, request id and status; permanent ones are raised at the first answer."""

from __future__ import annotations

from typing import Any

import pytest

from alpha_results_client import (
    AlphaDescriptionNotFoundError,
    ApiError,
    AuthenticationError,
    BadRequestError,
    Client,
    EndpointNotAllowedError,
    InvalidRequestError,
    KeyRevokedError,
    MalformedApiKeyError,
    MissingApiKeyError,
    PermissionDeniedError,
    RebalanceNotFoundError,
    ResourceNotFoundError,
    RunNotAllowedError,
    RunNotFoundError,
    UnknownBookError,
)
from tests.client.conftest import Api, Key, Recorder, cli

pytestmark = pytest.mark.e2e

ALPHA = "momentum_12_1"


def raised(call: Any) -> ApiError:
    with pytest.raises(ApiError) as info:
        call()
    return info.value


def test_each_code_is_its_own_class_with_the_envelope(api: Api, plain_key: Key, recorder: Recorder) -> None:
    with api.client(plain_key, http_transport=recorder.transport()) as client:
        book = raised(lambda: client.trades(ALPHA, "raw_long_short").to_list())
        assert isinstance(book, UnknownBookError) and isinstance(book, InvalidRequestError)
        assert (book.code, book.status) == ("unknown_book", 400)
        assert "long_short" in book.details["available"]
        assert not any(b.startswith("raw_") for b in book.details["available"])
        assert book.request_id and book.request_id.startswith("req_")
        assert book.request_id in str(book) and "unknown_book" in str(book)

        week = raised(lambda: client.cross_section(ALPHA, "2021-01-09").to_list())
        assert isinstance(week, RebalanceNotFoundError) and isinstance(week, ResourceNotFoundError)
        assert week.details["previous_rebalance"] == "2021-01-08"
        assert week.details["next_rebalance"] == "2021-01-15"

        bad = raised(lambda: client.cross_section(ALPHA, "2021-01-08", direction="sideways").to_list())
        assert isinstance(bad, BadRequestError)
        assert [p["name"] for p in bad.details["parameters"]] == ["direction"]

        missing = raised(lambda: client.books("no_such_alpha").to_list())
        assert isinstance(missing, RunNotFoundError) and missing.details["alpha"] == "no_such_alpha"

        undescribed = raised(lambda: client.alpha("Test_small_universe"))
        assert isinstance(undescribed, AlphaDescriptionNotFoundError) and undescribed.status == 404
    # Five failures, five requests: nothing permanent was retried.
    assert [status for _, status in recorder.exchanges] == [400, 404, 400, 404, 404]


def test_allow_lists_refuse_with_their_codes(api: Api) -> None:
    tests_only = api.key("tests-only", alphas="prefix:Test_")
    with api.client(tests_only) as client:
        refused = raised(lambda: client.equity_curve(ALPHA).to_list())
        assert isinstance(refused, RunNotAllowedError) and isinstance(refused, PermissionDeniedError)
        assert all(row.alpha_id.startswith("Test_") for row in client.alphas())
    meta_only = api.key("meta-only", endpoints="meta.me,meta.keys,meta.health")
    with api.client(meta_only) as client:
        denied = raised(lambda: client.alphas().to_list())
        assert isinstance(denied, EndpointNotAllowedError)
        assert denied.details["endpoint"] == "catalog.alphas.list"
        assert client.me().data.callable_endpoints == ["meta.health", "meta.keys", "meta.me"]


def test_authentication_failures(api: Api) -> None:
    with Client(api.base_url, token=None) as anonymous:
        assert anonymous.health().status in ("ok", "degraded")  # public
        assert isinstance(raised(anonymous.me), MissingApiKeyError)
    with Client(api.base_url, token="not-a-token") as malformed:
        error = raised(malformed.me)
        assert isinstance(error, MalformedApiKeyError) and isinstance(error, AuthenticationError)
    revoked = api.key("to-revoke")
    cli(api.keystore_url, "keys", "revoke", revoked.key_id)
    with api.client(revoked) as client:
        assert isinstance(raised(client.me), KeyRevokedError)


def test_unknown_parameters_fail_before_any_request(api: Api, plain_key: Key, recorder: Recorder) -> None:
    with api.client(plain_key, http_transport=recorder.transport()) as client:
        with pytest.raises(TypeError, match="takes no parameter"):
            client._single("signals.scores", {"alpha": ALPHA}, colour="red")
    assert recorder.exchanges == []
