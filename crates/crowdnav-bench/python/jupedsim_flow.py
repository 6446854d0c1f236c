"""JuPedSim and PedPy for crowdnav-bench's `flow` part.

Run by the bench inside the virtual environment it creates (``jupedsim``, ``pedpy``
and their dependencies, installed with pip). Two commands:

``simulate SCENE.json OUT.csv``
    Runs one JuPedSim model on the scene that the bench wrote (the same floor,
    agents, radii, speeds and goals as crowdnav's run) and writes the trajectories as
    CSV ``agent,frame,time,x,y`` (``agent`` = the agent's index in the scene; one row
    per agent still walking, every ``every`` iterations). Prints one JSON line:
    ``{"jupedsim": version, "iterations", "sim_seconds", "step_wall_s", "remaining",
    "exits"}`` (``exits``: ``[agent, time]`` of each agent removed at its exit).
    ``step_wall_s`` counts ``Simulation.iterate`` alone.

``fd JOB.json OUT.json``
    A fundamental diagram with PedPy: for each trajectory CSV of the job (columns
    ``agent,frame,x,y`` at least; ``frame_rate`` frames per second), PedPy's
    individual speeds (displacement over ``frame_step`` frames either side) and
    Voronoi cells (cut off at ``cutoff`` metres, within the run's floor:
    ``boundary`` minus ``obstacles``), then the
    Voronoi density and Voronoi speed in the job's measurement area ``area`` at every
    ``sample``-th frame; writes ``{"pedpy": version, "runs": [{"name", "density",
    "speed"}]}`` (frames with people in the area only).

The scene (JSON): ``boundary`` (the outer polygon), ``obstacles`` (polygons cut out of
it), ``agents`` (``[{"pos": [x, y], "goal": [x, y]}]``), ``radius``, ``speed``,
``model`` (``"cfs"``: CollisionFreeSpeedModel, ``"sf"``: SocialForceModel), ``dt``
(JuPedSim's step, s), ``every`` (iterations between written frames), ``max_seconds``
and ``exit_half`` (half the side of each agent's exit square, m).
"""

import json
import math
import sys
import time


def walkable(scene):
    """The floor as a shapely polygon: the boundary minus the obstacles."""
    from shapely import Polygon, unary_union

    area = Polygon(scene["boundary"])
    holes = [Polygon(o) for o in scene.get("obstacles", [])]
    if holes:
        area = area.difference(unary_union(holes))
    return area


def simulate(scene_path, out_path):
    import jupedsim as jps
    from shapely import Polygon

    with open(scene_path, encoding="utf-8") as f:
        scene = json.load(f)
    radius, speed = float(scene["radius"]), float(scene["speed"])
    if scene["model"] == "cfs":
        model = jps.CollisionFreeSpeedModel()
    elif scene["model"] == "sf":
        model = jps.SocialForceModel()
    else:
        raise SystemExit(f"unknown model {scene['model']!r}")
    sim = jps.Simulation(model=model, geometry=walkable(scene), dt=float(scene["dt"]))
    half = float(scene["exit_half"])
    index_of = {}
    for i, agent in enumerate(scene["agents"]):
        (x, y), (gx, gy) = agent["pos"], agent["goal"]
        exit_id = sim.add_exit_stage(
            Polygon(
                [(gx - half, gy - half), (gx + half, gy - half), (gx + half, gy + half), (gx - half, gy + half)]
            )
        )
        journey = sim.add_journey(jps.JourneyDescription([exit_id]))
        if scene["model"] == "cfs":
            params = jps.CollisionFreeSpeedModelAgentParameters(
                position=(x, y), desired_speed=speed, radius=radius, journey_id=journey, stage_id=exit_id
            )
        else:
            d = math.hypot(gx - x, gy - y) or 1.0
            params = jps.SocialForceModelAgentParameters(
                position=(x, y),
                orientation=((gx - x) / d, (gy - y) / d),
                desired_speed=speed,
                radius=radius,
                journey_id=journey,
                stage_id=exit_id,
            )
        index_of[sim.add_agent(params)] = i
    every, max_seconds = int(scene["every"]), float(scene["max_seconds"])
    wall = 0.0
    present = set(index_of)
    exits = []
    frame = 0
    with open(out_path, "w", encoding="utf-8") as out:
        out.write("agent,frame,time,x,y\n")

        def write(frame):
            t = sim.elapsed_time()
            for a in sim.agents():
                out.write(f"{index_of[a.id]},{frame},{t:.4f},{a.position[0]:.5f},{a.position[1]:.5f}\n")

        write(frame)
        while sim.agent_count() > 0 and sim.elapsed_time() < max_seconds:
            start = time.perf_counter()
            sim.iterate()
            wall += time.perf_counter() - start
            if sim.agent_count() < len(present):
                now = {a.id for a in sim.agents()}
                exits.extend([index_of[k], sim.elapsed_time()] for k in sorted(present - now))
                present = now
            if sim.iteration_count() % every == 0:
                frame += 1
                write(frame)
    print(
        json.dumps(
            {
                "jupedsim": jps.__version__,
                "iterations": sim.iteration_count(),
                "sim_seconds": sim.elapsed_time(),
                "step_wall_s": wall,
                "remaining": sim.agent_count(),
                "exits": exits,
            }
        )
    )


