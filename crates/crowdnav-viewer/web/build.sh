#!/usr/bin/env bash
# Builds the viewer for the browser into web/ of cargo's target directory (target/web,
# or $CARGO_TARGET_DIR/web when that is set), or into $1: the wasm, miniquad's
# JavaScript loader gl.js (from the miniquad crate's sources) and index.html. Serve the
# folder over HTTP, e.g. `python3 -m http.server -d target/web 8000`, and open
# http://localhost:8000. The browser build starts on the 2D demo (no files).
set -euo pipefail
cd "$(dirname "$0")/../../.."
# Where cargo puts what it builds: CARGO_TARGET_DIR, build.target-dir of a cargo
# config, or target/; cargo metadata knows.
target_dir="$(cargo metadata --format-version 1 --no-deps |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')"
out="${1:-$target_dir/web}"

if command -v rustup >/dev/null 2>&1; then
    rustup target add wasm32-unknown-unknown >/dev/null
fi
# No debug info in the page (the release profile keeps some for profiling).
CARGO_PROFILE_RELEASE_DEBUG=0 CARGO_PROFILE_RELEASE_STRIP=true \
    cargo build --release -p crowdnav-viewer --target wasm32-unknown-unknown

# miniquad's gl.js is all the loader the viewer needs (no audio, no other plugins).
miniquad_dir="$(cargo metadata --format-version 1 --filter-platform wasm32-unknown-unknown |
    python3 -c 'import json, os, sys
m = json.load(sys.stdin)
print(next(os.path.dirname(p["manifest_path"]) for p in m["packages"] if p["name"] == "miniquad"))')"

mkdir -p "$out"
cp "$target_dir/wasm32-unknown-unknown/release/crowdnav-view.wasm" "$out/"
cp "$miniquad_dir/js/gl.js" "$out/"
cp crates/crowdnav-viewer/web/index.html "$out/"
echo "built $out: $(du -h "$out/crowdnav-view.wasm" | cut -f1) of wasm"
