"""The pipeline: seals in, validated and derived lake builds out (`alpha-results build`)."""

# Part of every build id: a new version rebuilds every seal even when the seal did not change.
# 2.0.0: builds carry the serving layout and a file manifest (a 1.x build is not served).
# 2.1.0: builds also carry Parquet exports (`exports/`); a 2.0 build is served, but its exports
#        routes answer 503 `exports_not_built` until it is rebuilt.
# 2.2.0: builds also carry the analytics tables (`analytics_*`, and the decile rule skips weeks
#        whose raw scores are all equal); a 2.1 build is served, but its analytics routes answer
#        503 `analytics_not_built` until it is rebuilt.
# 2.3.0: builds also carry the seal's optional `exposures` and issue 36's tables
#        (`analytics_attribution`, `analytics_capacity`, `analytics_factor_*`, `analytics_quantiles`,
#        `analytics_sector_ic`); a 2.2 build is served, but the routes built on them answer
#        `analytics_not_built` (503) or a figure not measurable naming the rebuild until it is rebuilt.
# 2.4.0: builds also carry `serving/first_pages.arrow` (each week's first page as JSON, issue 49),
#        and benchmark builds `serving/regimes.arrow` (issue 50's regimes of SPY); a 2.3 build is
#        served, its first pages made from the rows as before, its regimes answered 503
#        `analytics_not_built` until rebuilt.
# 2.5.0: builds also carry `known_sessions` (when the lake first published each session, carried
#        from the build replaced) and `restatements` (issue 64); a 2.4 build is served, its sessions
#        taken as known since its pointer's `published_at` (the earliest the lake can prove).
# 2.6.0: every lake column holding a figure the API serves is named as the vocabulary names it
#        (analytics_rolling `icir_per_week`, `return_hit_rate`; the catalogue index `ic`, `icir`),
#        the index's `started_at` and `built_at` are instants, and every instant of the index and
#        the exports is in microseconds (issue 65, item 7). A 2.5 build is served, its rolling
#        rows read under the new names; an older index is read as the new one
#        (`datasets.catalogue_index.upgraded`).
# 2.7.0: analytics_rolling's mean weekly IC of the trailing window is `rebuilt_mean_ic` (was `mean_ic`,
#        the name of the IC term structure's horizon figure), and `exposures` stores the seal's style
#        loadings as `size_loading` ... `volatility_loading` (the seal's `volatility` and `beta` read
#        as the vocabulary's figures; issue 65, item 3). A 2.6 build is served, its rolling rows read
#        under the new name (analytics.rolling.RENAMED); no route reads its exposures' style columns.
# 2.8.0: builds with exposures also carry `analytics_sub_universe` (issue 62 item 6: the weekly IC on the
#        liquid and illiquid halves by adv and on seeded random halves); a 2.7 build is served, its
#        /analytics/sub_universe answers 503 `analytics_not_built` until rebuilt.
# 2.9.0: builds also carry row bytes (`serving/<table>_json.arrow`: each decision and book row's JSON
#        for each served field set, issue 61 item 1), so a page at any offset, order or filter is a
#        slice or a take of bytes, and no longer `first_pages.arrow` (the row bytes serve a week's
#        first page too); a 2.8 build is served, every page of it made from the rows until rebuilt.
# 2.10.0: `decisions_json.arrow` also carries row parts (`core`, `core_raw_only`: a `/scores` core
#        row's members after its date, issue 61 item 1), so `/scores` pages of both field sets are
#        joined from bytes; builds also carry `serving/equity_curve_json.arrow` (each ledger row's
#        equity-curve JSON around the values that restart at the window's first session, and whole
#        for the book's whole curve), and benchmark builds `serving/daily_json.arrow` (each row of
#        the whole daily series), so an `/equity-curve` page, and a benchmark page from the series'
#        first session, makes no row. A 2.9 build is served: its `/scores` `fields=all` pages joined
#        from its row bytes, its `fields=core`, equity and benchmark pages made from the rows until
#        rebuilt.
# 2.11.0: builds no longer carry the row bytes of the decision and book tables
#        (`serving/<table>_json.arrow` of `datasets.queries.ROW_JSON`: 459 of momentum_12_1's 750 MB,
#        written whole again by every run, issue 78 item 4): each worker derives them from the serving
#        table when a page first asks, into its bounded local folder (`datasets.derived`), and makes
#        the pages from the rows until then. A 2.9 or 2.10 build is served from the row bytes it holds.
# 2.12.0: builds no longer carry the analysts' Parquet (`{table}.parquet`, `{table}/book=*/`,
#        `decisions/year=*/`: 45 MB of momentum_12_1's 288, written whole again by every run, issue
#        78 item 4): the open tables hold the rows once, and a build's `alpha.json` `tables` reports
#        what they hold of it (rows, the files and bytes of its data there). A build of an earlier
#        pipeline is read from its Parquet by `lake convert` and by the publish that replaces it.
# 2.13.0: alpha builds no longer carry their Parquet exports (`exports/*.parquet`: 51 MB of
#        momentum_12_1's 217, written whole again by every run, issue 78 item 4): the publish records
#        each one's bytes and SHA-256 in `exports/index.json`, and the server makes it from the
#        serving tables on its first ask, checked against them, into its bounded local folder
#        (`datasets.derived`); on an S3 lake it then puts it where the presigned URL points. A
#        benchmark build keeps its one export. A 2.12 build is served from the files it holds.
PIPELINE_VERSION = "2.13.0"
