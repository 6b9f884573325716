# Call 3 (final): peers on GPU 1 (cores 16-31) while nnwb runs on GPU 0 (cores 0-7); then the
# 64-trial bench sweep on one GPU and on both.
source .device/setup.sh
D=opencl:$P:0; R=.device/torch_peer.py
( export CUDA_VISIBLE_DEVICES=1
  for m in eager graph compile; do timeout 240 taskset -c 16-31 python3 $R --mode $m --seconds 2 > $OUT/peer_$m.txt 2>&1; done
  for r in transformer-64:256 mql5-fractal-12x12:64; do timeout 120 taskset -c 16-31 python3 $R --mode compile --precision high --seconds 2 --only $r >> $OUT/peer_compile_high.txt 2>&1; done
) &
PP=$!
for row in mql5-fractal-5x8:1 mql5-fractal-5x8:64 mql5-fractal-12x12:1 mql5-fractal-12x12:64 transformer-64:256; do IFS=: read pre b <<< "$row"
  taskset -c 0-7 $B bench --device $D --preset $pre --batch $b --seconds 2 2>&1 | tail -1
  NNWB_FUSED=0 taskset -c 0-7 $B bench --device $D --preset $pre --batch $b --seconds 2 2>&1 | tail -1
done
for row in transformer-64:256 mql5-fractal-12x12:64; do IFS=: read pre b <<< "$row"
  taskset -c 0-7 $B bench --device $D --preset $pre --batch $b --seconds 2 --precision high 2>&1 | tail -1; done
export NNWB_CL_PROFILE=1
taskset -c 0-7 $B bench --device $D --preset transformer-64 --batch 256 --seconds 2 --top 30 > /tmp/prof_t64.txt 2>&1
taskset -c 0-7 $B bench --device $D --preset transformer-64 --batch 256 --seconds 2 --top 30 --precision high > /tmp/prof_t64_high.txt 2>&1
NNWB_TF32_MIN_K=0 taskset -c 0-7 $B bench --device $D --preset transformer-64 --batch 256 --seconds 2 --top 30 --precision high > /tmp/prof_t64_high_all.txt 2>&1
NNWB_TF32_MIN_K=0 NNWB_TF32_TILINGS="128,128,16,8,8,4;128,64,16,8,4,4;64,64,16,4,4,4" taskset -c 0-7 $B bench --device $D --preset transformer-64 --batch 256 --seconds 2 --top 30 --precision high > /tmp/prof_t64_high_pad4.txt 2>&1
NNWB_TF32_MIN_K=0 NNWB_TF32_TILINGS="128,128,8,8,8,8;128,64,8,8,4,8" taskset -c 0-7 $B bench --device $D --preset transformer-64 --batch 256 --seconds 2 --top 30 --precision high > /tmp/prof_t64_high_k8.txt 2>&1
taskset -c 0-7 $B bench --device $D --preset mql5-fractal-12x12 --batch 64 --seconds 2 --top 30 > /tmp/prof_12x12.txt 2>&1
unset NNWB_CL_PROFILE
for f in prof_t64 prof_t64_high prof_t64_high_all prof_t64_high_pad4 prof_t64_high_k8 prof_12x12; do echo "== $f" >> $OUT/prof.txt; cat /tmp/$f.txt >> $OUT/prof.txt; echo "== $f"; grep -E "NVIDIA|product gemm" /tmp/$f.txt | head -9; done
mkdir -p /tmp/icd; echo libnvidia-opencl.so.1 > /tmp/icd/nvidia.icd
echo "== tst_parity_tf32 automatic (GPU 0)"; CUDA_VISIBLE_DEVICES=0 OCL_ICD_VENDORS=/tmp/icd timeout 120 $T/tst_parity_tf32 --gtest_filter='*automatic*:*WithoutTensor*' 2>&1 | grep -E "OK|FAILED|Failure|Expected|actual|PASSED|opencl"
wait $PP; cat $OUT/peer_*.txt | grep samples
echo "== sweep one GPU"; mkdir -p /tmp/one /tmp/two
timeout 110 $B sweep run tools/bench/sweep-5x8-asha.json --slots opencl:$P:0=8 --runs-db /tmp/one/runs.sqlite --quiet > /tmp/s1.txt 2>&1; echo rc=$?; tail -2 /tmp/s1.txt; cat /tmp/s1.txt > $OUT/sweep.txt
echo "== sweep two GPUs"
timeout 110 $B sweep run tools/bench/sweep-5x8-asha.json --slots "opencl:$P:*=8" --runs-db /tmp/two/runs.sqlite --quiet > /tmp/s2.txt 2>&1; echo rc=$?; tail -2 /tmp/s2.txt; cat /tmp/s2.txt >> $OUT/sweep.txt
