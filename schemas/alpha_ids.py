"""The one convention of an alpha id beyond its pattern: the spec's test prefix.

Declared here, in the contract, because two parts read it that must not read each other: access
(`access.records.RESTRICTED`: an id without the prefix is restricted, a key reads it only by an
administrator's grant) and the pipeline (the catalogue's `is_test`). The prefix approves nothing:
only an operator's decision does (docs/seal.md, "Production or test").
"""

from __future__ import annotations

TEST_PREFIX = "Test_"


def is_test_alpha(alpha_id: object) -> bool:
    """Whether `alpha_id` names a test alpha: an id that starts with `TEST_PREFIX`."""
    return isinstance(alpha_id, str) and alpha_id.startswith(TEST_PREFIX)
