"""An authenticator and a limiter that fail when called (the pages read no key and are not
metered), and the links and text of an HTML page."""

from __future__ import annotations

from datetime import datetime
from html.parser import HTMLParser
from typing import Any


class NeverCalled:
    """An authenticator and a limiter that fail the test when a page reads a key or is metered."""

    in_process = True

    def __call__(self, authorization: str | None, client_ip: str, now: datetime) -> Any:
        raise AssertionError(f"a key was read: {authorization!r}")

    def hit(self, *args: Any) -> Any:
        raise AssertionError("a request was metered")

    def start_sync(self) -> None:
        pass

    def close(self) -> None:
        pass


class Links(HTMLParser):
    """The `href` and `src` attributes of a page, and its text."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[tuple[str, str]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.urls += [(tag, value) for name, value in attrs if name in ("href", "src") and value]

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parsed(body: str) -> Links:
    links = Links()
    links.feed(body)
    return links
