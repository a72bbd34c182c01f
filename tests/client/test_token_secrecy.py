"""The API token never appears in a repr, a log line or an exception message, and is sent only
to the API's own origin (never with a signed download URL)."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from alpha_results_client import ApiError, Client, RetryPolicy, TransportError
from tests.client.conftest import Api, Key, Recorder

pytestmark = pytest.mark.e2e

ALPHA = "momentum_12_1"


def secrets_of(token: str) -> tuple[str, str]:
    return token, token.partition(".")[2]


def assert_hidden(text: str, token: str) -> None:
    for secret in secrets_of(token):
        assert secret not in text, text


def test_the_token_is_in_no_repr_log_or_error(
    api: Api,
    plain_key: Key,
    recorder: Recorder,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    caplog.set_level(logging.DEBUG)  # httpx, httpcore and the client, everything
    monkeypatch.setenv("ALPHA_RESULTS_TOKEN", plain_key.token)
    texts: list[str] = []
    with Client(
        api.base_url, http_transport=recorder.transport(), retry=RetryPolicy(max_attempts=2)
    ) as client:
        texts += [repr(client), str(client), repr(client._transport), repr(client._transport.http.auth)]
        texts += [repr(vars(client)), repr(vars(client._transport))]
        client.scores(ALPHA).to_polars()
        client.download_source(ALPHA)
        with pytest.raises(ApiError) as info:
            client.trades(ALPHA, "nope").to_list()
        error = info.value
        texts += [str(error), repr(error), error.message, repr(error.details), repr(error.args)]
        sent = len(recorder.exchanges)
        # A token pasted into a path or a parameter is refused before anything is sent or logged.
        for call in (
            lambda: client.cross_section(ALPHA, "2021-01-08", symbol=plain_key.token).to_list(),
            lambda: client.alpha(plain_key.token.replace(".", "-")),
        ):
            with pytest.raises(ValueError, match="would carry the API token") as refused:
                call()
            texts += [str(refused.value), repr(refused.value)]
        assert len(recorder.exchanges) == sent
    assert recorder.statuses()  # the token did authenticate these requests
    texts += [record.getMessage() for record in caplog.records]
    texts += [repr(record.args) for record in caplog.records]
    for text in texts:
        assert_hidden(text, plain_key.token)


def test_the_token_goes_only_to_the_api_and_never_with_a_signed_url(
    api: Api, plain_key: Key, recorder: Recorder
) -> None:
    with api.client(plain_key, http_transport=recorder.transport()) as client:
        client.download_export(ALPHA, "rebalances")
        client.download_source(ALPHA)
    sent = list(zip(recorder.exchanges, recorder.authorization, strict=True))
    downloads = [auth for (path, _), auth in sent if path.startswith("/downloads/")]
    api_calls = [auth for (path, _), auth in sent if path.startswith("/v1/")]
    assert len(downloads) == 2 and downloads == [None, None]
    assert api_calls and all(auth == f"Bearer {plain_key.token}" for auth in api_calls)


def test_a_transport_failure_names_no_token(caplog: pytest.LogCaptureFixture) -> None:
    from tests.support.ports import free_port

    token = "ar_live_AAAAAAAAAAAAAAAA." + "s" * 43
    caplog.set_level(logging.DEBUG)
    with Client(
        f"http://127.0.0.1:{free_port()}",
        token=token,
        retry=RetryPolicy(max_attempts=2, backoff_initial=0.01),
    ) as client:
        with pytest.raises(TransportError) as info:
            client.me()
    texts: list[Any] = [str(info.value), repr(info.value), *(r.getMessage() for r in caplog.records)]
    for text in texts:
        assert_hidden(str(text), token)
