"""crowdnav.rvo2 as a drop-in for Python-RVO2: RVO2's own examples (Circle, Blocks),
the way vita-epfl/CrowdNav's ORCA policy calls it, and the step compared with the
library's ORCA on the same input."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

import crowdnav.rvo2 as rvo2
from crowdnav import _native


def norm(v):
    return math.hypot(v[0], v[1])


def test_python_rvo2_example_runs_as_written():
    # Python-RVO2's example.py, unchanged but for the import.
    sim = rvo2.PyRVOSimulator(1 / 60.0, 1.5, 5, 1.5, 2, 0.4, 2)
    a0 = sim.addAgent((0, 0))
    a1 = sim.addAgent((1, 0))
    a2 = sim.addAgent((1, 1))
    a3 = sim.addAgent((0, 1), 1.5, 5, 1.5, 2, 0.4, 2, (0, 0))
    o1 = sim.addObstacle([(0.1, 0.1), (-0.1, 0.1), (-0.1, -0.1)])
    sim.processObstacles()
    sim.setAgentPrefVelocity(a0, (1, 1))
    sim.setAgentPrefVelocity(a1, (-1, 1))
    sim.setAgentPrefVelocity(a2, (-1, -1))
    sim.setAgentPrefVelocity(a3, (1, -1))
    assert (a0, a1, a2, a3) == (0, 1, 2, 3)
    assert o1 == 0
    assert sim.getNumAgents() == 4
    assert sim.getNumObstacleVertices() == 3
    for _ in range(20):
        sim.doStep()
    assert sim.getGlobalTime() == pytest.approx(20 / 60.0, rel=1e-5)
    for i in range(4):
        p = sim.getAgentPosition(i)
        v = sim.getAgentVelocity(i)
        assert isinstance(p, tuple) and len(p) == 2 and all(isinstance(x, float) for x in p)
        assert isinstance(v, tuple) and len(v) == 2
        assert norm(v) <= 2.0 + 1e-6


def test_getters_and_setters_round_trip():
    sim = rvo2.PyRVOSimulator(0.25, 15, 10, 10, 10, 1.5, 2, (0.5, 0))
    a = sim.addAgent((1, 2))
    assert sim.getAgentPosition(a) == (1.0, 2.0)
    assert sim.getAgentVelocity(a) == (0.5, 0.0)
    assert sim.getAgentRadius(a) == 1.5
    assert sim.getAgentMaxSpeed(a) == 2.0
    assert sim.getAgentNeighborDist(a) == 15.0
    assert sim.getAgentMaxNeighbors(a) == 10
    assert sim.getAgentTimeHorizon(a) == 10.0
    assert sim.getAgentTimeHorizonObst(a) == 10.0
    assert sim.getTimeStep() == 0.25
    sim.setAgentPosition(a, (3, 4))
    sim.setAgentVelocity(a, [0.25, 0.5])
    sim.setAgentPrefVelocity(a, np.array([1.0, 0.0]))
    sim.setAgentRadius(a, 0.5)
    sim.setAgentMaxSpeed(a, 1.0)
    sim.setAgentNeighborDist(a, 5)
    sim.setAgentMaxNeighbors(a, 3)
    sim.setAgentTimeHorizon(a, 2)
    sim.setAgentTimeHorizonObst(a, 1)
    sim.setTimeStep(0.1)
    assert sim.getAgentPosition(a) == (3.0, 4.0)
    assert sim.getAgentVelocity(a) == (0.25, 0.5)
    assert sim.getAgentPrefVelocity(a) == (1.0, 0.0)
    assert (sim.getAgentRadius(a), sim.getAgentMaxSpeed(a)) == (0.5, 1.0)
    assert (sim.getAgentNeighborDist(a), sim.getAgentMaxNeighbors(a)) == (5.0, 3)
    assert (sim.getAgentTimeHorizon(a), sim.getAgentTimeHorizonObst(a)) == (2.0, 1.0)
    assert sim.getTimeStep() == pytest.approx(0.1)
    sim.setAgentDefaults(1, 2, 3, 4, 0.25, 0.75)
    b = sim.addAgent((0, 0))
    assert (sim.getAgentNeighborDist(b), sim.getAgentMaxNeighbors(b)) == (1.0, 2)
    assert (sim.getAgentRadius(b), sim.getAgentMaxSpeed(b)) == (0.25, 0.75)
    # Alone, an agent takes its preferred velocity and moves by it.
    sim.doStep()
    assert sim.getAgentVelocity(a) == pytest.approx((1.0, 0.0))
    assert sim.getAgentPosition(a) == pytest.approx((3.1, 4.0))


def test_obstacle_vertices_are_numbered_as_rvo2_numbers_them():
    sim = rvo2.PyRVOSimulator(0.25, 15, 10, 10, 10, 1.5, 2)
    first = sim.addObstacle([(0, 0), (1, 0), (1, 1)])
    second = sim.addObstacle([(5, 5), (6, 5)])
    assert (first, second) == (0, 3)
    assert sim.getNumObstacleVertices() == 5
    assert sim.getObstacleVertex(4) == (6.0, 5.0)
    assert [sim.getNextObstacleVertexNo(i) for i in range(5)] == [1, 2, 0, 4, 3]
    assert [sim.getPrevObstacleVertexNo(i) for i in range(5)] == [2, 0, 1, 4, 3]


def test_query_visibility_sees_around_processed_obstacles_only():
    sim = rvo2.PyRVOSimulator(0.25, 15, 10, 10, 10, 1.5, 2)
    sim.addObstacle([(-1, -1), (1, -1), (1, 1), (-1, 1)])
    assert sim.queryVisibility((-5, 0), (5, 0))  # not processed yet
    sim.processObstacles()
    assert not sim.queryVisibility((-5, 0), (5, 0))
    assert sim.queryVisibility((-5, 3), (5, 3))
    assert sim.queryVisibility((-5, 3), (5, 3), 1.5)
    assert not sim.queryVisibility((-5, 3), (5, 3), 2.5)


def circle_example(n: int, radius: float):
    """RVO2's examples/Circle.cc: n agents on a circle going to their antipodes."""
    sim = rvo2.PyRVOSimulator(0.25, 15, 10, 10, 10, 1.5, 2)
    goals = []
    for i in range(n):
        a = i * 2 * math.pi / n
        p = (radius * math.cos(a), radius * math.sin(a))
        sim.addAgent(p)
        goals.append((-p[0], -p[1]))
    return sim, goals


