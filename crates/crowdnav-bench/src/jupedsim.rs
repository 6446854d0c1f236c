//! JuPedSim (the Jülich pedestrian simulator) and PedPy (its analysis package), the
//! flow part's other side, run through Python.
//!
//! [`Python::prepare`] makes a virtual environment of its own (by default
//! `target/flow/venv`) and installs [`REQUIREMENTS`] into it with pip, once; the
//! script `python/jupedsim_flow.py` (built into the binary) is written beside it.
//! [`Python::simulate`] hands it a layout's scene ([`crate::flow::scene`]) and reads
//! back the trajectories, which [`crate::flow`] measures exactly as it measures
//! crowdnav's. [`Python::fundamental_diagram`] has PedPy compute Voronoi densities and
//! speeds from trajectory files.
//!
//! No Python, no network or a failed install: `prepare` says why, and the flow part
//! prints it as "skipped".

use crate::flow::{overlapping_pairs, FlowRun, Tracks};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What pip installs, pinned so that figures can be compared between runs. JuPedSim
/// goes in without its own dependencies (see [`JUPEDSIM_NEEDS`]).
pub const REQUIREMENTS: [&str; 2] = ["jupedsim==1.4.2", "pedpy==1.5.1"];

/// What JuPedSim's simulation imports, installed beside it. Its package also names
/// PySide6 and VTK, for its trajectory viewer: over 1 GB that the flow part never
/// imports (and that filled the disk of a CI machine).
pub const JUPEDSIM_NEEDS: [&str; 3] = ["deprecated", "numpy", "shapely"];

/// JuPedSim's own step, seconds (its social force model needs steps this small).
pub const JUPEDSIM_DT: f64 = 0.01;

/// Half the side of the square exit around each agent's goal in JuPedSim, metres:
/// JuPedSim removes an agent when it enters its exit.
pub const EXIT_HALF: f64 = 0.25;

const SCRIPT: &str = include_str!("../python/jupedsim_flow.py");

/// A JuPedSim operational model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Model {
    /// `CollisionFreeSpeedModel` (Tordeux, Chraibi and Seyfried 2016), defaults.
    CollisionFreeSpeed,
    /// `SocialForceModel` (Helbing, Farkas and Vicsek 2000), defaults.
    SocialForce,
}

impl Model {
    /// Both, in the order of the tables.
    pub const ALL: [Model; 2] = [Model::CollisionFreeSpeed, Model::SocialForce];

    /// The short key (`"cfs"`, `"sf"`): the script's argument and the JSON keys'
    /// suffix.
    pub fn key(self) -> &'static str {
        match self {
            Model::CollisionFreeSpeed => "cfs",
            Model::SocialForce => "sf",
        }
    }

    /// The name in tables.
    pub fn label(self) -> &'static str {
        match self {
            Model::CollisionFreeSpeed => "JuPedSim CollisionFreeSpeed",
            Model::SocialForce => "JuPedSim SocialForce",
        }
    }
}

/// The directory of the flow part's files: `CROWDNAV_FLOW_DIR`, else `flow` in the
/// Cargo target directory (`CARGO_TARGET_DIR`, else the workspace's `target`).
pub fn flow_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("CROWDNAV_FLOW_DIR") {
        return dir.into();
    }
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"),
        PathBuf::from,
    );
    target.join("flow")
}

/// A ready virtual environment with JuPedSim and PedPy.
#[derive(Clone, Debug)]
pub struct Python {
    python: PathBuf,
    script: PathBuf,
    runs: PathBuf,
}

fn last_line(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes)
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
        .to_owned()
}

fn run(cmd: &mut Command, what: &str) -> Result<Vec<u8>, String> {
    let out = cmd.output().map_err(|e| format!("{what}: {e}"))?;
    if out.status.success() {
        Ok(out.stdout)
    } else {
        let why = last_line(&out.stderr);
        Err(format!(
            "{what} failed ({}){}",
            out.status,
            if why.is_empty() {
                String::new()
            } else {
                format!(": {why}")
            }
        ))
    }
}

