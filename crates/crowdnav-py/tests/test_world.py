"""World: agents added, stepped and read as NumPy arrays."""

from __future__ import annotations

import math

import numpy as np
import pytest

from crowdnav import NavMesh, World

def test_agents_cross_a_room_around_the_pillar(room_level):
    world = World(NavMesh.from_level(room_level))
    a = world.add_agent((1.0, 5.0), (9.0, 5.0), radius=0.3)
    b = world.add_agent((9.0, 5.0), (1.0, 5.0), radius=0.3)
    assert (a, b) == (0, 1) and len(world) == 2
    for _ in range(400):
        world.step(0.05)
        if world.all_arrived():
            break
    assert world.all_arrived()
    np.testing.assert_allclose(world.positions, [[9, 5], [1, 5]], atol=0.06)
    assert world.arrived.dtype == np.bool_ and world.arrived.all()
    assert world.time == pytest.approx(world.steps * 0.05)
    report = world.report()
    assert report["arrived"] == 2 and report["agents"] == 2


def test_arrays_have_one_row_per_agent():
    world = World()
    rng = np.random.default_rng(1)
    starts = rng.uniform(-10, 10, (50, 2))
    ids = world.add_agents(starts, -starts, radius=0.25)
    assert ids.dtype == np.int64 and list(ids) == list(range(50))
    world.step(0.1, steps=3)
    assert world.steps == 3
    for name in ("positions", "velocities", "preferred_velocities", "goals"):
        arr = getattr(world, name)
        assert arr.shape == (50, 2) and arr.dtype == np.float64, name
    assert world.radii.shape == (50,)
    np.testing.assert_allclose(world.goals, -starts.astype(np.float32), atol=1e-6)
    world.set_goals(np.zeros((50, 2)))
    world.set_goal(3, (1.0, 1.0))
    assert tuple(world.goals[3]) == (1.0, 1.0)


def test_bad_input_raises_value_and_index_errors():
    world = World()
    with pytest.raises(ValueError, match="radius"):
        world.add_agent((0, 0), (1, 1), radius=-1.0)
    with pytest.raises(ValueError, match="finite"):
        world.add_agent((math.nan, 0), (1, 1))
    with pytest.raises(ValueError, match="as many rows"):
        world.add_agents(np.zeros((3, 2)), np.zeros((2, 2)))
    with pytest.raises(ValueError, match="method"):
        World(method="teleport")
    world.add_agent((0, 0), (1, 1))
    with pytest.raises(IndexError):
        world.set_goal(5, (0, 0))
    with pytest.raises(ValueError, match="time step"):
        world.step(0.0)
    with pytest.raises(ValueError, match=r"shape \(1, 2\)"):
        world.set_goals(np.zeros((2, 2)))


def test_remove_agent_keeps_the_others_ids():
    world = World()
    ids = world.add_agents(np.array([[0.0, 0.0], [5.0, 0.0], [10.0, 0.0]]), np.zeros((3, 2)))
    world.remove_agent(int(ids[1]))
    assert len(world) == 2
    with pytest.raises(IndexError):
        world.set_goal(int(ids[1]), (0, 0))


def test_ids_stay_valid_after_removals_and_a_removed_id_never_comes_back():
    world = World(collisions=False)
    starts = np.array([[0.0, 0.0], [5.0, 0.0], [10.0, 0.0], [15.0, 0.0]])
    ids = [int(i) for i in world.add_agents(starts, starts + [0.0, 10.0])]
    assert ids == [0, 1, 2, 3] and list(world.ids) == ids
    world.remove_agent(ids[1])
    # The others keep their ids; the rows after the removed one move up.
    assert list(world.ids) == [ids[0], ids[2], ids[3]]
    assert world.index_of(ids[3]) == 2
    np.testing.assert_allclose(world.positions, starts[[0, 2, 3]])
    world.set_goal(ids[3], (15.0, -5.0))
    assert tuple(world.goals[world.index_of(ids[3])]) == (15.0, -5.0)
    # A new agent may take the freed slot, but with a new id: the old one stays dead.
    new = world.add_agent((20.0, 0.0), (20.0, 5.0))
    assert new not in ids and list(world.ids) == [ids[0], ids[2], ids[3], new]
    for call in (
        lambda: world.remove_agent(ids[1]),
        lambda: world.set_goal(ids[1], (0, 0)),
        lambda: world.set_velocity(ids[1], (1, 0)),
        lambda: world.set_preferred_velocity(ids[1], (1, 0)),
        lambda: world.index_of(ids[1]),
    ):
        with pytest.raises(IndexError, match=f"agent {ids[1]} is not in the world"):
            call()
    for unknown in (-1, 99, 2**40, 2**63 - 1):
        with pytest.raises(IndexError):
            world.remove_agent(unknown)
    assert len(world) == 4
    world.step(0.1)
    assert world.positions.shape == (4, 2)


def test_removing_every_agent_leaves_an_empty_world_that_still_steps():
    world = World()
    ids = world.add_agents(np.array([[0.0, 0.0], [3.0, 0.0]]), np.array([[1.0, 0.0], [4.0, 0.0]]))
    for i in ids:
        world.remove_agent(int(i))
    assert len(world) == 0 and world.ids.shape == (0,) and world.states.shape == (0,)
    world.step(0.1)
    assert world.positions.shape == (0, 2)
    world.set_preferred_velocities(np.zeros((0, 2)))


