"""crowdnav.rvo2 against a real Python-RVO2 build (the C++ RVO2 library behind
Cython), when one is installed as the module ``rvo2`` (scripts/test.sh tries the
PyPI fork ``pyrvo2-danieldugas``). Skipped, saying why, otherwise."""

from __future__ import annotations

import importlib
import math

import numpy as np
import pytest

import crowdnav.rvo2 as cn_rvo2


def python_rvo2():
    try:
        module = importlib.import_module("rvo2")
    except ImportError:
        return None
    return module if hasattr(module, "PyRVOSimulator") and module is not cn_rvo2 else None


RVO2 = python_rvo2()
pytestmark = pytest.mark.skipif(
    RVO2 is None, reason="no Python-RVO2 build installed (pip install pyrvo2-danieldugas)"
)


def random_crowd(rng, n=40, half=8.0, gap=0.7):
    points = []
    while len(points) < n:
        p = rng.uniform(-half, half, 2)
        if all(np.linalg.norm(p - q) > gap for q in points):
            points.append(p)
    return np.array(points), rng.uniform(-1, 1, (n, 2)), rng.uniform(-1.5, 1.5, (n, 2))


def one_step(module, pos, vel, pref, **kwargs):
    sim = module.PyRVOSimulator(0.1, 5.0, 8, 2.0, 2.0, 0.3, 1.5, **kwargs)
    for p, v in zip(pos, vel):
        sim.addAgent(tuple(p), 5.0, 8, 2.0, 2.0, 0.3, 1.5, tuple(v))
    for i, v in enumerate(pref):
        sim.setAgentPrefVelocity(i, tuple(v))
    sim.doStep()
    return np.array([sim.getAgentVelocity(i) for i in range(len(pos))])


def test_one_step_mostly_equals_rvo2s_when_the_head_on_turn_is_off():
    rng = np.random.default_rng(0)
    diffs = []
    for _ in range(20):
        pos, vel, pref = random_crowd(rng)
        ours = one_step(cn_rvo2, pos, vel, pref, symmetry_bias=0.0)
        theirs = one_step(RVO2, pos, vel, pref)
        diffs.extend(np.linalg.norm(ours - theirs, axis=1))
    diffs = np.array(diffs)
    # Measured: 91 % of 800 agents within 1e-3 m/s of RVO2, the median 0; the rest
    # differ where the linear program is infeasible or ties between constraints.
    assert np.median(diffs) < 1e-5
    assert (diffs < 1e-3).mean() > 0.85, (diffs < 1e-3).mean()
    assert diffs.max() < 1.0


def circle(module, n=250, radius=200.0, **kwargs):
    """RVO2's Circle example; returns (steps to finish, pair-steps overlapping by more
    than 1 % of the sum of the radii)."""
    sim = module.PyRVOSimulator(0.25, 15, 10, 10, 10, 1.5, 2, **kwargs)
    goals = []
    for i in range(n):
        a = i * 2 * math.pi / n
        p = (radius * math.cos(a), radius * math.sin(a))
        sim.addAgent(p)
        goals.append((-p[0], -p[1]))
    goals = np.array(goals)
    overlapping = 0
    for step in range(6000):
        pos = np.array([sim.getAgentPosition(i) for i in range(n)])
        if (np.linalg.norm(pos - goals, axis=1) <= 1.5).all():
            return step, overlapping
        v = goals - pos
        d = np.linalg.norm(v, axis=1, keepdims=True)
        v = np.where(d > 1, v / d, v)
        for i in range(n):
            sim.setAgentPrefVelocity(i, (float(v[i, 0]), float(v[i, 1])))
        sim.doStep()
        if step % 5 == 0:
            pos = np.array([sim.getAgentPosition(i) for i in range(n)])
            gap = np.linalg.norm(pos[:, None] - pos[None], axis=2) - 3.0
            np.fill_diagonal(gap, np.inf)
            overlapping += int((gap < -0.03).sum()) // 2
    return None, overlapping


def test_circle_finishes_no_later_and_with_no_more_overlaps_than_rvo2():
    theirs_steps, theirs_overlaps = circle(RVO2)
    ours_steps, ours_overlaps = circle(cn_rvo2)
    plain_steps, _ = circle(cn_rvo2, symmetry_bias=0.0)
    assert theirs_steps is not None and ours_steps is not None and plain_steps is not None
    # Measured: RVO2 3 457 steps; crowdnav 2 247 with the preset's head-on turn,
    # 3 842 without it (RVO2's own rule), overlaps in proportion.
    assert ours_steps <= theirs_steps, (ours_steps, theirs_steps)
    assert ours_overlaps <= theirs_overlaps, (ours_overlaps, theirs_overlaps)
    assert abs(plain_steps - theirs_steps) <= 0.25 * theirs_steps, (plain_steps, theirs_steps)
