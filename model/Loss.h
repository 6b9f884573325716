// The training loss on the network output: mean squared error (the MQL5 default) or softmax
// cross-entropy. Owns its device buffers (gradient, per-sample loss, probabilities), allocated
// once for the largest batch. Used by the thread owning the backend.
#pragma once

#include <string>

#include "compute/Backend.h"

namespace nnwb {

enum class LossKind { Mse, CrossEntropy };

std::string lossName(LossKind k);           // "mse", "cross_entropy"
LossKind lossFromName(const std::string&);  // throws std::invalid_argument

class Loss {
public:
    Loss(Backend& backend, LossKind kind, int outputs, int maxBatch);
    LossKind kind() const { return kind_; }
    // Computes per-sample loss and the gradient of the batch mean loss w.r.t. the output. A
    // population: `models` blocks of `batch` rows, each model's gradient that of its own mean.
    void compute(BufRef output, BufRef target, int batch, int models = 1);
    BufRef gradient() const { return dy_; }
    BufRef perSample() const { return loss_; }
    // What the task metrics see: the outputs for MSE, the probabilities for cross-entropy.
    BufRef prediction(BufRef output) const;

private:
    Backend& be_;
    LossKind kind_;
    int outputs_;
    Buffer dy_, loss_, prob_;
};

}  // namespace nnwb
