"""The answers as Structs: the contract, and the values the server sends.

Figures (analytics/) and handlers build these Structs and msgspec encodes them, so each field's
meaning, unit, annualisation and null rule is declared once, on the field; the OpenAPI document
describes them (`msgspec.json.schema_components`) and the client is generated from it.
tests/api/test_bodies.py decodes every recorded answer of each endpoint with its Struct and
encodes it back, byte for byte in key order.

A route names its own body in its handler's return type (`Response[Single[Risk]]`,
`serve.routes.declare`); nothing else lists it (`serve.openapi.declared.documented` reads which
bodies a documentation block describes from the handlers).
"""

from __future__ import annotations
