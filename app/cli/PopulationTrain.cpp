#include "app/cli/PopulationTrain.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "app/cli/Commands.h"
#include "app/cli/RecordingFlags.h"
#include "app/cli/RunErrors.h"
#include "app/engine/RunEngine.h"
#include "app/engine/RunOutcome.h"
#include "app/trial/EpochReportJson.h"
#include "model/FigureText.h"
#include "model/Monitor.h"
#include "model/PopulationSpec.h"

namespace nnwb::cli {

namespace {

// Per epoch: how many models still train, the best and median monitored value, the speed.
struct PopulationPrinter : RunEvents {
    int epochs = 0, models = 0;
    bool json = false, hasVal = false;
    Monitor monitor = Monitor::ValidationLoss;
    std::vector<EpochReport> epoch_;  // the reports of the epoch being printed
    std::function<void(const EpochReport&)> alsoEpoch;
    void epoch(const EpochReport& r) override {
        if (alsoEpoch) alsoEpoch(r);
        if (json) {
            nlohmann::json j = epochReportToJson(r, hasVal);
            j["model"] = r.model + 1;
            std::printf("%s\n", j.dump().c_str());
            std::fflush(stdout);
            return;
        }
        if (!epoch_.empty() && epoch_.front().epoch != r.epoch) flush();
        epoch_.push_back(r);
    }
    void betweenEpochs() override { flush(); }
    void warning(const std::string& m) override { stderrWarning("train")(m); }
    void flush() {
        if (epoch_.empty()) return;
        std::vector<double> v;
        size_t bestAt = 0;
        for (size_t i = 0; i < epoch_.size(); ++i) {
            v.push_back(monitorValue(monitor, epoch_[i].train, epoch_[i].validation));
            if (higherIsBetter(monitor) ? v[i] > v[bestAt] : v[i] < v[bestAt]) bestAt = i;
        }
        std::vector<double> sorted = v;
        std::sort(sorted.begin(), sorted.end());
        const EpochReport& r = epoch_.front();
        std::printf(
            "epoch %d/%d  %zu of %d models  %s best %.6g (model %d) median %.6g  %.2f s  "
            "%s model-samples/s\n",
            r.epoch, epochs, epoch_.size(), models, monitorLabel(monitor).c_str(), v[bestAt],
            epoch_[bestAt].model + 1, sorted[sorted.size() / 2], r.seconds,
            groupedCount(std::llround(r.samplesPerSecond * epoch_.size())).c_str());
        std::fflush(stdout);
        epoch_.clear();
    }
};

const char* endText(const RunResult& r) {
    return runEndText({r.end, r.stoppedEarly});
}

}  // namespace

int runPopulationTrain(const Experiment& base, const PopulationTrainOptions& o) {
    std::vector<Experiment> members;
    try {
        members = populationMembers(base, o.models, o.vary);
    } catch (const PopulationSpecError& e) {
        throw UsageError(e.what());
    }
    auto run = asUsageErrors([&] { return std::make_unique<RunEngine>(members); });
    const ExperimentData& data = run->data();
    for (const std::string& w : data.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    PopulationPrinter printer;
    printer.epochs = base.training.epochs;
    printer.models = o.models;
    printer.json = o.json;
    printer.hasVal = data.split.validation.size() > 0;
    printer.monitor = run->keeper().monitor();
    printer.alsoEpoch = o.epoch;
    if (o.before) o.before(*run);
    if (!o.json) {
        const auto info = run->session().backend().info();
        std::printf(
            "%s: %s on %s (%s), a population of %d models of %zu parameters, %zu "
            "training / %zu validation samples\n",
            base.name.c_str(), data.description.c_str(), info.id.c_str(), info.name.c_str(),
            o.models, run->network().parameterCount(), data.split.train.size(),
            data.split.validation.size());
    }
    run->train(base.training.epochs, StartMode::Restart, o.record, printer);
    printer.flush();
    bool anyFailed = false;
    for (int m = 0; m < run->models(); ++m) {
        const RunResult& r = run->resultOf(m);
        const EpochKeeper& k = run->keeperOf(m);
        anyFailed = anyFailed || r.end == RunEnd::Failed;
        if (o.json) {
            nlohmann::json j = {{"model", m + 1},
                                {"name", run->experimentOf(m).name},
                                {"seed", run->experimentOf(m).training.seed},
                                {"status", endText(r)},
                                {"bestEpoch", k.bestEpoch()},
                                {"run", run->recordedRunIdOf(m)}};
            if (k.bestEpoch() > 0) j["best"] = k.bestValue();
            if (!r.error.empty()) j["error"] = r.error;
            std::printf("%s\n", j.dump().c_str());
        } else {
            std::printf("model %d  %s  %s  %s%s%s\n", m + 1, run->experimentOf(m).name.c_str(),
                        endText(r), k.summary().c_str(),
                        run->recordedRunIdOf(m) > 0
                            ? ("  run " + std::to_string(run->recordedRunIdOf(m))).c_str()
                            : "",
                        r.error.empty() ? "" : ("  " + r.error).c_str());
        }
    }
    std::fflush(stdout);
    return o.after ? o.after(*run, anyFailed ? 1 : 0) : anyFailed ? 1 : 0;
}

}  // namespace nnwb::cli