def set_preferred_velocities(sim, goals):
    for i, g in enumerate(goals):
        p = sim.getAgentPosition(i)
        v = (g[0] - p[0], g[1] - p[1])
        d = norm(v)
        if d > 1:
            v = (v[0] / d, v[1] / d)
        sim.setAgentPrefVelocity(i, v)


def reached_goal(sim, goals, within):
    return all(
        norm((sim.getAgentPosition(i)[0] - g[0], sim.getAgentPosition(i)[1] - g[1])) <= within
        for i, g in enumerate(goals)
    )


def min_gap(sim):
    """Smallest distance between two agents' edges (negative: they overlap)."""
    p = sim.getAgentPositions()
    r = np.array([sim.getAgentRadius(i) for i in range(sim.getNumAgents())])
    d = np.linalg.norm(p[:, None, :] - p[None, :, :], axis=2) - (r[:, None] + r[None, :])
    np.fill_diagonal(d, np.inf)
    return float(d.min())


def test_rvo2_circle_example_every_agent_crosses_without_running_into_another():
    # 400 m at 1 m/s is at least 1 600 steps of 0.25 s; the jam at the centre adds some.
    sim, goals = circle_example(250, 200.0)
    worst = math.inf
    for step in range(3000):
        if reached_goal(sim, goals, 1.5):
            break
        set_preferred_velocities(sim, goals)
        sim.doStep()
        if step % 10 == 0:
            worst = min(worst, min_gap(sim))
    assert reached_goal(sim, goals, 1.5), f"not every agent arrived in {step} steps"
    # Neither RVO2 nor this simulator resolves contacts: in the jam at the centre ORCA
    # lets neighbours press into each other (RVO2 itself by a sixth of the sum of the
    # radii on this run, tests/test_against_python_rvo2.py), never pass through.
    assert worst > -3.0 / 3, worst


