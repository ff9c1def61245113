"""Command-line entry points: one module per command.

The commands run numpy's BLAS (and OpenMP) on one thread, set here before any of them imports
numpy: a threaded BLAS sums in an order that depends on the number of threads, so the last bits of
some results (EDPM's expected arc counts come from batched matrix inversions) would differ between
machines with different core counts, between ``-j 1`` and worker processes, and on Dask workers
(which run single-threaded BLAS). mteval parallelises with processes instead. A variable the user
sets is kept (their results are then theirs to compare). It also saves the BLAS threads' start-up.
"""

import os

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")
