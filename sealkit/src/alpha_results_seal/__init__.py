"""The seal kit of alpha-results (distribution `alpha-results-seal`): what a research team installs
alone to write, check and deliver seals. docs/seal.md "The seal kit"; sealkit/README.md."""