BLOCKS = [
    [(-10.0, 40.0), (-40.0, 40.0), (-40.0, 10.0), (-10.0, 10.0)],
    [(10.0, 40.0), (10.0, 10.0), (40.0, 10.0), (40.0, 40.0)],
    [(10.0, -40.0), (40.0, -40.0), (40.0, -10.0), (10.0, -10.0)],
    [(-10.0, -40.0), (-10.0, -10.0), (-40.0, -10.0), (-40.0, -40.0)],
]


def inside_a_block(p, margin=0.0):
    return any(
        min(x for x, _ in b) - margin < p[0] < max(x for x, _ in b) + margin
        and min(y for _, y in b) - margin < p[1] < max(y for _, y in b) + margin
        for b in BLOCKS
    )


def test_rvo2_blocks_example_every_agent_gets_through_the_gap_between_the_blocks():
    # RVO2's examples/Blocks.cc: four groups of 25 swap corners through the crossroads
    # between four square blocks.
    sim = rvo2.PyRVOSimulator(0.25, 15, 10, 5, 5, 2, 2)
    goals = []
    for i in range(5):
        for j in range(5):
            for sx, sy in [(1, 1), (-1, 1), (1, -1), (-1, -1)]:
                p = (sx * (55.0 + i * 10.0), sy * (55.0 + j * 10.0))
                sim.addAgent(p)
                goals.append((-p[0], -p[1]))
    for block in BLOCKS:
        sim.addObstacle(block)
    sim.processObstacles()
    rng = random.Random(7)
    for step in range(4000):
        if reached_goal(sim, goals, 20.0):
            break
        for i, g in enumerate(goals):
            p = sim.getAgentPosition(i)
            v = (g[0] - p[0], g[1] - p[1])
            d = norm(v)
            if d > 1:
                v = (v[0] / d, v[1] / d)
            # Blocks.cc perturbs a little to avoid deadlocks from perfect symmetry.
            angle, dist = rng.random() * 2 * math.pi, rng.random() * 0.0001
            sim.setAgentPrefVelocity(i, (v[0] + dist * math.cos(angle), v[1] + dist * math.sin(angle)))
        sim.doStep()
        for i in range(sim.getNumAgents()):
            assert not inside_a_block(sim.getAgentPosition(i), margin=-0.1), (step, i)
    assert reached_goal(sim, goals, 20.0), f"not every agent arrived in {step} steps"
    # Obstacle neighbours are reported as RVO2 reports them: vertex numbers.
    assert sim.getAgentNumObstacleNeighbors(0) >= 0


def crowdnav_orca_action(robot, humans, time_step=0.25):
    """vita-epfl/CrowdNav's ORCA policy (crowd_sim/envs/policy/orca.py): a new
    simulator for every step, the robot's preferred velocity towards its goal, the
    humans' zero, and the robot's new velocity read back."""
    params = (10, 10, 5, 5)  # neighbor_dist, max_neighbors, time_horizon, time_horizon_obst
    sim = rvo2.PyRVOSimulator(time_step, *params, 0.3, 1.0)
    sim.addAgent(robot["position"], *params, robot["radius"] + 0.01, robot["v_pref"], robot["velocity"])
    for h in humans:
        sim.addAgent(h["position"], *params, h["radius"] + 0.01, 1.0, h["velocity"])
    velocity = np.array(
        (robot["goal"][0] - robot["position"][0], robot["goal"][1] - robot["position"][1])
    )
    speed = np.linalg.norm(velocity)
    pref_vel = velocity / speed if speed > 1 else velocity
    sim.setAgentPrefVelocity(0, tuple(pref_vel))
    for i in range(len(humans)):
        sim.setAgentPrefVelocity(i + 1, (0, 0))
    sim.doStep()
    return sim.getAgentVelocity(0)


