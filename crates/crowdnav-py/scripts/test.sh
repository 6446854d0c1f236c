#!/usr/bin/env bash
# Builds crowdnav's Python package the way a user installs it (`pip install
# ./crates/crowdnav-py`, maturin as the PEP 517 backend) into a fresh virtual
# environment, then runs its tests with pytest. Extra arguments go to pytest.
#
#   bash crates/crowdnav-py/scripts/test.sh            # everything
#   bash crates/crowdnav-py/scripts/test.sh -k rvo2    # some tests
#
# The tests that compare with Python-RVO2 use the PyPI fork `pyrvo2-danieldugas`
# when it builds (it needs a C++ compiler), and say they were skipped otherwise.
#
# Environment: PYTHON (default python3, >= 3.9), CROWDNAV_PY_VENV (default
# target/py-venv; removed and made anew), CROWDNAV_PY_REUSE=1 to keep an existing
# environment and only reinstall the package (faster, for development).
set -euo pipefail
crate="$(cd "$(dirname "$0")/.." && pwd)"
root="$(cd "$crate/../.." && pwd)"
venv="${CROWDNAV_PY_VENV:-$root/target/py-venv}"
python="${PYTHON:-python3}"

if ! command -v "$python" >/dev/null 2>&1; then
    echo "crowdnav-py: $python not found; the Python package cannot be tested" >&2
    exit 1
fi
if [ "${CROWDNAV_PY_REUSE:-0}" != 1 ] || [ ! -x "$venv/bin/python" ]; then
    rm -rf "$venv"
    "$python" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --upgrade pip
    "$venv/bin/python" -m pip install --quiet pytest gymnasium pandas
    # A real Python-RVO2 (the C++ library behind Cython) for the comparison tests,
    # built from its PyPI fork's source; when it does not build, those tests say
    # they were skipped.
    if ! "$venv/bin/python" -m pip install --quiet pyrvo2-danieldugas; then
        echo "crowdnav-py: pyrvo2-danieldugas did not install; the comparisons with Python-RVO2 will be skipped" >&2
    fi
    # PedPy, to check that it loads run()'s trajectories; optional likewise.
    if ! "$venv/bin/python" -m pip install --quiet "pedpy>=1.1,<2"; then
        echo "crowdnav-py: pedpy did not install; the PedPy test will be skipped" >&2
    fi
fi
echo "== pip install ./crates/crowdnav-py (into $venv)"
"$venv/bin/python" -m pip install --quiet --force-reinstall --no-deps "$crate"
"$venv/bin/python" -m pip install --quiet "$crate"
echo "== pytest crates/crowdnav-py/tests"
# From the crate's folder, so that `import crowdnav` is the installed package.
cd "$crate"
"$venv/bin/python" -m pytest tests -q -rs "$@"
