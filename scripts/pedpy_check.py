#!/usr/bin/env python3
"""Checks that `crowdnav run --trajectories` output loads into PedPy and that PedPy
counts the same line crossings and flow as crowdnav's report.

    crowdnav run SCENARIO --trajectories t.csv --every N --report r.json
    python3 scripts/pedpy_check.py SCENARIO t.csv r.json --every N [--venv DIR]

The script makes its own virtual environment (default: target/pedpy-venv beside this
repository's Cargo.toml), installs PedPy there with pip, and runs itself again inside
it. For every measurement line of the scenario (the `lines` key) it compares:

- the number of crossings: crowdnav's report against PedPy's `compute_crossing_frames`
  (PedPy counts a movement between two frames that crosses the line, as crowdnav does
  between two steps); they must be equal, and so must the crossings that start on
  the line's left side and crowdnav's `crossings_left_to_right`;
- the agents that crossed: PedPy's `compute_n_t` (first passing per agent) must not
  count more agents than crowdnav counted crossings;
- the flow between the 10th and the 90th percentile crossing, crowdnav's definition,
  computed from PedPy's crossing frames: equal to crowdnav's to within the time
  between two frames.

Exit codes: 0 the check passed, 1 it failed, 2 bad arguments, 77 skipped (the virtual
environment or PedPy could not be installed: no venv module, no network).
"""

import argparse
import json
import math
import os
import subprocess
import sys
from pathlib import Path

SKIP = 77
INSIDE = "CROWDNAV_PEDPY_CHECK_INSIDE_VENV"
REQUIREMENT = "pedpy>=1.1,<2"


def skip(message):
    print(f"pedpy_check: skipped: {message}")
    sys.exit(SKIP)


def fail(message):
    print(f"pedpy_check: FAILED: {message}")
    sys.exit(1)


def venv_python(venv):
    if os.name == "nt":
        return venv / "Scripts" / "python.exe"
    return venv / "bin" / "python"


def enter_venv(venv):
    """Creates the environment and installs PedPy if need be, then re-runs this
    script with its interpreter; returns only when already inside."""
    if os.environ.get(INSIDE) == "1":
        return
    python = venv_python(venv)
    if not python.exists():
        print(f"pedpy_check: creating a virtual environment in {venv}")
        made = subprocess.run([sys.executable, "-m", "venv", str(venv)], check=False)
        if made.returncode != 0 or not python.exists():
            skip(f"cannot create a virtual environment in {venv} (python3 -m venv)")
    has_pedpy = subprocess.run(
        [str(python), "-c", "import pedpy"], capture_output=True, check=False
    )
    if has_pedpy.returncode != 0:
        print(f"pedpy_check: installing {REQUIREMENT} with pip")
        pip = subprocess.run(
            [
                str(python), "-m", "pip", "install", "--quiet",
                "--disable-pip-version-check", "--timeout", "30", "--retries", "1",
                REQUIREMENT,
            ],
            check=False,
        )
        if pip.returncode != 0:
            skip(f"pip could not install {REQUIREMENT} (no network?)")
    env = dict(os.environ, **{INSIDE: "1"})
    done = subprocess.run([str(python), __file__, *sys.argv[1:]], env=env, check=False)
    sys.exit(done.returncode)


