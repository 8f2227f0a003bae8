#!/usr/bin/env bash
# Runs CI (`bash .ci/run`, as CI does: CI=true, a fresh clone of the committed HEAD) with one
# core kept busy the whole time, RUNS times in a row (default 1), and prints each run's result
# and wall time. Users' machines are never idle: run it before you stop. Not part of CI itself.
#
#   Scripts/ci-under-load.sh [RUNS]
#
# The load is `stress-ng --cpu 1` when stress-ng is installed (the script installs it with
# apt-get where it can), else a shell busy loop; either is stopped when the script ends.
set -uo pipefail
runs="${1:-1}"
root="$(cd "$(dirname "$0")/.." && pwd)"
if ! command -v stress-ng >/dev/null && command -v apt-get >/dev/null; then
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get install -y stress-ng >/dev/null 2>&1 || { $SUDO apt-get update >/dev/null 2>&1 && $SUDO apt-get install -y stress-ng >/dev/null 2>&1; } || true
fi
if command -v stress-ng >/dev/null; then
    stress-ng --cpu 1 --timeout 0 >/dev/null 2>&1 &
    load="stress-ng --cpu 1"
else
    ( while :; do :; done ) &
    load="a busy loop"
fi
loader=$!
trap 'kill "$loader" 2>/dev/null; pkill -P "$loader" 2>/dev/null' EXIT
failed=0
for run in $(seq "$runs"); do
    clone="$(mktemp -d)"
    git clone -q "$root" "$clone"
    log="$clone.log"
    start=$(date +%s)
    (cd "$clone" && CI=true bash .ci/run </dev/null >"$log" 2>&1)
    status=$?
    echo "run $run of $runs under $load: exit $status after $(( $(date +%s) - start )) s — $(grep -E 'Test run with' "$log" | head -1) (log: $log)"
    [ "$status" -eq 0 ] || failed=1
    rm -rf "$clone"
done
exit "$failed"
