#!/usr/bin/env bash
# The viewer's headless test: installs Xvfb and the run-time GL/X11 libraries that
# miniquad loads (building needs no -dev package), then runs the viewer under
# xvfb-run for the 2D demo, a scenario file, the 3D view and the space scene and
# checks the PNGs it saved. Called from .ci/run; safe to run by hand (needs root or
# the packages already installed).
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES="xvfb xauth libgl1 libgl1-mesa-dri libglx-mesa0 libx11-6 libxi6"
if ! command -v xvfb-run >/dev/null 2>&1 || ! ldconfig -p 2>/dev/null | grep -q 'libGL.so.1'; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "== installing $PACKAGES"
        apt-get update -qq
        # shellcheck disable=SC2086
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $PACKAGES >/dev/null
    else
        echo "viewer-test: cannot install $PACKAGES (not root or no apt-get); the headless test will skip" >&2
    fi
fi

echo "== viewer headless test"
cargo test -p crowdnav-viewer --test headless -- --nocapture --test-threads=1
