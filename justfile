# Recipes a newcomer can guess. `./dev <recipe>` runs any of them from a fresh machine.
set dotenv-load := false

seals := "var/seals"

default: test

# Build the demo lake (and demo keys) when absent, then serve the API on 127.0.0.1:8000 (`--port N` for another). `./dev serve` runs this command itself, without `just` (dev says why).
serve *ARGS:
    alpha-results serve --init-demo {{ARGS}}

# Lint, type-check, then run every test. Two workers, each taking whole test files (`--dist loadfile`): a file's module-scoped servers and lakes are then made once, not once per worker; the slowest files first (`--no-loadscope-reorder`, tests/schedule.py), so that both workers finish together (docs/history.md, "Suite time under the CI limit").
test *ARGS: lint
    pytest -n 2 --dist loadfile --no-loadscope-reorder {{ARGS}}

# One tier of the suite (tests/tiers.py): `fast` (in process), `served` (real servers, browsers), `ops` (faults, kills, outages, Dask, S3); `just test` runs all three.
test-fast *ARGS: lint
    pytest -n 2 --dist loadfile --no-loadscope-reorder -m fast {{ARGS}}

test-served *ARGS: lint
    pytest -n 2 --dist loadfile --no-loadscope-reorder -m served {{ARGS}}

test-ops *ARGS: lint
    pytest -n 2 --dist loadfile --no-loadscope-reorder -m ops {{ARGS}}

# The whole suite twice with numpy's SIMD dispatch narrowed: no AVX-512 (an AVX2 CPU), then no AVX2 either (docs/development.md).
test-portable *ARGS:
    #!/usr/bin/env bash
    set -euo pipefail
    newer=(X86_V4 AVX512_ICL AVX512_SPR)  # naming a feature the CPU lacks is harmless
    for disabled in "${newer[*]}" "${newer[*]} X86_V3"; do
      found=$(NPY_DISABLE_CPU_FEATURES="$disabled" python -c 'from numpy._core._multiarray_umath import __cpu_features__ as f, __cpu_dispatch__ as d; print(" ".join(k for k in d if f.get(k)) or "baseline only")')
      echo "== NPY_DISABLE_CPU_FEATURES=\"$disabled\": numpy dispatches $found"
      NPY_DISABLE_CPU_FEATURES="$disabled" pytest -n 2 --dist loadfile --no-loadscope-reorder -p no:cacheprovider {{ARGS}}
    done

# The numerical tests (tests/analytics, tests/pipeline, tests/equality) once under each OpenBLAS kernel this CPU runs (OPENBLAS_CORETYPE; a kernel OpenBLAS maps to one already run is skipped): no result may depend on the kernel (issue 81, item 0).
test-blas *ARGS:
    #!/usr/bin/env bash
    set -euo pipefail
    declare -A seen=()
    for core in Prescott Nehalem Sandybridge Haswell Zen SkylakeX Cooperlake SapphireRapids; do
      got=$(OPENBLAS_VERBOSE=2 OPENBLAS_CORETYPE=$core python -c 'import numpy as np; np.linalg.svd(np.eye(3))' 2>&1 | sed -n 's/^Core: //p' | head -1)
      if [ -z "$got" ] || [ -n "${seen[$got]:-}" ]; then echo "== OPENBLAS_CORETYPE=$core: ${got:-not offered here}, skipped"; continue; fi
      seen[$got]=1
      echo "== OPENBLAS_CORETYPE=$core: OpenBLAS runs its $got kernel"
      OPENBLAS_CORETYPE=$core pytest -n 2 --dist loadfile -p no:cacheprovider -q tests/analytics tests/pipeline tests/equality {{ARGS}}
    done

lint:
    ruff check .
    ruff format --check .
    mypy
    lint-imports

fmt:
    ruff format .
    ruff check --fix .

# Regenerate every generated file in one command, no server needed: the reference (docs/reference.md, llms.txt, the endpoint tables, docs/schemas/), the client's generated modules from the in-process app's OpenAPI document, then the equality recording's changed answers (`--write`: review what it prints, and add a row to docs/history.md when an answer changed on purpose). `just regen --no-equality` skips the last step.
regen *ARGS:
    #!/usr/bin/env bash
    set -euo pipefail
    alpha-results reference
    document=$(mktemp --suffix=.json)
    trap 'rm -f "$document"' EXIT
    python -c 'import json, sys; from serve.app import openapi_document; json.dump(openapi_document(), open(sys.argv[1], "w"))' "$document"
    python client/scripts/generate.py --openapi "$document"
    if [[ " {{ARGS}} " != *" --no-equality "* ]]; then python -m tests.equality.update --write; fi

