"""A drop-in for Python-RVO2: ``import crowdnav.rvo2 as rvo2``.

:class:`PyRVOSimulator` has Python-RVO2's constructor and methods, with the same
argument order and tuple types (``addAgent``, ``addObstacle``, ``processObstacles``,
``doStep``, the ``getAgent*`` / ``setAgent*`` accessors, ``queryVisibility``,
``getGlobalTime``, ...), stepped by crowdnav's ORCA in Rust with RVO2's semantics:
each step computes every agent's ORCA velocity from its preferred velocity and its
neighbours and obstacles, then moves every agent by velocity × time step, without
collision response.

Additions: ``removeAgent(i)`` (agents numbered after ``i`` move down by one, as
``del agents[i]`` does to a list), and NumPy batch accessors
``getAgentPositions()``, ``getAgentVelocities()``, ``setAgentPrefVelocities(array)``.

Differences: bad input raises ``ValueError`` (Python-RVO2 raises ``RuntimeError`` for
an obstacle of fewer than two vertices and crashes or returns garbage for a bad
number), an agent or vertex number out of range raises ``IndexError``, and ORCA is
crowdnav's own (RVO2 preset, which breaks exact head-on symmetry by a small turn), so
trajectories agree with RVO2's in behaviour, not bit for bit.
"""

from __future__ import annotations

from ._native import PyRVOSimulator

__all__ = ["PyRVOSimulator"]
