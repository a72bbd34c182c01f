"""The browser tests' dashboard server (one per xdist worker) and site (tests/e2e/dashboard_site.py)."""

from tests.e2e.dashboard_site import dashboard_server, site, tab  # noqa: F401 - registered for the folder
