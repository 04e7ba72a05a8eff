"""Freezing reuses what it has worked out before, and only that.

- Dropping redundant equations slices the joint group's arrays
  (:meth:`~flexmbd.constraints.dot.DotConstraintGroup.subset`): every array equals that
  of a group built from the kept equations alone.
- The analyses freezing keeps by model structure (flexmbd/system.py ``_PATTERNS``,
  ``_DEPENDENT``, ``_LAYOUTS``) give a model of the same structure with other parameter
  values (another joint place, mass, spring) the answers of a process that never saw the
  first model, and a model of another structure is not served from them.
"""
import subprocess
import sys
import warnings

import numpy as np
import pytest

import flexmbd as fm
from flexmbd.constraints.dot import DotConstraintGroup
from flexmbd.examples.slider_crank import build as p1_slider_crank
from flexmbd.system import RedundantConstraintWarning, System


def _freeze(model, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RedundantConstraintWarning)
        return System(model, **kw)


GROUP_ARRAYS = ("dof_index", "config_index", "side", "sign", "w0", "s0", "slot_dof", "slot_vel", "side_flat",
                "sign_flat", "marker_tensors")


@pytest.mark.parametrize("keep", ["every third dropped", "redundant dropped", "all kept"])
def test_subset_equals_the_group_built_from_the_kept_equations(keep):
    """The P1 slider-crank's joint group (23 equations, with a driver's time law): its
    subsets are the groups DotConstraintGroup builds from the same equations."""
    model = p1_slider_crank(k=2e4, c=1e3)
    model.add("rotation_driver", body_i=fm.GROUND, body_j="crank", axis=(0, 1, 0), speed=2.0, name="drive")
    full = _freeze(model, redundancy="keep")
    (g,) = [c for c in full.constraint_groups if isinstance(c, DotConstraintGroup)]
    dropped = _freeze(model)
    mask = {"every third dropped": np.arange(len(g)) % 3 != 1, "all kept": np.ones(len(g), bool),
            "redundant dropped": np.array([(o, lab) not in dropped.removed_equations
                                           for o, lab in zip(g.owner, g.label)])}[keep]
    assert 0 < mask.sum() <= len(g)
    assert mask[-1] == (keep != "redundant dropped")   # the driver's equation (last) and its time law
    sub = g.subset(mask)
    idx = np.flatnonzero(mask)
    fresh = DotConstraintGroup(g.kind, [g.equations[i] for i in idx], g.dof_index[idx],
                               [type(tl)(int(np.searchsorted(idx, tl.index)), tl.law) for tl in g.laws
                                if tl.index in set(idx)], g.config_index[idx])
    fresh.on_ground = g.on_ground[idx]
    for name in GROUP_ARRAYS + ("on_ground",):
        a, b = getattr(sub, name), getattr(fresh, name)
        assert a.dtype == b.dtype and a.shape == b.shape and a.flags.c_contiguous == b.flags.c_contiguous, name
        np.testing.assert_array_equal(a, b, err_msg=name)
    for name in ("u", "mtype", "point", "rot", "const", "Cu"):
        np.testing.assert_array_equal(getattr(sub.markers, name), getattr(fresh.markers, name), err_msg=name)
    assert sub.markers.anchors is None and fresh.markers.anchors is None
    assert (sub.owner, sub.label) == (fresh.owner, fresh.label)
    assert [(tl.index, tl.law) for tl in sub.laws] == [(tl.index, tl.law) for tl in fresh.laws]
    qe = full.extend(full.q0 + 0.01 * np.arange(full.n_q))
    lam = np.linspace(-1.0, 1.0, len(sub))
    for a, b in zip(sub.assemble(qe, 0.3, lam), fresh.assemble(qe, 0.3, lam)):
        np.testing.assert_array_equal(a, b)
