"""Times as the records and the key store keep them: fixed-width UTC text
(`YYYY-MM-DDTHH:MM:SS.ffffffZ`) in both backends, so they sort as text and read back identically."""

from __future__ import annotations

from datetime import UTC, datetime

STORED_TIME_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


def as_utc(moment: datetime) -> datetime:
    """Naive datetimes are taken as UTC; aware ones are converted."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def stored_time(moment: datetime | None) -> str | None:
    return None if moment is None else as_utc(moment).strftime(STORED_TIME_FORMAT)


def read_time(text: str | None) -> datetime | None:
    # fromisoformat reads the stored form (trailing `Z` included) in C; strptime took ~25 us per
    # value, on every authentication.
    return None if text is None else datetime.fromisoformat(text)
