"""The client's version (its distribution's, in client/pyproject.toml)."""

__version__ = "0.1.0"
