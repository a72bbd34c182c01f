"""Signed, time-limited download URLs for source archives.

Two signers with one interface, chosen by where the lake lives:
- `HmacSigner` (local folder, the embedded default): a URL on this server's `/downloads/...`
  route carrying `expires`, `holder` (the key id of the API key it was signed for: public, shown
  by `/v1/me`, never the secret) and an HMAC-SHA256 `signature` over the object path, the expiry
  and the holder. The download route checks them in constant time, then the holder's key in the
  key store (a revoked, suspended or expired key, or one of an inactive account, takes its URLs
  with it at once), and streams the file. The holder makes each key's URL its own: two keys asking
  for the same file in the same second get different URLs, each with its own fetch count.
- `S3Signer` (`s3://` lake): a presigned S3 GET URL, so the bytes never pass through the API host.
  S3 knows nothing of API keys: such a URL is bound to no key (two keys signing in the same
  second get the same URL) and works until it expires, whatever happens to the key meanwhile.

Archives are content-addressed (`archives/<alpha_id>/<sha256>.zip`), so a signed URL can never
serve a different archive than the one its payload describes.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import re
import secrets
import threading
import time
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable
from urllib.parse import quote, urlencode

from litestar.datastructures import State

from access.tokens import KEY_ID_LENGTH
from alpha_results_seal.storage import Storage
from core import errors
from core.settings import Settings
from datasets import layout
from schemas.bodies.downloads import SourceDownload

log = logging.getLogger("serve.signing.archives")

URL_LIFETIME_SECONDS = 3600
SOURCE_ENDPOINT = "catalog.alphas.source.download"
"""The route that signs an archive URL; every fetch of the URL needs it still (serve.routes.downloads)."""
DOWNLOAD_ROUTE_PREFIX = "/downloads"
SHA256_HEX_PATTERN = re.compile(r"[0-9a-f]{64}")
"""A SHA-256 (or HMAC-SHA256) in lowercase hex."""
# Only content-addressed archives are ever signed or served; the alpha segment names the file.
ARCHIVE_OBJECT_PATH = re.compile(
    rf"archives/(?P<alpha>{layout.ALPHA_ID_PATTERN.pattern})/(?P<sha256>{SHA256_HEX_PATTERN.pattern})\.zip"
)
# What a URL this server signed carries: a decimal epoch (12 digits reach the year 33658), the key
# id of the API key it was signed for (public, docs/access.md) and a lowercase hex HMAC-SHA256.
# Anything else is refused before any arithmetic, comparison or key store lookup.
EXPIRES_PATTERN = re.compile(r"[0-9]{1,12}")
HOLDER_PATTERN = re.compile(rf"[0-9A-Za-z]{{{KEY_ID_LENGTH}}}")
SIGNATURE_PATTERN = SHA256_HEX_PATTERN


class ArchiveStoreUnavailable(OSError):
    """The archive store itself is gone (lake folder absent, bucket missing): a transient outage,
    not a missing object."""


def archive_filename(object_path: str) -> str | None:
    """`<alpha_id>.zip` of a content-addressed object path (the spec's filename), else None."""
    match = ARCHIVE_OBJECT_PATH.fullmatch(object_path)
    return f"{match['alpha']}.zip" if match else None


def _exists_now(storage: Storage, path: str) -> bool:
    if storage.is_local:
        return storage.exists(path)
    try:  # bypass s3fs's listing cache: a deleted bucket must not look present
        storage.fs.info(path, refresh=True)
    except FileNotFoundError:
        return False
    return True


def stored_object(storage: Storage, object_path: str) -> str | None:
    """The full path of the object when the store holds it, None when a reachable store lacks it.

    `exists` answers False both for a missing object and for a store whose root is gone (an
    unmounted folder, a deleted bucket); only the first is permanent, so the root is checked too.
    """
    path = layout.join(storage.root, object_path)
    if _exists_now(storage, path):
        return path
    if not _exists_now(storage, storage.root):
        raise ArchiveStoreUnavailable(f"the archive store {storage.root} is absent or unreachable")
    return None


@runtime_checkable  # a handler's dependency: Litestar checks the value it is given against it
class ArchiveSigner(Protocol):
    def object_exists(self, object_path: str) -> bool: ...

    def sign(self, object_path: str, filename: str, now: float, key_id: str) -> str: ...


@dataclass(frozen=True)
class Archive:
    """What `/source/download` serves once the record says the archive was delivered."""

    url: str
    expires_in: int
    filename: str
    size_bytes: int | None
    sha256: str | None

    def to_wire(self) -> SourceDownload:
        return SourceDownload(
            url=self.url,
            expires_in=self.expires_in,
            filename=self.filename,
            size_bytes=self.size_bytes,
            sha256=self.sha256,
        )


def hmac_signature(key: bytes, object_path: str, expires: int | str, holder: str) -> str:
    """Over the object path, `expires` and `holder` exactly as the URL carries them (verification
    signs the received text, so `0<expires>` or any other spelling of the same number does not
    match)."""
    message = f"{object_path}\n{expires}\n{holder}".encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()


class HmacSigner:
    def __init__(self, storage: Storage, key: bytes, public_base_url: str) -> None:
        if not key:
            raise ValueError("an HMAC signing key is required")
        self.storage = storage
        self.key = key
        self.public_base_url = public_base_url.rstrip("/")

    def object_exists(self, object_path: str) -> bool:
        return stored_object(self.storage, object_path) is not None

    def sign(self, object_path: str, filename: str, now: float, key_id: str) -> str:
        expires = int(now) + URL_LIFETIME_SECONDS
        signature = hmac_signature(self.key, object_path, expires, key_id)
        query = urlencode({"expires": expires, "holder": key_id, "signature": signature})
        return f"{self.public_base_url}{DOWNLOAD_ROUTE_PREFIX}/{quote(object_path)}?{query}"

    def verify(
        self, object_path: str, expires: str | None, holder: str | None, signature: str | None, now: float
    ) -> str:
        """The full path of the object when the URL is valid, else raise the download error."""
        if (
            expires is None
            or holder is None
            or signature is None
            or not EXPIRES_PATTERN.fullmatch(expires)
            or not HOLDER_PATTERN.fullmatch(holder)
            or not SIGNATURE_PATTERN.fullmatch(signature)
        ):
            raise errors.DownloadUrlInvalid()
        expected = hmac_signature(self.key, object_path, expires, holder)
        if not hmac.compare_digest(expected, signature):
            raise errors.DownloadUrlInvalid()
        if int(expires) < now:
            raise errors.DownloadUrlExpired()
        return layout.join(self.storage.root, object_path)


class S3Signer:
    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    def object_exists(self, object_path: str) -> bool:
        return stored_object(self.storage, object_path) is not None

    def sign(self, object_path: str, filename: str, now: float, key_id: str) -> str:
        """`filename` goes into a response header of S3's: callers pass `archive_filename()`, never
        text from a seal. `key_id` stays out of the URL: S3 counts no fetches and cannot check a
        key, so the URL is per request-second, not per key (docs/access.md, "S3 lake")."""
        path = layout.join(self.storage.root, object_path)
        # s3fs forwards extra keyword arguments as GetObject parameters of the presigned request.
        url = self.storage.fs.url(
            path,
            expires=URL_LIFETIME_SECONDS,
            ResponseContentDisposition=f'attachment; filename="{filename}"',
        )
        return str(url)


def source_download(record: dict[str, Any] | None, signer: ArchiveSigner | None, key_id: str) -> Archive:
    """The payload of `/source/download` from the build's `source.json` record for the API key
    `key_id` (its URL is its own), or the named error."""
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
    # The spec's `<alpha_id>.zip`, from the content address the pipeline wrote; the seal's own
    # `filename` text never reaches a URL or a header.
    filename = archive_filename(object_path) if isinstance(object_path, str) else None
    try:
        present = filename is not None and signer.object_exists(str(object_path))
    except Exception as exc:  # the store itself failed or is gone: transient, retry with backoff
        log.warning("archive store failed while checking %s: %s", object_path, exc)
        raise errors.SourceDownloadUnavailable() from exc
    if filename is None or not present:
        raise errors.SourceObjectMissing(details={"filename": filename or record.get("filename")})
    try:
        url = signer.sign(str(object_path), filename, time.time(), key_id)
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


SIGNING_KEY_BYTES = 32


def read_signing_key(path: str) -> bytes | None:
    """The HMAC key in `path`, or None when the file is absent, empty or unreadable (a directory,
    no permission): source downloads are then not configured (503), never a 500 per request."""
    try:
        with open(path, "rb") as handle:
            key = handle.read()
    except FileNotFoundError:
        return None
    except OSError as exc:
        log.warning("signing key %s is unreadable (%s): source downloads are not configured", path, exc)
        return None
    return key or None


def ensure_signing_key(path: str) -> bool:
    """Create `path` with 32 random bytes, readable by the owner only, unless it exists.

    Returns True when a key was created. The file is created exclusively with mode 0600, so an
    existing key is never overwritten and the secret is never briefly world-readable.
    """

    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return False
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(secrets.token_bytes(SIGNING_KEY_BYTES))
    return True


def _has_object_store_credentials(storage: Storage) -> bool:
    """Whether presigning can work: explicit keys on the filesystem, or any credentials botocore
    resolves (environment, shared files, instance role)."""
    if getattr(storage.fs, "key", None) and getattr(storage.fs, "secret", None):
        return True
    # Start-up time: botocore.session takes about 0.5 s to import (botocore is a core dependency,
    # through s3fs); a worker serving a local lake, which never asks, starts without it.
    import botocore.session

    return botocore.session.get_session().get_credentials() is not None


def signer_for(lake: str, signing_key_file: str, public_base_url: str) -> HmacSigner | S3Signer | None:
    """The signer of a deployment: presigned S3 URLs for an `s3://` lake, HMAC URLs on this
    server for a local one, None (503 `source_download_not_configured`) without a signing key."""
    storage = Storage(lake)
    if not storage.is_local:
        if not _has_object_store_credentials(storage):
            log.warning("no object-store credentials: source downloads are not configured")
            return None
        return S3Signer(storage)
    key = read_signing_key(signing_key_file)
    if key is None:
        log.warning("no signing key in %s: source downloads are not configured", signing_key_file)
        return None
    return HmacSigner(storage, key, public_base_url)


_SIGNER_STATE = "archive_signer"
_signer_lock = threading.Lock()


def signer_of(state: State, settings: Settings) -> HmacSigner | S3Signer | None:
    """The app's archive signer, built on first use and kept for the app's lifetime: the signing
    key file is read once, so a key added or repaired later takes a restart, like every other
    setting. An absent, empty or unreadable key leaves it None (503 not configured)."""
    with _signer_lock:
        if _SIGNER_STATE not in state:
            state[_SIGNER_STATE] = signer_for(
                settings.lake, settings.signing_key_file, settings.public_base_url
            )
        signer: HmacSigner | S3Signer | None = state[_SIGNER_STATE]
    return signer
