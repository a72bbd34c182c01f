"""The `alpha-results` console script: one entry point, one sub-command per job.

Each group registers its own sub-commands, so this module only dispatches:
- `pipeline.demo.commands`: `demo` (the synthetic research engine)
- `pipeline.commands`: `build` (seals into the lake), `lake`
- `serve.commands`: `serve`
- `serve.admin_commands`: `accounts`, `keys` (the operator CLI)
- `serve.reference`: `reference` (docs/reference.md from the declarations)
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

COMMAND_MODULES = (
    "pipeline.demo.commands",
    "pipeline.commands",
    "serve.commands",
    "serve.admin_commands",
    "serve.reference",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="alpha-results", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    result = args.handler(args)
    return int(result or 0)


if __name__ == "__main__":
    sys.exit(main())
