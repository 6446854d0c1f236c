"""Type stubs of crowdnav's native module (built from crates/crowdnav-py/src)."""

from __future__ import annotations

import os
from typing import Any, ClassVar, Mapping, Optional, Sequence, Union, final

import numpy as np
import numpy.typing as npt

_Vec2 = Union[tuple[float, float], Sequence[float], npt.ArrayLike]
_PathLike = Union[str, "os.PathLike[str]"]

__all__ = [
    "__version__",
    "NavMesh",
    "Path",
    "World",
    "PyRVOSimulator",
    "_run",
    "_time_rust_steps",
    "_orca_velocity",
]
__version__: str

@final
class Path:
    """A shortest path for a disc."""

    @property
    def length(self) -> float:
        """Exact length of the path of the disc's centre, metres."""
    @property
    def radius(self) -> float:
        """The agent radius the path was found for, metres."""
    @property
    def points(self) -> npt.NDArray[np.float64]:
        """(N, 2): the start, every point where a segment meets an arc, the goal."""
    @property
    def corners(self) -> npt.NDArray[np.float64]:
        """(M, 2): the mesh corners the path bends around, in order."""

@final
class NavMesh:
    """The walkable space of a level, triangulated once; exact paths for any radius."""

    @staticmethod
    def from_file(path: _PathLike) -> NavMesh:
        """Reads a world file (.json), Polyanya mesh (.mesh) or MovingAI map (.map).

        Raises FileNotFoundError, OSError, or ValueError (bad file, bad polygons)."""
    @staticmethod
    def from_level(level: Union[Mapping[str, Any], str]) -> NavMesh:
        """Builds the mesh of ``{"boundary": [[x, y], ...], "obstacles": [...]}``.

        Raises ValueError with the library's message for an invalid level."""
    def find_path(self, start: _Vec2, goal: _Vec2, radius: float = 0.0) -> Optional[Path]:
        """The shortest path, or None when no path joins two valid ends.

        Raises ValueError for NaN, a negative radius, or an end outside the mesh,
        inside an obstacle, or too near a wall for the radius."""
    def find_paths(
        self, queries: npt.ArrayLike, paths: bool = True
    ) -> tuple[npt.NDArray[np.float64], Optional[list[Optional[Path]]]]:
        """(N, 5) rows ``sx, sy, gx, gy, radius`` -> (lengths with NaN where there is
        no path, list of Path or None). Parallel, GIL released."""
    def is_walkable(self, point: _Vec2) -> bool:
        """Whether ``point`` is on the walkable part of the mesh."""
    @property
    def vertices(self) -> npt.NDArray[np.float64]:
        """(N, 2) mesh vertices."""
    @property
    def triangle_count(self) -> int:
        """Number of triangles."""
    @property
    def walkable_area(self) -> float:
        """Walkable area, square metres."""
    @property
    def walls(self) -> npt.NDArray[np.float64]:
        """(N, 4) wall segments ``ax, ay, bx, by`` (walkable side on the left)."""

