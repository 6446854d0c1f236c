#!/usr/bin/env bash
# Fuzz smoke test: runs every cargo-fuzz target in fuzz/ briefly.
#
#   .ci/fuzz-smoke.sh            # 25 s per target (8 targets, about 4 minutes)
#   FUZZ_SECONDS=10 .ci/fuzz-smoke.sh
#
# Needs a nightly toolchain (libFuzzer's sanitizer flags) and cargo-fuzz, which it
# installs when missing. When it cannot run, it says so and exits 0 with SKIPPED, so
# CI can tell "skipped" from "passed"; set FUZZ_REQUIRED=1 to make that a failure.
# A crash, hang (10 s per input) or leak fails the script with the target's name; the
# input is left in fuzz/artifacts/<target>/.
#
# Targets with a known, still-open bug (frozen as #[ignore]d tests) are listed in
# KNOWN_FAILING (space-separated): their crashes are reported as KNOWN FAILURE and do
# not fail the script unless FUZZ_STRICT=1. Remove a target from the list when its bug
# is fixed. None is open.
KNOWN_FAILING="${KNOWN_FAILING:-}"
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${FUZZ_SECONDS:-25}"
skip() {
    echo "fuzz-smoke: SKIPPED: $*"
    if [ "${FUZZ_REQUIRED:-0}" = 1 ]; then exit 1; fi
    exit 0
}

command -v rustup >/dev/null || skip "rustup not found"
rustup toolchain list | grep -q '^nightly' || skip "no nightly toolchain (rustup toolchain install nightly)"
if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "fuzz-smoke: installing cargo-fuzz"
    cargo install cargo-fuzz --locked || skip "cannot install cargo-fuzz"
fi

targets=$(cargo +nightly fuzz list)
echo "fuzz-smoke: building $(echo $targets | wc -w) targets"
cargo +nightly fuzz build -O

failed=()
for t in $targets; do
    work=$(mktemp -d)
    cp fuzz/corpus/"$t"/* "$work"/ 2>/dev/null || true
    echo "fuzz-smoke: $t for ${seconds} s"
    if cargo +nightly fuzz run -O "$t" "$work" -- \
        -max_total_time="$seconds" -timeout=10 -max_len=4096 -print_final_stats=1 \
        >"$work/log" 2>&1; then
        runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/log" | grep -o '[0-9]*$' || echo '?')
        echo "fuzz-smoke: $t ok ($runs inputs)"
    elif [ "${FUZZ_STRICT:-0}" != 1 ] && [[ " $KNOWN_FAILING " == *" $t "* ]]; then
        grep -m1 -A1 'panicked at' "$work/log" || tail -n 5 "$work/log"
        echo "fuzz-smoke: $t KNOWN FAILURE (open bug, see KNOWN_FAILING above)"
    else
        tail -n 30 "$work/log"
        failed+=("$t")
    fi
    rm -rf "$work"
done

if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz-smoke: FAILED: ${failed[*]}"
    exit 1
fi
echo "fuzz-smoke: all targets ok"