def percentile_flow(times):
    """crowdnav's flow: ranks i = ceil(n/10), j = ceil(9n/10) of the sorted times,
    (j - i) / (t_j - t_i); None with fewer than three times or no time between."""
    n = len(times)
    if n < 3:
        return None
    t = sorted(times)
    i = max(1, -(-n // 10))
    j = -(-9 * n // 10)
    span = t[j - 1] - t[i - 1]
    if j <= i or span <= 0:
        return None
    return (j - i) / span


def count_left_to_right(frame, crossings, spec):
    """How many of PedPy's crossings (id, frame) start on the line's left side: the
    side on the left hand walking from `from` to `to`, where the cross product of
    to - from and p - from is positive."""
    (ax, ay), (bx, by) = spec["from"], spec["to"]
    starts = crossings.rename(columns={"id": "agent"}).assign(frame=lambda c: c["frame"] - 1)
    starts = starts.merge(frame, on=["agent", "frame"], how="left")
    side = (bx - ax) * (starts["y"] - ay) - (by - ay) * (starts["x"] - ax)
    return int((side > 0).sum())


def check(scenario_path, trajectories, report_path, every):
    import pandas as pd
    import pedpy
    from pedpy.methods.method_utils import compute_crossing_frames

    scenario = json.loads(Path(scenario_path).read_text())
    report = json.loads(Path(report_path).read_text())
    dt = float(scenario["dt"])
    frame_rate = 1.0 / (every * dt)
    frame_seconds = every * dt

    frame = pd.read_csv(trajectories)
    expected = ["agent", "frame", "time", "x", "y", "vx", "vy"]
    if list(frame.columns) != expected:
        fail(f"columns {list(frame.columns)}, expected {expected}")
    agents = frame["agent"].nunique()
    frames = frame["frame"].nunique()
    if len(frame) != agents * frames:
        fail(f"{len(frame)} rows, expected {agents} agents x {frames} frames")
    traj = pedpy.TrajectoryData(
        data=frame.rename(columns={"agent": "id"})[["id", "frame", "x", "y"]],
        frame_rate=frame_rate,
    )
    print(
        f"pedpy_check: PedPy {pedpy.__version__} read {len(frame)} rows: "
        f"{agents} agents, {frames} frames at {frame_rate:g} frames/s"
    )

    lines = scenario.get("lines", [])
    if not lines:
        fail("the scenario has no measurement lines")
    by_name = {line["name"]: line for line in report.get("lines", [])}
    for spec in lines:
        name = spec["name"]
        ours = by_name.get(name)
        if ours is None:
            fail(f"the report has no line {name!r}")
        line = pedpy.MeasurementLine([tuple(spec["from"]), tuple(spec["to"])])
        crossings = compute_crossing_frames(traj_data=traj, measurement_line=line)
        n_t, _ = pedpy.compute_n_t(traj_data=traj, measurement_line=line)
        left_to_right = count_left_to_right(frame, crossings, spec)
        passed = int(n_t["cumulative_pedestrians"].max()) if len(n_t) else 0
        times = [f / frame_rate for f in crossings["frame"]]
        theirs = percentile_flow(times)
        print(
            f"pedpy_check: line {name!r}: crowdnav {ours['crossings']} crossings "
            f"({ours['crossings_left_to_right']} left to right, "
            f"{ours['crossings_right_to_left']} right to left), flow {ours['flow']}; "
            f"PedPy {len(crossings)} crossings by {passed} agents, flow {theirs}"
        )
        if left_to_right != ours["crossings_left_to_right"]:
            fail(
                f"line {name!r}: {left_to_right} of PedPy's crossings start on the left, "
                f"crowdnav counts {ours['crossings_left_to_right']} left to right"
            )
        if len(crossings) != ours["crossings"]:
            fail(f"line {name!r}: PedPy counts {len(crossings)}, crowdnav {ours['crossings']}")
        if passed > ours["crossings"]:
            fail(f"line {name!r}: PedPy has {passed} agents through, more than the crossings")
        if (theirs is None) != (ours["flow"] is None):
            fail(f"line {name!r}: flow {theirs} from PedPy, {ours['flow']} from crowdnav")
        if theirs is not None:
            # PedPy dates a crossing to the frame after it, crowdnav interpolates:
            # each end of the span moves by less than one frame.
            n = ours["crossings"]
            j_minus_i = -(-9 * n // 10) - max(1, -(-n // 10))
            span = j_minus_i / ours["flow"]
            bound = ours["flow"] * 2 * frame_seconds / max(span - 2 * frame_seconds, 1e-9)
            if not math.isclose(theirs, ours["flow"], abs_tol=bound):
                fail(f"line {name!r}: flow {theirs} from PedPy, {ours['flow']} from crowdnav")
    print("pedpy_check: ok")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scenario", help="the scenario file run (its dt and lines)")
    parser.add_argument("trajectories", help="crowdnav run --trajectories output")
    parser.add_argument("report", help="crowdnav run --report output")
    parser.add_argument("--every", type=int, default=1, help="the run's --every")
    parser.add_argument(
        "--venv",
        type=Path,
        default=Path(__file__).resolve().parent.parent / "target" / "pedpy-venv",
        help="where to make the virtual environment",
    )
    args = parser.parse_args()
    if args.every < 1:
        parser.error("--every must be at least 1")
    enter_venv(args.venv)
    check(args.scenario, args.trajectories, args.report, args.every)


if __name__ == "__main__":
    main()
