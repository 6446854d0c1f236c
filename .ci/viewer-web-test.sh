#!/usr/bin/env bash
# The viewer in the browser: builds the wasm page (crates/crowdnav-viewer/web/build.sh),
# serves it on 127.0.0.1, opens it in headless Chromium, presses keys and checks a
# screenshot (crates/crowdnav-viewer/web/e2e.mjs). Installs chromium when root with
# apt-get; says clearly, and exits 0, when it could not run (no chromium, no node with
# WebSocket, no wasm target). The page is built in web/ and the screenshots are left in
# web-test/ of cargo's target directory (target/, or $CARGO_TARGET_DIR).
set -euo pipefail
cd "$(dirname "$0")/.."

skip() {
    echo "viewer-web-test: COULD NOT RUN: $*" >&2
    exit 0
}

chromium_bin="$(command -v chromium || command -v chromium-browser || true)"
if [ -z "$chromium_bin" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "== installing chromium"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null ||
        skip "apt-get could not install chromium"
    chromium_bin="$(command -v chromium || true)"
fi
[ -n "$chromium_bin" ] || skip "chromium is not installed"
command -v node >/dev/null 2>&1 || skip "node is not installed"
node_ws=(node)
if ! node -e 'if (typeof WebSocket === "undefined") process.exit(1)' 2>/dev/null; then
    node --experimental-websocket -e 'if (typeof WebSocket === "undefined") process.exit(1)' 2>/dev/null ||
        skip "this node has no WebSocket (needs node 20.10+)"
    node_ws=(node --experimental-websocket)
fi
if command -v rustup >/dev/null 2>&1; then
    rustup target add wasm32-unknown-unknown >/dev/null 2>&1 || skip "rustup could not add wasm32-unknown-unknown"
elif ! rustc --print target-list | grep -q wasm32-unknown-unknown; then
    skip "no wasm32-unknown-unknown target"
fi

target_dir="$(cargo metadata --format-version 1 --no-deps |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')"
web="$target_dir/web"
out="$target_dir/web-test"
echo "== building the page"
bash crates/crowdnav-viewer/web/build.sh "$web"
mkdir -p "$out"

port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
python3 -m http.server --bind 127.0.0.1 --directory "$web" "$port" >"$out/http.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
for _ in $(seq 50); do
    python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/')" 2>/dev/null && break
    sleep 0.1
done

echo "== headless chromium on http://127.0.0.1:$port/"
"${node_ws[@]}" crates/crowdnav-viewer/web/e2e.mjs "http://127.0.0.1:$port/index.html" "$out" "$chromium_bin"
