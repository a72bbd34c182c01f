"""Signed download URLs stay out of logs.

httpx logs every request's full URL at INFO (`HTTP Request: GET https://...`). The query string
of a signed export or archive URL is its credential (anyone holding it may fetch the file until it
expires), so the `signature` of each such line is masked before any handler sees it.
"""

from __future__ import annotations

import logging
import re

SIGNATURE = re.compile(
    r"(?i)((?:^|[?&])(?:signature|x-amz-signature|x-amz-credential|x-amz-security-token)=)[^&\s\"']+"
)


def redact(text: str) -> str:
    return SIGNATURE.sub(r"\1***", text)


class RedactSignatures(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if record.args:
            record.args = tuple(redact(str(a)) if "=" in str(a) else a for a in record.args)
        record.msg = redact(str(record.msg))
        return True


def install() -> None:
    """Attach the filter to httpx's loggers once (they log each request at INFO)."""
    for name in ("httpx", "httpcore"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactSignatures) for f in logger.filters):
            logger.addFilter(RedactSignatures())
