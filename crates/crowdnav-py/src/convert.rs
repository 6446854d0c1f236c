//! Turning Python values into the library's types, with a `ValueError` naming the
//! argument for anything that does not fit.

use glam::Vec2;
use numpy::{PyArray1, PyArray2, PyArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// A point or vector from any sequence of two numbers (tuple, list, NumPy array),
/// finite. `what` names the argument in the error.
pub fn vec2(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec2> {
    let v = vec2_any(obj, what)?;
    if !v.is_finite() {
        return Err(PyValueError::new_err(format!(
            "{what} must be finite, got ({}, {})",
            v.x, v.y
        )));
    }
    Ok(v)
}

/// [`vec2`] without the finiteness check.
fn vec2_any(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec2> {
    if let Ok((x, y)) = obj.extract::<(f64, f64)>() {
        return Ok(Vec2::new(x as f32, y as f32));
    }
    let shape_error = || PyValueError::new_err(format!("{what} must be a pair of numbers (x, y)"));
    let len = obj.len().map_err(|_| shape_error())?;
    if len != 2 {
        return Err(shape_error());
    }
    let x: f64 = obj
        .get_item(0)
        .and_then(|v| v.extract())
        .map_err(|_| shape_error())?;
    let y: f64 = obj
        .get_item(1)
        .and_then(|v| v.extract())
        .map_err(|_| shape_error())?;
    Ok(Vec2::new(x as f32, y as f32))
}

/// A number that must be finite and at least `min` (`>` when `strict`).
pub fn number(value: f32, what: &str, min: f32, strict: bool) -> PyResult<f32> {
    let ok = value.is_finite() && if strict { value > min } else { value >= min };
    if ok {
        Ok(value)
    } else {
        let relation = if strict { ">" } else { ">=" };
        Err(PyValueError::new_err(format!(
            "{what} must be finite and {relation} {min}, got {value}"
        )))
    }
}

/// An (N, 2) float64 array of points.
pub fn points_array<'py>(
    py: Python<'py>,
    points: impl ExactSizeIterator<Item = Vec2>,
) -> Bound<'py, PyArray2<f64>> {
    let n = points.len();
    let mut flat = Vec::with_capacity(2 * n);
    for p in points {
        flat.push(f64::from(p.x));
        flat.push(f64::from(p.y));
    }
    rows(py, flat, 2)
}

/// A 2D float64 array of `columns` columns from its rows laid end to end.
pub fn rows<'py>(py: Python<'py>, flat: Vec<f64>, columns: usize) -> Bound<'py, PyArray2<f64>> {
    let n = flat.len() / columns.max(1);
    let array = PyArray1::from_vec(py, flat);
    // The length is n · columns by construction, so the reshape cannot fail; fall back
    // to an empty array rather than panic if it ever did.
    array
        .reshape([n, columns])
        .unwrap_or_else(|_| PyArray2::zeros(py, [0, columns], false))
}
