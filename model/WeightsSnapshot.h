// A host copy of a network's weights taken when an epoch completes (the "last good" weights):
// checked for NaN/Inf as it is taken, restored into the network or saved as safetensors after
// a run fails, so a diverged or lost device never costs the trained weights. Taken, restored
// and saved on the thread that owns the network's backend; a taken copy is plain host data.
#pragma once

#include <string>

#include "model/Network.h"
#include "model/Safetensors.h"

namespace nnwb {

class WeightsSnapshot {
public:
    // Reads the network's weights. If one holds NaN or Inf, keeps the previous snapshot,
    // returns false and sets `problem` ("layer 2 (dense) tensor layers.1.weight[17] is NaN").
    // `model`: which model of a population (0 for a single network).
    bool capture(Network& net, int epoch, std::string* problem = nullptr, int model = 0);
    bool empty() const { return tensors_.empty(); }
    int epoch() const { return epoch_; }
    const TensorMap& tensors() const { return tensors_; }
    // Writes the snapshot back into a network of the same model (throws on a mismatch).
    void restore(Network& net, int model = 0) const;
    // Atomic safetensors file with the model JSON in its metadata, as saveWeightsFile writes.
    void save(const std::string& path) const;
    void clear();
    // The model JSON it was taken with, and a snapshot put back from a checkpoint.
    const std::string& model() const { return model_; }
    void assign(TensorMap tensors, std::string model, int epoch) {
        tensors_ = std::move(tensors);
        model_ = std::move(model);
        epoch_ = epoch;
    }

private:
    TensorMap tensors_;
    std::string model_;
    int epoch_ = 0;
};

}  // namespace nnwb
