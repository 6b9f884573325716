#!/usr/bin/env bash
# Runs one test executable with oclgrind as its only OpenCL platform, checking every kernel
# launch for out-of-bounds accesses, reads of uninitialized values, data races and API misuse.
# Fails when the test fails or when oclgrind reports anything (its log must stay empty).
#   run_under_oclgrind.sh TEST_EXECUTABLE [ARGS...]   (e.g. --gtest_filter=ParityOps.copy)
set -uo pipefail
log="$(mktemp "${TMPDIR:-/tmp}/oclgrind-XXXXXX.log")"
# oclgrind opens --log anew (truncating it) for every OpenCL context, so a test that opens a
# second context would erase what the first one reported. The log is therefore a FIFO whose
# reader appends everything to $log; a sentinel written after oclgrind exits shows that the
# reader has drained it.
fifo="$(mktemp -u "${TMPDIR:-/tmp}/oclgrind-XXXXXX.fifo")"
mkfifo "$fifo"
(while :; do cat "$fifo" >> "$log"; done) < /dev/null 2> /dev/null &
reader=$!
# At exit: the loop stopped, then its last cat (waiting for a writer) released by one.
trap 'kill $reader 2>/dev/null; timeout 2 sh -c ": > \"\$0\"" "$fifo" 2>/dev/null; rm -f "$log" "$fifo"' EXIT
# Small cases only: oclgrind interprets every work-item.
export NNWB_PARITY_MAX_VALUES="${NNWB_PARITY_MAX_VALUES:-6000}"
export NNWB_NO_KERNEL_CACHE=1
# -cl-opt-disable: the optimised kernels contain LLVM `freeze` instructions, which the
# uninitialized-value checker of oclgrind 21.10 cannot interpret (a fatal error per kernel).
oclgrind --check-api --data-races --uninitialized --max-errors 20 \
    --build-options -cl-opt-disable --log "$fifo" "$@"
status=$?
sentinel="== end of oclgrind log $$"
echo "$sentinel" > "$fifo"
for _ in $(seq 100); do grep -qF "$sentinel" "$log" && break; sleep 0.1; done
grep -qF "$sentinel" "$log" || { echo "== the oclgrind log reader did not drain" >&2; exit 1; }
sed -i "/^$sentinel\$/d" "$log"
if [ -s "$log" ]; then
    echo "== oclgrind reported problems in $(basename "$1"):" >&2
    cat "$log" >&2
    exit 1
fi
if [ $status -ne 0 ]; then
    echo "== $(basename "$1") failed under oclgrind (exit $status)" >&2
    exit $status
fi
echo "== oclgrind: no errors in $(basename "$1")"