impl Python {
    /// The virtual environment in `dir/venv`, made and filled with [`REQUIREMENTS`]
    /// unless it already holds them. The Python that makes it is `CROWDNAV_PYTHON`,
    /// else `python3`. Progress goes to stderr.
    ///
    /// # Errors
    /// Why JuPedSim cannot run here (no Python, no `venv` module, pip failed: no
    /// network?), in one line.
    pub fn prepare(dir: &Path) -> Result<Python, String> {
        let base = std::env::var_os("CROWDNAV_PYTHON").unwrap_or_else(|| "python3".into());
        Python::prepare_with(dir, &base)
    }

    /// [`Python::prepare`] with the Python `base` making the environment.
    ///
    /// # Errors
    /// As [`Python::prepare`].
    pub fn prepare_with(dir: &Path, base: &std::ffi::OsStr) -> Result<Python, String> {
        let base_name = base.to_string_lossy().into_owned();
        let version = run(
            Command::new(base).args(["-c", "import sys; print(sys.version.split()[0])"]),
            &base_name,
        )
        .map_err(|e| format!("no usable Python ({e})"))?;
        let venv = dir.join("venv");
        let python = if cfg!(windows) {
            venv.join("Scripts").join("python.exe")
        } else {
            venv.join("bin").join("python")
        };
        let marker = venv.join("crowdnav-requirements.txt");
        let wanted = [REQUIREMENTS.as_slice(), JUPEDSIM_NEEDS.as_slice()]
            .concat()
            .join("\n");
        let ready = python.exists()
            && std::fs::read_to_string(&marker).is_ok_and(|m| m.trim() == wanted.trim());
        if !ready {
            eprintln!(
                "flow: making a Python {} virtual environment in {} and installing {} (once)",
                last_line(&version),
                venv.display(),
                REQUIREMENTS.join(", ")
            );
            if venv.exists() {
                std::fs::remove_dir_all(&venv).map_err(|e| format!("{}: {e}", venv.display()))?;
            }
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            run(
                Command::new(base).arg("-m").arg("venv").arg(&venv),
                "python3 -m venv",
            )?;
            let pip = || {
                let mut pip = Command::new(&python);
                pip.args([
                    "-m",
                    "pip",
                    "install",
                    "--quiet",
                    "--disable-pip-version-check",
                ])
                .args(["--timeout", "20", "--retries", "1"]);
                pip
            };
            let (jupedsim, others) = REQUIREMENTS.split_at(1);
            run(
                pip().arg("--no-deps").args(jupedsim),
                "pip install (is PyPI reachable?)",
            )?;
            run(
                pip().args(others).args(JUPEDSIM_NEEDS),
                "pip install (is PyPI reachable?)",
            )?;
            std::fs::write(&marker, &wanted).map_err(|e| format!("{}: {e}", marker.display()))?;
        }
        let script = dir.join("jupedsim_flow.py");
        std::fs::write(&script, SCRIPT).map_err(|e| format!("{}: {e}", script.display()))?;
        let runs = dir.join("runs");
        std::fs::create_dir_all(&runs).map_err(|e| format!("{}: {e}", runs.display()))?;
        Ok(Python {
            python,
            script,
            runs,
        })
    }

    /// Where run files go (scenes, trajectory CSVs).
    pub fn runs_dir(&self) -> &Path {
        &self.runs
    }