def test_preferred_velocities_from_one_array_drive_the_next_step():
    world = World(collisions=False)
    world.add_agents(np.array([[0.0, 0.0], [10.0, 0.0]]), np.array([[0.0, 10.0], [10.0, 10.0]]))
    world.set_preferred_velocities(np.array([[1.0, 0.0], [-1.0, 0.0]]))
    world.step(0.1)
    assert world.velocities[0][0] > 0 and world.velocities[1][0] < 0
    np.testing.assert_allclose(world.preferred_velocities, [[1, 0], [-1, 0]], atol=1e-6)


def test_a_nan_row_hands_the_agent_back_to_its_goal():
    world = World(collisions=False)
    world.add_agents(np.array([[0.0, 0.0], [10.0, 0.0]]), np.array([[0.0, 10.0], [10.0, 10.0]]))
    world.set_preferred_velocities([[1.0, 0.0], [1.0, 0.0]])
    world.step(0.1)
    world.set_preferred_velocities([[math.nan, math.nan], [1.0, 0.0]])
    positions_before = world.positions
    world.step(0.1)
    # Agent 0 heads for its goal again (from where the override took it: it moved right
    # one step); agent 1 keeps its override.
    to_goal = np.array([0.0, 10.0]) - positions_before[0]
    expected = 1.4 * to_goal / np.linalg.norm(to_goal)
    np.testing.assert_allclose(world.preferred_velocities[0], expected, atol=1e-3)
    np.testing.assert_allclose(world.preferred_velocities[1], [1, 0], atol=1e-6)
    # Overridden agents never arrive; handed back, they do.
    world.set_preferred_velocity(1, None)
    world.step(0.1, steps=200)
    assert world.all_arrived()


def test_bad_preferred_velocities_change_nothing():
    world = World(collisions=False)
    world.add_agents(np.array([[0.0, 0.0], [10.0, 0.0]]), np.array([[0.0, 10.0], [10.0, 10.0]]))
    with pytest.raises(ValueError, match=r"shape \(2, 2\)"):
        world.set_preferred_velocities(np.zeros((3, 2)))
    with pytest.raises(ValueError, match=r"velocities\[1\] must be finite"):
        world.set_preferred_velocities([[5.0, 0.0], [math.nan, 1.0]])
    with pytest.raises(ValueError, match="finite"):
        world.set_preferred_velocities([[5.0, 0.0], [math.inf, 0.0]])
    with pytest.raises(ValueError, match="finite"):
        world.set_preferred_velocity(0, (math.nan, 0.0))
    world.step(0.1)
    # Neither row was applied: both head up for their goals.
    assert (world.preferred_velocities[:, 1] > 1.0).all()


def test_driven_agents_and_states():
    world = World()
    a = world.add_agent((0, 0), (10, 0))
    world.set_velocity(a, (0.0, 1.0))
    world.step(0.1)
    assert world.positions[world.index_of(a)][1] > 0
    assert world.states.shape == (1,)


def test_a_driven_agent_goes_exactly_where_it_is_driven_and_the_others_avoid_it():
    world = World(collisions=True)
    player = world.add_agent((0.0, 0.0), (0.0, 0.0), radius=0.4, max_speed=1.0)
    walker = world.add_agent((6.0, 0.0), (-6.0, 0.0), radius=0.4)
    # Faster than its max_speed: a driven agent is not limited.
    world.set_velocity(player, (3.0, 0.0))
    for _ in range(40):
        world.step(0.05)
        np.testing.assert_allclose(world.velocities[world.index_of(player)], [3.0, 0.0], atol=1e-6)
        gap = np.linalg.norm(world.positions[0] - world.positions[1])
        assert gap > 0.8 - 0.05
    np.testing.assert_allclose(world.positions[0], [6.0, 0.0], atol=1e-4)
    # Handed back, it heads for its goal at the origin again.
    world.set_velocity(player, None)
    world.step(0.05)
    assert world.velocities[0][0] < 0
    with pytest.raises(ValueError, match="finite"):
        world.set_velocity(walker, (math.inf, 0.0))
    with pytest.raises(ValueError, match="pair"):
        world.set_velocity(walker, (1.0, 2.0, 3.0))


def test_states_are_small_int_codes_with_names():
    assert (World.IDLE, World.MOVING, World.ARRIVED, World.NO_PATH, World.STUCK) == (0, 1, 2, 3, 4)
    assert World.STATE_NAMES == ("idle", "moving", "arrived", "no_path", "stuck")
    world = World()
    near = world.add_agent((0.0, 0.0), (0.5, 0.0))
    far = world.add_agent((0.0, 5.0), (20.0, 5.0))
    assert world.states.dtype == np.int8 and list(world.states) == [World.MOVING] * 2
    world.step(0.1, steps=20)
    states = world.states
    assert states[world.index_of(near)] == World.ARRIVED
    assert states[world.index_of(far)] == World.MOVING
    assert list(np.asarray(World.STATE_NAMES)[states]) == ["arrived", "moving"]


def test_an_agent_without_a_path_says_no_path(room_level):
    world = World(NavMesh.from_level(room_level))
    # It starts inside the pillar: no path from there.
    stranded = world.add_agent((5.0, 5.0), (9.0, 5.0), radius=0.3)
    walker = world.add_agent((1.0, 1.0), (2.0, 1.0), radius=0.3)
    world.step(0.1)
    assert world.states[world.index_of(stranded)] == World.NO_PATH
    assert world.states[world.index_of(walker)] == World.MOVING
    np.testing.assert_array_equal(world.velocities[world.index_of(stranded)], [0.0, 0.0])
