"""Helpers shared by several test modules: functions, classes, constants and pytest fixtures that
test modules import (a test module is never imported by another). One module per theme, named for
what it holds; a fixture here is shared as before, by importing it into each module that uses it.

Their asserts are rewritten as a test module's are (a failure shows the values compared): each
module is registered here, before any of them is imported."""

import pkgutil

import pytest

pytest.register_assert_rewrite(*(f"{__name__}.{module.name}" for module in pkgutil.iter_modules(__path__)))
