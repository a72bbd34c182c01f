"""A seal's text as a report shows it: every control character escaped, a long text cut.

A seal's alpha id, its file names and its folder's name reach the readable reports of
`alpha-results-seal check`, `alpha-results seal check` and `alpha-results build`. Printed raw, an
escape sequence (ESC [2K), a carriage return or a newline in them rewrote or added lines: an alpha
id of `x\\x1b[2K\\r1 seal: 1 OK, 0 refused` printed a forged summary over the real one (issue 48).
Those commands print every line through `print_lines`, which escapes it once it is made
(`printable`), so a seal's text can neither move the cursor nor start a line of its own; a report
is therefore made as a list of lines, never split out of joined text (where a seal's newline would
start a line of its own). The kit holds it, as it stands alone; the server's command line and the
pipeline import it. It imports nothing heavy: the command lines start without pyarrow.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from typing import IO

BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
"""Bidirectional formatting characters (ALM, LRM, RLM, LRE, RLE, PDF, LRO, RLO, LRI, RLI, FSI,
PDI): they reverse or reorder the text shown beside them. Declared here, where the command lines
import it without pyarrow; `arrow_schemas.BIDI_CONTROLS` is this set (rules
`manifest.no_bidi_controls` and `description.no_bidi_controls`)."""

CONTROLS = re.compile(f"[\x00-\x1f\x7f-\x9f{BIDI_CONTROLS}\u2028\u2029]")
"""What a terminal acts on rather than shows, or what reorders or breaks the text around it: C0
(ESC, CR, LF, tab and the rest), DEL, C1 (NEL and the 8-bit CSI among them), the bidirectional
controls and the Unicode line and paragraph separators."""


def printable(text: str) -> str:
    """`text` with each control character as its Python escape (`\\x1b`, `\\r`, `\\n`, `\\u202e`):
    visible, on one line, and read back as what the seal holds."""
    return CONTROLS.sub(lambda found: found[0].encode("unicode_escape").decode("ascii"), text)


def bounded(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, then a marker giving its whole length: how a seal's text
    too long for where it goes (a report's label, an event) is shown."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... [cut: {len(text):,} characters in all]"


def print_lines(lines: Iterable[str], file: IO[str] | None = None) -> None:
    """Prints each line escaped (`printable`) to `file` (stdout by default), flushed: the one way
    the commands that report on seals print, their progress and errors included."""
    stream = file or sys.stdout
    for line in lines:
        print(printable(line), file=stream)
    stream.flush()
