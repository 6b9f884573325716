# Session 8 (issue 48 items 1 and 2), one H200: a device build of .device/src.tar.gz (git archive
# HEAD, 0df3142: the dense chain's bound on weight reads and S's start-up breakdown, 26dca77), then
#   the 64-trial bench sweep with 8 slots and kept workers (cores 0-7), twice with this build
#   (its second closing line: where the trials' start-up went) and once between them with
#   .device/bin/nnwb-cli-b00503e (fusedrule.sh's device build of b00503e, before both);
#   12x12 b64 alternating four times between b00503e and this build (the only change on that row:
#   its dense head per op), 2 s a run, then this build's profile of that row (--top 40).
# Everything printed is also in $OUT/startup.txt; this build's nnwb-cli comes back in $OUT.
set -u
exec > >(tee $OUT/startup.txt) 2>&1
source .device/setup.sh
export NNWB_RESOURCE_DIR=/tmp/src/resources
D=opencl:$P:0 C="taskset -c 0-7" OLD=$PWD/.device/bin/nnwb-cli-b00503e NEW=/tmp/bd/app/nnwb-cli
t0=$(date +%s)
JOBS=16 bash .device/srcbuild.sh nnwb-cli > /tmp/build.txt 2>&1 || { cat /tmp/build.txt; exit 1; }
tail -1 /tmp/build.txt
cp $NEW $OUT/nnwb-cli
n=0
for arm in new old new; do n=$((n + 1)); bin=$NEW; [ $arm = old ] && bin=$OLD
    echo "== sweep $n ($arm, $(( $(date +%s) - t0 )) s in)"; mkdir -p /tmp/s$n
    (cd /tmp/src && timeout 90 $C $bin sweep run tools/bench/sweep-5x8-asha.json --slots $D=8 --runs-db /tmp/s$n/runs.sqlite 2>&1 | tail -3)
done
for rep in 1 2 3 4; do for arm in old new; do bin=$NEW; [ $arm = old ] && bin=$OLD
    echo "$arm: $($C $bin bench --device $D --preset mql5-fractal-12x12 --batch 64 --seconds 2 2>&1 | tail -1)"; done; done
echo "== profile 12x12 b64, this build"
NNWB_CL_PROFILE=1 $C $NEW bench --device $D --preset mql5-fractal-12x12 --batch 64 --seconds 2 --top 40 2>&1 | tail -n +2 | head -60
echo "== done in $(( $(date +%s) - t0 )) s"