def crowdnav_episode(humans, steps=120, dt=0.25):
    """The robot driven by CrowdNav's ORCA policy from (0, -4) to (0, 4) while the
    humans walk at their own velocities; returns whether it arrived and the smallest
    gap between it and a human."""
    robot = {"position": (0.0, -4.0), "velocity": (0.0, 0.0), "goal": (0.0, 4.0), "radius": 0.3, "v_pref": 1.0}
    closest = math.inf
    for _ in range(steps):
        vx, vy = crowdnav_orca_action(robot, humans, dt)
        assert math.hypot(vx, vy) <= 1.0 + 1e-6
        p = robot["position"]
        robot["position"] = (p[0] + vx * dt, p[1] + vy * dt)
        robot["velocity"] = (vx, vy)
        for h in humans:
            h["position"] = (h["position"][0] + h["velocity"][0] * dt, h["position"][1] + h["velocity"][1] * dt)
            gap = norm((robot["position"][0] - h["position"][0], robot["position"][1] - h["position"][1])) - 0.6
            closest = min(closest, gap)
        if norm((robot["position"][0], robot["position"][1] - 4.0)) < 0.3:
            return True, closest
    return False, closest


def test_crowdnav_orca_policy_walks_straight_when_the_way_is_clear():
    robot = {"position": (0.0, -4.0), "velocity": (0.0, 0.0), "goal": (0.0, 4.0), "radius": 0.3, "v_pref": 1.0}
    far = [{"position": (5.0, 5.0), "velocity": (0.0, 0.0), "radius": 0.3}]
    assert crowdnav_orca_action(robot, far) == pytest.approx((0.0, 1.0))


def test_crowdnav_orca_policy_steps_around_a_human_standing_in_the_way():
    robot = {"position": (0.0, -4.0), "velocity": (0.0, 1.0), "goal": (0.0, 4.0), "radius": 0.3, "v_pref": 1.0}
    ahead = [{"position": (0.0, -2.5), "velocity": (0.0, 0.0), "radius": 0.3}]
    vx, vy = crowdnav_orca_action(robot, ahead)
    assert abs(vx) > 0.05 and vy < 1.0
    arrived, closest = crowdnav_episode([{"position": (0.0, 0.0), "velocity": (0.0, 0.0), "radius": 0.3}])
    assert arrived and closest > -0.01, closest


def test_crowdnav_orca_policy_crosses_humans_walking_across_without_touching_them():
    rng = np.random.default_rng(3)
    humans = [
        {"position": (-4.0 - 2.0 * k, float(rng.uniform(-2, 2))), "velocity": (1.0, 0.0), "radius": 0.3}
        for k in range(5)
    ]
    arrived, closest = crowdnav_episode(humans)
    assert arrived
    # The humans ignore the robot (CrowdNav's invisible robot) and the robot only takes
    # half the avoidance; the 0.01 m margin CrowdNav adds to every radius absorbs it.
    assert closest > -0.01, closest


def test_a_step_is_the_librarys_orca_on_the_nearest_neighbours():
    rng = np.random.default_rng(11)
    n, neighbor_dist, max_neighbors, horizon, dt = 60, 4.0, 6, 3.0, 0.1
    sim = rvo2.PyRVOSimulator(dt, neighbor_dist, max_neighbors, horizon, horizon, 0.3, 1.5)
    positions = rng.uniform(-6, 6, (n, 2))
    velocities = rng.uniform(-1, 1, (n, 2))
    prefs = rng.uniform(-1.5, 1.5, (n, 2))
    for p, v in zip(positions, velocities):
        sim.addAgent(tuple(p), neighbor_dist, max_neighbors, horizon, horizon, 0.3, 1.5, tuple(v))
    sim.setAgentPrefVelocities(prefs)
    # The state as the simulator holds it (f32), before the step.
    pos = sim.getAgentPositions()
    vel = sim.getAgentVelocities()
    pref = np.array([sim.getAgentPrefVelocity(i) for i in range(n)])
    sim.doStep()
    got = sim.getAgentVelocities()
    for i in range(n):
        d = np.linalg.norm(pos - pos[i], axis=1)
        d[i] = np.inf
        order = [j for j in np.argsort(d, kind="stable") if d[j] <= neighbor_dist][:max_neighbors]
        neighbors = np.array(
            [[*pos[j], *vel[j], *pref[j], 0.3] for j in order], dtype=np.float64
        ).reshape(-1, 7)
        expected = _native._orca_velocity(
            [*pos[i], *vel[i], *pref[i], 0.3, 1.5],
            neighbors,
            dt,
            neighbor_dist,
            max_neighbors,
            horizon,
            horizon,
        )
        np.testing.assert_allclose(got[i], expected, rtol=0, atol=1e-6, err_msg=f"agent {i}")
        assert sim.getAgentNumAgentNeighbors(i) == len(order)
        assert [sim.getAgentAgentNeighbor(i, k) for k in range(len(order))] == [int(j) for j in order]
    # Positions moved by velocity × dt, nothing else (no collision response).
    np.testing.assert_allclose(sim.getAgentPositions(), pos + got * dt, atol=1e-5)
    assert sim.getAgentNumORCALines(0) >= 1
    line = sim.getAgentORCALine(0, 0)
    assert isinstance(line, tuple) and len(line) == 4


