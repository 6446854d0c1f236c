"""Shared fixtures: the repository's own worlds and scenarios."""

from __future__ import annotations

import pathlib

import pytest

#: The repository root (crates/crowdnav-py/tests/ is three levels down).
ROOT = pathlib.Path(__file__).resolve().parents[3]


@pytest.fixture
def repo_root() -> pathlib.Path:
    return ROOT


@pytest.fixture
def room_level() -> dict:
    """A 10 m square room with a 2 m square pillar in the middle."""
    return {
        "boundary": [[0, 0], [10, 0], [10, 10], [0, 10]],
        "obstacles": [[[4, 4], [6, 4], [6, 6], [4, 6]]],
    }
