#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "app/cli/Commands.h"
#include "app/compare/EpochReportJson.h"
#include "compute/Backend.h"
#include "model/Experiment.h"
#include "model/ExperimentData.h"
#include "model/NetworkWeights.h"
#include "model/Trainer.h"
#include "model/TrainingSession.h"
#include "model/WeightsSnapshot.h"

namespace nnwb::cli {

namespace {

void printEpoch(const EpochReport& r, int epochs, bool json, bool hasVal) {
    if (json) {
        nlohmann::json j = epochReportToJson(r, hasVal);
        j["loss"] = r.train.loss;
        if (hasVal) j["validationLoss"] = r.validation.loss;
        if (r.taskMetrics) {
            j["accuracy"] = r.train.accuracyPct;
            j["missed"] = r.train.missedPct;
        }
        std::printf("%s\n", j.dump().c_str());
    } else {
        std::printf("epoch %d/%d  loss %.6f", r.epoch, epochs, r.train.loss);
        if (hasVal) std::printf(" (val %.6f)", r.validation.loss);
        if (r.taskMetrics) {
            std::printf("  accuracy %.2f%%", r.train.accuracyPct);
            if (hasVal) std::printf(" (val %.2f%%)", r.validation.accuracyPct);
            std::printf("  missed %.2f%%", r.train.missedPct);
            if (hasVal) std::printf(" (val %.2f%%)", r.validation.missedPct);
        }
        std::printf("  %.2f s  %.0f samples/s\n", r.seconds, r.samplesPerSecond);
    }
    std::fflush(stdout);
}

}  // namespace

int runTrain(const Args& args) {
    std::string path, device, saveWeights, loadWeights;
    int epochs = -1, batch = -1;
    bool json = false;
    RecordingOptions record;
    record.source = "cli-train";
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (recordingFlag(args, i, record))
            continue;
        else if (a == "--experiment")
            path = flagValue(args, i);
        else if (a == "--device")
            device = flagValue(args, i);
        else if (a == "--epochs")
            epochs = flagInt(args, i, 1, 1000000);
        else if (a == "--batch")
            batch = flagInt(args, i, 1, 65536);
        else if (a == "--json")
            json = true;
        else if (a == "--save-weights")
            saveWeights = flagValue(args, i);
        else if (a == "--load-weights")
            loadWeights = flagValue(args, i);
        else
            throw UsageError("unknown option '" + a + "'");
    }
    if (path.empty()) throw UsageError("--experiment FILE is required");

    Experiment exp;
    try {
        exp = Experiment::load(path);
    } catch (const ExperimentError& e) {
        throw UsageError(e.what());
    }
    if (!device.empty()) exp.training.device = device;
    if (epochs > 0) exp.training.epochs = epochs;
    if (batch > 0) exp.training.batchSize = batch;

    std::unique_ptr<TrainingSession> session;
    try {
        session = std::make_unique<TrainingSession>(exp);
    } catch (const DataLoadError& e) {
        throw UsageError(e.what());
    } catch (const ComputeError& e) {
        throw UsageError(e.what());
    } catch (const ShapeError& e) {
        throw UsageError(std::string("model: ") + e.what());
    }
    Network& net = session->network();
    Trainer& trainer = session->trainer();
    const ExperimentData& data = session->data();
    if (!loadWeights.empty()) loadWeightsFile(net, loadWeights);
    if (!json) {
        const auto info = session->backend().info();
        std::printf("%s: %s on %s (%s), %zu parameters, %zu training / %zu validation samples\n",
                    exp.name.c_str(), data.description.c_str(), info.id.c_str(), info.name.c_str(),
                    net.parameterCount(), data.split.train.size(), data.split.validation.size());
    }
    const bool hasVal = data.split.validation.size() > 0;
    // The run store (one warning and no recording when it cannot be written).
    record.experimentFile = path;
    RunRecorder recorder(record, stderrWarning("train"));
    recorder.begin(exp, data, session->backend().info(), net.parameterCount(), exp.training.epochs);
    WeightsSnapshot lastGood;  // host copy after each epoch; checked for NaN/Inf
    WeightsSnapshot best;      // the best epoch's copy (lowest validation loss)
    for (int e = 0; e < exp.training.epochs; ++e) {
        try {
            const EpochReport r = trainer.runEpoch();
            std::string problem;
            if (!lastGood.capture(net, r.epoch, &problem))
                throw TrainingError("the weights became NaN or infinite in epoch " +
                                    std::to_string(r.epoch) + " (checked after its last batch); " +
                                    "first non-finite value: " + problem);
            recorder.epoch(r, exp.training.optimizer.learningRate);
            if (recorder.lastIsBest()) best = lastGood;
            printEpoch(r, exp.training.epochs, json, hasVal);
        } catch (const std::runtime_error& ex) {  // TrainingError, ComputeError
            std::string message = ex.what();
            recorder.bundle("best", best);
            recorder.bundle("last", lastGood);
            recorder.finish(runstatus::kFailed, message);
            if (!saveWeights.empty()) {
                if (lastGood.empty()) {
                    message += "\nno epoch completed: no weights were saved";
                } else {
                    lastGood.save(saveWeights);
                    message += "\nthe weights of epoch " + std::to_string(lastGood.epoch()) +
                               " (the last good one) were saved to " + saveWeights;
                }
            }
            throw std::runtime_error(message);  // exit status 1
        }
    }
    recorder.bundle("best", best);
    recorder.bundle("last", lastGood);
    recorder.finish(runstatus::kCompleted);
    if (!saveWeights.empty()) lastGood.save(saveWeights);
    return 0;
}

}  // namespace nnwb::cli
