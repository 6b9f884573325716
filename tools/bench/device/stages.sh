# Session 7 (issue 48 item 5): where one fused block launch's time goes on the H200. The kernel
# folders .device/stages/fF_bB are kernels/ of HEAD with attention_block_forward cut short before
# its stage F + 1 and attention_block_backward before stage B + 1 (an early return; f9_b10 is
# whole), made here by tools/bench/device/stage_variants.py. Each runs through NNWB_KERNEL_DIR with
# .device/bin/nnwb-cli (built here), profiled, mql5-fractal-5x8 b1; then f0_b0 (empty block
# kernels) and f9_b10 unprofiled. Everything printed is also in $OUT/stages.txt.
set -u
exec > >(tee $OUT/stages.txt) 2>&1
source .device/setup.sh
export NNWB_RESOURCE_DIR=$PWD/resources
D=opencl:$P:0 C="taskset -c 0-7"
t0=$(date +%s)
for v in f9_b10 f0_b0 f1_b1 f2_b2 f4_b3 f5_b4 f6_b5 f7_b6 f8_b9 f9_b10; do
    echo "== $v"
    NNWB_KERNEL_DIR=.device/stages/$v NNWB_CL_PROFILE=1 $C $B bench --device $D --preset mql5-fractal-5x8 --batch 1 --seconds 1 --top 6 2>&1 | tail -9
done
for v in f0_b0 f9_b10 f0_b0 f9_b10; do
    echo "$v unprofiled: $(NNWB_KERNEL_DIR=.device/stages/$v $C $B bench --device $D --preset mql5-fractal-5x8 --batch 1 --seconds 2 2>&1 | tail -1)"
done
echo "== done in $(( $(date +%s) - t0 )) s"
