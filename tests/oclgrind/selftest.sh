#!/usr/bin/env bash
# Proves that the oclgrind runner fails on a kernel error: copies the kernels, makes copy_f32
# read far past its source buffer, runs the copy parity test under the runner and requires a
# failure that quotes oclgrind's "Invalid read" report.
#   selftest.sh RUNNER PARITY_OPS_EXECUTABLE KERNEL_DIR
set -uo pipefail
# Every case of the copy test, whatever slice `check` runs the other oclgrind tests with.
unset NNWB_PARITY_SLICE
runner="$1" exe="$2" kernels="$3"
dir="$(mktemp -d "${TMPDIR:-/tmp}/oclgrind-selftest-XXXXXX")"
trap 'rm -rf "$dir"' EXIT
cp "$kernels"/*.cl "$dir"/
sed -i 's/dst\[i\] = src\[i\];/dst[i] = src[i + 100000];/' "$dir/elementwise.cl"
grep -q 'src\[i + 100000\]' "$dir/elementwise.cl" || { echo "selftest: patch failed" >&2; exit 1; }
out="$(NNWB_KERNEL_DIR="$dir" bash "$runner" "$exe" --gtest_filter=ParityOps.copy 2>&1)"
status=$?
if [ $status -eq 0 ]; then
    echo "selftest: the runner passed a kernel with an out-of-bounds read" >&2
    echo "$out" >&2
    exit 1
fi
if ! grep -q "Invalid read" <<<"$out"; then
    echo "selftest: the runner failed, but not with oclgrind's Invalid read report:" >&2
    echo "$out" >&2
    exit 1
fi
echo "selftest: out-of-bounds read reported and the run failed, as it should"
