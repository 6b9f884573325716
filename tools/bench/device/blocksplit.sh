# Session 9 (issue 48 item 1), one H200, call 2: the split fused block (blocks that do not fit a
# work-group's local memory in a few launches) against the local-memory block and per op, for
# the automatic rule; and an A/B of the training step's upload (transformer-64 b256).
# Everything printed is also in $OUT/blocksplit.txt ($OUT/<test>.txt: each test's output).
#   a device build of .device/src.tar.gz (git archive of the measured commit): nnwb-cli and the
#   block's GPU tests ($TESTS), which then run one after the other on cores 12-15 with the ICD
#   loader shown NVIDIA's driver only, in the background;
#   on cores 0-7, alternating (REPS rounds, default 2, a third while time is left): 12x12 b1 / b64,
#   5x8 b1 / b64 and 5x8 b1 --population 128, each with NNWB_CL_BLOCK_SPLIT=1, NNWB_CL_BLOCK_SPLIT=0
#   and NNWB_FUSED=0, 2 s a run (the bench line has launches a step);
#   profiles (--top 24) of 12x12 b64 and b1 with NNWB_CL_BLOCK_SPLIT=1;
#   transformer-64 b256 alternating twice between this build and the same tree with
#   .device/upload_blocking.py (upload's blocking write of before b5e8f13; an incremental
#   rebuild of nnwb-cli on cores 8-11 once the tests are built).
# Each arm's line: "ARM PRESET:BATCH[:pPOP]: <bench line>".
set -u
exec > >(tee $OUT/blocksplit.txt) 2>&1
source .device/setup.sh
export NNWB_RESOURCE_DIR=/tmp/src/resources
D=opencl:$P:0 C="taskset -c 0-7" B=/tmp/nnwb-main R0=$PWD
t0=$(date +%s); LIMIT=${LIMIT:-470}
el() { echo "$(( $(date +%s) - t0 )) s in"; }
TESTS="tst_parity_attention_block tst_gradcheck_fused_block tst_opencl_backend"
JOBS=16 bash .device/srcbuild.sh nnwb-cli $TESTS > /tmp/build.txt 2>&1 || { cat /tmp/build.txt; exit 1; }
tail -1 /tmp/build.txt
cp /tmp/bd/app/nnwb-cli $B
mkdir -p /tmp/nvonly; echo libnvidia-opencl.so.1 > /tmp/nvonly/nvidia.icd
deadline=$(( t0 + LIMIT - 10 ))
( for t in $TESTS; do left=$(( deadline - $(date +%s) )); [ $left -lt 5 ] && { echo "$t: not run (no time left)"; continue; }
      s=$(date +%s)
      OCL_ICD_VENDORS=/tmp/nvonly timeout $left taskset -c 12-15 /tmp/bd/tests/$t > $OUT/$t.txt 2>&1
      echo "$t: exit $? in $(( $(date +%s) - s )) s: $(grep -a -m1 '^\[  PASSED\|^\[  FAILED' $OUT/$t.txt) $(grep -a -c '^\[       OK' $OUT/$t.txt) OK, $(grep -a -c '^\[  FAILED  \] [A-Za-z]' $OUT/$t.txt) failed"
  done ) > /tmp/tests_sum.txt 2>&1 &
TP=$!
( cd /tmp/src && python3 $R0/.device/upload_blocking.py /tmp/src && taskset -c 8-11 cmake --build /tmp/bd -j4 --target nnwb-cli > /tmp/build2.txt 2>&1 \
  && cp /tmp/bd/app/nnwb-cli /tmp/nnwb-upload-blocking && echo "variant built" ) > /tmp/variant.txt 2>&1 &
VP=$!
run() { # arm preset:batch[:pPOP]
    local env="" pop=""; IFS=: read pre b p <<< "$2"; [ -n "$p" ] && pop="--population ${p#p}"
    case $1 in split1) env=NNWB_CL_BLOCK_SPLIT=1;; split0) env=NNWB_CL_BLOCK_SPLIT=0;; per-op) env=NNWB_FUSED=0;; esac
    echo "$1 $2: $(env $env $C $B bench --device $D --preset $pre --batch $b $pop --seconds 2 2>&1 | tail -1)"
}
ROWS="mql5-fractal-12x12:1 mql5-fractal-12x12:64 mql5-fractal-5x8:1 mql5-fractal-5x8:64 mql5-fractal-5x8:1:p128"
for rep in 1 2 3; do
    [ $rep -gt ${REPS:-2} ] && [ $(( $(date +%s) - t0 )) -gt $(( LIMIT - 150 )) ] && break
    echo "== round $rep ($(el))"
    for row in $ROWS; do for arm in split1 split0 per-op; do run $arm $row; done; done
done
for b in 64 1; do echo "== profile 12x12 b$b, NNWB_CL_BLOCK_SPLIT=1 ($(el))"
    NNWB_CL_BLOCK_SPLIT=1 NNWB_CL_PROFILE=1 $C $B bench --device $D --preset mql5-fractal-12x12 --batch $b --seconds 2 --top 24 2>&1 | tail -n +2 | head -40
done
wait $VP; cat /tmp/variant.txt | tail -3
if [ -x /tmp/nnwb-upload-blocking ]; then echo "== transformer-64 b256: this build / upload-blocking variant ($(el))"
    for rep in 1 2; do for bin in /tmp/nnwb-main /tmp/nnwb-upload-blocking; do
        echo "${bin#/tmp/nnwb-}: $($C $bin bench --device $D --preset transformer-64 --batch 256 --seconds 2 2>&1 | tail -1)"; done; done
else tail -5 /tmp/build2.txt; fi
echo "== waiting for the tests ($(el))"
wait $TP; cat /tmp/tests_sum.txt
echo "== done in $(( $(date +%s) - t0 )) s"