# Regenerate docs/reference.md and the endpoint tables of docs/access.md and docs/api.md from the route declarations and the OpenAPI document, and the seal's JSON Schemas in docs/schemas/ from sealkit/src/alpha_results_seal/manifest.py and sealkit/src/alpha_results_seal/description.py (a test fails when one is stale).
reference:
    alpha-results reference

# Every recorded collection page of the equality suite in all four columnar representations (8,016 requests).
equality-representations:
    ALPHA_RESULTS_EQUALITY_REPRESENTATIONS=all pytest -q tests/equality/test_representations.py

# Schemathesis, every check, against a real server (small demo lake, an admin and a self-service key) until 10^5 cases ran; prints cases and failures by check.
fuzz *ARGS:
    python -m tests.fuzz.run --cases 100000 {{ARGS}}

# Write the full demo corpus of seals (deterministic from the seed).
demo size="full":
    alpha-results demo --size {{size}} --out {{seals}}

# Validate and publish every seal in var/seals into the lake, for the team `default` (the demo's trial families need a team: docs/seal.md).
build:
    alpha-results build --team default {{seals}}/*

# Print what the lake holds.
lake:
    alpha-results lake show

# No timing oracle in authentication: the median cost of a known key_id with a wrong secret against an unknown key_id, 2,000 interleaved samples each [--samples N]; exits 1 over 10 µs (a measurement a busy machine moves, so not in the suite, which checks the cause: tests/identity/test_timing.py).
bench-timing *ARGS:
    python -m tests.bench.timing_bench {{ARGS}}

# `alpha-results seal check` on the tiny factory seal against `alpha-results build` of it into a scratch lake, the real commands, interleaved [--runs N]: wall time per run (issue 37).
bench-seal-check *ARGS:
    python -m tests.bench.seal_check_bench {{ARGS}}

# Rows per second of the seal kit's builders on the full-size demo alpha's frames (docs/benchmarks.md "Seal kit").
bench-seal-kit:
    python -m tests.bench.seal_kit_bench

# Seals of 1,000 and 3,000 names x 1, 5 and 20 years from seal_from_factor, deterministic from the seed, in var/realistic-seals/base (and next: one week later) [--names 1000 --years 20 --next-week] (issue 78).
realistic-seals *ARGS:
    python -m tests.bench.realistic_seals {{ARGS}}

# Publish each realistic seal into an empty lake, then its next week: CPU, wall, peak RSS, lake bytes, bytes written (all, and into the open tables) [--names 1000 --years 20 --kill-gib 12 --keep --work DIR] (issue 78).
bench-realistic *ARGS:
    python -m tests.bench.realistic_bench {{ARGS}}

# The open tables' logs at 10^3 and 10^4 alphas, simulated with delta-rs from a kept realistic lake: checkpoint bytes, open and commit seconds [--lake DIR/Test_realistic_1000x20y --alphas 1000 3000 --interval 10 100] (issue 78, item 5).
bench-lake-simulation *ARGS:
    python -m tests.bench.lake_simulation {{ARGS}}

# Wall time, peak memory and lake bytes to generate and build the full-size alpha.
bench-pipeline:
    python -m tests.bench.pipeline_bench

# What knowing when each session was first published costs a weekly publish and a read, by history length (issue 64).
bench-knowledge *ARGS:
    python -m tests.bench.knowledge_bench {{ARGS}}

# N copies of the full-size alpha built by the local pool and on a two-process Dask LocalCluster: alphas per minute, peak RSS per worker.
bench-build-many *ARGS:
    python -m tests.bench.build_many_bench {{ARGS}}

# Latency of representative requests against a running server.
bench-api:
    python -m tests.bench.api_bench

# Uncacheable random load per route family against a constant-JSON floor (wrk); health flood; 1 vs 2 workers; shared backends, with a suspension's time to reach every worker.
bench-load *ARGS:
    python -m tests.bench.load_bench {{ARGS}}

# This tree's server against another checkout's, interleaved per route family: `just bench-ab --base /tmp/base` [--shared: 2 workers on PostgreSQL and Redis] [--floor: ratios to the constant route].
bench-ab *ARGS:
    python -m tests.bench.ab_bench {{ARGS}}

# A week's 100-row page against ROAPI serving the same rows, side by side (issue 49); needs the roapi binary on PATH (`pip install roapi` in a venv of its own) or --roapi PATH.
bench-roapi *ARGS:
    python -m tests.bench.roapi_bench {{ARGS}}

# What the answers a worker keeps cost in memory: RSS per ALPHA_RESULTS_ANSWER_CACHE_BYTES after filling it twice over [--limits 0,16777216,67108864] [--pages N].
bench-answer-cache *ARGS:
    python -m tests.bench.answer_cache_bench {{ARGS}}

# Wire size and added server time of gzip and zstd on 100- and 5,000-row pages, against a running server.
bench-compression:
    python -m tests.bench.compression_bench

# The full-size alpha published under N ids, served in turn: RSS/PSS per alpha per worker, first-request latency.
bench-scale *ARGS:
    python -m tests.bench.scale_bench {{ARGS}}

# N distinct alphas (--n, default 50: one demo market, the real pipeline, lake cached in var/bench-catalogue/N/) served by one worker [--s3] [--nofile 1024] [--out FILE]: fds, maps, RSS, idle refresh CPU (and S3 requests per pass), per-route latency and errors over 100 random alphas (screener with random filters), first significance after a restart; the catalogue step per publish and `lake index` local and on Dask [--no-pipeline] [--no-dask] (issue 21).
bench-catalogue *ARGS:
    python -m tests.bench.catalogue_bench {{ARGS}}

# Bounded soak (default 5 min, --seconds N): 2 workers over PostgreSQL, a private Redis killed mid-run, an S3 lake (moto) republished every 10 s; mixed valid/invalid load checked against recorded answers; RSS, 5xx and quota checks.
soak *ARGS:
    python -m tests.soak.soak {{ARGS}}

# The lake's publish storm and kill tests with every round (issue 9): ten storms of three publishes against two serving workers (five on S3) with every answer checked, and ten SIGKILLs of a publish and of a collection stratified over their whole work window, each followed by a check that the served and retained builds are whole; a worker under 1,024 open files serving 300 alphas (issue 21), and twenty SIGKILLs of a webhook delivery worker holding a delivery, per key store. The suite runs three (one), four and four of them, 150 alphas and five kills (issue 33, item 15; docs/history.md, "Suite time under the CI limit").
soak-lake *ARGS:
    ALPHA_RESULTS_LAKE_SOAK=1 pytest -p no:cacheprovider tests/lake/test_publish_storm.py tests/lake/test_kill.py tests/lake/test_file_limits.py tests/ops/test_webhook_delivery.py {{ARGS}}

# The whole decision set into a polars DataFrame: Parquet export + signed URL vs JSON paging (own server).
bench-export *ARGS:
    python -m tests.bench.export_bench {{ARGS}}

# The full-size alpha's decisions into pandas: Delta Sharing's `load_as_pandas` against the typed client's export path, same server and run (own server) [--lake var/lake] [--runs 5] (issue 38).
bench-delta-sharing *ARGS:
    python -m tests.bench.delta_sharing_bench {{ARGS}}

# Hostile connections against the default settings, one worker [--base CHECKOUT] [--tries 100] [--hold 512] [--watch 75]: another client's health answers while one holds 512 idle connections; sockets and bytes the kernel keeps for 20 unread 1.7 MB answers (issue 33).
bench-connections *ARGS:
    python -m tests.bench.connections_bench {{ARGS}}

# The slow clients of issue 48 against one worker at the default settings [--bodies 1000] [--streams 1000] [--seconds 20]: one key's stalled /mcp bodies and event-stream attempts from eight loopback addresses, beside a bystander's /v1/health and another key's week page, each of which must be answered 200; bounded in count and time, loopback only (docs/benchmarks.md "Slow clients").
soak-slow-clients *ARGS:
    python -m tests.bench.slow_clients_soak {{ARGS}}

# Issue 50 item 8: `/analytics/mmc` and `/v1/analytics/crowding` on the full demo lake (read only) with four approved alphas, in process: p50/p95 against 50 ms [--lake var/lake] [--calls 200].
bench-mmc *ARGS:
    python -m tests.bench.mmc_bench {{ARGS}}

# `/analytics/capacity` on the full-size alpha (built once into var/bench-capacity/), one worker: p50/p95 against 50 ms, and the computation in process (issue 36).
bench-capacity *ARGS:
    python -m tests.bench.capacity_bench {{ARGS}}

# The decision routes (checks, compare, risk, combine and contribution over 20 alphas) over bench-catalogue's N alphas (default 1,000), one worker: p50/p95 per route (issue 24).
bench-decisions *ARGS:
    python -m tests.bench.decisions_bench {{ARGS}}

# `/v1/me` p50 with ALPHA_RESULTS_PROMETHEUS off and on, two servers side by side (wrk -c1, alternating rounds), and record_request's own cost in multiprocess mode (issue 37) [--lake DIR] [--workers N] [--rounds N].
bench-prometheus *ARGS:
    python -m tests.bench.prometheus_bench {{ARGS}}

# Issue 36's residual against the catalogue, in process [--full-lake var/full-lake] [--n 1000] [--calls 100]: /analytics/residual p50/p95 on the full-size alpha; the catalogue index's residual figure per alpha and per column over bench-catalogue's N alphas (nothing, 20 and 50 approved); the route over them with a set of 20.
bench-residual *ARGS:
    python -m tests.bench.residual_bench {{ARGS}}

# The CPU of a worker's start (import serve.app, create_app, its startup; then a whole `serve --workers 1` until /v1/health answers [--no-serve]), fresh interpreters, this tree [against --base CHECKOUT] [--lake DIR] [--rounds N] (issue 34; docs/benchmarks.md "A worker's start").
bench-app-start *ARGS:
    python -m tests.bench.app_start {{ARGS}}

# A worker's first answer of every route family against the median of its next ten, on the demo lake and bench-catalogue's N alphas (--catalogue 150, built when absent), over --restarts 3 starts of `alpha-results serve --workers 1` (issue 52).
bench-first-request *ARGS:
    python -m tests.bench.first_request_bench {{ARGS}}

# The cost of a request before its handler, the whole request and its CPU, in-process, per route family, this tree [against --base CHECKOUT] (issue 34): `just bench-before-handler --base /tmp/base --families me,week100`.
bench-before-handler *ARGS:
    python -m tests.bench.before_handler {{ARGS}}

# Where a random-offset 100-row week page's CPU goes, in process, under cProfile (issue 61, item 3): `just bench-page-profile LAKE [--accept-encoding zstd]`.
bench-page-profile *ARGS:
    python -m tests.bench.page_profile {{ARGS}}

# CPU per `/equity-curve` request in process, row bytes on and off (issue 61, item 1): `just bench-equity-pages --lake LAKE [--data] [--benchmark SPY]`.
bench-equity-pages *ARGS:
    python -m tests.bench.equity_pages {{ARGS}}

# Issue 36's routes (attribution, factors, residual, capacity, quantiles) on the full-size demo alphas, one worker, beside /v1/me and /analytics/risk in the same run: p50/p95 [--rebuild after a pipeline change] [--calls N].
bench-why *ARGS:
    python -m tests.bench.why_bench {{ARGS}}

# Events (issue 35), one worker each [--quick] [--only publish,streams,webhooks]: 50 publishes to the event on an open stream and on GET /v1/events (p50/p99); 1,000 open streams (RSS per stream, idle CPU by heartbeat, other requests' latency beside them, one event to all); webhook deliveries per second by `alpha-results deliver` (1 and 10 webhooks, 1,000 events).
bench-events *ARGS:
    python -m tests.bench.events_bench {{ARGS}}

# MCP (issue 38), one worker [--lake DIR] [--rounds N] [--calls N]: a tool call against the route it wraps (performance.metrics of one alpha, a week page), interleaved on one connection, p50 and ratio (target at most 1.5x); tools/list for a key with every endpoint (target under 20 ms); the official SDK client's call_tool beside the route.
bench-mcp *ARGS:
    python -m tests.bench.mcp_bench {{ARGS}}

# Issue 51: a catalogue of N synthetic alphas written directly beside 20 real small demo alphas (--n, default 100,000; var/bench-synthetic/N/lake): index, matrices, trials columns, correlation index. Realistic since issue 63 (the real alphas' calendars, families of 10-300 variants, clusters of near-duplicates, the real factor spectrum); --flattering: issue 51's model (var/bench-synthetic/N-flattering/lake).
synthetic-catalogue *ARGS:
    python -m tests.bench.synthetic_catalogue {{ARGS}}

# Issue 63: the synthetic catalogue's statistics beside its 20 real alphas' (--n, default 10,000, written when absent; [--flattering]; [--lake DIR]): interior gaps, late starts and early ends, pairwise correlation quantiles, eigenvalue spectrum (components for 90 %), family sizes (docs/benchmarks.md "Issue 63").
synthetic-stats *ARGS:
    python -m tests.bench.realistic_catalogue {{ARGS}}

# Issue 62 item 4: the Rademacher anti-serum's complexity as a generation computes it (whole, and a delta's rows) over the synthetic generator's series at 10^4 and 10^5 alphas (docs/benchmarks.md "Issue 62, item 4").
bench-ras *ARGS:
    python -m tests.bench.ras_bench {{ARGS}}

# Issue 51 at scale, in one process over the synthetic catalogue (written when absent): listing, screener, max_correlation, correlation top 50 p50/p95 and CPU, recall against brute force, memory (docs/benchmarks.md "Issue 51").
bench-synthetic *ARGS:
    python -m tests.bench.synthetic_bench {{ARGS}}

# Issue 60: every catalogue-wide route at its largest parameters over a 10^4-member family in a 10^5-alpha synthetic catalogue, /v1/health asked every 10 ms meanwhile (exit 1 at 50 ms or more) [--n 100000] [--family 10000].
bench-hostile-scale *ARGS:
    python -m tests.bench.hostile_scale_bench {{ARGS}}

# Issue 51 through `alpha-results serve --workers 1` over the synthetic catalogue (--n, written when absent): the listing with and without a search, the screener, max_correlation, correlation top 50, p50/p95 wall and the worker's CPU per request, the first significance after restarts, worker memory (docs/benchmarks.md "Issue 51"); --cold: each route again with the lake's files out of the page cache before every request and cold restarts (tests/bench/page_cache.py: the worker's mappings paged out, fadvise DONTNEED, residue counted with mincore; issue 63 item 4).
bench-synthetic-served *ARGS:
    python -m tests.bench.synthetic_served {{ARGS}}

# Issue 51, item 3: the catalogue step of one publish of a small demo alpha onto the synthetic catalogue of each --n (default 1,000 10,000 100,000; written when absent), wall and CPU, then a compaction; with --first-stage K, the pairing's first stage over every alpha both ways for K real alphas; --profile DIR: each step's cProfile; --lake N=DIR: that catalogue (a hard-linked copy); --listed: every alpha holds a score-neighbour list (the candidate pass runs), --without-gaps: its generation without stored gap lists; --no-compact (docs/benchmarks.md "Issue 51", "Issue 63, item 3").
bench-publish *ARGS:
    python -m tests.bench.publish_bench {{ARGS}}

# Issue 51, item 4: `lake index` locally and on a Dask LocalCluster of --workers (default 1 2 4) over bench-catalogue's --n real alphas (default 200), each phase and task timed, and a model of more machines from the tasks measured on one; --netns: the clusters of real `dask scheduler` / `dask worker` processes in Linux network namespaces, --per-machine (default 2) workers each, removed on exit (root; issue 63 item 4).
bench-index-dask *ARGS:
    python -m tests.bench.dask_index_bench {{ARGS}}

# A bystander's /v1/health and week page p50 and p95, quiet and while one key sends a new as_of moment 25 times a second, over the demo lake (played once into var/bench-as-of/, or --lake) [--seconds N] [--no-budget] [--out FILE] (issue 81, item 3).
bench-as-of *ARGS:
    python -m tests.bench.as_of_bench {{ARGS}}

# A bystander's latency in a worker while it derives row bytes (issue 78, item 4; docs/benchmarks.md "The fifteenth session").
bench-derive-bystander *ARGS:
    python -m tests.bench.derive_bystander {{ARGS}}

# What momentum_12_1's weekly run writes into the open tables (issue 78): bytes by kind, rows per table's commit.
bench-lake-weekly *ARGS:
    python -m tests.bench.lake_weekly_bench {{ARGS}}