@final
class World:
    """A crowd on a mesh or open ground, stepped in Rust.

    **Agent ids.** ``add_agent(s)`` returns ids: ints that name the same agent until it
    is removed, whatever else is added or removed. An id packs the library's
    generational handle into one int64, ``slot + generation * 2**32``: the agents of a
    world without removals are 0, 1, 2, ...; a removed agent's slot is reused by a later
    agent with the next generation, so the old id never names the new agent. Treat ids
    as opaque. A method given an id that names no agent (never added, or removed)
    raises ``IndexError``.

    **Rows.** The per-agent arrays (``positions``, ``states``, ...) have one row per
    agent, in the order the agents were added; ``ids[i]`` is the agent of row ``i``
    and ``index_of(id)`` the row of an id. A removal moves the later rows up one, so
    after removals an id is no longer its row.

    **States.** ``states`` holds small int codes, the class attributes ``IDLE`` (0),
    ``MOVING`` (1), ``ARRIVED`` (2), ``NO_PATH`` (3) and ``STUCK`` (4);
    ``World.STATE_NAMES[code]`` is the code's name, and
    ``np.asarray(World.STATE_NAMES)[world.states]`` the names of all.
    """

    #: State code: no goal to go to (the agent it chased was removed).
    IDLE: ClassVar[int]
    #: State code: on its way (or driven, or heading for a preferred velocity set
    #: from Python); every agent's state before its first step.
    MOVING: ClassVar[int]
    #: State code: at its goal.
    ARRIVED: ClassVar[int]
    #: State code: its path could not be planned; it holds still and tries again later.
    NO_PATH: ClassVar[int]
    #: State code: on its way but it has not got further than half its radius for a
    #: while (pressed in a jam).
    STUCK: ClassVar[int]
    #: The names of the state codes, by code:
    #: ``("idle", "moving", "arrived", "no_path", "stuck")``.
    STATE_NAMES: ClassVar[tuple[str, str, str, str, str]]

    def __new__(
        cls,
        mesh: Optional[NavMesh] = None,
        *,
        method: str = "orca",
        orca: str = "people",
        collisions: bool = True,
    ) -> World:
        """``method``: "orca", "antigravity" or "swarm"; ``orca``: "people" or "rvo2"."""
    def add_agent(
        self,
        position: _Vec2,
        goal: _Vec2,
        *,
        radius: float = 0.5,
        max_speed: float = 2.0,
        pref_speed: float = 1.4,
        mass: float = 1.0,
    ) -> int:
        """Adds an agent; returns its id (see the class doc). ValueError for bad
        numbers."""
    def add_agents(
        self,
        positions: npt.ArrayLike,
        goals: npt.ArrayLike,
        *,
        radius: float = 0.5,
        max_speed: float = 2.0,
        pref_speed: float = 1.4,
        mass: float = 1.0,
    ) -> npt.NDArray[np.int64]:
        """Adds one agent per row of two (N, 2) arrays; returns their ids (int64).
        Nothing is added when any row is refused."""
    def set_goal(self, agent: int, goal: _Vec2) -> None:
        """Gives an agent a new point goal (IndexError for an unknown id)."""
    def set_goals(self, goals: npt.ArrayLike) -> None:
        """Gives every agent a point goal from an (N, 2) array, in row order."""
    def step(self, dt: float, steps: int = 1) -> None:
        """Advances by ``steps`` steps of ``dt`` seconds (GIL released)."""
    @property
    def positions(self) -> npt.NDArray[np.float64]:
        """(N, 2) positions."""
    @property
    def velocities(self) -> npt.NDArray[np.float64]:
        """(N, 2) velocities after the last step."""
    @property
    def preferred_velocities(self) -> npt.NDArray[np.float64]:
        """(N, 2) preferred velocities in the last step."""
    @property
    def goals(self) -> npt.NDArray[np.float64]:
        """(N, 2) goals."""
    @property
    def radii(self) -> npt.NDArray[np.float64]:
        """(N,) radii."""
    @property
    def arrived(self) -> npt.NDArray[np.bool_]:
        """(N,) whether each agent is at its goal."""
    def all_arrived(self) -> bool:
        """Whether every agent is at its goal."""
    @property
    def time(self) -> float:
        """Simulated seconds."""
    @property
    def steps(self) -> int:
        """Steps taken."""
    def report(self) -> dict[str, Any]:
        """The measurements so far (the report of ``crowdnav run``)."""
    def __len__(self) -> int: ...
    @property
    def ids(self) -> npt.NDArray[np.int64]:
        """(N,) the id of each row's agent."""
    def index_of(self, agent: int) -> int:
        """The row of an agent in the per-agent arrays (IndexError for an unknown id)."""
    def remove_agent(self, agent: int) -> None:
        """Removes an agent (IndexError for an unknown or already removed id). The
        others keep their ids; the rows after its row move up one. An agent chasing
        it stops where it is."""
    def set_velocity(self, agent: int, velocity: Optional[_Vec2]) -> None:
        """Drives an agent at exactly ``velocity`` from the next step on: it is not
        steered, not pushed by collisions, not limited by its ``max_speed``, and the
        others avoid it. ``None`` hands it back to its goal (it re-plans from where it
        is). ValueError for a non-finite velocity."""
    def set_preferred_velocity(self, agent: int, velocity: Optional[_Vec2]) -> None:
        """Sets the velocity an agent heads for instead of following its path (as
        RVO2's ``setAgentPrefVelocity``): it still avoids the others and the walls,
        and does not arrive. ``None`` hands it back to its goal."""
    def set_preferred_velocities(self, velocities: npt.ArrayLike) -> None:
        """``set_preferred_velocity`` for every agent from one (N, 2) array in row
        order: a row ``(nan, nan)`` hands that agent back to its goal. Any other
        non-finite row, or a wrong shape, raises ValueError and changes nothing."""
    @property
    def states(self) -> npt.NDArray[np.int8]:
        """(N,) each agent's state code as of the last step (see the class doc)."""

