# Session 7 (issue 48 item 5), one H200: a device build of .device/src.tar.gz (git archive HEAD:
# nnwb-cli and the fused block's parity and gradient tests), both tests on the H200, then 5x8 rows
# alternating three times on cores 0-7, 2 s a run: "old" (.device/bin/nnwb-cli, built here
# before the change), "one" (the new build with NNWB_CL_BLOCK_SPREAD=1: a work-group per sample)
# and "new" (the new build's default: the shape rule); then the profile of 5x8 b1 both ways.
# Everything printed is also in $OUT/spread.txt.
set -u
exec > >(tee $OUT/spread.txt) 2>&1
source .device/setup.sh
export NNWB_RESOURCE_DIR=$PWD/resources
D=opencl:$P:0 C="taskset -c 0-7" OLD=$PWD/.device/bin/nnwb-cli NEW=/tmp/bd/app/nnwb-cli
t0=$(date +%s)
JOBS=16 bash .device/srcbuild.sh nnwb-cli tst_parity_attention_block tst_gradcheck_fused_block > /tmp/build.txt 2>&1 || { cat /tmp/build.txt; exit 1; }
tail -1 /tmp/build.txt
for t in tst_parity_attention_block tst_gradcheck_fused_block; do
    echo "== $t on the machine ($(( $(date +%s) - t0 )) s in)"
    timeout 150 $C /tmp/bd/tests/$t > $OUT/$t.txt 2>&1; echo "exit $?"; tail -3 $OUT/$t.txt
done
for rep in 1 2 3; do
    for row in "--batch 1" "--batch 64" "--batch 1 --population 8"; do
        for arm in old one new; do
            bin=$NEW; env=""; [ $arm = old ] && bin=$OLD; [ $arm = one ] && env="NNWB_CL_BLOCK_SPREAD=1"
            echo "$rep $arm $row: $(env $env $C $bin bench --device $D --preset mql5-fractal-5x8 $row --seconds 2 2>&1 | tail -1)"
        done; done; done
for arm in one new; do env=""; [ $arm = one ] && env="NNWB_CL_BLOCK_SPREAD=1"
    echo "== profile $arm 5x8 b1"
    env $env NNWB_CL_PROFILE=1 $C $NEW bench --device $D --preset mql5-fractal-5x8 --batch 1 --seconds 2 --top 8 2>&1 | tail -11
done
echo "== done in $(( $(date +%s) - t0 )) s"
