//! Output files that appear whole or not at all.

use anyhow::Context;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether standard output failed for another reason than a closed reader (said once).
static STDOUT_FAILED: AtomicBool = AtomicBool::new(false);

/// Writes `line` and a newline to standard output (the `say!` macro). When the reader
/// has gone (`crowdnav path … | head -1`), the rest of the output is dropped quietly
/// and the command goes on, so that the files it was asked to write are still written
/// whole; `println!` panicked there. Any other failure is said once on stderr.
pub fn say(line: std::fmt::Arguments<'_>) {
    let mut out = std::io::stdout().lock();
    let written = out.write_fmt(line).and_then(|()| out.write_all(b"\n"));
    if let Err(e) = written {
        if e.kind() != std::io::ErrorKind::BrokenPipe
            && !STDOUT_FAILED.swap(true, Ordering::Relaxed)
        {
            eprintln!("crowdnav: cannot write to standard output: {e}");
        }
    }
}

/// A file written under a temporary name in the target's folder and renamed onto the
/// target by [`PendingFile::commit`]; dropped uncommitted (an error, a panic), the
/// temporary file is removed, so the target is never left half-written.
pub struct PendingFile {
    temp: PathBuf,
    target: PathBuf,
    committed: bool,
}

impl PendingFile {
    /// Creates the temporary file for `target` and returns it open for writing.
    ///
    /// # Errors
    /// When `target` is a folder, or its folder is missing or not writable:
    /// `cannot write {target}: {reason}`.
    pub fn create(target: &Path) -> anyhow::Result<(PendingFile, File)> {
        let context = || format!("cannot write {}", target.display());
        if target.is_dir() {
            return Err(anyhow::anyhow!("{}: it is a folder", context()));
        }
        let name = target
            .file_name()
            .ok_or_else(|| anyhow::anyhow!("{}: no file name", context()))?;
        let folder = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let mut temp_name = std::ffi::OsString::from(".");
        temp_name.push(name);
        temp_name.push(format!(".{}.tmp", std::process::id()));
        let temp = folder.join(temp_name);
        let file = File::create(&temp).with_context(context)?;
        Ok((
            PendingFile {
                temp,
                target: target.to_owned(),
                committed: false,
            },
            file,
        ))
    }

    /// The file it will become.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Renames the temporary file onto the target (close the file first).
    ///
    /// # Errors
    /// When the rename fails; the temporary file is removed.
    pub fn commit(mut self) -> anyhow::Result<()> {
        std::fs::rename(&self.temp, &self.target)
            .with_context(|| format!("cannot write {}", self.target.display()))?;
        self.committed = true;
        Ok(())
    }
}

impl Drop for PendingFile {
    fn drop(&mut self) {
        if !self.committed {
            // Best effort: the temporary file may already be gone.
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}