    /// Runs `model` on `scene` ([`crate::flow::scene`]), named `name` (file names),
    /// and reads back its trajectories, recorded every `scene_dt` seconds of the scene.
    /// The overlapping pairs are counted from those tracks.
    ///
    /// # Errors
    /// The script fails or its output cannot be read.
    pub fn simulate(&self, scene: &Value, model: Model, name: &str) -> Result<FlowRun, String> {
        let mut scene = scene.clone();
        let agents = scene["agents"].as_array().map_or(0, Vec::len);
        let scene_dt = scene["scenario_dt"].as_f64().unwrap_or(0.05);
        let every = (scene_dt / JUPEDSIM_DT).round().max(1.0);
        scene["model"] = model.key().into();
        scene["dt"] = JUPEDSIM_DT.into();
        scene["every"] = (every as u64).into();
        scene["exit_half"] = EXIT_HALF.into();
        let stem = format!("{name}-{}", model.key());
        let scene_path = self.runs.join(format!("{stem}.json"));
        let csv_path = self.csv_path(name, model);
        std::fs::write(&scene_path, scene.to_string())
            .map_err(|e| format!("{}: {e}", scene_path.display()))?;
        let stdout = run(
            Command::new(&self.python)
                .arg(&self.script)
                .arg("simulate")
                .arg(&scene_path)
                .arg(&csv_path),
            &format!("JuPedSim {} on {name}", model.key()),
        )?;
        let summary: Value = serde_json::from_str(&last_line(&stdout))
            .map_err(|e| format!("JuPedSim on {name}: unreadable summary: {e}"))?;
        let text = std::fs::read_to_string(&csv_path)
            .map_err(|e| format!("{}: {e}", csv_path.display()))?;
        let tracks = Tracks::from_csv(&text, agents)?;
        let mut arrivals = vec![None; agents];
        for exit in summary["exits"].as_array().into_iter().flatten() {
            if let (Some(i), Some(t)) = (exit[0].as_u64(), exit[1].as_f64()) {
                if let Some(slot) = arrivals.get_mut(i as usize) {
                    *slot = Some(t);
                }
            }
        }
        let number = |key: &str| {
            summary[key]
                .as_f64()
                .filter(|v| v.is_finite())
                .ok_or(format!("JuPedSim on {name}: no {key} in its summary"))
        };
        let radius = scene["radius"].as_f64().unwrap_or(0.25) as f32;
        Ok(FlowRun {
            overlapping_pairs: overlapping_pairs(&tracks, radius),
            tracks,
            sim_seconds: number("sim_seconds")?,
            step_wall_s: number("step_wall_s")?,
            arrivals,
        })
    }

    /// The trajectory file that [`Python::simulate`] writes for `name` and `model`.
    pub fn csv_path(&self, name: &str, model: Model) -> PathBuf {
        self.runs.join(format!("{name}-{}.csv", model.key()))
    }

    /// PedPy's Voronoi densities and speeds for `job` (see the script's `fd` command):
    /// `{"pedpy": version, "runs": [{"name", "density": [..], "speed": [..]}]}`.
    ///
    /// # Errors
    /// The script fails or its output cannot be read.
    pub fn fundamental_diagram(&self, job: &Value) -> Result<Value, String> {
        let job_path = self.runs.join("fd-job.json");
        let out_path = self.runs.join("fd.json");
        std::fs::write(&job_path, job.to_string())
            .map_err(|e| format!("{}: {e}", job_path.display()))?;
        run(
            Command::new(&self.python)
                .arg(&self.script)
                .arg("fd")
                .arg(&job_path)
                .arg(&out_path),
            "PedPy",
        )?;
        let text = std::fs::read_to_string(&out_path)
            .map_err(|e| format!("{}: {e}", out_path.display()))?;
        serde_json::from_str(&text).map_err(|e| format!("PedPy: unreadable output: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_python_the_side_says_why() {
        let dir = std::env::temp_dir().join("crowdnav-bench-no-python");
        let why = Python::prepare_with(&dir, "/nonexistent/python3".as_ref())
            .expect_err("no such Python");
        assert!(why.starts_with("no usable Python"), "{why}");
        assert!(!dir.join("venv").exists());
    }

    #[test]
    fn the_script_knows_both_models() {
        for model in Model::ALL {
            assert!(
                SCRIPT.contains(&format!("\"{}\"", model.key())),
                "{model:?}"
            );
        }
    }
}
