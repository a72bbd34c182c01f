"""The `alpha-results` console script: one entry point, one sub-command per job.

Each group's module registers its own sub-commands (arguments and handler); this module only
names them (`COMMANDS`) and dispatches.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from pathlib import Path

COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("cli.demo", "write the demo corpus of seals (deterministic from the seed)"),
    "seal": ("cli.seal", "check seals against every rule the build applies, without a lake (seal check)"),
    "build": ("cli.lake", "validate seals and publish them into the lake"),
    "lake": ("cli.lake", "inspect the lake (show, gc)"),
    "serve": ("cli.serve", "serve the /v1 API over the lake with uvicorn"),
    "accounts": ("cli.admin", "manage accounts"),
    "keys": ("cli.admin", "manage API keys"),
    "promote": ("cli.promotions", "approve an alpha into the live book, recording what its checks said"),
    "retire": ("cli.promotions", "retire an approved alpha from the live book"),
    "promotions": ("cli.promotions", "the decisions about an alpha, oldest first"),
    "review": ("cli.promotions", "the review queue: the nominated alphas with their verdicts; nominate one"),
    "events": ("cli.promotions", "the event log: purge the events older than the retention"),
    "webhooks": (
        "cli.webhooks",
        "register, list, disable and remove the webhooks of keys; their delivery attempts",
    ),
    "deliver": (
        "cli.webhooks",
        "the delivery worker: push each webhook's events to its URL, signed and retried",
    ),
    "mcp": (
        "cli.mcp",
        "serve a server's MCP tools over stdio for a local agent (token from ALPHA_RESULTS_TOKEN)",
    ),
    "reference": (
        "cli.reference",
        "write docs/reference.md, docs/llms.txt and the endpoint tables of docs/access.md and docs/api.md from the declarations",
    ),
}
"""Each sub-command: the module that registers it, and its line in `alpha-results --help`.

Only the module of the command being run is imported, and it imports what the command needs
to run only when it runs (cli/__init__.py), so `--help` and the `keys` commands start in about
0.1 s, not the seconds numpy, scipy, pyarrow or the server take to import."""


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of `command` in full, every other command as a one-line stub."""
    parser = argparse.ArgumentParser(prog="alpha-results", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    module_name = COMMANDS[command][0] if command in COMMANDS else None
    registered = False
    if module_name is not None:
        try:
            importlib.import_module(module_name).register(sub)
            registered = True
        except ModuleNotFoundError as exc:  # a deployment without the pipeline's packages
            if exc.name != module_name:
                raise
    for name, (owner, line) in COMMANDS.items():
        if not (registered and owner == module_name):
            stub = sub.add_parser(name, help=line, add_help=False)
            stub.set_defaults(handler=lambda args, name=name: _unavailable(name))
    return parser


def _unavailable(name: str) -> int:
    print(f"alpha-results {name}: not installed in this environment", file=sys.stderr)
    return 2


def console_script() -> str:
    """How to run `alpha-results` from here, for the commands the CLI prints: `.venv/bin/alpha-results`
    under `./dev` (the script's path relative to the working folder), else the bare name."""
    script = Path(sys.argv[0])
    if script.name != "alpha-results":
        return "alpha-results"
    try:
        return str(script.resolve().relative_to(Path.cwd().resolve()))
    except (OSError, ValueError):
        return "alpha-results"


def _command_of(argv: Sequence[str]) -> str | None:
    """The sub-command named in `argv`: its first argument not an option."""
    return next((arg for arg in argv if not arg.startswith("-")), None)


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    args = build_parser(_command_of(arguments)).parse_args(arguments)
    try:
        result = args.handler(args)
    except KeyboardInterrupt:  # Ctrl-C before the command finished (a server stopped by it exits 0)
        print(f"alpha-results {args.command}: interrupted", file=sys.stderr)
        return 130
    return int(result or 0)


if __name__ == "__main__":
    sys.exit(main())
