"""flexmbd benchmarks: run with ``python -m benchmarks [NAME ...] [--repeat N]``."""
