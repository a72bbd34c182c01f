"""Delta Sharing (issue 38): a key's share (`share`), the Delta schema of an export (`schema`) and
the protocol's messages (`protocol`); the routes are serve/routes/sharing.py."""
