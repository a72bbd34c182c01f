"""Signed, time-limited download URLs for source archives.

Two signers with one interface, chosen by where the lake lives:
- `HmacSigner` (local folder, the embedded default): a URL on this server's `/downloads/...`
  route carrying `expires` and an HMAC-SHA256 `signature` over the object path and the expiry.
  The download route checks both in constant time and streams the file.
- `S3Signer` (`s3://` lake): a presigned S3 GET URL, so the bytes never pass through the API host.

Archives are content-addressed (`archives/<alpha_id>/<sha256>.zip`), so a signed URL can never
serve a different archive than the one its payload describes.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import time
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import quote, urlencode

from datasets import layout
from datasets.storage import Storage
from serve import errors

log = logging.getLogger("serve.archives")

URL_LIFETIME_SECONDS = 3600
DOWNLOAD_ROUTE_PREFIX = "/downloads"


class ArchiveSigner(Protocol):
    def object_exists(self, object_path: str) -> bool: ...

    def sign(self, object_path: str, filename: str, now: float) -> str: ...


@dataclass(frozen=True)
class Archive:
    """What `/source/download` serves once the record says the archive was delivered."""

    url: str
    expires_in: int
    filename: str
    size_bytes: int | None
    sha256: str | None

    def to_wire(self) -> dict[str, Any]:
        return {
            "url": self.url,
            "expires_in": self.expires_in,
            "filename": self.filename,
            "size_bytes": self.size_bytes,
            "sha256": self.sha256,
        }


def hmac_signature(key: bytes, object_path: str, expires: int) -> str:
    message = f"{object_path}\n{expires}".encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()


class HmacSigner:
    def __init__(self, storage: Storage, key: bytes, public_base_url: str) -> None:
        if not key:
            raise ValueError("an HMAC signing key is required")
        self.storage = storage
        self.key = key
        self.public_base_url = public_base_url.rstrip("/")

    def object_exists(self, object_path: str) -> bool:
        return self.storage.exists(layout.join(self.storage.root, object_path))

    def sign(self, object_path: str, filename: str, now: float) -> str:
        expires = int(now) + URL_LIFETIME_SECONDS
        query = urlencode({"expires": expires, "signature": hmac_signature(self.key, object_path, expires)})
        return f"{self.public_base_url}{DOWNLOAD_ROUTE_PREFIX}/{quote(object_path)}?{query}"

    def verify(self, object_path: str, expires: str | None, signature: str | None, now: float) -> str:
        """The full path of the object when the URL is valid, else raise the download error."""
        if not expires or not signature or not expires.isdigit():
            raise errors.DownloadUrlInvalid()
        expected = hmac_signature(self.key, object_path, int(expires))
        if not hmac.compare_digest(expected, signature):
            raise errors.DownloadUrlInvalid()
        if int(expires) < now:
            raise errors.DownloadUrlExpired()
        return layout.join(self.storage.root, object_path)


class S3Signer:
    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    def object_exists(self, object_path: str) -> bool:
        return self.storage.exists(layout.join(self.storage.root, object_path))

    def sign(self, object_path: str, filename: str, now: float) -> str:
        path = layout.join(self.storage.root, object_path)
        # s3fs forwards extra keyword arguments as GetObject parameters of the presigned request.
        url = self.storage.fs.url(
            path,
            expires=URL_LIFETIME_SECONDS,
            ResponseContentDisposition=f'attachment; filename="{filename}"',
        )
        return str(url)


def source_download(record: dict[str, Any] | None, signer: ArchiveSigner | None) -> Archive:
    """The payload of `/source/download` from the build's `source.json` record, or the named error."""
    if record is None:
        raise errors.SourceNotReady("No source archive has been recorded for this alpha yet; retry later.")
    status = record.get("status")
    if status != "ready":
        raise errors.SourceNotReady(
            f"The source archive is not ready (status {status!r}); retry later.", details={"status": status}
        )
    object_path = record.get("object_path")
    if signer is None:
        raise errors.SourceDownloadNotConfigured()
    try:
        present = bool(object_path) and signer.object_exists(str(object_path))
    except Exception as exc:  # the store itself failed: transient, retry with backoff
        log.warning("archive store failed while checking %s: %s", object_path, exc)
        raise errors.SourceDownloadUnavailable() from exc
    if not present:
        raise errors.SourceObjectMissing(details={"filename": record.get("filename")})
    filename = str(record.get("filename"))
    try:
        url = signer.sign(str(object_path), filename, time.time())
    except Exception as exc:
        log.warning("archive store failed while signing %s: %s", object_path, exc)
        raise errors.SourceDownloadUnavailable() from exc
    return Archive(
        url=url,
        expires_in=URL_LIFETIME_SECONDS,
        filename=filename,
        size_bytes=record.get("size_bytes"),
        sha256=record.get("sha256"),
    )
