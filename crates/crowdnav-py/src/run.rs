//! `run(scenario)`: a scenario file or dict in, the report and the trajectories out,
//! as `crowdnav run --report --trajectories` writes them. The scenario's script (timed
//! events, sources, sinks) runs as the CLI runs it, and the trajectories number the
//! agents by their scenario numbers (the listed agents first, then the spawned ones in
//! the order they appeared), so an agent keeps its number when others leave.

use crate::convert::rows;
use crate::errors;
use crate::mesh::json_text;
use crowdnav::scenario::{
    run_script, LaneMeter, LineCounter, RunOptions, Script, TrajectoryRecorder,
};
use crowdnav::{Method, Scenario};
use numpy::PyArray2;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::num::NonZeroU64;
use std::path::PathBuf;

/// Columns of the trajectory array, as the CLI's CSV names them.
const COLUMNS: usize = 7;

/// What a run gives back to Python: the report as JSON, the trajectory rows, the
/// frame rate of the trajectories.
struct RunOutput {
    report: String,
    trajectories: Vec<f64>,
    frame_rate: f64,
}

/// Runs `scenario` (a path, or a dict in the scenario format) and returns the report
/// (JSON text), the trajectories (an (R, 7) float64 array of rows `agent, frame,
/// time, x, y, vx, vy`) and their frame rate (frames per second).
#[pyfunction]
#[pyo3(name = "_run", signature = (scenario, steps = None, every = 1, method = None))]
pub fn run_scenario<'py>(
    py: Python<'py>,
    scenario: &Bound<'py, PyAny>,
    steps: Option<u64>,
    every: u64,
    method: Option<&str>,
) -> PyResult<(String, Bound<'py, PyArray2<f64>>, f64)> {
    let every = NonZeroU64::new(every).ok_or_else(|| {
        PyValueError::new_err("every must be a whole number of steps, at least 1")
    })?;
    let method: Option<Method> = method
        .map(str::parse)
        .transpose()
        .map_err(PyValueError::new_err)?;
    let scenario = if scenario.is_instance_of::<PyDict>() {
        let text = json_text(scenario)?;
        py.detach(|| Scenario::from_json(&text))
            .map_err(errors::scenario)?
    } else {
        let path: PathBuf = scenario.extract().map_err(|_| {
            PyValueError::new_err("scenario must be a path (str or os.PathLike) or a dict")
        })?;
        py.detach(|| Scenario::from_file(&path))
            .map_err(errors::scenario)?
    };
    let out = py.detach(|| run(&scenario, steps, every, method))?;
    let array = rows(py, out.trajectories, COLUMNS);
    Ok((out.report, array, out.frame_rate))
}

/// The run itself, without Python.
fn run(
    scenario: &Scenario,
    steps: Option<u64>,
    every: NonZeroU64,
    method: Option<Method>,
) -> PyResult<RunOutput> {
    let mut world = scenario.build(method).map_err(errors::scenario)?;
    let mut lines = LineCounter::new(scenario.lines.clone(), &world).map_err(errors::scenario)?;
    // Lane order is measured where the scenario measures flow (it has lines).
    let mut lanes = (!scenario.lines.is_empty()).then(LaneMeter::default);
    let mut script = Script::new(scenario, &world);
    let io = |e: std::io::Error| PyOSError::new_err(format!("trajectories: {e}"));
    let mut recorder = TrajectoryRecorder::new(Vec::new(), every).map_err(io)?;
    recorder
        .record_numbered(&world, |_, id| script.scenario_index(id))
        .map_err(io)?;
    let mut write_error = None;
    let options = RunOptions {
        dt: scenario.dt,
        max_steps: steps.unwrap_or(scenario.steps),
        stop_when_arrived: true,
    };
    let mut report = run_script(&scenario.name, &mut world, &mut script, options, |w, s| {
        lines.observe(w);
        if let Some(meter) = lanes.as_mut() {
            meter.observe(w);
        }
        if write_error.is_none() {
            if let Err(e) = recorder.record_numbered(w, |_, id| s.scenario_index(id)) {
                write_error = Some(e);
            }
        }
    })
    .map_err(errors::scenario)?;
    if let Some(e) = write_error {
        return Err(io(e));
    }
    report.lines = lines.reports();
    report.lane_order = lanes.and_then(|meter| meter.lane_order());
    let frame_rate = recorder.frame_rate(scenario.dt);
    let csv = recorder.finish().map_err(io)?;
    Ok(RunOutput {
        report: serde_json::to_string(&report).map_err(|e| PyValueError::new_err(e.to_string()))?,
        trajectories: parse_csv(&csv)?,
        frame_rate,
    })
}

/// The recorder's CSV (a header, then rows of numbers) as the numbers, row after row.
fn parse_csv(csv: &[u8]) -> PyResult<Vec<f64>> {
    let text = std::str::from_utf8(csv).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let mut out = Vec::new();
    for line in text.lines().skip(1).filter(|l| !l.is_empty()) {
        let before = out.len();
        for field in line.split(',') {
            let v: f64 = field.parse().map_err(|_| {
                PyValueError::new_err(format!("trajectories: not a number: {field:?}"))
            })?;
            out.push(v);
        }
        if out.len() - before != COLUMNS {
            return Err(PyValueError::new_err(format!(
                "trajectories: expected {COLUMNS} columns in {line:?}"
            )));
        }
    }
    Ok(out)
}
