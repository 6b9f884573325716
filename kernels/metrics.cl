// Per-sample outcome log for the task metrics and the divergence flag, written on the device
// so that a training step needs no read-back (the host reads the log once per epoch).
// One work-group; each work-item takes rows in a stride.

// log[2r] = loss[r]; log[2r+1] = argmax(pred row) plus, with hasCodes, the sum of codes[j] over
// the columns j whose target is above 0.5 (the task's encoding, chosen by the host).
// flag[0] = batchIndex when a loss is not finite and the flag is still unset (< 0).
__kernel void record_outcomes(int rows, int cols, __global const float* pred, ulong po,
                              __global const float* target, ulong to,
                              __global const float* loss, ulong lo, __global float* log,
                              ulong logo, __global float* flag, ulong fo, float batchIndex,
                              __global const float* codes, ulong co, int hasCodes,
                              __local float* scratch) {
    // A population: work-group p takes model p's `rows` rows and flag[p].
    const ulong model = get_group_id(0);
    po += model * (ulong)rows * (ulong)cols;
    to += model * (ulong)rows * (ulong)cols;
    lo += model * (ulong)rows;
    logo += 2 * model * (ulong)rows;
    fo += model;
    const int lid = (int)get_local_id(0), lsz = (int)get_local_size(0);
    float bad = 0.0f;
    for (int r = lid; r < rows; r += lsz) {
        __global const float* p = pred + po + (ulong)r * (ulong)cols;
        int best = 0;
        for (int k = 1; k < cols; ++k)
            if (p[k] > p[best]) best = k;
        float code = (float)best;
        if (hasCodes) {
            __global const float* t = target + to + (ulong)r * (ulong)cols;
            for (int k = 0; k < cols; ++k)
                if (t[k] > 0.5f) code += codes[co + k];
        }
        const float l = loss[lo + r];
        log[logo + 2 * (ulong)r] = l;
        log[logo + 2 * (ulong)r + 1] = code;
        if (!isfinite(l)) bad = 1.0f;
    }
    bad = nnwb_group_sum(scratch, bad);
    if (lid == 0 && bad > 0.0f && flag[fo] < 0.0f) flag[fo] = batchIndex;
}
