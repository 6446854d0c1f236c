"""A Gymnasium environment: a robot crossing among ORCA humans.

:class:`CircleCrossingEnv` is the circle-crossing set-up that vita-epfl/CrowdNav made
standard: five humans of radius 0.3 m start near a circle of radius 4 m and walk to
the opposite point, avoiding each other with ORCA (``crowdnav.rvo2``); the robot
(radius 0.3 m, 1 m/s) starts at (0, -4) and must reach (0, 4) without touching them.
By default the humans do not see the robot (CrowdNav's invisible-robot test).

Importing this module registers it with Gymnasium as ``crowdnav/CircleCrossing-v0``
(``gymnasium.make("crowdnav/CircleCrossing-v0")``, or without the import,
``gymnasium.make("crowdnav.gym:crowdnav/CircleCrossing-v0")``).

- Action: ``Box(-1, 1, (2,))``, the robot's velocity as a fraction of its preferred
  speed (holonomic; a longer vector is scaled to length 1).
- Observation: ``Box(low, high, (9 + 5 * humans,), float32)``: the robot
  ``(px, py, vx, vy, gx, gy, radius, v_pref, heading)`` then each human
  ``(px, py, vx, vy, radius)``, world frame, metres and metres per second; the
  bounds hold by construction (nobody is faster than ``v_pref``).
- Reward (CrowdNav's): +1 on reaching the goal, -0.25 on a collision (both end the
  episode), ``(d - 0.2) * 0.5 * dt`` when the nearest human is closer than 0.2 m
  (discomfort), else 0. The episode is truncated after ``time_limit`` seconds (25 s).
"""

from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

try:
    import gymnasium
    from gymnasium import spaces
except ImportError as e:  # pragma: no cover - the message is the point
    raise ImportError(
        "crowdnav.gym needs gymnasium: pip install gymnasium (or crowdnav[gym])"
    ) from e

from .rvo2 import PyRVOSimulator

__all__ = ["CircleCrossingEnv", "ENV_ID"]

#: The id the environment is registered under.
ENV_ID = "crowdnav/CircleCrossing-v0"


