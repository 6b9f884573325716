#!/usr/bin/env bash
# Every example sweep spec (resources/sweeps/*.json) runs: each is copied with runCap 2 and 1
# epoch (ASHA's maxResource 1; its experiment file, if any, made absolute), and `nnwb-cli sweep
# run` must finish it (`sweep show --json`: completed, both trials ended, at least one
# complete), on one CPU slot, into the test's own run store.
# Usage: example_sweeps.sh NNWB_CLI SWEEPS_DIR CMAKE [SPEC_NAME_REGEX]
set -euo pipefail
cli="$1" dir="$2" cmake="$3" only="${4:-.}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export NNWB_RUNS_DB="$work/runs.sqlite"
n=0
for spec in "$dir"/*.json; do
    name="$(basename "$spec" .json)"
    grep -qE "$only" <<<"$name" || continue
    tiny="$work/$name.json"
    "$cmake" -DIN="$spec" -DOUT="$tiny" -P "$(dirname "$0")/tiny_spec.cmake"
    start=$(date +%s)
    "$cli" sweep run "$tiny" --slots cpu=1 --quiet ||
        { echo "$spec: nnwb-cli sweep run failed"; exit 1; }
    n=$((n + 1))
    json="$("$cli" sweep show "$n" --json)"
    count() { grep -oE "\"$1\": *[0-9]+" <<<"$json" | head -1 | grep -oE '[0-9]+$' || echo 0; }
    complete="$(count complete)" ended=$(($(count complete) + $(count failed) + $(count pruned)))
    # At least one trial complete; the other may fail for what a 1-epoch model did (a trading
    # objective: no trades, so no Sharpe), never stay queued.
    grep -q '"status": *"completed"' <<<"$json" && [[ $complete -ge 1 && $ended == 2 ]] ||
        { echo "$spec: not 2 ended trials with one complete: $(grep -A6 '"counts"' <<<"$json")"; exit 1; }
    echo "$name: $complete of 2 trials complete in $(($(date +%s) - start)) s"
done
[[ $n -ge 1 ]] || { echo "no spec in $dir matched '$only'"; exit 1; }