@final
class PyRVOSimulator:
    """Python-RVO2's simulator over crowdnav's ORCA (see crowdnav.rvo2)."""

    def __new__(
        cls,
        timeStep: float,
        neighborDist: float,
        maxNeighbors: int,
        timeHorizon: float,
        timeHorizonObst: float,
        radius: float,
        maxSpeed: float,
        velocity: Optional[_Vec2] = None,
        *,
        symmetry_bias: Optional[float] = None,
    ) -> PyRVOSimulator:
        """``velocity`` None is (0, 0); ``symmetry_bias`` None is the RVO2 preset's
        0.25 rad head-on turn, 0 RVO2's own behaviour (not in Python-RVO2)."""
    def addAgent(
        self,
        pos: _Vec2,
        neighborDist: Optional[float] = None,
        maxNeighbors: Optional[int] = None,
        timeHorizon: Optional[float] = None,
        timeHorizonObst: Optional[float] = None,
        radius: Optional[float] = None,
        maxSpeed: Optional[float] = None,
        velocity: Optional[_Vec2] = None,
    ) -> int:
        """Pass only ``pos`` (defaults) or every parameter; returns the agent number."""
    def removeAgent(self, agent_no: int) -> None:
        """Removes an agent; later agents' numbers go down by one. Not in Python-RVO2."""
    def addObstacle(self, vertices: Sequence[_Vec2]) -> int:
        """A polygon (counter-clockwise, >= 2 vertices); returns its first vertex number."""
    def processObstacles(self) -> None: ...
    def doStep(self) -> None: ...
    def queryVisibility(self, point1: _Vec2, point2: _Vec2, radius: float = 0.0) -> bool: ...
    def setAgentDefaults(
        self,
        neighbor_dist: float,
        max_neighbors: int,
        time_horizon: float,
        time_horizon_obst: float,
        radius: float,
        max_speed: float,
        velocity: Optional[_Vec2] = None,
    ) -> None: ...
    def getAgentAgentNeighbor(self, agent_no: int, neighbor_no: int) -> int: ...
    def getAgentObstacleNeighbor(self, agent_no: int, neighbor_no: int) -> int: ...
    def getAgentNumAgentNeighbors(self, agent_no: int) -> int: ...
    def getAgentNumObstacleNeighbors(self, agent_no: int) -> int: ...
    def getAgentNumORCALines(self, agent_no: int) -> int: ...
    def getAgentORCALine(self, agent_no: int, line_no: int) -> tuple[float, float, float, float]: ...
    def getAgentMaxNeighbors(self, agent_no: int) -> int: ...
    def getAgentMaxSpeed(self, agent_no: int) -> float: ...
    def getAgentNeighborDist(self, agent_no: int) -> float: ...
    def getAgentPosition(self, agent_no: int) -> tuple[float, float]: ...
    def getAgentPrefVelocity(self, agent_no: int) -> tuple[float, float]: ...
    def getAgentRadius(self, agent_no: int) -> float: ...
    def getAgentTimeHorizon(self, agent_no: int) -> float: ...
    def getAgentTimeHorizonObst(self, agent_no: int) -> float: ...
    def getAgentVelocity(self, agent_no: int) -> tuple[float, float]: ...
    def getGlobalTime(self) -> float: ...
    def getNumAgents(self) -> int: ...
    def getNumObstacleVertices(self) -> int: ...
    def getObstacleVertex(self, vertex_no: int) -> tuple[float, float]: ...
    def getNextObstacleVertexNo(self, vertex_no: int) -> int: ...
    def getPrevObstacleVertexNo(self, vertex_no: int) -> int: ...
    def getTimeStep(self) -> float: ...
    def setAgentMaxNeighbors(self, agent_no: int, max_neighbors: int) -> None: ...
    def setAgentMaxSpeed(self, agent_no: int, max_speed: float) -> None: ...
    def setAgentNeighborDist(self, agent_no: int, neighbor_dist: float) -> None: ...
    def setAgentPosition(self, agent_no: int, position: _Vec2) -> None: ...
    def setAgentPrefVelocity(self, agent_no: int, velocity: _Vec2) -> None: ...
    def setAgentRadius(self, agent_no: int, radius: float) -> None: ...
    def setAgentTimeHorizon(self, agent_no: int, time_horizon: float) -> None: ...
    def setAgentTimeHorizonObst(self, agent_no: int, timeHorizonObst: float) -> None: ...
    def setAgentVelocity(self, agent_no: int, velocity: _Vec2) -> None: ...
    def setTimeStep(self, time_step: float) -> None: ...
    def getAgentPositions(self) -> npt.NDArray[np.float64]:
        """(N, 2) every agent's position. Not in Python-RVO2."""
    def getAgentVelocities(self) -> npt.NDArray[np.float64]:
        """(N, 2) every agent's velocity. Not in Python-RVO2."""
    def setAgentPrefVelocities(self, velocities: npt.ArrayLike) -> None:
        """Every agent's preferred velocity from an (N, 2) array. Not in Python-RVO2."""

def _run(
    scenario: Union[_PathLike, Mapping[str, Any]],
    steps: Optional[int] = None,
    every: int = 1,
    method: Optional[str] = None,
) -> tuple[str, npt.NDArray[np.float64], float]: ...
def _time_rust_steps(simulator: PyRVOSimulator, steps: int) -> float: ...
def _orca_velocity(
    agent: Sequence[float],
    neighbors: npt.ArrayLike,
    dt: float,
    neighbor_dist: float,
    max_neighbors: int,
    time_horizon: float,
    time_horizon_obst: float,
) -> tuple[float, float]: ...
