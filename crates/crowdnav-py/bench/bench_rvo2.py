"""Times RVO2's doStep through crowdnav.rvo2, against the same step in Rust alone
and against a Python-RVO2 build (module ``rvo2``) when one is installed.

    python crates/crowdnav-py/bench/bench_rvo2.py [--steps 50] [--sizes 100,1000,10000]

The crowd: N agents of radius 0.5 on a square grid 3 m apart, each walking to the
point mirrored through the centre (RVO2's Circle, filled in), RVO2's Circle
parameters otherwise (neighbours within 15 m, the 10 nearest, 10 s horizons, top
speed 2 m/s, dt 0.25 s). Each step sets every preferred velocity, then steps.

Columns (milliseconds per step: the median of the timed steps after a warm-up, the
best of ``--reps`` repetitions):
- ``rust``: the step run in a Rust loop, no Python involved (``_time_rust_steps``);
- ``doStep``: ``sim.doStep()`` called from Python;
- ``numpy loop``: preferred velocities from one NumPy array
  (``setAgentPrefVelocities``) plus ``doStep`` — what a batch user does;
- ``rvo2 loop``: one ``setAgentPrefVelocity`` call per agent plus ``doStep`` —
  Python-RVO2's own way, the same code run against both libraries;
- ``peer doStep`` and ``peer rvo2 loop``: the same with the installed Python-RVO2
  (``import rvo2``, e.g. ``pip install pyrvo2-danieldugas``), when there is one.
- ``overhead``: ``doStep`` over ``rust``, the cost of the Python layer.
"""

from __future__ import annotations

import argparse
import importlib
import math
import os
import statistics
import sys
import time

import numpy as np

import crowdnav
import crowdnav.rvo2 as cn_rvo2
from crowdnav import _native


def crowd(n: int) -> tuple[np.ndarray, np.ndarray]:
    side = math.ceil(math.sqrt(n))
    k = np.arange(n)
    starts = np.stack([(k % side) * 3.0, (k // side) * 3.0], axis=1)
    starts -= starts.mean(axis=0)
    return starts, -starts


def make(module, starts):
    sim = module.PyRVOSimulator(0.25, 15.0, 10, 10.0, 10.0, 0.5, 2.0)
    for p in starts:
        sim.addAgent((float(p[0]), float(p[1])))
    return sim


def pref_velocities(positions: np.ndarray, goals: np.ndarray) -> np.ndarray:
    v = goals - positions
    d = np.linalg.norm(v, axis=1, keepdims=True)
    return np.where(d > 1.0, v / np.maximum(d, 1e-12), v)


def positions_of(sim, n: int) -> np.ndarray:
    if hasattr(sim, "getAgentPositions"):
        return sim.getAgentPositions()
    return np.array([sim.getAgentPosition(i) for i in range(n)])


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1e3


def time_rvo2_loop(module, starts, goals, steps, warmup) -> tuple[float, float]:
    """Python-RVO2's way: one setAgentPrefVelocity call per agent, then doStep;
    returns (whole loop, doStep alone)."""
    sim = make(module, starts)
    n = len(starts)
    samples, step_only = [], []
    for step in range(warmup + steps):
        t0 = time.perf_counter()
        for i in range(n):
            px, py = sim.getAgentPosition(i)
            gx, gy = goals[i]
            vx, vy = gx - px, gy - py
            d = math.hypot(vx, vy)
            if d > 1.0:
                vx, vy = vx / d, vy / d
            sim.setAgentPrefVelocity(i, (vx, vy))
        t1 = time.perf_counter()
        sim.doStep()
        t2 = time.perf_counter()
        if step >= warmup:
            samples.append(t2 - t0)
            step_only.append(t2 - t1)
    return median_ms(samples), median_ms(step_only)


def time_crowdnav(starts, goals, steps, warmup) -> tuple[float, float, float]:
    """crowdnav's batch way, one simulator: preferred velocities from one NumPy array
    every step, then the step, in turn run in Rust alone (``_time_rust_steps``) and
    called from Python (``doStep``), so that both see the same crowd and the same
    load on the machine. Returns (rust, doStep, preferred velocities + doStep)."""
    sim = make(cn_rvo2, starts)
    rust, step_only, loop = [], [], []
    for step in range(warmup + 2 * steps):
        t0 = time.perf_counter()
        sim.setAgentPrefVelocities(pref_velocities(sim.getAgentPositions(), goals))
        t1 = time.perf_counter()
        if step % 2 == 0:
            seconds = _native._time_rust_steps(sim, 1)
            if step >= warmup:
                rust.append(seconds)
        else:
            sim.doStep()
            t2 = time.perf_counter()
            if step >= warmup:
                step_only.append(t2 - t1)
                loop.append(t2 - t0)
    return median_ms(rust), median_ms(step_only), median_ms(loop)


def find_peer():
    """A Python-RVO2 build, if one is installed (``import rvo2``)."""
    try:
        module = importlib.import_module("rvo2")
    except ImportError:
        return None
    if module is cn_rvo2 or not hasattr(module, "PyRVOSimulator"):
        return None
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--sizes", default="100,1000,10000")
    parser.add_argument(
        "--reps", type=int, default=3,
        help="repetitions; each column shows its best median (the machine's other load "
        "only ever adds time)",
    )
    args = parser.parse_args()
    peer = find_peer()
    print(f"crowdnav {crowdnav.__version__}, Python {sys.version.split()[0]}, "
          f"{os.cpu_count()} CPUs; peer: {getattr(peer, '__file__', None) or 'none installed'}")
    header = f"{'agents':>7} {'rust':>9} {'doStep':>9} {'overhead':>9} {'numpy loop':>11} {'rvo2 loop':>10}"
    if peer is not None:
        header += f" {'peer doStep':>12} {'peer rvo2 loop':>15}"
    print(header + "   (ms per step, best median of the repetitions)")
    empty = cn_rvo2.PyRVOSimulator(0.25, 15.0, 10, 10.0, 10.0, 0.5, 2.0)
    calls = 100_000
    t0 = time.perf_counter()
    for _ in range(calls):
        empty.doStep()
    per_call_us = (time.perf_counter() - t0) / calls * 1e6
    for n in (int(s) for s in args.sizes.split(",")):
        starts, goals = crowd(n)
        runs = [time_crowdnav(starts, goals, args.steps, args.warmup) for _ in range(args.reps)]
        rust, step_only, loop = (min(r[k] for r in runs) for k in range(3))
        rvo2_loop = min(
            time_rvo2_loop(cn_rvo2, starts, goals, args.steps, args.warmup)[0]
            for _ in range(args.reps)
        )
        overhead = (step_only / rust - 1.0) * 100.0
        line = f"{n:>7} {rust:>9.3f} {step_only:>9.3f} {overhead:>8.1f}% {loop:>11.3f} {rvo2_loop:>10.3f}"
        if peer is not None:
            peer_runs = [
                time_rvo2_loop(peer, starts, goals, args.steps, args.warmup)
                for _ in range(args.reps)
            ]
            peer_loop, peer_step = (min(r[k] for r in peer_runs) for k in range(2))
            line += f" {peer_step:>12.3f} {peer_loop:>15.3f}"
        print(line, flush=True)
    print(f"doStep on an empty simulator (the Python call alone): {per_call_us:.2f} us")


if __name__ == "__main__":
    main()
