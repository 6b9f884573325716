// Combining an ensemble's members (docs/ensembles.md): the combined output is the mean of the
// members' outputs ([none, buy, sell]: network outputs with mse, softmax shares with
// cross-entropy), the combined signal its argmax, the agreement the share of members whose own
// signal (argmax) is the combined one, the spread the members' standard deviation of the
// combined signal's output. EnsemblePredictor applies an EnsembleBundle to bars as Predictor
// applies a ModelBundle. Pure functions on any thread; an EnsemblePredictor on one thread.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "model/Loss.h"
#include "model/Predictor.h"
#include "model/ensemble/EnsembleBundle.h"

namespace nnwb {

struct CombinedOutput {
    std::array<float, 3> mean{};
    int signal = 0;  // argmax of mean (the first of equal largest)
    float agreement = 1.0f;
    float spread = 0.0f;
};

// The members' outputs of one sample, combined. `outputs` must not be empty.
CombinedOutput combineOutputs(const std::vector<std::array<float, 3>>& outputs);

// The per-sample loss of a combined output against `target` ([none, buy, sell] flags), as the
// training loss defines it: mse the mean of the squared errors, cross-entropy -sum t log p.
float combinedLoss(LossKind loss, const std::array<float, 3>& output, const float* target);

// The members' predictions over the same inputs, combined row by row; metrics over the
// labelled rows from the combined outputs and losses. Throws std::invalid_argument when the
// members' rows differ in count or bars.
PredictionResult combinePredictions(const std::vector<PredictionResult>& members,
                                    const PredictionInputs& in, LossKind loss);

class EnsemblePredictor {
public:
    // One Predictor per member on `deviceId` (each its own backend). Throws as Predictor does.
    EnsemblePredictor(const EnsembleBundle& bundle, const std::string& deviceId);
    const EnsembleBundle& bundle() const { return bundle_; }
    Backend& backend() { return members_.front()->backend(); }
    Predictor& member(size_t m) { return *members_.at(m); }
    // Runs every member on the inputs and combines them; afterBatch counts over all members.
    PredictionResult run(const PredictionInputs& in, const BarSeries& bars,
                         const Predictor::AfterBatch& afterBatch = {});

private:
    EnsembleBundle bundle_;
    std::vector<std::unique_ptr<Predictor>> members_;
};

}  // namespace nnwb
