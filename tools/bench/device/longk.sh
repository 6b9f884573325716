# Session 6 (issue 48, gemm_longk), one H200 and 16 cores; everything printed is also in
# $OUT/longk<part>.txt.
#   bash .device/longk.sh 1   device builds at once: the measured tree (.device/src.tar.gz) into
#                             /tmp/bd on cores 0-7 and main 24f59f5 (.device/old.tar.gz) into
#                             /tmp/bdold on cores 8-15 (deps unpacked once); tst_parity_gemm on
#                             the H200; then, alternating twice on cores 0-7, 2 s a run: old, new,
#                             new with NNWB_GEMM_LONGK=0 (gemm_longk not built: the old gemm
#                             choice in the new binary) on ROWS; profiles of 12x12 b64 both ways.
#   bash .device/longk.sh 3   a device build of the measured tree alone (16 jobs), then, alternating
#                             three times on cores 0-7: NNWB_GEMM_LONGK=split (gemm_longk for the
#                             split products only) and the default (also gemm_tiled_16's unsplit
#                             ones; any value but 0 and split) on the 12x12 rows and 5x8 b64; the
#                             profiles of the 12x12 rows both ways. (Session 6 ran it with "1 wide",
#                             that build's names for "split default".)
#   bash .device/longk.sh 2   the same warm machine: the peers (torch_peer.py eager, graph,
#                             compile) on the 12x12 rows, then old/new/LONGK=0 alternating again.
set -u
part=${1:-1}
exec > >(tee $OUT/longk$part.txt) 2>&1
source .device/setup.sh
D=opencl:$P:0 R=.device/torch_peer.py
ROWS="mql5-fractal-12x12:64 mql5-fractal-12x12:1 transformer-64:256 mql5-fractal-5x8:64"
t0=$(date +%s)
ab() {  # one run of each arm on each row, $1 times
    for rep in $(seq $1); do for row in $ROWS; do IFS=: read pre b <<< "$row"
        for arm in old new new0; do
            bin=/tmp/bd/app/nnwb-cli; env=""
            [ $arm = old ] && bin=/tmp/bdold/app/nnwb-cli
            [ $arm = new0 ] && env="NNWB_GEMM_LONGK=0"
            echo "$rep $arm $pre b$b: $(env $env taskset -c 0-7 $bin bench --device $D --preset $pre --batch $b --seconds 2 2>&1 | tail -1)"
        done; done; done
}
if [ "$part" = 1 ]; then
    mkdir -p /tmp/deps; for f in .device/debs/*.deb; do dpkg -x $f /tmp/deps; done
    sed 's#^mkdir -p /tmp/deps; for f.*##' .device/devbuild.sh > /tmp/devbuild_nodeps.sh
    rm -rf /tmp/src /tmp/srcold; mkdir -p /tmp/src /tmp/srcold
    tar -xzf .device/src.tar.gz -C /tmp/src; tar -xzf .device/old.tar.gz -C /tmp/srcold
    ln -s $PWD/.device /tmp/src/.device; ln -s $PWD/.device /tmp/srcold/.device
    sed 's#/tmp/bd#/tmp/bdold#g; s#/tmp/cmake.log#/tmp/cmake_old.log#; s#/tmp/build.log#/tmp/build_old.log#' /tmp/devbuild_nodeps.sh > /tmp/devbuild_old.sh
    (cd /tmp/srcold && JOBS=8 taskset -c 8-15 bash /tmp/devbuild_old.sh nnwb-cli) > /tmp/bold.txt 2>&1 &
    OLD=$!
    (cd /tmp/src && JOBS=8 taskset -c 0-7 bash /tmp/devbuild_nodeps.sh nnwb-cli tst_parity_gemm) > /tmp/bnew.txt 2>&1 || { cat /tmp/bnew.txt; exit 1; }
    echo "== new build done at $(( $(date +%s) - t0 )) s"
    echo "== tst_parity_gemm on $D"
    timeout 150 taskset -c 0-7 /tmp/bd/tests/tst_parity_gemm > $OUT/parity_gemm.txt 2>&1; echo "exit $?"; tail -4 $OUT/parity_gemm.txt
    wait $OLD || { cat /tmp/bold.txt; exit 1; }
    echo "== old build done at $(( $(date +%s) - t0 )) s"
    ab 2
    for arm in new new0; do env=""; [ $arm = new0 ] && env="NNWB_GEMM_LONGK=0"
        echo "== profile $arm 12x12 b64"
        env $env NNWB_CL_PROFILE=1 taskset -c 0-7 /tmp/bd/app/nnwb-cli bench --device $D --preset mql5-fractal-12x12 --batch 64 --seconds 2 --top 14 2>&1 | head -40
    done
elif [ "$part" = 3 ]; then
    JOBS=16 bash .device/srcbuild.sh nnwb-cli > /tmp/build.txt 2>&1 || { cat /tmp/build.txt; exit 1; }
    tail -1 /tmp/build.txt
    for rep in 1 2 3; do for row in mql5-fractal-12x12:64 mql5-fractal-12x12:1 mql5-fractal-5x8:64; do IFS=: read pre b <<< "$row"
        for v in split default; do
            echo "$rep LONGK=$v $pre b$b: $(NNWB_GEMM_LONGK=$v taskset -c 0-7 /tmp/bd/app/nnwb-cli bench --device $D --preset $pre --batch $b --seconds 2 2>&1 | tail -1)"
        done; done; done
    for row in mql5-fractal-12x12:64 mql5-fractal-12x12:1; do IFS=: read pre b <<< "$row"
        for v in split default; do echo "== profile LONGK=$v $pre b$b"
            NNWB_GEMM_LONGK=$v NNWB_CL_PROFILE=1 taskset -c 0-7 /tmp/bd/app/nnwb-cli bench --device $D --preset $pre --batch $b --seconds 2 --top 14 2>&1 | head -40
        done; done
else
    [ -x /tmp/bd/app/nnwb-cli ] && [ -x /tmp/bdold/app/nnwb-cli ] || { echo "no builds in /tmp (a fresh machine): run part 1 first"; exit 1; }
    for m in eager graph compile; do for r in mql5-fractal-12x12:64 mql5-fractal-12x12:1; do
        timeout 150 taskset -c 0-7 python3 $R --mode $m --seconds 2 --only $r 2>&1 | grep samples; done; done
    echo "== peers done at $(( $(date +%s) - t0 )) s"
    ab 1
fi
echo "== done in $(( $(date +%s) - t0 )) s"
