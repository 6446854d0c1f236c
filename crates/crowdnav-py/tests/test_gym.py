"""crowdnav.gym: the circle-crossing environment under Gymnasium's own checks."""

from __future__ import annotations

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium", reason="gymnasium not installed")

from crowdnav.gym import ENV_ID, CircleCrossingEnv  # noqa: E402


def test_check_env_passes():
    from gymnasium.utils.env_checker import check_env

    # Made through the registry, so that the checker also tries the render modes.
    check_env(gymnasium.make(ENV_ID).unwrapped, skip_render_check=False)


def test_spaces_are_declared():
    env = CircleCrossingEnv()
    assert env.action_space.shape == (2,)
    assert env.observation_space.shape == (9 + 5 * 5,)
    obs, info = env.reset(seed=0)
    assert obs.dtype == np.float32 and env.observation_space.contains(obs)
    # Five humans of radius 0.3 near a circle of 4 m (noise up to half a metre).
    humans = obs[9:].reshape(5, 5)
    np.testing.assert_allclose(humans[:, 4], 0.3)
    assert np.all(np.abs(np.linalg.norm(humans[:, :2], axis=1) - 4.0) <= 0.5 * np.sqrt(2) + 1e-6)
    np.testing.assert_allclose(obs[:2], (0.0, -4.0))


def test_seeded_resets_are_reproducible():
    a, b = CircleCrossingEnv(), CircleCrossingEnv()
    obs_a, _ = a.reset(seed=42)
    obs_b, _ = b.reset(seed=42)
    np.testing.assert_array_equal(obs_a, obs_b)
    for _ in range(20):
        sa = a.step(np.array([0.0, 1.0]))
        sb = b.step(np.array([0.0, 1.0]))
        np.testing.assert_array_equal(sa[0], sb[0])
        assert sa[1:4] == sb[1:4]
    obs_c, _ = a.reset(seed=43)
    assert not np.array_equal(obs_a, obs_c)


def test_walking_straight_ends_in_the_goal_or_a_collision_or_a_timeout():
    env = CircleCrossingEnv()
    env.reset(seed=1)
    events = []
    for _ in range(200):
        _, reward, terminated, truncated, info = env.step(np.array([0.0, 1.0], dtype=np.float32))
        if terminated or truncated:
            events.append((info["event"], reward))
            break
    assert events and events[0][0] in {"reached_goal", "collision", "timeout"}
    if events[0][0] == "reached_goal":
        assert events[0][1] == 1.0


def test_registered_and_vectorised():
    env = gymnasium.make(ENV_ID)
    obs, _ = env.reset(seed=3)
    assert obs.shape == (34,)
    env.close()
    envs = gymnasium.vector.SyncVectorEnv([lambda: CircleCrossingEnv() for _ in range(3)])
    obs, _ = envs.reset(seed=7)
    assert obs.shape == (3, 34)
    obs, rewards, terminated, truncated, _ = envs.step(np.tile([0.0, 1.0], (3, 1)).astype(np.float32))
    assert obs.shape == (3, 34) and rewards.shape == (3,)
    envs.close()


def test_bad_actions_and_parameters_raise():
    env = CircleCrossingEnv()
    with pytest.raises(RuntimeError):
        env.step(np.zeros(2))
    env.reset(seed=0)
    with pytest.raises(ValueError):
        env.step(np.array([np.nan, 0.0]))
    with pytest.raises(ValueError):
        CircleCrossingEnv(human_num=-1)
