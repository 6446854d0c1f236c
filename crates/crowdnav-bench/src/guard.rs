//! A time limit for our r > 0 queries.
//!
//! A few disc queries make crowdnav's search run for minutes while its memory grows by
//! gigabytes; a query cannot be interrupted in-process. So before the timed loop the
//! selected queries are answered once in a child process (`crowdnav-bench probe`),
//! which prints one line per answered query; a query that takes longer than the limit
//! gets the child killed, is reported as "no answer within the limit", and the child
//! restarts after it.

use crate::paths::{PathWorld, Selection};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// The child side: answers queries `indices` of map `map` at `radius`, one line each
/// ("index") on stdout as soon as each is done.
///
/// # Errors
/// The map does not load.
pub fn probe(data: &Path, map: &str, radius: f32, indices: &[usize]) -> Result<(), String> {
    let world = PathWorld::load(data, map)?;
    let stdout = std::io::stdout();
    for &i in indices {
        if let Some(q) = world.queries.get(i) {
            std::hint::black_box(world.ours(q, radius));
        }
        let mut out = stdout.lock();
        writeln!(out, "{i}").map_err(|e| e.to_string())?;
        out.flush().map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Runs the selected queries of `world` at `radius` through `exe probe` with a time
/// limit of `limit` each; returns the indices of the queries that exceeded it.
///
/// # Errors
/// The child cannot be started, or it fails other than by being killed.
pub fn screen(
    exe: &PathBuf,
    world: &PathWorld,
    radius: f32,
    sel: Selection,
    limit: Duration,
) -> Result<Vec<usize>, String> {
    let mut todo: Vec<usize> = sel.pick(&world.queries).iter().map(|(i, _)| *i).collect();
    let mut slow = Vec::new();
    while !todo.is_empty() {
        let list: Vec<String> = todo.iter().map(usize::to_string).collect();
        let mut child = Command::new(exe)
            .args(["probe", &world.name, &radius.to_string(), &list.join(",")])
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("{}: {e}", exe.display()))?;
        let stdout = child.stdout.take().ok_or("no stdout from the probe")?;
        let (tx, rx) = mpsc::channel::<usize>();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Ok(i) = line.trim().parse() {
                    if tx.send(i).is_err() {
                        break;
                    }
                }
            }
        });
        let mut done = 0;
        let mut killed = false;
        while done < todo.len() {
            match rx.recv_timeout(limit) {
                Ok(_) => done += 1,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    let _ = child.kill();
                    slow.push(todo[done]);
                    done += 1;
                    killed = true;
                    break;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
        let status = child.wait().map_err(|e| e.to_string())?;
        let _ = reader.join();
        if !killed && !status.success() {
            return Err(format!("probe of {} failed: {status}", world.name));
        }
        if !killed && done < todo.len() {
            return Err(format!("probe of {} stopped early", world.name));
        }
        todo.drain(..done);
    }
    Ok(slow)
}
