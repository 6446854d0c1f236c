//! `NavMesh` and `Path`: loading a level, exact shortest paths for any radius, and
//! batches of path queries in parallel with the GIL released.

use crate::convert::{number, points_array, vec2};
use crate::errors;
use crowdnav::prelude::*;
use crowdnav::{read_walls, PathError};
use numpy::{AllowTypeChange, PyArray1, PyArray2, PyArrayLike2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyString;
use std::path::PathBuf;

/// What `find_paths` returns: the lengths, and the paths when asked for.
type PathBatch<'py> = (Bound<'py, PyArray1<f64>>, Option<Vec<Option<PyPath>>>);

/// A navigation mesh: the walkable space of a level, triangulated once, on which
/// shortest paths are exact for any agent radius.
#[pyclass(name = "NavMesh", module = "crowdnav", frozen)]
pub struct PyNavMesh {
    pub(crate) mesh: NavMesh,
}

/// A level as JSON text: a `str` as it is, anything else (a dict) through `json.dumps`.
pub fn json_text(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(s.to_cow()?.into_owned());
    }
    let json = obj.py().import("json")?;
    json.call_method1("dumps", (obj,))?.extract()
}

#[pymethods]
impl PyNavMesh {
    /// Reads a level file: a world file (`.json`), a Polyanya mesh (`.mesh`) or a
    /// MovingAI map (`.map`), and builds its mesh.
    #[staticmethod]
    fn from_file(py: Python<'_>, path: PathBuf) -> PyResult<PyNavMesh> {
        let mesh = py.detach(|| -> PyResult<NavMesh> {
            let walls = read_walls(&path).map_err(errors::load)?;
            NavMesh::from_walls(&walls).map_err(|e| {
                PyValueError::new_err(format!("{}: {}", path.display(), errors::build(e)))
            })
        })?;
        Ok(PyNavMesh { mesh })
    }

    /// Builds the mesh of a level given as a dict (or JSON text) in the world-file
    /// format: `{"boundary": [[x, y], ...], "obstacles": [[[x, y], ...], ...]}`.
    #[staticmethod]
    fn from_level(py: Python<'_>, level: &Bound<'_, PyAny>) -> PyResult<PyNavMesh> {
        let text = json_text(level)?;
        let mesh = py.detach(|| -> PyResult<NavMesh> {
            let level = Level::from_json(&text).map_err(errors::level)?;
            NavMesh::from_level(&level).map_err(errors::build)
        })?;
        Ok(PyNavMesh { mesh })
    }

    /// The shortest path for a disc of `radius` from `start` to `goal`, or `None` when
    /// both are valid but no path joins them. Raises `ValueError` for a NaN, a
    /// negative radius, or an end outside the mesh, inside an obstacle or too near a
    /// wall for the radius.
    #[pyo3(signature = (start, goal, radius = 0.0))]
    fn find_path(
        &self,
        py: Python<'_>,
        start: &Bound<'_, PyAny>,
        goal: &Bound<'_, PyAny>,
        radius: f32,
    ) -> PyResult<Option<PyPath>> {
        let start = vec2(start, "start")?;
        let goal = vec2(goal, "goal")?;
        let radius = number(radius, "radius", 0.0, false)?;
        match py.detach(|| self.mesh.find_path(start, goal, radius)) {
            Ok(path) => Ok(Some(PyPath::new(&path))),
            Err(e) if e.is_no_path() => Ok(None),
            Err(e) => Err(PyValueError::new_err(e.to_string())),
        }
    }

