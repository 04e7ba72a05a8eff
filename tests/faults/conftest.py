"""The fault tests run ``flexmbd`` in child processes and read their stderr line by line.
On a fresh checkout the first child would compile the Numba kernels (a minute on a small
machine, with a file-size limit possibly in force): compile them once, up front, with
the models these tests use."""
from __future__ import annotations

import pytest

from faultkit import MODELS, PENDULUM, cli


@pytest.fixture(scope="session", autouse=True)
def warm_kernel_cache(tmp_path_factory):
    d = tmp_path_factory.mktemp("warm")
    for model, extra in ((PENDULUM, ["--t-end", "0.01"]), (MODELS / "driven-crank.yaml", ["--t-end", "0.01"]),
                         (MODELS / "p3-cantilever.yaml", [])):
        r = cli("run", model, "-o", d / f"{model.stem}.h5", "--quiet", *extra, timeout=900)
        assert r.returncode == 0, r.stderr
