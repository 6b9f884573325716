# The speed table on a machine with ONE H200 (16 cores), in two calls on the same warm machine
# (each under the 600 s limit); everything printed is also in $OUT/table<part>.txt.
#   bash .device/table1.sh 1   device build of nnwb-cli and tst_parity_gemm (srcbuild.sh); nnwb on
#                              the GPU (cores 0-7: default, NNWB_FUSED=0, --precision high,
#                              profiles) while the CPU rows run on cores 8-9 (nnwb and torch CPU,
#                              2 threads each); tst_parity_gemm on the H200; the 64-trial bench
#                              sweep with 8 slots (its summary line: without --quiet, which hides
#                              the trials/hour line too) while time is left.
#   bash .device/table1.sh 2   the peers on the GPU one after the other (cores 0-7: eager, graph,
#                              compile, compile at precision high) while the CPU population runs
#                              on cores 8-9.
set -u
part=${1:-1}
exec > >(tee $OUT/table$part.txt) 2>&1
source .device/setup.sh
source .device/gpu-rows.sh
B=/tmp/bd/app/nnwb-cli D=opencl:$P:0 R=.device/torch_peer.py
ROWS="mql5-fractal-5x8:1 mql5-fractal-5x8:64 mql5-fractal-12x12:1 mql5-fractal-12x12:64 transformer-64:256"
t0=$(date +%s)
if [ "$part" = 1 ]; then
    JOBS=16 bash .device/srcbuild.sh nnwb-cli tst_parity_gemm > /tmp/build.txt 2>&1 || { cat /tmp/build.txt; exit 1; }
    tail -1 /tmp/build.txt
    cpu_rows "$ROWS" > /tmp/cpu.txt 2>&1 &  # gpu-rows.sh
    CP=$!
    echo "== nnwb GPU rows (cores 0-7): default, then NNWB_FUSED=0"
    gpu_rows "$ROWS"
    high_rows
    profile_rows 14 "mql5-fractal-12x12:64 transformer-64:256 mql5-fractal-12x12:1"
    wait $CP; echo "== CPU rows (cores 8-9)"; cat /tmp/cpu.txt
    echo "== tst_parity_gemm on $D ($(( $(date +%s) - t0 )) s in)"
    timeout 120 /tmp/bd/tests/tst_parity_gemm > $OUT/parity_gemm.txt 2>&1; echo "exit $?"; tail -4 $OUT/parity_gemm.txt
    left=$(( 560 - ($(date +%s) - t0) ))
    if [ $left -gt 40 ]; then
        mkdir -p /tmp/one; echo "== sweep, one H200, 8 slots (limit $left s)"
        timeout $left $B sweep run tools/bench/sweep-5x8-asha.json --slots $D=8 --runs-db /tmp/one/runs.sqlite 2>&1 | tail -1
    fi
else
    peer_rows  # gpu-rows.sh
fi
echo "== done in $(( $(date +%s) - t0 )) s"
