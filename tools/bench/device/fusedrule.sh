# Session 8 (issue 48 items 1 and 4), one H200: which fused piece makes 12x12 b64's default
# slower than per op, and the GPU parity tests with NVIDIA's driver alone. Everything printed is
# also in $OUT/fusedrule.txt ($OUT/parity.txt: the parity tests' output).
#   a device build of .device/src.tar.gz (git archive HEAD): nnwb-cli and every parity test;
#   the parity tests one after the other on cores 8-15 with the ICD loader shown NVIDIA's driver
#   only (OCL_ICD_VENDORS), in the background, while on cores 0-7:
#   12x12 b64 and b1 alternating three times: the default, NNWB_FUSED=0, NNWB_GEMM_LONGK=0;
#   12x12 b4 / b16 / b32 and 5x8 b64 alternating twice, default and NNWB_FUSED=0 (12x12's blocks
#   run per op both ways: the difference is the dense chain);
#   the profiles (--top 40) of 12x12 b64 in the three modes and of 5x8 b64 and 12x12 b1 both ways.
#   The device-built nnwb-cli comes back in $OUT (the "old" binary of a later call).
set -u
exec > >(tee $OUT/fusedrule.txt) 2>&1
source .device/setup.sh
export NNWB_RESOURCE_DIR=/tmp/src/resources
D=opencl:$P:0 C="taskset -c 0-7" B=/tmp/bd/app/nnwb-cli
t0=$(date +%s)
TESTS="tst_parity_attention_block tst_parity_dense_chain tst_parity_attention tst_parity_attention_core
 tst_parity_ops tst_parity_population tst_parity_dropout tst_parity_gemm tst_parity_lightconv
 tst_parity_tf32 tst_opencl_backend"
JOBS=16 bash .device/srcbuild.sh nnwb-cli $TESTS > /tmp/build.txt 2>&1 || { cat /tmp/build.txt; exit 1; }
tail -1 /tmp/build.txt
cp $B $OUT/nnwb-cli
mkdir -p /tmp/nvonly; echo libnvidia-opencl.so.1 > /tmp/nvonly/nvidia.icd
deadline=$(( t0 + 560 ))
( for t in $TESTS; do left=$(( deadline - $(date +%s) )); [ $left -lt 5 ] && { echo "$t: not run (no time left)"; continue; }
      s=$(date +%s); echo "===== $t" >> $OUT/parity.txt
      OCL_ICD_VENDORS=/tmp/nvonly timeout $left taskset -c 8-15 /tmp/bd/tests/$t >> $OUT/parity.txt 2>&1
      echo "$t: exit $? in $(( $(date +%s) - s )) s"; done ) > /tmp/parity_sum.txt 2>&1 &
PP=$!
run() { # arm preset batch
    local env=""; [ $1 = per-op ] && env=NNWB_FUSED=0; [ $1 = longk0 ] && env=NNWB_GEMM_LONGK=0
    echo "$1: $(env $env $C $B bench --device $D --preset $2 --batch $3 --seconds 2 2>&1 | tail -1)"
}
echo "== alternating, 2 s a run ($(( $(date +%s) - t0 )) s in)"
for rep in 1 2 3; do for b in 64 1; do for arm in default per-op longk0; do
    run $arm mql5-fractal-12x12 $b; done; done; done
for rep in 1 2; do for row in mql5-fractal-12x12:4 mql5-fractal-12x12:16 mql5-fractal-12x12:32 mql5-fractal-5x8:64; do
    IFS=: read pre b <<< "$row"; for arm in default per-op; do run $arm $pre $b; done; done; done
for row in mql5-fractal-12x12:64:default mql5-fractal-12x12:64:per-op mql5-fractal-12x12:64:longk0 \
           mql5-fractal-5x8:64:default mql5-fractal-5x8:64:per-op mql5-fractal-12x12:1:default mql5-fractal-12x12:1:per-op; do
    IFS=: read pre b arm <<< "$row"; env=""; [ $arm = per-op ] && env=NNWB_FUSED=0; [ $arm = longk0 ] && env=NNWB_GEMM_LONGK=0
    echo "== profile $pre b$b $arm ($(( $(date +%s) - t0 )) s in)"
    env $env NNWB_CL_PROFILE=1 $C $B bench --device $D --preset $pre --batch $b --seconds 2 --top 40 2>&1 | tail -n +2 | head -80
done
echo "== waiting for the parity tests ($(( $(date +%s) - t0 )) s in)"
wait $PP; cat /tmp/parity_sum.txt
echo "== done in $(( $(date +%s) - t0 )) s"
