# Session 9 (issue 48), one H200, call 1: the submitted tree's transformer-64 and the GPU
# population against the ensemble peer (neither measured on the tree as submitted last stop).
# Everything printed is also in $OUT/t64pop.txt.
#   a device build of .device/src.tar.gz (git archive of the measured commit: nnwb-cli);
#   transformer-64 b256 alternating three times between the default and NNWB_FUSED=0 (cores
#   0-7, 2 s a run), then its per-kernel profile (NNWB_CL_PROFILE=1, --top 30);
#   nnwb's GPU population of 5x8 b1 at P = 1 / 32 / 128 (default, twice) and P = 128 with
#   NNWB_FUSED=1 and =0, then the ensemble peer (tools/bench/torch_population.py, .device/
#   torch_peer.py's networks) at P = 128 in compile mode (TorchInductor + CUDA graph) and
#   graph mode, while time is left (limit LIMIT s from the start, default 420).
set -u
exec > >(tee $OUT/t64pop.txt) 2>&1
source .device/setup.sh
export NNWB_RESOURCE_DIR=/tmp/src/resources
D=opencl:$P:0 C="taskset -c 0-7" B=/tmp/bd/app/nnwb-cli R=$PWD/.device/torch_peer.py
t0=$(date +%s); LIMIT=${LIMIT:-420}
el() { echo "$(( $(date +%s) - t0 )) s in"; }
JOBS=16 bash .device/srcbuild.sh nnwb-cli > /tmp/build.txt 2>&1 || { cat /tmp/build.txt; exit 1; }
tail -1 /tmp/build.txt
echo "== transformer-64 b256, alternating default / NNWB_FUSED=0 ($(el))"
for rep in 1 2 3; do
    echo "default: $($C $B bench --device $D --preset transformer-64 --batch 256 --seconds 2 2>&1 | tail -1)"
    echo "per-op:  $(NNWB_FUSED=0 $C $B bench --device $D --preset transformer-64 --batch 256 --seconds 2 2>&1 | tail -1)"
done
echo "== profile transformer-64 b256 ($(el))"
NNWB_CL_PROFILE=1 $C $B bench --device $D --preset transformer-64 --batch 256 --seconds 2 --top 30 2>&1 | tail -n +2 | head -60
echo "== GPU population 5x8 b1 ($(el))"
for rep in 1 2; do
    $C $B bench --device $D --preset mql5-fractal-5x8 --batch 1 --population 1 --population 32 --population 128 --seconds 2 2>&1 | tail -3
done
for f in 1 0; do echo "NNWB_FUSED=$f: $(NNWB_FUSED=$f $C $B bench --device $D --preset mql5-fractal-5x8 --batch 1 --population 128 --seconds 2 2>&1 | tail -1)"; done
for m in compile graph; do left=$(( LIMIT - ($(date +%s) - t0) ))
    [ $left -lt 30 ] && { echo "ensemble peer $m: not run (no time left)"; continue; }
    echo "== ensemble peer, $m, P = 128 (limit $left s, $(el))"
    timeout $left $C python3 tools/bench/torch_population.py --mode $m --peer $R --seconds 2 \
        --populations 128 --only mql5-fractal-5x8:1 2>&1 | grep -i "samples\|error" | tail -5
done
echo "== done in $(( $(date +%s) - t0 )) s"
