# The final call of a speed round (issue 48), on a machine with two H200s: a device build of the
# tree in .device/src.tar.gz (srcbuild.sh), then the peers on GPU 1 (cores 16-31) while nnwb runs
# on GPU 0 (cores 0-7) and the CPU rows run on cores 8-9 (nnwb and torch CPU, 2 threads each);
# then the 64-trial bench sweep on one GPU and on both. Everything printed is also in $OUT/table.txt.
exec > >(tee $OUT/table.txt) 2>&1
source .device/setup.sh
source .device/gpu-rows.sh
JOBS=32 bash .device/srcbuild.sh nnwb-cli > /tmp/build.txt 2>&1 || { cat /tmp/build.txt; exit 1; }
tail -1 /tmp/build.txt; B=/tmp/bd/app/nnwb-cli
D=opencl:$P:0; R=.device/torch_peer.py
( export CUDA_VISIBLE_DEVICES=1
  for m in eager graph compile; do timeout 240 taskset -c 16-31 python3 $R --mode $m --seconds 2 > /tmp/peer_$m.txt 2>&1; done
  for r in transformer-64:256 mql5-fractal-12x12:64; do timeout 120 taskset -c 16-31 python3 $R --mode compile --precision high --seconds 2 --only $r >> /tmp/peer_compile_high.txt 2>&1; done
) &
PP=$!
( C="taskset -c 8,9"
  for row in mql5-fractal-5x8:1 mql5-fractal-5x8:64 mql5-fractal-12x12:1 mql5-fractal-12x12:64 transformer-64:256; do IFS=: read pre b <<< "$row"
    $C $B bench --device cpu --preset $pre --batch $b --seconds 3 2>&1 | tail -1; done
  $C $B bench --device cpu --preset mql5-fractal-5x8 --batch 1 --population 1 --population 8 --population 32 --seconds 3 2>&1 | tail -3
  for row in mql5-fractal-5x8:1 mql5-fractal-5x8:64 mql5-fractal-12x12:1 mql5-fractal-12x12:64 transformer-64:256; do
    timeout 100 $C python3 $R --device cpu --threads 2 --seconds 3 --only $row 2>&1 | grep samples; done
) > /tmp/cpu.txt 2>&1 &
CP=$!
gpu_rows "mql5-fractal-5x8:1 mql5-fractal-5x8:64 mql5-fractal-12x12:1 mql5-fractal-12x12:64 transformer-64:256"
high_rows
profile_rows 12 "mql5-fractal-12x12:64 transformer-64:256 mql5-fractal-5x8:1"
wait $CP; echo "== CPU rows (cores 8-9)"; cat /tmp/cpu.txt
wait $PP; echo "== peers (GPU 1)"; cat /tmp/peer_*.txt | grep samples
mkdir -p /tmp/one /tmp/two
echo "== sweep one GPU"; timeout 110 $B sweep run tools/bench/sweep-5x8-asha.json --slots opencl:$P:0=8 --runs-db /tmp/one/runs.sqlite 2>&1 | tail -1
echo "== sweep two GPUs"; timeout 110 $B sweep run tools/bench/sweep-5x8-asha.json --slots "opencl:$P:*=8" --runs-db /tmp/two/runs.sqlite 2>&1 | tail -1