    /// Many path queries at once, in parallel with the GIL released. `queries` is an
    /// (N, 5) array of rows `start_x, start_y, goal_x, goal_y, radius`. Returns the
    /// lengths (float64, NaN where a query has no path or is invalid) and, with
    /// `paths=True`, the list of `Path`s (`None` where there is none).
    #[pyo3(signature = (queries, paths = true))]
    fn find_paths<'py>(
        &self,
        py: Python<'py>,
        queries: PyArrayLike2<'py, f64, AllowTypeChange>,
        paths: bool,
    ) -> PyResult<PathBatch<'py>> {
        let view = queries.as_array();
        if view.ncols() != 5 {
            return Err(PyValueError::new_err(format!(
                "queries must have shape (N, 5) (start_x, start_y, goal_x, goal_y, radius), got {:?}",
                view.shape()
            )));
        }
        let queries: Vec<PathQuery> = view
            .rows()
            .into_iter()
            .map(|r| PathQuery {
                start: Vec2::new(r[0] as f32, r[1] as f32),
                goal: Vec2::new(r[2] as f32, r[3] as f32),
                radius: r[4] as f32,
            })
            .collect();
        let results: Vec<Result<Path, PathError>> = py.detach(|| self.mesh.find_paths(&queries));
        let lengths: Vec<f64> = results
            .iter()
            .map(|r| r.as_ref().map_or(f64::NAN, Path::length))
            .collect();
        let lengths = PyArray1::from_vec(py, lengths);
        let paths = paths.then(|| {
            results
                .iter()
                .map(|r| r.as_ref().ok().map(PyPath::new))
                .collect()
        });
        Ok((lengths, paths))
    }

    /// Whether `point` lies on the walkable part of the mesh.
    fn is_walkable(&self, point: &Bound<'_, PyAny>) -> PyResult<bool> {
        let p = vec2(point, "point")?;
        Ok(matches!(
            self.mesh.locate(p),
            crowdnav::Location::Walkable(_)
        ))
    }

    /// The mesh's vertices, an (N, 2) float64 array.
    #[getter]
    fn vertices<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f64>> {
        points_array(py, self.mesh.vertices().iter().copied())
    }

    /// The number of triangles, walkable or not.
    #[getter]
    fn triangle_count(&self) -> usize {
        self.mesh.triangle_count()
    }

    /// The walkable area, square metres.
    #[getter]
    fn walkable_area(&self) -> f64 {
        self.mesh.walkable_area()
    }

    /// The wall segments, an (N, 4) float64 array of rows `ax, ay, bx, by` (walkable
    /// space on each wall's left).
    #[getter]
    fn walls<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f64>> {
        let flat: Vec<f64> = self
            .mesh
            .walls()
            .flat_map(|s| [s.a.x, s.a.y, s.b.x, s.b.y].map(f64::from))
            .collect();
        crate::convert::rows(py, flat, 4)
    }

    fn __repr__(&self) -> String {
        format!(
            "NavMesh(vertices={}, triangles={}, walkable_area={:.3})",
            self.mesh.vertices().len(),
            self.mesh.triangle_count(),
            self.mesh.walkable_area()
        )
    }
}

/// A shortest path: its exact length, the points where its segments and arcs meet,
/// and the corners it bends around.
#[pyclass(name = "Path", module = "crowdnav", frozen)]
pub struct PyPath {
    length: f64,
    radius: f32,
    points: Vec<Vec2>,
    corners: Vec<Vec2>,
}

impl PyPath {
    fn new(path: &Path) -> PyPath {
        PyPath {
            length: path.length(),
            radius: path.radius(),
            points: path.points(),
            corners: path.corners().iter().map(|c| c.position).collect(),
        }
    }
}

#[pymethods]
impl PyPath {
    /// Exact length of the path of the disc's centre, metres.
    #[getter]
    fn length(&self) -> f64 {
        self.length
    }

    /// The agent radius the path was found for, metres.
    #[getter]
    fn radius(&self) -> f64 {
        f64::from(self.radius)
    }

    /// The start, every point where a segment meets an arc, and the goal: an (N, 2)
    /// float64 array (for radius 0: the start, the corners and the goal).
    #[getter]
    fn points<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f64>> {
        points_array(py, self.points.iter().copied())
    }

    /// The mesh corners the path bends around, in order: an (M, 2) float64 array.
    #[getter]
    fn corners<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f64>> {
        points_array(py, self.corners.iter().copied())
    }

    fn __repr__(&self) -> String {
        format!(
            "Path(length={:.6}, points={}, corners={})",
            self.length,
            self.points.len(),
            self.corners.len()
        )
    }
}
