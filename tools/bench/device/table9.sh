# Session 9 (issue 48): the closing one-run table on a machine with ONE H200 (16 cores), in two
# calls on the same warm machine; everything printed is also in $OUT/table9_<part>.txt.
#   bash .device/table9.sh 1   device build of .device/src.tar.gz (git archive of the measured
#                              commit: nnwb-cli); nnwb's GPU rows on cores 0-7 (default and
#                              NNWB_FUSED=0, --precision high, the GPU population of 5x8 b1 at
#                              P = 1 / 32 / 128 and P = 128 with NNWB_FUSED=1, profiles of 12x12
#                              b64 and transformer-64 b256; 5x8 b256 and 12x12 b256 alternating
#                              twice between the default, NNWB_CL_BLOCK_SPLIT=0 and NNWB_FUSED=0)
#                              while the CPU rows run on cores 8-9
#                              (gpu-rows.sh's cpu_rows: nnwb and torch CPU, 2 threads each);
#                              then, while time is left (LIMIT s), the fused block's GPU tests
#                              ($TESTS, NVIDIA's driver alone, cores 10-15; no GPU bench runs then).
#   bash .device/table9.sh 2   the peers and the CPU population (gpu-rows.sh's peer_rows), the
#                              ensemble peer (tools/bench/torch_population.py) on 5x8 b1 at
#                              P = 1 / 32 / 128 in compile mode, then, while time is left (LIMIT s
#                              from the start, default 540), its graph mode at P = 128 and the
#                              64-trial bench sweep with 8 slots (kept workers).
set -u
part=${1:-1}
exec > >(tee $OUT/table9_$part.txt) 2>&1
source .device/setup.sh
source .device/gpu-rows.sh
export NNWB_RESOURCE_DIR=/tmp/src/resources
B=/tmp/bd/app/nnwb-cli D=opencl:$P:0 R=$PWD/.device/torch_peer.py
ROWS="mql5-fractal-5x8:1 mql5-fractal-5x8:64 mql5-fractal-12x12:1 mql5-fractal-12x12:64 transformer-64:256"
t0=$(date +%s); LIMIT=${LIMIT:-540}
el() { echo "$(( $(date +%s) - t0 )) s in"; }
left() { echo $(( LIMIT - ($(date +%s) - t0) )); }
if [ "$part" = 1 ]; then
    TESTS="tst_parity_attention_block tst_gradcheck_fused_block tst_opencl_backend"
    JOBS=16 bash .device/srcbuild.sh nnwb-cli $TESTS > /tmp/build.txt 2>&1 || { cat /tmp/build.txt; exit 1; }
    tail -1 /tmp/build.txt
    cpu_rows "$ROWS" > /tmp/cpu.txt 2>&1 &
    CP=$!
    echo "== nnwb GPU rows (cores 0-7): default, then NNWB_FUSED=0 ($(el))"
    gpu_rows "$ROWS"
    echo "== --precision high ($(el))"
    high_rows
    echo "== GPU population, 5x8 b1 ($(el))"
    taskset -c 0-7 $B bench --device $D --preset mql5-fractal-5x8 --batch 1 --population 1 --population 32 --population 128 --seconds 2 2>&1 | tail -3
    echo "NNWB_FUSED=1: $(NNWB_FUSED=1 taskset -c 0-7 $B bench --device $D --preset mql5-fractal-5x8 --batch 1 --population 128 --seconds 2 2>&1 | tail -1)"
    echo "== single models past 64 samples, alternated: default (auto), NNWB_CL_BLOCK_SPLIT=0, NNWB_FUSED=0 ($(el))"
    for rep in 1 2; do for row in mql5-fractal-5x8:256 mql5-fractal-12x12:256; do IFS=: read pre b <<< "$row"
        for arm in auto split0 per-op; do env=""; [ $arm = split0 ] && env=NNWB_CL_BLOCK_SPLIT=0; [ $arm = per-op ] && env=NNWB_FUSED=0
            echo "$arm $row: $(env $env taskset -c 0-7 $B bench --device $D --preset $pre --batch $b --seconds 2 2>&1 | tail -1)"; done; done; done
    echo "== profiles ($(el))"
    profile_rows 30 "mql5-fractal-12x12:64 transformer-64:256"
    mkdir -p /tmp/nvonly; echo libnvidia-opencl.so.1 > /tmp/nvonly/nvidia.icd
    for t in $TESTS; do [ $(left) -lt 20 ] && { echo "$t: not run (no time left)"; continue; }
        s=$(date +%s); OCL_ICD_VENDORS=/tmp/nvonly timeout $(( $(left) - 10 )) taskset -c 10-15 /tmp/bd/tests/$t > $OUT/$t.txt 2>&1
        echo "$t: exit $? in $(( $(date +%s) - s )) s: $(grep -a -m1 '^\[  PASSED\|^\[  FAILED' $OUT/$t.txt)"; done
    wait $CP; echo "== CPU rows (cores 8-9, $(el))"; cat /tmp/cpu.txt
else
    [ -x $B ] || { echo "no build in /tmp (a fresh machine): run part 1 first"; exit 1; }
    peer_rows
    echo "== ensemble peer, compile, 5x8 b1 ($(el))"
    timeout $(left) taskset -c 0-7 python3 tools/bench/torch_population.py --mode compile --peer $R --seconds 2 \
        --populations 1,32,128 --only mql5-fractal-5x8:1 2>&1 | grep -i "samples\|error"
    if [ $(left) -gt 60 ]; then echo "== ensemble peer, graph, P = 128 ($(el))"
        timeout $(( $(left) - 30 )) taskset -c 0-7 python3 tools/bench/torch_population.py --mode graph --peer $R --seconds 2 \
            --populations 128 --only mql5-fractal-5x8:1 2>&1 | grep -i "samples\|error"; fi
    if [ $(left) -gt 35 ]; then echo "== sweep, one H200, 8 slots, kept workers (cores 0-7, $(el))"
        mkdir -p /tmp/one; (cd /tmp/src && timeout $(( $(left) - 5 )) taskset -c 0-7 $B sweep run tools/bench/sweep-5x8-asha.json \
            --slots $D=8 --runs-db /tmp/one/runs.sqlite 2>&1 | grep 'sweep 1 \(completed\|trial start-up\)'); fi
fi
echo "== done in $(( $(date +%s) - t0 )) s"
