"""NavMesh: loading levels, exact paths, batches of queries, errors as exceptions."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import crowdnav
from crowdnav import NavMesh


def test_from_level_dict_builds_a_mesh_and_finds_the_way_around_the_pillar(room_level):
    mesh = NavMesh.from_level(room_level)
    assert mesh.walkable_area == pytest.approx(100.0 - 4.0)
    assert mesh.vertices.shape[1] == 2 and mesh.vertices.dtype == np.float64
    assert mesh.walls.shape == (8, 4)
    path = mesh.find_path((2.0, 5.0), (8.0, 5.0), 0.0)
    assert path is not None
    # Around one corner pair of the pillar: (2,5) -> (4,6) -> (6,6) -> (8,5).
    expected = 2 * math.hypot(2.0, 1.0) + 2.0
    assert path.length == pytest.approx(expected, rel=1e-6)
    assert path.points.shape == (4, 2)
    np.testing.assert_allclose(path.points[0], (2.0, 5.0))
    np.testing.assert_allclose(path.points[-1], (8.0, 5.0))
    assert path.corners.shape == (2, 2)
    assert path.radius == 0.0
    # A radius makes the path longer (arcs around the corners).
    wide = mesh.find_path([2.0, 5.0], np.array([8.0, 5.0]), 0.5)
    assert wide is not None and wide.length > path.length


def test_from_level_accepts_json_text_too(room_level):
    mesh = NavMesh.from_level(json.dumps(room_level))
    assert mesh.is_walkable((1.0, 1.0))
    assert not mesh.is_walkable((5.0, 5.0))


def test_no_path_is_none_and_bad_queries_raise_with_the_librarys_message(room_level):
    level = {
        "boundary": [[0, 0], [10, 0], [10, 10], [0, 10]],
        "obstacles": [[[4.9, -1], [5.1, -1], [5.1, 11], [4.9, 11]]],
    }
    mesh = NavMesh.from_level(level)
    assert mesh.find_path((2, 5), (8, 5)) is None
    mesh = NavMesh.from_level(room_level)
    with pytest.raises(ValueError, match="outside the mesh"):
        mesh.find_path((-5, 5), (8, 5))
    with pytest.raises(ValueError, match="inside an obstacle"):
        mesh.find_path((5, 5), (8, 5))
    with pytest.raises(ValueError, match="radius"):
        mesh.find_path((2, 5), (8, 5), -1.0)
    with pytest.raises(ValueError, match="finite"):
        mesh.find_path((math.nan, 5), (8, 5))


def test_find_paths_runs_a_batch_and_marks_failures_nan(room_level):
    mesh = NavMesh.from_level(room_level)
    queries = np.array(
        [
            [2.0, 5.0, 8.0, 5.0, 0.0],
            [1.0, 1.0, 9.0, 9.0, 0.3],
            [-5.0, 5.0, 8.0, 5.0, 0.0],  # outside
            [2.0, 5.0, 8.0, 5.0, math.nan],  # invalid radius
        ],
        dtype=np.float32,  # any float dtype is accepted
    )
    lengths, paths = mesh.find_paths(queries)
    assert lengths.shape == (4,) and lengths.dtype == np.float64
    assert lengths[0] == pytest.approx(mesh.find_path((2, 5), (8, 5)).length)
    assert lengths[1] == pytest.approx(mesh.find_path((1, 1), (9, 9), 0.3).length)
    assert math.isnan(lengths[2]) and math.isnan(lengths[3])
    assert paths is not None and paths[2] is None and paths[0] is not None
    lengths_only, none = mesh.find_paths(queries[:2], paths=False)
    assert none is None
    np.testing.assert_array_equal(lengths_only, lengths[:2])
    with pytest.raises(ValueError, match=r"\(N, 5\)"):
        mesh.find_paths(np.zeros((3, 4)))
    empty, _ = mesh.find_paths(np.zeros((0, 5)))
    assert empty.shape == (0,)


def test_find_paths_in_parallel_gives_what_one_by_one_gives(room_level):
    mesh = NavMesh.from_level(room_level)
    rng = np.random.default_rng(5)
    starts = rng.uniform(0.5, 9.5, (200, 2))
    goals = rng.uniform(0.5, 9.5, (200, 2))
    q = np.hstack([starts, goals, np.full((200, 1), 0.2)])
    lengths, _ = mesh.find_paths(q)
    for row, length in zip(q, lengths):
        try:
            p = mesh.find_path(row[:2], row[2:4], row[4])
        except ValueError:
            assert math.isnan(length)
            continue
        assert (p is None and math.isnan(length)) or p.length == length


def test_from_file_reads_world_json_polyanya_meshes_and_movingai_maps(repo_root, tmp_path):
    mesh = NavMesh.from_file(repo_root / "worlds" / "two-rooms.json")
    assert mesh.find_path((2, 2), (38, 18), 0.4) is not None
    # The two-triangle square of Polyanya's mesh format description (version 2).
    square = tmp_path / "square.mesh"
    square.write_text(
        "mesh\n2\n4 2\n0 0 2 0 -1\n1.5 0 3 0 1 -1\n1.5 1.5 2 1 -1\n0 1.5 3 -1 1 0\n"
        "3 0 1 3 -1 -1 1\n3 1 2 3 0 -1 -1\n"
    )
    mesh = NavMesh.from_file(square)
    assert mesh.walkable_area == pytest.approx(1.5 * 1.5)
    assert mesh.find_path((0.1, 0.1), (1.4, 1.4)).length == pytest.approx(1.3 * math.sqrt(2), rel=1e-6)
    grid = tmp_path / "tiny.map"
    grid.write_text("type octile\nheight 3\nwidth 4\nmap\n....\n.@@.\n....\n")
    mesh = NavMesh.from_file(str(grid))
    assert mesh.walkable_area == pytest.approx(10.0)


def test_file_errors_become_file_not_found_and_value_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="missing.json"):
        NavMesh.from_file(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"boundary": [[0, 0], [1, 0]]}')
    with pytest.raises(ValueError):
        NavMesh.from_file(bad)
    odd = tmp_path / "level.txt"
    odd.write_text("")
    with pytest.raises(ValueError, match="unknown level format"):
        NavMesh.from_file(odd)
    with pytest.raises(ValueError, match="line 1"):
        NavMesh.from_level("{not json")
    with pytest.raises(ValueError):
        NavMesh.from_level({"boundary": [[0, 0], [1, 1], [0, 0], [1, 1]]})


def test_the_package_has_a_version_and_type_information():
    assert crowdnav.__version__
    import importlib.resources

    assert importlib.resources.files("crowdnav").joinpath("py.typed").is_file()
    assert importlib.resources.files("crowdnav").joinpath("_native.pyi").is_file()
