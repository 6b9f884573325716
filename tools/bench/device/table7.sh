# Session 7 (issue 48): the one-run table on a machine with ONE H200 (16 cores), in two calls on
# the same warm machine; everything printed is also in $OUT/table7_<part>.txt.
#   bash .device/table7.sh 1   device build of .device/src.tar.gz (git archive HEAD: nnwb-cli and
#                              two parity tests); nnwb's GPU rows on cores 0-7 (default and
#                              NNWB_FUSED=0, --precision high, profiles of 12x12 b64,
#                              transformer-64 and 5x8 b1) while the CPU rows run on cores 8-9
#                              (nnwb and torch CPU, 2 threads each, one after the other); then the
#                              64-trial bench sweep with 8 slots (kept workers, the default), the
#                              fused block's spread rows and tst_parity_gemm on the machine.
#   bash .device/table7.sh 2   the peers on the GPU one mode after the other (cores 0-7: eager,
#                              graph, compile; compile at --precision high for two rows) while
#                              the CPU population (5x8 b1, P = 1 / 8 / 32) runs on cores 8-9.
set -u
part=${1:-1}
exec > >(tee $OUT/table7_$part.txt) 2>&1
source .device/setup.sh
source .device/gpu-rows.sh
export NNWB_RESOURCE_DIR=/tmp/src/resources
B=/tmp/bd/app/nnwb-cli D=opencl:$P:0 R=.device/torch_peer.py
ROWS="mql5-fractal-5x8:1 mql5-fractal-5x8:64 mql5-fractal-12x12:1 mql5-fractal-12x12:64 transformer-64:256"
t0=$(date +%s)
if [ "$part" = 1 ]; then
    JOBS=16 bash .device/srcbuild.sh nnwb-cli tst_parity_gemm tst_parity_attention_block > /tmp/build.txt 2>&1 || { cat /tmp/build.txt; exit 1; }
    tail -1 /tmp/build.txt
    cpu_rows "$ROWS" > /tmp/cpu.txt 2>&1 &  # gpu-rows.sh
    CP=$!
    echo "== nnwb GPU rows (cores 0-7): default, then NNWB_FUSED=0"
    gpu_rows "$ROWS"
    echo "== --precision high"
    high_rows
    profile_rows 14 "mql5-fractal-12x12:64 transformer-64:256 mql5-fractal-5x8:1"
    wait $CP; echo "== CPU rows (cores 8-9, $(( $(date +%s) - t0 )) s in)"; cat /tmp/cpu.txt
    mkdir -p /tmp/one; echo "== sweep, one H200, 8 slots, kept workers (cores 0-7)"
    timeout 150 taskset -c 0-7 $B sweep run tools/bench/sweep-5x8-asha.json --slots $D=8 --runs-db /tmp/one/runs.sqlite 2>&1 | tail -2
    # the parity tests on the H200 alone (the ICD loader shown NVIDIA's driver only: the
    # machine's PoCL would build every kernel first)
    mkdir -p /tmp/nvonly; echo libnvidia-opencl.so.1 > /tmp/nvonly/nvidia.icd
    echo "== tst_parity_attention_block spread rows ($(( $(date +%s) - t0 )) s in)"
    OCL_ICD_VENDORS=/tmp/nvonly timeout 60 /tmp/bd/tests/tst_parity_attention_block --gtest_filter='*spread*:*fractal*' > $OUT/parity_block.txt 2>&1; echo "exit $?"; tail -3 $OUT/parity_block.txt
    left=$(( 570 - ($(date +%s) - t0) ))
    echo "== tst_parity_gemm (limit $left s)"
    OCL_ICD_VENDORS=/tmp/nvonly timeout $left /tmp/bd/tests/tst_parity_gemm > $OUT/parity_gemm.txt 2>&1; echo "exit $?"; tail -3 $OUT/parity_gemm.txt; grep -m5 -A4 Failure $OUT/parity_gemm.txt
else
    [ -x $B ] || { echo "no build in /tmp (a fresh machine): run part 1 first"; exit 1; }
    peer_rows  # gpu-rows.sh
fi
echo "== done in $(( $(date +%s) - t0 )) s"
