"""run(scenario): the report and the trajectories, as `crowdnav run` writes them."""

from __future__ import annotations

import numpy as np
import pytest

import crowdnav

SMALL = {
    "name": "two-way",
    "dt": 0.1,
    "steps": 400,
    "world": {"boundary": [[0, 0], [12, 0], [12, 4], [0, 4]]},
    "agents": [
        {"pos": [1, 2], "goal": [11, 2], "radius": 0.3, "max_speed": 2.0, "pref_speed": 1.4},
        {"pos": [11, 2], "goal": [1, 2], "radius": 0.3, "max_speed": 2.0, "pref_speed": 1.4},
    ],
    "lines": [{"name": "middle", "from": [6, 0], "to": [6, 4]}],
}


def test_a_dict_scenario_runs_to_the_end_with_report_and_trajectories():
    result = crowdnav.run(SMALL)
    assert result.report["name"] == "two-way"
    assert result.report["arrived"] == 2 and result.report["completed"]
    assert result.report["lines"][0]["crossings"] == 2
    # Two people meeting face to face in one lane, then stepping aside: a lane order
    # between 0 (one lane, one each way) and 1.
    assert 0.0 <= result.report["lane_order"] <= 1.0
    t = result.trajectories
    assert t.dtype == np.float64 and t.shape[1] == 7
    frames = result.report["steps"] + 1  # frame 0 is the initial state
    assert t.shape[0] == 2 * frames
    assert result.frame_rate == pytest.approx(10.0)
    first = t[t[:, 1] == 0]
    np.testing.assert_allclose(first[:, 3:5], [[1, 2], [11, 2]])
    np.testing.assert_allclose(first[:, 2], 0.0)


def test_every_thins_the_frames():
    every = crowdnav.run(SMALL, every=5, steps=50)
    assert every.report["steps"] == 50
    assert set(np.unique(every.trajectories[:, 1])) == set(range(11))
    assert every.frame_rate == pytest.approx(2.0)


def test_a_scenario_file_runs_like_the_cli(repo_root):
    result = crowdnav.run(repo_root / "scenarios" / "corridor.json", steps=20)
    assert result.report["name"] == "corridor"
    assert result.report["steps"] == 20
    assert result.trajectories.shape == (30 * 21, 7)


def test_the_dataframe_has_pedpys_columns():
    pd = pytest.importorskip("pandas", reason="pandas not installed")
    df = crowdnav.run(SMALL, steps=10).to_pandas()
    assert isinstance(df, pd.DataFrame)
    assert list(df.columns[:4]) == ["id", "frame", "x", "y"]
    assert df["id"].dtype == np.int64 and len(df) == 2 * 11


def test_pedpy_loads_the_trajectories():
    pedpy = pytest.importorskip("pedpy", reason="pedpy not installed (optional)")
    result = crowdnav.run(SMALL)
    data = pedpy.TrajectoryData(data=result.to_pandas(), frame_rate=result.frame_rate)
    assert data.frame_rate == pytest.approx(10.0)
    # PedPy counts the same crossings of the middle line as the report.
    line = pedpy.MeasurementLine([(6.0, 0.0), (6.0, 4.0)])
    n_t, _ = pedpy.compute_n_t(traj_data=data, measurement_line=line)
    assert int(n_t["cumulative_pedestrians"].iloc[-1]) == result.report["lines"][0]["crossings"] == 2


def test_errors_carry_the_librarys_message(tmp_path):
    with pytest.raises(FileNotFoundError):
        crowdnav.run(tmp_path / "nope.json")
    with pytest.raises(ValueError, match="missing field `dt`"):
        crowdnav.run({"name": "x", "steps": 3})
    with pytest.raises(ValueError, match="method"):
        crowdnav.run(SMALL, method="teleport")
    with pytest.raises(ValueError, match="every"):
        crowdnav.run(SMALL, every=0)
    with pytest.raises(TypeError):
        crowdnav.run(42)  # type: ignore[arg-type]
    missing_world = dict(SMALL, world=str(tmp_path / "gone.json"))
    with pytest.raises(FileNotFoundError):
        crowdnav.run(missing_world)


#: A corridor fed by a source at its left end and drained by a sink at its right end,
#: with one listed agent retargeted by a timed event.
STREAM = {
    "name": "stream",
    "dt": 0.1,
    "steps": 600,
    "world": {"boundary": [[0, 0], [20, 0], [20, 4], [0, 4]]},
    "agents": [{"pos": [10, 3.4], "goal": [10, 3.4], "radius": 0.3, "max_speed": 1.4}],
    "sources": [
        {"area": [[0.5, 0.5], [2.5, 2.5]], "rate": 2.0, "count": 4, "goal": [18, 1.5], "seed": 3}
    ],
    "sinks": [{"area": [[16, 0], [20, 4]]}],
    "events": [{"at": 0.5, "retarget": 0, "goal": [12, 3.4]}],
}


def test_sources_sinks_and_events_run_with_agents_numbered_as_in_the_scenario():
    result = crowdnav.run(STREAM)
    report = result.report
    assert report["spawned"] == 4 and report["removed"] == 4
    assert report["completed"] and report["steps"] < 600
    t = result.trajectories
    ids = t[:, 0].astype(int)
    frames = t[:, 1].astype(int)
    # The listed agent is 0, the spawned ones 1..4 in the order they appeared.
    assert set(ids) == {0, 1, 2, 3, 4}
    assert list(ids[frames == 0]) == [0]
    last = frames.max()
    first_seen = []
    for agent in range(1, 5):
        mine = np.sort(frames[ids == agent])
        # Rows from when it appeared to when the sink removed it, none missing: it kept
        # its number while the ones before it left.
        assert mine[0] > 0 and mine[-1] < last
        np.testing.assert_array_equal(mine, np.arange(mine[0], mine[-1] + 1))
        # The sink is an exit: it took the agent in the step its centre crossed into
        # the sink (x = 16), so its last row is within one step (1.4 m/s * 0.1 s) of
        # the edge, short of its goal at x = 18.
        assert 16.0 - 0.14 - 1e-4 <= t[(ids == agent) & (frames == mine[-1]), 3][0] < 16.0
        first_seen.append(mine[0])
    assert first_seen == sorted(first_seen)
    # Only the listed agent stays to the end, where the event sent it.
    final = t[frames == last]
    assert list(final[:, 0]) == [0]
    np.testing.assert_allclose(final[0, 3:5], [12, 3.4], atol=0.1)
