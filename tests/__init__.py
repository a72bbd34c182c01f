"""The test suite. Importing this package (pytest does, for tests/conftest.py, before any test or
fixture imports numpy) sets one BLAS thread per process for the whole run: xdist's workers and
every server, command and build pool a test starts inherit it.

Why: the suite runs as many test processes as the machine has cores (`just test`: two), and
OpenBLAS's own threads, which spin while they wait for work, then only take cores from the other
worker. On the 2-core CI machine one thread halved a numerical file's CPU (the pure tests of
tests/analytics/test_haircut.py: 39.7 s user with OpenBLAS's default threads, 19.2 s with one;
docs/history.md, "BLAS threads in the suite"). A developer's own setting is kept (`setdefault`).
The answers are the same (the equality suite runs under it)."""

import os

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")
