# Issue 48, session 5, first call (items 6 and 7): a device build (GCC 13.3) of the snapshot,
# tst_cpu_gemm and tst_population_ops there, the ISA probe with and without GCC's FMA-chain
# avoidance, the CPU population rows (5x8 b1, P = 1 / 8 / 32, cores 8-9), the Adam-like
# bandwidth of those cores, and the CPU rows 12x12 b64 and transformer-64 (nnwb, torch CPU).
set -u
exec > >(tee $OUT/r7a.txt) 2>&1
source .device/setup.sh
B=/tmp/bd/app/nnwb-cli R=.device/torch_peer.py C="taskset -c 8,9"
t0=$(date +%s)
lscpu | grep -iE 'model name|^CPU\(s\)|L1d|L2|L3'; gcc --version | head -1
JOBS=16 bash .device/srcbuild.sh nnwb-cli tst_cpu_gemm tst_population_ops > /tmp/build.txt 2>&1 || { cat /tmp/build.txt; exit 1; }
tail -1 /tmp/build.txt
echo "== tst_cpu_gemm"; timeout 150 /tmp/bd/tests/tst_cpu_gemm 2>&1 | grep -E 'OK|FAILED|micro-kernel|differs|PASSED' | head -20
echo "== tst_population_ops"; timeout 150 /tmp/bd/tests/tst_population_ops 2>&1 | tail -2
for prm in "" "--param=avoid-fma-max-bits=0"; do
    g++ -O2 -std=c++17 -ffp-contract=fast $prm -I/tmp/src .device/gemm_isa_probe.cpp /tmp/src/compute/CpuGemm.cpp -o /tmp/probe && { echo "== probe $prm"; /tmp/probe; }
done
echo "== CPU population (cores 8-9, $(( $(date +%s) - t0 )) s in)"
for rep in 1 2; do $C $B bench --device cpu --preset mql5-fractal-5x8 --batch 1 --population 1 --population 8 --population 32 --seconds 3 2>&1 | tail -3; done
gcc -O3 -march=native -pthread .device/bandwidth.c -o /tmp/bw -lm && $C /tmp/bw 2 && taskset -c 8 /tmp/bw 1
echo "== CPU rows (cores 8-9)"
for row in mql5-fractal-12x12:64 transformer-64:256; do IFS=: read pre b <<< "$row"
    $C $B bench --device cpu --preset $pre --batch $b --seconds 3 2>&1 | tail -1
    timeout 100 $C python3 $R --device cpu --threads 2 --seconds 3 --only $row 2>&1 | grep samples; done
echo "== done in $(( $(date +%s) - t0 )) s"
