// Applies a model bundle to price bars: checks that the bars give what the model needs (tick
// volume, the time frame, enough bars), builds the samples of every bar that has a full
// window exactly as training did (features over the whole file, the bundle's normalization
// statistics, positional encoding), runs the network in the training run's batch size and
// reports one row per bar plus the task metrics over the rows whose label is known.
// Create, use and destroy a Predictor on one thread (it owns its backend and network).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "compute/Backend.h"
#include "model/Loss.h"
#include "model/Metrics.h"
#include "model/ModelBundle.h"
#include "model/Network.h"
#include "model/SampleSet.h"
#include "model/data/BarSeries.h"
#include "model/data/FeatureChecks.h"

namespace nnwb {

// Bars that cannot be used with a bundle (missing volume, another time frame, too few bars).
class PredictionInputError : public std::runtime_error {
public:
    explicit PredictionInputError(const std::string& what) : std::runtime_error(what) {}
};

struct PredictionRow {
    size_t bar = 0;                  // index into the bars
    int64_t time = 0;                // bar open time
    double close = 0.0;              // the bar's close
    std::array<float, 3> outputs{};  // [none, buy, sell]: network outputs (mse) or softmax
    int signal = 0;                  // argmax: 0 none, 1 buy, 2 sell
    bool labelled = false;           // bar t + reach exists, so the true label is known
    uint8_t label = 0;               // kFractalBuy | kFractalSell, when labelled
    float loss = 0.0f;               // per-sample loss, when labelled
    // An ensemble's (model/ensemble/EnsemblePrediction.h): the share of members whose signal
    // is `signal`, and the members' standard deviation of output `signal`; 1 and 0 for one model.
    float agreement = 1.0f;
    float spread = 0.0f;
};

struct PredictionResult {
    std::vector<PredictionRow> rows;
    EpochMetrics metrics;  // over the labelled rows
    size_t labelled = 0;
    size_t members = 1;  // the models combined (an ensemble's members)
    // Features whose inputs lie far outside the training range (PredictionInputs::outOfRange).
    std::vector<OutOfRangeFeature> outOfRange;
};

// The samples a bundle sees for bars[first..last] (bar indices of the windows' last bars):
// inputs as the training pipeline builds them, targets one-hot where labelled (else [1,0,0]).
struct PredictionInputs {
    SampleSet samples;
    std::vector<size_t> bar;
    std::vector<uint8_t> labelled, label;
    // With z-score normalization: the features whose inputs (over every bar the samples'
    // windows cover) are more than kOutOfRangeZ standard deviations from the training mean on
    // more than kOutOfRangeShare of them, or that were constant in training and are not here.
    // The model was not trained for such inputs (another instrument, another price scale).
    std::vector<OutOfRangeFeature> outOfRange;
};

// "" when the bars can be used with the bundle, else the reason (names the file). Too few bars:
// fewer than barsNeeded(bundle.data).minimum, the same minimum as training.
std::string checkBarsForBundle(const ModelBundle& bundle, const BarSeries& bars);
// The first bar index that has a full window after the indicator warm-up.
size_t firstPredictableBar(const ModelBundle& bundle);
// Samples of the bars whose time lies in [from, to]. Throws PredictionInputError (reasons of
// checkBarsForBundle, too few bars: how many are needed, no bar in the range).
PredictionInputs buildPredictionInputs(const ModelBundle& bundle, const BarSeries& bars,
                                       int64_t from = std::numeric_limits<int64_t>::min(),
                                       int64_t to = std::numeric_limits<int64_t>::max());

class Predictor {
public:
    // Builds the bundle's network on the device `deviceId` ("cpu", "opencl:P:D") and loads its
    // weights. Throws ComputeError (device), ShapeError (model) or ModelBundleError (weights).
    Predictor(const ModelBundle& bundle, const std::string& deviceId);
    Predictor(const Predictor&) = delete;
    Predictor& operator=(const Predictor&) = delete;

    const ModelBundle& bundle() const { return bundle_; }
    Backend& backend() { return *backend_; }
    // Called after each batch with the rows done and the rows in all; it may throw to stop the
    // run there (a cancelled prediction).
    using AfterBatch = std::function<void(size_t done, size_t total)>;
    // Runs the model on prepared inputs.
    PredictionResult run(const PredictionInputs& in, const BarSeries& bars,
                         const AfterBatch& afterBatch = {});
    // buildPredictionInputs then run.
    PredictionResult predict(const BarSeries& bars,
                             int64_t from = std::numeric_limits<int64_t>::min(),
                             int64_t to = std::numeric_limits<int64_t>::max());

private:
    ModelBundle bundle_;
    std::unique_ptr<Backend> backend_;
    std::unique_ptr<Network> network_;
    std::unique_ptr<Loss> loss_;
    Buffer x_, t_;
};

}  // namespace nnwb
