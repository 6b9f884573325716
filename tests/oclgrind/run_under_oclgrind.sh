#!/usr/bin/env bash
# Runs one test executable with oclgrind as its only OpenCL platform, checking every kernel
# launch for out-of-bounds accesses, reads of uninitialized values, data races and API misuse.
# Fails when the test fails or when oclgrind reports anything (its log must stay empty).
#   run_under_oclgrind.sh TEST_EXECUTABLE [ARGS...]   (e.g. --gtest_filter=ParityOps.copy)
set -uo pipefail
log="$(mktemp "${TMPDIR:-/tmp}/oclgrind-XXXXXX.log")"
trap 'rm -f "$log"' EXIT
# Small cases only: oclgrind interprets every work-item.
export NNWB_PARITY_MAX_VALUES="${NNWB_PARITY_MAX_VALUES:-6000}"
export NNWB_NO_KERNEL_CACHE=1
# -cl-opt-disable: the optimised kernels contain LLVM `freeze` instructions, which the
# uninitialized-value checker of oclgrind 21.10 cannot interpret (a fatal error per kernel).
oclgrind --check-api --data-races --uninitialized --max-errors 20 \
    --build-options -cl-opt-disable --log "$log" "$@"
status=$?
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
