#!/usr/bin/env bash
# Proves that the ThreadSanitizer build reports what it should and no more: a plain data race
# and a payload handed over by a bare Qt queued call must be reported, with the race summary
# in the self-test's own code (so the suppressions hide no nnwb code); the same hand-off
# through CallQueue must be clean.
#   tsan_selftest.sh TSAN_SELFTEST_EXECUTABLE   (TSAN_OPTIONS as for the TSan tests)
set -uo pipefail
exe="$1"
fail=0

expect_race() {
    local mode="$1" where="$2" out status
    out="$("$exe" "$mode" 2>&1)"
    status=$?
    if [ $status -eq 0 ] || ! grep -q "WARNING: ThreadSanitizer: data race" <<<"$out" ||
        ! grep "^SUMMARY: ThreadSanitizer: data race" <<<"$out" | grep -q "$where"; then
        echo "selftest $mode: expected a data race report in $where (exit $status):" >&2
        echo "$out" >&2
        fail=1
    else
        echo "selftest $mode: race in $where reported and the run failed, as it should"
    fi
}

expect_race plain plainRaceWrite
expect_race queued "tsan_selftest.cpp"

out="$("$exe" callqueue 2>&1)"
status=$?
if [ $status -ne 0 ] || grep -q "ThreadSanitizer" <<<"$out"; then
    echo "selftest callqueue: the CallQueue hand-off should be clean (exit $status):" >&2
    echo "$out" >&2
    fail=1
else
    echo "selftest callqueue: clean, as it should be"
fi
exit $fail
