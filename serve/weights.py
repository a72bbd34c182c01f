"""The members of a weighted header (`Accept`, `Accept-Encoding`): RFC 9110 12.4.2's qvalues,
read one way for both."""

from __future__ import annotations

import re
from collections.abc import Iterator

QVALUE = re.compile(r"0(\.[0-9]{0,3})?|1(\.0{0,3})?")


def weighted_members(header: str) -> Iterator[tuple[str, float]]:
    """(name lower-cased, weight) of each member of a comma-separated header, other parameters
    ignored; a member without a name, or whose `q` is not a valid qvalue, is left out."""
    for member in header.split(","):
        name, *params = (part.strip() for part in member.split(";"))
        weight = 1.0
        for param in params:
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                weight = float(value) if QVALUE.fullmatch(value := value.strip()) else -1.0
        if name and weight >= 0:
            yield name.lower(), weight