def fundamental_diagram(job_path, out_path):
    import pandas as pd
    import pedpy
    from shapely import Polygon

    with open(job_path, encoding="utf-8") as f:
        job = json.load(f)
    area = pedpy.MeasurementArea(Polygon(job["area"]))
    cut_off = pedpy.Cutoff(radius=float(job["cutoff"]), quad_segments=3)
    runs = []
    for run in job["runs"]:
        walkable_area = pedpy.WalkableArea(walkable(run))
        frames = pd.read_csv(run["csv"])
        data = pedpy.TrajectoryData(
            data=frames.rename(columns={"agent": "id"})[["id", "frame", "x", "y"]],
            frame_rate=float(run["frame_rate"]),
        )
        # PedPy's speed: the displacement over `frame_step` frames either side (one
        # side at the ends of a trajectory).
        speed = pedpy.compute_individual_speed(
            traj_data=data,
            frame_step=int(run["frame_step"]),
            speed_calculation=pedpy.SpeedCalculation.BORDER_SINGLE_SIDED,
        )
        sample = int(run["sample"])
        kept = data.data[data.data.frame % sample == 0]
        sampled = pedpy.TrajectoryData(data=kept[["id", "frame", "x", "y"]].copy(), frame_rate=data.frame_rate)
        polygons = pedpy.compute_individual_voronoi_polygons(
            traj_data=sampled, walkable_area=walkable_area, cut_off=cut_off
        )
        density, intersecting = pedpy.compute_voronoi_density(
            individual_voronoi_data=polygons, measurement_area=area
        )
        voronoi_speed = pedpy.compute_voronoi_speed(
            traj_data=sampled,
            individual_voronoi_intersection=intersecting,
            individual_speed=speed[speed.frame % sample == 0],
            measurement_area=area,
        )
        merged = density.merge(voronoi_speed, on="frame")
        merged = merged[merged.density > 0]
        runs.append(
            {
                "name": run["name"],
                "density": [float(v) for v in merged.density],
                "speed": [float(v) for v in merged.speed],
            }
        )
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump({"pedpy": pedpy.__version__, "runs": runs}, f)


def main(argv):
    if len(argv) == 3 and argv[0] == "simulate":
        simulate(argv[1], argv[2])
    elif len(argv) == 3 and argv[0] == "fd":
        fundamental_diagram(argv[1], argv[2])
    else:
        raise SystemExit("usage: jupedsim_flow.py simulate SCENE.json OUT.csv | fd JOB.json OUT.json")


if __name__ == "__main__":
    main(sys.argv[1:])
