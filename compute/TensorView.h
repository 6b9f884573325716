// TensorView: a strided view of a device buffer as a batch of matrices (buffer, offset, dims,
// strides), with named constructors for the shapes layers use, so that a projection or a
// per-head batched product is one readable line (see GemmArgs::product in compute/Ops.h).
// A plain value; used on the thread that owns the buffer's backend.
#pragma once

#include <cstddef>

#include "compute/Buffer.h"

namespace nnwb {

// Element (i0, i1, r, c) lies at ref.offset + i0 * stride[0] + i1 * stride[1] + r * stride[2]
// + c * stride[3] (in floats). dims = {batch0, batch1, rows, cols}.
struct TensorView {
    BufRef ref;
    int dims[4] = {1, 1, 0, 0};
    size_t strides[4] = {0, 0, 0, 1};

    // A row-major rows x cols matrix whose rows are `ld` floats apart (ld = cols when dense).
    static TensorView matrix(BufRef ref, int rows, int cols, int ld) {
        TensorView v;
        v.ref = ref;
        v.dims[2] = rows;
        v.dims[3] = cols;
        v.strides[2] = size_t(ld);
        return v;
    }
    static TensorView matrix(BufRef ref, int rows, int cols) {
        return matrix(ref, rows, cols, cols);
    }
    // One rows x cols matrix per (sample, head): sample i0 starts perSample floats after
    // sample i0 - 1, head i1 perHead floats after head i1 - 1; rows are `ld` floats apart.
    static TensorView perHead(BufRef ref, int samples, int heads, int rows, int cols, int ld,
                              size_t perSample, size_t perHead) {
        TensorView v = matrix(ref, rows, cols, ld);
        v.dims[0] = samples;
        v.dims[1] = heads;
        v.strides[0] = perSample;
        v.strides[1] = perHead;
        return v;
    }
    // `rows` rows of `cols` values over all models of a population (models >= 1): one matrix,
    // or one block of rows / models rows per model, model-major.
    static TensorView modelRows(BufRef ref, int models, int rows, int cols) {
        if (models <= 1) return matrix(ref, rows, cols);
        const int per = rows / models;
        return perHead(ref, models, 1, per, cols, cols, size_t(per) * cols, 0);
    }
    // A rows x cols matrix per model, model m's at ref + m * stride (one matrix when models <= 1).
    static TensorView modelMatrices(BufRef ref, int models, size_t stride, int rows, int cols) {
        if (models <= 1) return matrix(ref, rows, cols);
        return perHead(ref, models, 1, rows, cols, cols, stride, 0);
    }
    // The same elements with rows and columns swapped (no data moves).
    TensorView t() const {
        TensorView v = *this;
        v.dims[2] = dims[3];
        v.dims[3] = dims[2];
        v.strides[2] = strides[3];
        v.strides[3] = strides[2];
        return v;
    }
    int rows() const { return dims[2]; }
    int cols() const { return dims[3]; }
};

}  // namespace nnwb
