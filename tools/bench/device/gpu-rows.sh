# Sourced by table.sh and table1.sh: nnwb's GPU rows on $D with nnwb-cli $B, pinned to cores 0-7.
#   gpu_rows "ROWS"             each preset:batch row at the default path, then NNWB_FUSED=0
#   high_rows                   transformer-64 b256 and 12x12 b64 at --precision high
#   profile_rows TOP "ROWS"     NNWB_CL_PROFILE=1 runs printing the TOP kernels of each row
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
