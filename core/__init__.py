"""The core types every layer that meets a caller shares: the caller and its allow-list (`context`), the
error types a request can end in (`errors`) and the settings (`settings`). They import nothing of the
project: figures, the lake and records never import them (docs/development.md, "Layers")."""
