//! What the CLI test files share: running the binary from the repository root,
//! scratch files, and the bad-input contract (exit code 2, one line on stderr,
//! starting `crowdnav: `, never a backtrace).

use std::path::PathBuf;
use std::process::{Command, Output};

/// Runs the `crowdnav` binary with `args` from the repository root, with backtraces
/// switched on so that a panic could not hide behind a terse message.
pub fn crowdnav(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_crowdnav"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .env("RUST_BACKTRACE", "1")
        .output()
        .expect("the binary runs")
}

/// A fresh directory for one test file (`tag`) and one test (`name`) of this process.
pub fn temp_dir(tag: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("crowdnav-{tag}-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Writes `contents` to a file `name` in this process's directory for `tag`.
pub fn temp_file(tag: &str, name: &str, contents: &str) -> PathBuf {
    let path = temp_dir(tag, "files").join(name);
    std::fs::write(&path, contents).expect("temp file");
    path
}

/// Runs the binary on `args` and checks the bad-input contract: exit code 2, one line
/// on stderr starting `crowdnav: ` and mentioning `needle`, no panic or backtrace.
pub fn assert_bad_input(args: &[&str], needle: &str) {
    let out = crowdnav(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: {stderr}");
    assert!(stderr.starts_with("crowdnav: "), "{args:?}: {stderr}");
    assert!(
        stderr.contains(needle),
        "{args:?}: {stderr:?} lacks {needle:?}"
    );
    for trace in ["panicked", "backtrace", "RUST_BACKTRACE"] {
        assert!(!stderr.contains(trace), "{args:?}: {stderr}");
    }
}
