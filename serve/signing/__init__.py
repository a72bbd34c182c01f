"""Signed, time-limited download URLs (source archives, Parquet exports) and the byte ranges a download serves."""
