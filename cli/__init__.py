"""The `alpha-results` console script (`cli.main`): one module per group of commands."""
