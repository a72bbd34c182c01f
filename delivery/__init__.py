"""Webhooks and their delivery worker (`alpha-results deliver`): the registry of receivers
(`webhooks`), the worker that signs and sends the events a receiver's key may read (`deliveries`)
and an event as a key sees it (`event_answers`), shared with the events routes. It runs without
the web app: it never imports `serve/` (an import-linter contract)."""
