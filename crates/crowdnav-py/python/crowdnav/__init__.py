"""crowdnav: navigation meshes, exact shortest paths for any agent radius, and crowds
that avoid each other (ORCA), from Python.

- :class:`NavMesh` — ``NavMesh.from_file(path)`` / ``NavMesh.from_level(dict)``,
  ``find_path(start, goal, radius)``, ``find_paths(queries)`` on an (N, 5) array in
  parallel.
- :class:`World` — agents on a mesh or open ground, stepped in Rust; positions and
  velocities as NumPy arrays.
- :func:`run` — a scenario file or dict in, the report and the trajectories out.
- :mod:`crowdnav.rvo2` — a drop-in for Python-RVO2 (``import crowdnav.rvo2 as rvo2``).
- :mod:`crowdnav.gym` — a Gymnasium environment (robot crossing among ORCA humans).

Errors from the library become Python exceptions with its message: ``ValueError``
for bad input, ``FileNotFoundError`` for a missing file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Mapping, Optional, Union

import numpy as np

from ._native import NavMesh, Path, World, __version__
from ._native import _run

__all__ = ["NavMesh", "Path", "World", "RunResult", "run", "TRAJECTORY_COLUMNS", "__version__"]

#: The columns of :attr:`RunResult.trajectories`, as ``crowdnav run --trajectories``
#: writes them: agent number, frame, time (s), x, y (m), vx, vy (m/s). An agent's
#: number is its place in the scenario: the listed agents first (0, 1, ...), then the
#: agents spawned by events and sources in the order they appeared; it keeps it when
#: others are removed, and has rows only while it is in the world.
TRAJECTORY_COLUMNS = ("agent", "frame", "time", "x", "y", "vx", "vy")


@dataclass(frozen=True)
class RunResult:
    """What :func:`run` returns."""

    #: The run's report, as ``crowdnav run --report`` writes it.
    report: dict
    #: An (R, 7) float64 array, one row per agent and recorded frame, with the columns
    #: of :data:`TRAJECTORY_COLUMNS`.
    trajectories: np.ndarray
    #: Recorded frames per second (``1 / (every * dt)``): what PedPy's
    #: ``TrajectoryData`` takes as ``frame_rate``.
    frame_rate: float

    def to_pandas(self) -> Any:
        """The trajectories as a pandas DataFrame with PedPy's column names
        (``id, frame, x, y``, plus ``time, vx, vy``), ready for
        ``pedpy.TrajectoryData(data=df, frame_rate=result.frame_rate)``.

        Raises ``ImportError`` when pandas is not installed.
        """
        import pandas as pd

        t = self.trajectories
        return pd.DataFrame(
            {
                "id": t[:, 0].astype(np.int64),
                "frame": t[:, 1].astype(np.int64),
                "x": t[:, 3],
                "y": t[:, 4],
                "time": t[:, 2],
                "vx": t[:, 5],
                "vy": t[:, 6],
            }
        )

    @property
    def dataframe(self) -> Any:
        """:meth:`to_pandas`, or ``None`` when pandas is not installed."""
        try:
            return self.to_pandas()
        except ImportError:
            return None


def run(
    scenario: Union[str, "os.PathLike[str]", Mapping[str, Any]],
    *,
    steps: Optional[int] = None,
    every: int = 1,
    method: Optional[str] = None,
) -> RunResult:
    """Runs a scenario (a file path, or a dict in the scenario-file format) until
    every agent has arrived or ``steps`` (the scenario's own by default) have run, as
    ``crowdnav run`` does: with its timed ``events``, its ``sources`` (agents spawned
    at a rate) and ``sinks`` (exits: agents heading into one leave as they enter
    it); a run that stops on arrival also waits for every event and source. The report counts the agents ``spawned``
    and ``removed``; the trajectories number agents by scenario number (see
    :data:`TRAJECTORY_COLUMNS`).

    ``every`` records the trajectories every n-th step (frame 0 is the initial
    state); ``method`` (``"orca"``, ``"antigravity"``, ``"swarm"``) overrides the
    scenario's. The GIL is released while the world runs.

    Raises ``FileNotFoundError`` for a missing file and ``ValueError`` for an invalid
    scenario, with the library's message.
    """
    if isinstance(scenario, Mapping):
        scenario = dict(scenario)
    elif not isinstance(scenario, (str, os.PathLike)):
        raise TypeError("scenario must be a path (str or os.PathLike) or a dict")
    report, trajectories, frame_rate = _run(scenario, steps, every, method)
    import json

    return RunResult(report=json.loads(report), trajectories=trajectories, frame_rate=frame_rate)
