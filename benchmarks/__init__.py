"""flexmbd benchmarks: run with ``python -m benchmarks [NAME ...] [--repeat N]``."""
import os

# timings need the compiled kernels: compile them in this process on a cold cache rather
# than run on NumPy while a background process compiles (flexmbd/cold_start.py)
os.environ.setdefault("FLEXMBD_COLD_START", "wait")
