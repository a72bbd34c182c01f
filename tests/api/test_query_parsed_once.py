"""The query string is parsed once per request (issue 34, "the HTTP boundary parses once"), and
everything that reads it reads that one parse: the key-in-URL refusal, the representation's
`format`, the parameters' parser, the entity tag and the `Link` header. Before, it was parsed up
to five times, and the representation's own scan missed a percent-encoded name the parser read
(`?%66ormat=csv` answered JSON while `Link` said `format=csv`: issue 33, item 21; over the real
server in tests/e2e/test_server.py)."""

from __future__ import annotations

from typing import Any

import pytest

from serve import exchange
from tests.api.conftest import Api


def test_each_request_parses_its_query_string_once(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[bytes] = []
    parse = exchange.query_pairs

    def counted(query_string: bytes) -> Any:
        calls.append(query_string)
        return parse(query_string)

    monkeypatch.setattr(exchange, "query_pairs", counted)
    for path in (
        "/v1/alphas/momentum_12_1/rebalances?limit=2&offset=1",  # a page: parameters, Link, ETag
        "/v1/alphas/momentum_12_1/rebalances?format=csv&limit=2",  # a representation
        "/v1/alphas/momentum_12_1/analytics/risk?book=long_only",  # a single object
    ):
        calls.clear()
        assert api.get(path).status_code == 200
        assert len(calls) == 1, (path, calls)
