# Issue 48, session 5, the closing call: a device build of the snapshot, the table's CPU rows
# (nnwb and torch CPU, 2 threads each, cores 8-9, one row after the other), the CPU population
# (5x8 b1, P = 1 / 8 / 32 twice, then P = 2 / 4 / 16 and P = 32 with every product on AVX-512)
# and, with SWEEP=1, the 64-trial bench sweep on the H200 with 8
# slots (cores 0-7) after the CPU rows. Everything printed is also in $OUT/r7b.txt.
set -u
exec > >(tee $OUT/r7b.txt) 2>&1
source .device/setup.sh
B=/tmp/bd/app/nnwb-cli R=.device/torch_peer.py C="taskset -c 8,9"
ROWS="mql5-fractal-5x8:1 mql5-fractal-5x8:64 mql5-fractal-12x12:1 mql5-fractal-12x12:64 transformer-64:256"
t0=$(date +%s)
JOBS=16 bash .device/srcbuild.sh nnwb-cli > /tmp/build.txt 2>&1 || { cat /tmp/build.txt; exit 1; }
tail -1 /tmp/build.txt
echo "== CPU rows (cores 8-9)"
for row in $ROWS; do IFS=: read pre b <<< "$row"
    $C $B bench --device cpu --preset $pre --batch $b --seconds 3 2>&1 | tail -1
    timeout 100 $C python3 $R --device cpu --threads 2 --seconds 3 --only $row 2>&1 | grep samples; done
echo "== CPU population (cores 8-9, $(( $(date +%s) - t0 )) s in)"
for rep in 1 2; do $C $B bench --device cpu --preset mql5-fractal-5x8 --batch 1 --population 1 --population 8 --population 32 --seconds 3 2>&1 | tail -3; done
$C $B bench --device cpu --preset mql5-fractal-5x8 --batch 1 --population 2 --population 4 --population 16 --seconds 3 2>&1 | tail -3
NNWB_CPU_GEMM_ISA=avx512 $C $B bench --device cpu --preset mql5-fractal-5x8 --batch 1 --population 32 --seconds 3 2>&1 | tail -1
echo "perf: $(command -v perf || echo none)"
if [ "${SWEEP:-0}" = 1 ]; then
    left=$(( 560 - ($(date +%s) - t0) )); mkdir -p /tmp/one
    echo "== sweep, one H200, 8 slots (cores 0-7, limit $left s)"
    timeout $left taskset -c 0-7 $B sweep run tools/bench/sweep-5x8-asha.json --slots opencl:$P:0=8 --runs-db /tmp/one/runs.sqlite 2>&1 | tail -2
fi
echo "== done in $(( $(date +%s) - t0 )) s"
