# Sourced by the table scripts (table.sh, table1.sh, table7.sh, table8.sh, table9.sh): nnwb's GPU
# rows on $D with nnwb-cli $B, pinned to cores 0-7, the CPU rows, and the peers' part of a table's
# second call.
#   gpu_rows "ROWS"             each preset:batch row at the default path, then NNWB_FUSED=0
#   high_rows                   transformer-64 b256 and 12x12 b64 at --precision high
#   profile_rows TOP "ROWS"     NNWB_CL_PROFILE=1 runs printing the TOP kernels of each row
#   cpu_rows "ROWS"             each row on the CPU, cores 8-9: nnwb-cli $B (3 s), then the peer
#                               ($R --device cpu --threads 2, 3 s); run it in the background
#                               (cpu_rows "$ROWS" > /tmp/cpu.txt 2>&1 &) beside the GPU rows
#   peer_rows                   the peers ($R, torch_peer.py) on the GPU one mode after the other
#                               (cores 0-7: eager, graph, compile; compile at --precision high
#                               for transformer-64 b256 and 12x12 b64) while the CPU population
#                               (5x8 b1, P = 1 / 8 / 32, nnwb-cli $B) runs on cores 8-9
gpu_rows() {
    for row in $1; do IFS=: read pre b <<< "$row"
        taskset -c 0-7 $B bench --device $D --preset $pre --batch $b --seconds 2 2>&1 | tail -1
        NNWB_FUSED=0 taskset -c 0-7 $B bench --device $D --preset $pre --batch $b --seconds 2 2>&1 | tail -1
    done
}
high_rows() {
    for row in transformer-64:256 mql5-fractal-12x12:64; do IFS=: read pre b <<< "$row"
        taskset -c 0-7 $B bench --device $D --preset $pre --batch $b --seconds 2 --precision high 2>&1 | tail -1; done
}
profile_rows() {
    for row in $2; do IFS=: read pre b <<< "$row"
        echo "== profile $pre b$b"
        NNWB_CL_PROFILE=1 taskset -c 0-7 $B bench --device $D --preset $pre --batch $b --seconds 2 --top $1 2>&1 | head -40
    done
}
cpu_rows() {
    for row in $1; do IFS=: read pre b <<< "$row"
        taskset -c 8,9 $B bench --device cpu --preset $pre --batch $b --seconds 3 2>&1 | tail -1
        timeout 100 taskset -c 8,9 python3 $R --device cpu --threads 2 --seconds 3 --only $row 2>&1 | grep samples
    done
}
peer_rows() {
    ( taskset -c 8,9 $B bench --device cpu --preset mql5-fractal-5x8 --batch 1 --population 1 --population 8 --population 32 --seconds 3 2>&1 | tail -3 ) > /tmp/cpupop.txt 2>&1 &
    local cp=$!
    for m in eager graph compile; do
        timeout 170 taskset -c 0-7 python3 $R --mode $m --seconds 2 2>&1 | grep samples; done
    for r in transformer-64:256 mql5-fractal-12x12:64; do
        timeout 60 taskset -c 0-7 python3 $R --mode compile --precision high --seconds 2 --only $r 2>&1 | grep samples; done
    wait $cp; echo "== CPU population (cores 8-9)"; cat /tmp/cpupop.txt
}
