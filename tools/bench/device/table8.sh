# Session 8 (issue 48): the one-run table on a machine with ONE H200 (16 cores), in two calls on
# the same warm machine; everything printed is also in $OUT/table8_<part>.txt.
#   bash .device/table8.sh 1   device build of .device/src.tar.gz (git archive of the measured
#                              commit: nnwb-cli and three parity tests); nnwb's GPU rows on
#                              cores 0-7 (default and NNWB_FUSED=0, --precision high, the GPU
#                              population of 5x8 b1 at P = 1 / 32 / 128, profiles of 12x12 b64,
#                              transformer-64 and 5x8 b1) while the CPU rows run on cores
#                              8-9 (nnwb and torch CPU, 2 threads each, one after the other);
#                              then the 64-trial bench sweep with 8 slots (kept workers), and
#                              tst_parity_gemm, tst_opencl_backend and tst_parity_tf32 on the
#                              H200 alone, while time is left.
#   bash .device/table8.sh 2   the peers and the CPU population (gpu-rows.sh's peer_rows), then
#                              transformer-64 b256 alternating twice between .device/bin/
#                              nnwb-cli-0df3142 (startup.sh's device build: before 525ff69's bias
#                              fold and the start-up changes of issue 48 item 8 (b)) and this build
#                              and 0df3142's profile of it, then the bench sweep alternating twice
#                              between the two builds.
set -u
part=${1:-1}
exec > >(tee $OUT/table8_$part.txt) 2>&1
source .device/setup.sh
source .device/gpu-rows.sh
export NNWB_RESOURCE_DIR=/tmp/src/resources
B=/tmp/bd/app/nnwb-cli D=opencl:$P:0 R=$PWD/.device/torch_peer.py OLD=$PWD/.device/bin/nnwb-cli-0df3142
ROWS="mql5-fractal-5x8:1 mql5-fractal-5x8:64 mql5-fractal-12x12:1 mql5-fractal-12x12:64 transformer-64:256"
t0=$(date +%s)
sweep() {  # binary, folder: the bench sweep with 8 slots on cores 0-7, its closing lines
    mkdir -p $2; (cd /tmp/src && timeout 90 taskset -c 0-7 $1 sweep run tools/bench/sweep-5x8-asha.json \
        --slots $D=8 --runs-db $2/runs.sqlite 2>&1 | grep 'sweep 1 \(completed\|trial start-up\)')
}
if [ "$part" = 1 ]; then
    JOBS=16 bash .device/srcbuild.sh nnwb-cli tst_parity_gemm tst_opencl_backend tst_parity_tf32 > /tmp/build.txt 2>&1 || { cat /tmp/build.txt; exit 1; }
    tail -1 /tmp/build.txt
    cpu_rows "$ROWS" > /tmp/cpu.txt 2>&1 &  # gpu-rows.sh
    CP=$!
    echo "== nnwb GPU rows (cores 0-7): default, then NNWB_FUSED=0"
    gpu_rows "$ROWS"
    echo "== --precision high"
    high_rows
    echo "== GPU population, 5x8 b1"
    taskset -c 0-7 $B bench --device $D --preset mql5-fractal-5x8 --batch 1 --population 1 --population 32 --population 128 --seconds 2 2>&1 | tail -3
    profile_rows 14 "mql5-fractal-12x12:64 transformer-64:256 mql5-fractal-5x8:1"
    wait $CP; echo "== CPU rows (cores 8-9, $(( $(date +%s) - t0 )) s in)"; cat /tmp/cpu.txt
    echo "== sweep, one H200, 8 slots, kept workers (cores 0-7, $(( $(date +%s) - t0 )) s in)"
    sweep $B /tmp/one
    # the ICD loader shown NVIDIA's driver only (the machine's PoCL would build every kernel first)
    mkdir -p /tmp/nvonly; echo libnvidia-opencl.so.1 > /tmp/nvonly/nvidia.icd
    for t in tst_parity_gemm tst_opencl_backend tst_parity_tf32; do left=$(( 420 - ($(date +%s) - t0) ))
        [ $left -lt 20 ] && { echo "$t: not run (no time left)"; continue; }
        echo "== $t on the H200 alone (limit $left s)"
        OCL_ICD_VENDORS=/tmp/nvonly timeout $left /tmp/bd/tests/$t > $OUT/$t.txt 2>&1; echo "exit $?"
        tail -2 $OUT/$t.txt; grep -m5 -A4 Failure $OUT/$t.txt; done
else
    [ -x $B ] || { echo "no build in /tmp (a fresh machine): run part 1 first"; exit 1; }
    peer_rows
    for rep in 1 2; do for arm in old new; do bin=$B; [ $arm = old ] && bin=$OLD
        echo "$arm: $(taskset -c 0-7 $bin bench --device $D --preset transformer-64 --batch 256 --seconds 2 2>&1 | tail -1)"; done; done
    echo "== profile transformer-64 b256, 0df3142"
    NNWB_CL_PROFILE=1 taskset -c 0-7 $OLD bench --device $D --preset transformer-64 --batch 256 --seconds 2 --top 14 2>&1 | tail -n +2 | head -40
    for rep in 1 2; do for arm in old new; do bin=$B; [ $arm = old ] && bin=$OLD
        echo "== sweep $rep $arm ($(( $(date +%s) - t0 )) s in)"; sweep $bin /tmp/s$rep$arm; done; done
fi
echo "== done in $(( $(date +%s) - t0 )) s"
