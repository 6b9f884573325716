# A/B on one H200: main before this session's H5 commits (858c1e5, .device/old.tar.gz) against
# the tree being measured (/tmp/bd from table1.sh 1), alternating, 2 s a run.
source .device/setup.sh
rm -rf /tmp/srcold; mkdir -p /tmp/srcold; tar -xzf .device/old.tar.gz -C /tmp/srcold; ln -s $PWD/.device /tmp/srcold/.device
(cd /tmp/srcold && sed 's#/tmp/bd#/tmp/bdold#g' .device/devbuild.sh > /tmp/devbuild_old.sh && JOBS=16 bash /tmp/devbuild_old.sh nnwb-cli) > /tmp/bold.txt 2>&1 || { tail -20 /tmp/bold.txt; exit 1; }
D=opencl:$P:0
for rep in 1 2; do for row in mql5-fractal-12x12:64 transformer-64:256 mql5-fractal-5x8:64 mql5-fractal-12x12:1; do IFS=: read pre b <<< "$row"
  for bin in /tmp/bdold/app/nnwb-cli /tmp/bd/app/nnwb-cli; do
    echo "$rep $bin $(taskset -c 0-7 $bin bench --device $D --preset $pre --batch $b --seconds 2 2>&1 | tail -1)"
    echo "$rep $bin F0 $(NNWB_FUSED=0 taskset -c 0-7 $bin bench --device $D --preset $pre --batch $b --seconds 2 2>&1 | tail -1)"
  done; done; done | tee $OUT/ab.txt
