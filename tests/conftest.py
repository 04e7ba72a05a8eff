"""Shared pytest configuration: tests marked ``slow`` run only on request.

Slow tests are skipped unless ``--runslow`` is given, or the marker
expression passed with ``-m`` mentions ``slow`` (e.g. ``-m slow``).
"""

import os

import pytest

# the tests compile the kernels in their own process (and check the compiled paths); a
# fresh checkout's first import would otherwise run on NumPy while a background process
# compiles (flexmbd/cold_start.py).  Subprocesses started by the tests inherit it.
os.environ.setdefault("FLEXMBD_COLD_START", "wait")


def pytest_addoption(parser):
    """Register the ``--runslow`` command-line option."""
    parser.addoption(
        "--runslow",
        action="store_true",
        default=False,
        help="also run tests marked slow (they take minutes)",
    )


def pytest_collection_modifyitems(config, items):
    """Skip tests marked ``slow`` unless they were asked for."""
    if config.getoption("--runslow") or "slow" in (config.getoption("-m") or ""):
        return
    skip_slow = pytest.mark.skip(reason="slow test: run with --runslow or -m slow")
    for item in items:
        if item.get_closest_marker("slow") is not None:
            item.add_marker(skip_slow)
