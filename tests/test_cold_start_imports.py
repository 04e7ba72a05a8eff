"""Cold start (issue 18): what the first process after an install imports.  Checked by
``sys.modules`` in a fresh interpreter (a real outcome, not a timing): while the kernels
compile in the background, ``import flexmbd`` does not import Numba, nor the packages that
only some models or examples need (SciPy's signal and spatial packages, matplotlib, the
DT-TMM solver); every element type is still registered and every example still listed."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from flexmbd import cold_start
from flexmbd.kernels import cache

ROOT = Path(__file__).resolve().parents[1]
#: imported by none of the first run's ``import flexmbd`` and ``flexmbd example`` (listing)
NOT_IMPORTED = ("numba", "scipy.signal", "scipy.spatial", "matplotlib", "flexmbd.tmm", "flexmbd.kernels.assembly")

PROBE = """
import json, sys
import flexmbd, flexmbd.kernels as k
from flexmbd.registry import element_types
from flexmbd.examples import registry
after_import = sorted(m for m in {names} if m in sys.modules)
examples = sorted(registry.load_examples())
print(json.dumps(dict(after_import=after_import, after_examples=sorted(m for m in {names} if m in sys.modules),
                      available=k.AVAILABLE, background=k.COMPILING_IN_BACKGROUND,
                      types=[t.name for t in element_types()], examples=examples)))
""".format(names=repr(NOT_IMPORTED))


def _probe(env_extra: dict) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT), **env_extra)
    out = subprocess.run([sys.executable, "-c", PROBE], check=False, env=env, capture_output=True, text=True,
                         timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_first_run_after_an_install_imports_neither_numba_nor_optional_packages(tmp_path):
    pytest.importorskip("numba")
    kernel_cache = cache.prepare(str(tmp_path))
    (kernel_cache / cold_start.LOCK).write_text(str(os.getpid()))   # a live warm-up: none is started
    env = {"NUMBA_CACHE_DIR": str(tmp_path), cold_start.ENV: "background"}
    cold = _probe(env)
    assert (cold["available"], cold["background"]) == (False, True)
    assert cold["after_import"] == []
    # listing the examples imports SciPy's integrate package (their references), which
    # imports scipy.spatial itself; nothing else of the list
    assert set(cold["after_examples"]) <= {"scipy.spatial"}
    # the same element types and examples as a process with everything imported
    import flexmbd.examples.registry as examples
    from flexmbd.registry import element_types

    assert cold["types"] == [t.name for t in element_types()]
    assert cold["examples"] == sorted(examples.load_examples())
    assert {"slider-crank-sda", "p5-roller-rig", "tensegrity-tower", "tensegrity-prism"} <= set(cold["examples"])


def test_numba_is_still_imported_when_the_kernels_are_used():
    pytest.importorskip("numba")
    warm = _probe({cold_start.ENV: "wait"})
    assert warm["available"] is True and "numba" in warm["after_import"]
