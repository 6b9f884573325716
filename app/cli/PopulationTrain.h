// `nnwb-cli train --population N [--vary KEY=VALUES]...`: N models of one experiment trained
// together in the same launches (docs/decisions/population.md), each recorded as its own run;
// a line per epoch over the population, then a table of the models. Runs on the CLI's main
// thread; Qt-free.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "app/engine/RunEngine.h"
#include "app/runs/RunRecorder.h"
#include "model/Experiment.h"

namespace nnwb::cli {

struct PopulationTrainOptions {
    int models = 0;
    std::vector<std::string> vary;  // KEY=VALUES items (model/PopulationSpec.h)
    bool json = false;              // one JSON object per model and epoch, then per model
    RecordingOptions record;
    // After the models' lines: given the trained engine and the exit status so far, returns
    // the command's exit status (an ensemble keeps its members here, EnsembleTrain.h).
    std::function<int(RunEngine&, int)> after;
    // Before the population trains (an ensemble keeps the validation outputs), and with each
    // model's epoch report as the population reports it.
    std::function<void(RunEngine&)> before;
    std::function<void(const EpochReport&)> epoch;
};

// Exit status 0 when every model completed (or stopped early), 1 when one failed; UsageError
// on bad --vary items or members that cannot share a population.
int runPopulationTrain(const Experiment& base, const PopulationTrainOptions& o);

}  // namespace nnwb::cli
