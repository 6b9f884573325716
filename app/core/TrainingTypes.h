// Small value types the training worker sends to the GUI thread through queued signals: what a
// run is training on, plus the run engine's own (app/engine/RunTypes.h: progress, attention
// snapshots, how a run ended). Plain copyable values; made on the worker thread, read anywhere.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <QString>

#include "app/engine/RunTypes.h"
#include "model/Metrics.h"
#include "model/Shape.h"
#include "model/data/BarSeries.h"
#include "model/data/Fractals.h"
#include "model/layers/Layer.h"

namespace nnwb {

// Sent once when a run has built its network on the device.
struct RunInfo {
    QString deviceId;         // "cpu", "opencl:0:0"
    QString deviceName;       // e.g. "CPU (native)" or the OpenCL device name
    QString dataDescription;  // from loadExperimentData
    size_t parameters = 0;
    size_t trainSamples = 0, validationSamples = 0;
    int epochs = 0;      // the last epoch this run will train (numbering goes on when continued)
    int firstEpoch = 1;  // > 1 when the run continues an earlier one
    bool continued = false;
    int64_t recordedRunId = 0;  // its id in the run store; 0 when it is not recorded
    Shape input;
    // Price-file runs: the loaded bars (shared, read-only), the fractal rule and the bar
    // indices of each part's samples (last bar of each window; first > last: empty part).
    std::shared_ptr<const BarSeries> bars;
    FractalRule fractalRule = FractalRule::ThreeBar;
    size_t trainFirstBar = 0, trainLastBar = 0, validationFirstBar = 1, validationLastBar = 0;
};

// Sent once after an ensemble run (training.ensemble > 1, docs/ensembles.md) has kept its
// members: the kept ensemble (each member's kept epoch) on the validation part.
struct EnsembleKept {
    int members = 0;
    int64_t runId = 0;             // the ensemble's run in the store; 0 when it is not recorded
    size_t firstBar = 0;           // the bar of the first validation row (the rows are consecutive)
    std::vector<float> outputs;    // 3 per row: the members' mean
    std::vector<float> agreement;  // per row: the share of members voting for the signal
    double validationLoss = 0, meanAgreement = 1;
    // The kept ensemble's figures on the validation part (its confusion matrix among them),
    // those nnwb-cli predict gives for its bundle over that part; taskMetrics: it has labelled
    // rows.
    EpochMetrics validation;
    bool taskMetrics = false;
    // The ensemble bundle, the window's model after the run (Predict, the exports): the run's
    // model file when recorded, else the worker's copy (kept until it keeps another ensemble).
    std::string file;
    // Whose Score matrices the attention pane gets after the run (the best member, as one
    // network: "member 2 of 4, seed 6"); empty when none come (no attention layer).
    std::string attentionOf;
};

}  // namespace nnwb