def test_remove_agent_renumbers_the_later_agents_as_a_list_does():
    sim = rvo2.PyRVOSimulator(0.25, 15, 10, 10, 10, 0.5, 2)
    for x in range(5):
        sim.addAgent((float(x) * 3, 0.0))
    sim.removeAgent(1)
    assert sim.getNumAgents() == 4
    assert [sim.getAgentPosition(i)[0] for i in range(4)] == [0.0, 6.0, 9.0, 12.0]
    sim.doStep()
    assert sim.addAgent((20.0, 0.0)) == 4
    with pytest.raises(IndexError):
        sim.removeAgent(5)


def test_batch_accessors_have_numpy_shapes_and_dtypes():
    sim, goals = circle_example(10, 5.0)
    p = sim.getAgentPositions()
    assert p.shape == (10, 2) and p.dtype == np.float64
    sim.setAgentPrefVelocities(np.zeros((10, 2), dtype=np.float32))
    sim.doStep()
    v = sim.getAgentVelocities()
    assert v.shape == (10, 2) and v.dtype == np.float64
    with pytest.raises(ValueError, match=r"shape \(10, 2\)"):
        sim.setAgentPrefVelocities(np.zeros((9, 2)))
    with pytest.raises(ValueError, match="finite"):
        sim.setAgentPrefVelocities(np.full((10, 2), np.nan))
    empty = rvo2.PyRVOSimulator(0.25, 15, 10, 10, 10, 0.5, 2)
    assert empty.getAgentPositions().shape == (0, 2)
    empty.doStep()


def test_bad_input_raises_python_errors_not_crashes():
    with pytest.raises(ValueError, match="timeStep"):
        rvo2.PyRVOSimulator(0.0, 15, 10, 10, 10, 1.5, 2)
    with pytest.raises(ValueError, match="radius"):
        rvo2.PyRVOSimulator(0.25, 15, 10, 10, 10, -1, 2)
    sim = rvo2.PyRVOSimulator(0.25, 15, 10, 10, 10, 1.5, 2)
    with pytest.raises(ValueError, match="finite"):
        sim.addAgent((math.nan, 0))
    with pytest.raises(ValueError, match="pair"):
        sim.addAgent((1, 2, 3))
    with pytest.raises(ValueError, match="Either pass only 'pos', or pass all parameters."):
        sim.addAgent((0, 0), 15)
    with pytest.raises(IndexError):
        sim.getAgentPosition(0)
    with pytest.raises(IndexError):
        sim.setAgentPrefVelocity(3, (1, 0))
    with pytest.raises(ValueError, match="at least 2 vertices"):
        sim.addObstacle([(0, 0)])
    with pytest.raises(IndexError):
        sim.getObstacleVertex(0)
    a = sim.addAgent((0, 0))
    with pytest.raises(ValueError, match="finite"):
        sim.setAgentPrefVelocity(a, (math.inf, 0))
    with pytest.raises(IndexError):
        sim.getAgentORCALine(a, 0)
