// The market benchmark the API measures books against (schemas.wire.MARKET_BENCHMARK). The server
// writes it on the page (`data-benchmark` on <body>, serve/routes/dashboard.py), so no script
// names it: a deployment with another benchmark shows that one everywhere.

export const BENCHMARK = document.body.dataset.benchmark;
