"""The `alpha-results` console script: `cli.main` names the commands and dispatches, one module per
group registers its commands' arguments and runs them (`demo`, `seal` for seal check, `lake` for
build and lake, `serve`, `admin` for accounts and keys, `reference`).

The import rule, both ways:
- cli/ imports `serve/` and `pipeline/` only, never `analytics/`, `datasets/` or `schemas/`
  directly: a command parses its arguments, calls a function of the package that owns the work
  (`pipeline.lake_upkeep` for `lake show` and `lake gc`, `serve.startup` for what `serve`
  prepares) and prints. No package of the service imports cli/. Both held by
  tests/ops/test_cli_layering.py and by `lint-imports` (a `forbidden` contract in pyproject.toml).
- A command module imports at its top only what reading its arguments needs (argparse, the
  settings, small constant tables). What a command needs to run (numpy, scipy, pandas, pyarrow,
  polars, duckdb, litestar, uvicorn, the server, the pipeline) is imported inside its handler,
  when it runs: those imports are deferred for start-up time, not to break an import cycle.
  `alpha-results <command> --help` reads no more than the parser, so every `--help` answers in a
  tenth of a second instead of seconds (docs/benchmarks.md, "CLI start");
  tests/identity/test_cli_start.py checks, for every command and sub-command, that its `--help`
  imports none of those stacks.
"""