class CircleCrossingEnv(gymnasium.Env):
    """A robot crossing a circle of ORCA humans (see the module documentation)."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 4}

    def __init__(
        self,
        human_num: int = 5,
        circle_radius: float = 4.0,
        human_radius: float = 0.3,
        robot_radius: float = 0.3,
        v_pref: float = 1.0,
        time_step: float = 0.25,
        time_limit: float = 25.0,
        discomfort_dist: float = 0.2,
        robot_visible: bool = False,
        render_mode: Optional[str] = None,
    ) -> None:
        if human_num < 0:
            raise ValueError(f"human_num must be >= 0, got {human_num}")
        for name, value in [
            ("circle_radius", circle_radius),
            ("human_radius", human_radius),
            ("robot_radius", robot_radius),
            ("v_pref", v_pref),
            ("time_step", time_step),
            ("time_limit", time_limit),
        ]:
            if not (math.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be positive and finite, got {value}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"unknown render_mode {render_mode!r}")
        self.human_num = int(human_num)
        self.circle_radius = float(circle_radius)
        self.human_radius = float(human_radius)
        self.robot_radius = float(robot_radius)
        self.v_pref = float(v_pref)
        self.time_step = float(time_step)
        self.time_limit = float(time_limit)
        self.discomfort_dist = float(discomfort_dist)
        self.robot_visible = bool(robot_visible)
        self.render_mode = render_mode
        self.action_space = spaces.Box(-1.0, 1.0, shape=(2,), dtype=np.float32)
        # Finite bounds that hold by construction: nobody moves faster than v_pref,
        # so nobody gets further than the circle, the start noise and time_limit at
        # v_pref from the centre.
        # (1 % of slack for the rounding of speeds computed in float32.)
        reach = (self.circle_radius + self.v_pref + self.v_pref * self.time_limit) * 1.01
        speed = self.v_pref * 1.01
        robot_high = [reach, reach, speed, speed, self.circle_radius,
                      self.circle_radius, self.robot_radius, self.v_pref, math.pi]
        human_high = [reach, reach, speed, speed, self.human_radius]
        high = np.array(robot_high + human_high * self.human_num, dtype=np.float32)
        low = -high
        low[6:8] = 0.0  # radius and preferred speed
        low[13::5] = 0.0  # the humans' radii
        self._low, self._high = low, high
        self.observation_space = spaces.Box(low, high, dtype=np.float32)
        self._sim: Optional[PyRVOSimulator] = None
        self._robot = np.zeros(4)  # px, py, vx, vy
        self._goal = np.zeros(2)
        self._human_goals = np.zeros((self.human_num, 2))
        self._time = 0.0

    # ---- set-up -----------------------------------------------------------------

    def _human_starts(self) -> np.ndarray:
        """CrowdNav's circle crossing: each human on the circle at a random angle, with
        noise of up to half the preferred speed, kept clear of everyone placed so far."""
        rng = self.np_random
        placed = [(0.0, -self.circle_radius, self.robot_radius), (0.0, self.circle_radius, self.robot_radius)]
        starts = []
        for _ in range(self.human_num):
            for _attempt in range(1000):
                angle = rng.random() * 2.0 * math.pi
                noise = (rng.random(2) - 0.5) * self.v_pref
                p = np.array([math.cos(angle), math.sin(angle)]) * self.circle_radius + noise
                clear = all(
                    math.hypot(p[0] - x, p[1] - y) >= self.human_radius + r + self.discomfort_dist
                    and math.hypot(-p[0] - x, -p[1] - y) >= self.human_radius + r + self.discomfort_dist
                    for x, y, r in placed
                )
                if clear:
                    break
            placed.append((p[0], p[1], self.human_radius))
            starts.append(p)
        return np.array(starts, dtype=np.float64).reshape(self.human_num, 2)

    def reset(
        self, *, seed: Optional[int] = None, options: Optional[dict] = None
    ) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        starts = self._human_starts()
        self._human_goals = -starts
        self._robot = np.array([0.0, -self.circle_radius, 0.0, 0.0])
        self._goal = np.array([0.0, self.circle_radius])
        self._time = 0.0
        # CrowdNav's ORCA humans: neighbours within 10 m (ten of them), 5 s horizons.
        sim = PyRVOSimulator(
            self.time_step, 10.0, 10, 5.0, 5.0, self.human_radius, self.v_pref
        )
        for p in starts:
            sim.addAgent((float(p[0]), float(p[1])))
        if self.robot_visible:
            sim.addAgent(
                (float(self._robot[0]), float(self._robot[1])),
                10.0, 10, 5.0, 5.0, self.robot_radius, self.v_pref, (0.0, 0.0),
            )
        self._sim = sim
        return self._observation(), self._info(dmin=math.inf)

    # ---- stepping ---------------------------------------------------------------

    def _human_pref_velocities(self, positions: np.ndarray) -> np.ndarray:
        to_goal = self._human_goals - positions
        dist = np.linalg.norm(to_goal, axis=1, keepdims=True)
        # Full speed towards the goal; within one step of it, just enough to arrive.
        speed = np.minimum(self.v_pref, dist / self.time_step)
        with np.errstate(invalid="ignore", divide="ignore"):
            v = np.where(dist > 1e-9, to_goal / dist * speed, 0.0)
        return v

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        if self._sim is None:
            raise RuntimeError("call reset() before step()")
        a = np.asarray(action, dtype=np.float64).reshape(2)
        if not np.all(np.isfinite(a)):
            raise ValueError(f"action must be finite, got {action!r}")
        norm = float(np.hypot(a[0], a[1]))
        if norm > 1.0:
            a = a / norm
        robot_v = a * self.v_pref
        sim = self._sim
        humans = sim.getAgentPositions()[: self.human_num]
        pref = self._human_pref_velocities(humans)
        if self.robot_visible:
            sim.setAgentPosition(self.human_num, (float(self._robot[0]), float(self._robot[1])))
            sim.setAgentVelocity(self.human_num, (float(self._robot[2]), float(self._robot[3])))
            pref = np.vstack([pref, robot_v.reshape(1, 2)])
        sim.setAgentPrefVelocities(pref)
        sim.doStep()
        # The robot moves at its action, holonomic.
        self._robot[:2] += robot_v * self.time_step
        self._robot[2:] = robot_v
        self._time += self.time_step

        humans_now = sim.getAgentPositions()[: self.human_num]
        gaps = (
            np.linalg.norm(humans_now - self._robot[:2], axis=1)
            - self.human_radius
            - self.robot_radius
        )
        dmin = float(gaps.min()) if len(gaps) else math.inf
        reached = float(np.linalg.norm(self._robot[:2] - self._goal)) < self.robot_radius
        collided = dmin < 0.0
        terminated = False
        if collided:
            reward, terminated, event = -0.25, True, "collision"
        elif reached:
            reward, terminated, event = 1.0, True, "reached_goal"
        elif dmin < self.discomfort_dist:
            reward, event = (dmin - self.discomfort_dist) * 0.5 * self.time_step, "discomfort"
        else:
            reward, event = 0.0, None
        truncated = not terminated and self._time >= self.time_limit - 1e-9
        if truncated:
            event = "timeout"
        return self._observation(), float(reward), terminated, truncated, self._info(dmin, event)

    # ---- reading ----------------------------------------------------------------

    def _observation(self) -> np.ndarray:
        sim = self._sim
        assert sim is not None
        px, py, vx, vy = self._robot
        gx, gy = self._goal
        heading = math.atan2(vy, vx) if (vx or vy) else math.pi / 2
        robot = [px, py, vx, vy, gx, gy, self.robot_radius, self.v_pref, heading]
        pos = sim.getAgentPositions()[: self.human_num]
        vel = sim.getAgentVelocities()[: self.human_num]
        radii = np.full((self.human_num, 1), self.human_radius)
        humans = np.hstack([pos, vel, radii]).reshape(-1)
        obs = np.concatenate([np.asarray(robot), humans]).astype(np.float32)
        # Within the bounds by construction; the clip only guards their last bit.
        return np.clip(obs, self._low, self._high)

    def _info(self, dmin: float, event: Optional[str] = None) -> dict:
        return {"time": self._time, "min_separation": dmin, "event": event}

    def render(self) -> Optional[np.ndarray]:
        """``rgb_array``: a 200 × 200 top-down picture (robot red, goal green, humans blue)."""
        if self.render_mode != "rgb_array" or self._sim is None:
            return None
        size = 200
        img = np.full((size, size, 3), 255, dtype=np.uint8)
        half = self.circle_radius + 1.5
        scale = size / (2 * half)

        def disc(x: float, y: float, r: float, color: tuple[int, int, int]) -> None:
            cx, cy = (x + half) * scale, (half - y) * scale
            rr = max(1.0, r * scale)
            ys, xs = np.ogrid[:size, :size]
            img[(xs - cx) ** 2 + (ys - cy) ** 2 <= rr * rr] = color

        disc(self._goal[0], self._goal[1], 0.15, (0, 160, 0))
        for x, y in self._sim.getAgentPositions()[: self.human_num]:
            disc(x, y, self.human_radius, (40, 80, 220))
        disc(self._robot[0], self._robot[1], self.robot_radius, (220, 40, 40))
        return img


def register_envs() -> None:
    """Registers :class:`CircleCrossingEnv` as ``crowdnav/CircleCrossing-v0`` (once)."""
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point="crowdnav.gym:CircleCrossingEnv")


register_envs()
