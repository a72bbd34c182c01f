"""The pipeline: seals in, validated and derived lake builds out (`alpha-results build`)."""

# Part of every build id: a new version rebuilds every seal even when the seal did not change.
PIPELINE_VERSION = "1.0.0"
