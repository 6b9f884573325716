#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/Commands.h"
#include "app/cli/EnsembleTrain.h"
#include "app/cli/EnsembleTrial.h"
#include "app/cli/FlagChecks.h"
#include "app/cli/PopulationTrain.h"
#include "app/cli/PresetPath.h"
#include "app/cli/RecordingFlags.h"
#include "app/cli/RunErrors.h"
#include "app/cli/TrainingFlags.h"
#include "app/cli/TrialProtocol.h"
#include "app/cli/TrialWorker.h"
#include "app/cli/ValidationFlags.h"
#include "app/cli/WalkForwardRun.h"
#include "app/engine/RunEngine.h"
#include "app/engine/RunSubject.h"
#include "app/engine/RunTrading.h"
#include "app/trial/EpochReportJson.h"
#include "compute/Backend.h"
#include "model/EpochKeeper.h"
#include "model/Experiment.h"
#include "model/ExperimentData.h"
#include "model/FigureText.h"
#include "model/ModelBundle.h"
#include "model/Monitor.h"
#include "model/NetworkWeights.h"
#include "model/TrainCheckpoint.h"
#include "model/Trainer.h"

namespace nnwb::cli {

namespace {

void printEpoch(const EpochReport& r, int epochs, bool json, bool hasVal) {
    if (json) {
        nlohmann::json j = epochReportToJson(r, hasVal);  // learningRate, bestEpoch, … too
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
            // With its signal count; n/a below the minimum (not 0 % for no signal).
            auto acc = [](const EpochMetrics& m) {
                return accuracyText(m.accuracyPct, m.signalCount);
            };
            std::printf("  accuracy %s", acc(r.train).c_str());
            if (hasVal) std::printf(" (val %s)", acc(r.validation).c_str());
            std::printf("  missed %.2f%%", r.train.missedPct);
            if (hasVal) std::printf(" (val %.2f%%)", r.validation.missedPct);
        }
        std::printf("  lr %.3g  grad norm %.3g (max %.3g)  %.2f s  %s samples/s%s\n",
                    r.learningRate, r.gradNormMean, r.gradNormMax, r.seconds,
                    groupedCount(std::llround(r.samplesPerSecond)).c_str(),
                    r.isBest ? "  *best" : "");
    }
    std::fflush(stdout);
}

struct TrainOptions {
    std::string path, device, saveWeights, loadWeights, saveModel, checkpoint;
    // As given: several only for a packed sweep trial (--trial), paired by position.
    std::vector<std::string> paths, saveModels, saveWeightsFiles;
    int epochs = -1, batch = -1;
    int population = 0;
    std::vector<std::string> vary;
    bool json = false, trial = false;
    bool ensemble = false;  // --ensemble: the population's members kept as one bundle
    RecordingOptions record;
    nlohmann::json overrides = nlohmann::json::object();
    nlohmann::json validation = nlohmann::json::object();
};

// validation.mode walkforward: the walk-forward validation, as `nnwb-cli walkforward` runs it.
int runTrainWalkForward(const Experiment& exp, const TrainOptions& o) {
    for (const auto& [flag, value] :
         {std::pair{"--save-weights", &o.saveWeights}, std::pair{"--save-model", &o.saveModel},
          std::pair{"--load-weights", &o.loadWeights}})
        if (!value->empty())
            throw UsageError(std::string(flag) +
                             ": not with validation.mode walkforward (each fold's weights are "
                             "in its run in the run store)");
    WalkForwardOptions w;
    w.command = "train";
    w.experimentFile = o.path;
    w.json = o.json;
    w.record = o.record;
    return runWalkForward(exp, w);
}

int runTrain(TrainOptions& o);

// --population N: the models of one population (app/cli/PopulationTrain.h).
int runTrainPopulation(const Experiment& exp, const TrainOptions& o) {
    for (const auto& [flag, value] :
         {std::pair{"--save-weights", &o.saveWeights},
          std::pair{"--save-model", o.ensemble ? &o.checkpoint : &o.saveModel},
          std::pair{"--load-weights", &o.loadWeights}, std::pair{"--checkpoint", &o.checkpoint}})
        if (!value->empty())
            throw UsageError(std::string(flag) +
                             ": not with --population (each model's best and last weights are "
                             "bundles of its run in the run store)");
    EnsembleTrainOptions ensemble{o.saveModel, o.json, exp.name};
    if (o.ensemble) checkEnsembleOptions(o.population, ensemble);
    if (exp.validation.walkForward())
        throw UsageError("--population: not with validation.mode walkforward");
    // A sweep's ensemble trial (EnsembleTrial.h): the population is the trial.
    if (o.trial && !o.ensemble)
        throw UsageError("--population: with --trial only as an ensemble trial (--ensemble)");
    if (o.trial) return runTrialEnsemble(exp, o.population, o.vary, o.saveModel);
    PopulationTrainOptions p;
    p.models = o.population;
    p.vary = o.vary;
    p.json = o.json;
    p.record = o.record;
    p.record.source = "cli-train";
    p.record.experimentFile = o.path;
    if (o.ensemble) {
        // The members' runs share one id, as the runs of a comparison do.
        if (p.record.comparison.empty())
            p.record.comparison = "ensemble-" + newRunUuid().substr(0, 12);
        wireEnsemble(p, ensemble);
    }
    return runPopulationTrain(exp, p);
}

// training.ensemble N (the Training pane's "Ensemble of N seeds"): the ensemble of seeds
// S..S+N-1, as --population N --vary seed=S..S+N-1 --ensemble; not with those flags. (Not
// read for a walk-forward experiment nor a sweep's trial: those train one model per run.)
void useEnsembleSetting(const Experiment& exp, TrainOptions& o) {
    const int n = exp.training.ensemble;
    const std::string what = "training.ensemble " + std::to_string(n);
    if (o.population > 0 || !o.vary.empty() || o.ensemble)
        throw UsageError(what + ": not with --population, --vary or --ensemble");
    if (o.saveModel.empty())
        throw UsageError(what + ": needs --save-model FILE (the ensemble bundle to write)");
    const uint64_t s = exp.training.seed;
    o.population = n;
    o.vary = {"seed=" + std::to_string(s) + ".." + std::to_string(s + uint64_t(n) - 1)};
    o.ensemble = true;
}

// The experiment of `path` (a file or a preset) with the command's flags applied.
Experiment loadTrainExperiment(const std::string& path, const TrainOptions& o) {
    const std::string file = findExperimentOrPreset(path);
    Experiment exp;
    try {
        exp = Experiment::load(file.empty() ? path : file);
    } catch (const ExperimentError& e) {
        if (!file.empty()) throw UsageError(e.what());
        throw UsageError(std::string(e.what()) + "; nor is it a preset (" + presetNames() + ")");
    }
    if (!o.device.empty()) exp.training.device = o.device;
    if (o.epochs > 0) exp.training.epochs = o.epochs;
    if (o.batch > 0) exp.training.batchSize = o.batch;
    exp.training = applyTrainingFlags(exp.training, o.overrides);
    exp.validation = applyValidationFlags(exp.validation, o.validation);
    return exp;
}

// --trial with several --experiment files: a packed sweep trial (TrialPopulation.cpp).
int runPackedTrial(const TrainOptions& o) {
    const size_t n = o.paths.size();
    for (const auto& [flag, files] : {std::pair{"--save-model", &o.saveModels},
                                      std::pair{"--save-weights", &o.saveWeightsFiles}})
        if (!files->empty() && files->size() != n)
            throw UsageError(std::string(flag) + ": " + std::to_string(files->size()) +
                             " files for " + std::to_string(n) +
                             " experiments (a packed trial takes one per --experiment)");
    for (const auto& [flag, value] :
         {std::pair{"--load-weights", &o.loadWeights}, std::pair{"--checkpoint", &o.checkpoint}})
        if (!value->empty())
            throw UsageError(std::string(flag) + ": not with several --experiment files");
    if (o.population > 0) throw UsageError("--population: not with --trial");
    std::vector<Experiment> members;
    for (const std::string& path : o.paths) members.push_back(loadTrainExperiment(path, o));
    return runTrialPopulation(members, o.saveModels, o.saveWeightsFiles);
}

// --trial: the run as a sweep's child process (TrialProtocol.h); bad input is also reported
// on stdout as the trial's end.
int runTrial(TrainOptions& o) {
    o.record = RecordingOptions::none();
    try {
        if (o.paths.size() > 1) return runPackedTrial(o);
        return runTrain(o);
    } catch (const UsageError& e) {
        printTrialBadInput(e.what());
        throw;
    }
}

// --load-weights into the run's network (bad files are bad input; a device failure is not).
void loadTrainWeights(RunEngine& run, const std::string& file) {
    try {
        loadWeightsFile(run.network(), file);
    } catch (const ComputeError&) {
        throw;                           // a device failure, not bad input
    } catch (const std::exception& e) {  // unreadable file, missing tensor, wrong shape
        throw UsageError(std::string("--load-weights: ") + e.what());
    }
}

// --checkpoint: go on from the file when it exists; write it after every epoch. Returns the
// checkpoint's epoch (0: none).
int useCheckpoint(RunEngine& run, const std::string& file) {
    int resumedAt = 0;
    std::error_code ec;
    if (std::filesystem::exists(file, ec)) {
        try {
            resumedAt = run.resumeFromCheckpoint(file);
        } catch (const CheckpointError& e) {
            throw UsageError(std::string("--checkpoint: ") + e.what());
        }
    }
    run.setCheckpointFile(file);
    return resumedAt;
}

// --trial: trains, saves what was asked, prints the engine's end-of-run trading figures (the
// validation part traded with the best epoch's weights, no line when nothing traded) and the
// end line; returns the trial's exit status.
int trainTrial(RunEngine& run, int toTrain, StartMode mode, const TrainOptions& o, bool hasVal) {
    TrainControl control;
    TrialEvents trial(control, hasVal);
    const RunResult result = run.train(toTrain, mode, o.record, trial, &control);
    // The sweep's coordinator records what was saved as the trial run's model.
    const WeightsSnapshot& kept = run.keeper().result();
    if (!kept.empty() && !o.saveModel.empty()) run.resultBundle().save(o.saveModel);
    if (!kept.empty() && !o.saveWeights.empty()) kept.save(o.saveWeights);
    const bool saved = !kept.empty() && (!o.saveModel.empty() || !o.saveWeights.empty());
    if (!run.tradingWithReturns().is_null()) printTrialResult(run.tradingWithReturns());
    return trial.end(result, saved ? kept.epoch() : 0);
}

// A failed run: saves the kept weights where asked and throws the failure with what was saved
// (exit status 1).
[[noreturn]] void failWithKeptWeights(RunEngine& run, const RunResult& result,
                                      const TrainOptions& o) {
    std::string message = result.rawError;
    const EpochKeeper& keeper = run.keeper();
    if (!o.saveWeights.empty() || !o.saveModel.empty()) {
        const WeightsSnapshot& kept = keeper.result();
        if (kept.empty()) {
            message += "\nno epoch completed: no weights were saved";
        } else {
            if (!o.saveWeights.empty()) kept.save(o.saveWeights);
            if (!o.saveModel.empty()) run.resultBundle().save(o.saveModel);
            message +=
                "\nthe weights of epoch " + std::to_string(kept.epoch()) + " (" +
                (kept.epoch() == keeper.lastGood().epoch() ? "the last good one" : "the best one") +
                ") were saved to " + (o.saveWeights.empty() ? o.saveModel : o.saveWeights);
            if (!o.saveWeights.empty() && !o.saveModel.empty())
                message += " and, as a model bundle, to " + o.saveModel;
        }
    }
    throw std::runtime_error(message);
}

// The run's result (the best epoch's weights with keepBest, else the last good epoch's) saved
// where asked, saying so (with --json on stderr: stdout holds only the epoch objects).
void saveTrainResult(RunEngine& run, const TrainOptions& o) {
    const EpochKeeper& keeper = run.keeper();
    const char* which = keeper.keepBest() ? "the best epoch" : "the last epoch";
    std::FILE* note = o.json ? stderr : stdout;
    if (!o.saveWeights.empty()) {
        keeper.result().save(o.saveWeights);
        std::fprintf(note,
                     "saved the weights of epoch %d (%s) to %s: %zu tensors, %zu parameters\n",
                     keeper.result().epoch(), which, o.saveWeights.c_str(),
                     run.network().params().size(), run.network().parameterCount());
    }
    if (!o.saveModel.empty()) {
        run.resultBundle().save(o.saveModel);
        std::fprintf(note, "saved the model bundle of epoch %d (%s) to %s\n",
                     keeper.result().epoch(), which, o.saveModel.c_str());
    }
}

int runTrain(TrainOptions& o) {
    const std::string& path = o.path;
    RecordingOptions& record = o.record;
    record.source = "cli-train";
    // A file, else a preset of that name (as `compare` takes them).
    const std::string file = findExperimentOrPreset(path);
    const Experiment exp = loadTrainExperiment(path, o);
    if (exp.training.ensemble > 1 && !o.trial && !exp.validation.walkForward())
        useEnsembleSetting(exp, o);
    if (o.population > 0) return runTrainPopulation(exp, o);
    if (!o.vary.empty()) throw UsageError("--vary: only with --population N");
    if (o.ensemble) throw UsageError("--ensemble: only with --population N (N >= 2 members)");
    if (exp.validation.walkForward()) {
        // A sweep trial runs every fold and reports the stitched result (its weights are not
        // kept, so --save-model / --save-weights save nothing).
        if (o.trial) return runTrialWalkForward(exp);
        record.experimentFile = path;
        return runTrainWalkForward(exp, o);
    }

    // In a sweep's kept worker, the data and backend of its trials before (TrialWorker.h).
    auto run = asUsageErrors(
        [&] { return std::make_unique<RunEngine>(exp, keptData(exp), keptBackend(exp)); });
    const ExperimentData& data = run->data();
    if (!o.loadWeights.empty()) loadTrainWeights(*run, o.loadWeights);
    const int resumedAt = o.checkpoint.empty() ? 0 : useCheckpoint(*run, o.checkpoint);
    // The epochs still to train and how (a finished checkpoint trains none).
    const int toTrain =
        run->keeper().stoppedEarlyAt() > 0 ? 0 : std::max(0, exp.training.epochs - resumedAt);
    const StartMode mode = resumedAt > 0 ? StartMode::ContinueCurrent : StartMode::Restart;
    for (const std::string& w : data.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    if (!o.json && !o.trial) std::printf("%s\n", runSubjectLine(runSubject(*run)).c_str());
    if (!o.saveModel.empty() && !data.priceData)
        throw UsageError("--save-model: a model bundle needs a price file; " + path +
                         " trains on synthetic data (use --save-weights)");
    // The run store (one warning and no recording when it cannot be written).
    record.experimentFile = file.empty() ? path : file;
    const bool hasVal = data.split.validation.size() > 0;
    if (o.trial) return trainTrial(*run, toTrain, mode, o, hasVal);
    struct Printer : RunEvents {
        int epochs;
        bool json, hasVal;
        void epoch(const EpochReport& r) override { printEpoch(r, epochs, json, hasVal); }
        void warning(const std::string& m) override { stderrWarning("train")(m); }
    } printer;
    printer.epochs = exp.training.epochs;
    printer.json = o.json;
    printer.hasVal = hasVal;
    const RunResult result = run->train(toTrain, mode, record, printer);
    if (result.end == RunEnd::Failed) failWithKeptWeights(*run, result, o);
    if (!o.json) std::printf("%s\n", run->keeper().summary().c_str());
    saveTrainResult(*run, o);
    return 0;
}

// --save-weights, --load-weights, --save-model and --checkpoint.
void addTrainFileOptions(CLI::App& cmd, TrainOptions& o) {
    cmd.add_option("--save-weights", o.saveWeightsFiles,
                   "write the run's result (see --keep-best) as safetensors at the end (a "
                   "packed trial: one per --experiment)")
        ->type_name("FILE")
        ->allow_extra_args(false);
    cmd.add_option("--load-weights", o.loadWeights, "start from these weights (shapes must match)")
        ->type_name("FILE");
    cmd.add_option("--save-model", o.saveModels,
                   "write the model bundle (experiment, data settings and weights; a packed "
                   "trial: one per --experiment)")
        ->type_name("M.safetensors")
        ->allow_extra_args(false);
    cmd.add_option("--checkpoint", o.checkpoint,
                   "write a checkpoint (weights, optimizer, epoch) to FILE after every epoch; "
                   "when FILE exists, go on from it (docs/slurm.md)")
        ->type_name("FILE");
}

}  // namespace

void addTrainCommand(CLI::App& root, Runners& runners) {
    auto o = std::make_shared<TrainOptions>();
    CLI::App* cmd = root.add_subcommand(
        "train",
        "train and print one line per epoch (loss, accuracy, missed); the run is recorded in the "
        "run store. With validation.mode walkforward (or --validation walkforward): the "
        "walk-forward validation, as nnwb-cli walkforward");
    cmd->footer(
        "Exit status: 0 done, 1 the run failed (e.g. a non-finite loss), 2 bad input; with "
        "--trial also 3 pruned, 4 stopped.");
    cmd->add_option("--experiment", o->paths,
                    "the experiment JSON, or a preset's name (with --trial: several, one per "
                    "member of a packed sweep trial, docs/sweeps.md)")
        ->type_name("FILE|PRESET")
        ->required()
        ->allow_extra_args(false);
    addRunSizeFlags(*cmd, o->device, o->epochs, o->batch,
                    "epochs to train instead of the experiment's");
    cmd->add_flag("--json", o->json,
                  "one JSON object per epoch (walk-forward: per fold, then the stitched summary)");
    cmd->add_flag("--trial", o->trial,
                  "run as a sweep trial: JSON lines on stdout, continue/prune/stop lines on "
                  "stdin between epochs, not recorded (docs/sweeps.md)");
    addTrainFileOptions(*cmd, *o);
    cmd->add_option("--population", o->population,
                    "train N models of the experiment together, in the same launches, each "
                    "recorded as its own run (seeds: the experiment's + 0..N-1 unless --vary "
                    "seed=...; docs/population.md)")
        ->type_name("N")
        ->check(integerIn(1, 4096));
    cmd->add_option("--vary", o->vary,
                    "with --population: KEY=A..B or KEY=V1,V2,... (N values, or one) for a "
                    "training key the models may differ in: seed, optimizer.*, lrSchedule.*, "
                    "classWeights, earlyStopping.*, keepBest; repeatable")
        ->type_name("KEY=VALUES")
        ->allow_extra_args(false);
    cmd->add_flag("--ensemble", o->ensemble,
                  "with --population N: keep the N models as one ensemble bundle (--save-model "
                  "FILE): the mean of their outputs, their agreement and spread "
                  "(docs/ensembles.md)");
    addRecordingFlags(*cmd, o->record);
    addTrainingFlags(*cmd, o->overrides);
    addValidationFlags(*cmd, o->validation);
    runners[cmd] = [o] {
        // One experiment and one file each, but for a packed sweep trial.
        if (o->paths.size() > 1 && !o->trial)
            throw UsageError(
                "--experiment: several files only with --trial (a packed sweep "
                "trial); --population N trains N models of one experiment");
        o->path = o->paths.front();
        for (const auto& [flag, files, one] :
             {std::tuple{"--save-model", &o->saveModels, &o->saveModel},
              std::tuple{"--save-weights", &o->saveWeightsFiles, &o->saveWeights}}) {
            if (files->size() > 1 && o->paths.size() == 1)
                throw UsageError(std::string(flag) +
                                 ": one file (several only for a packed "
                                 "trial, one per --experiment)");
            if (!files->empty()) *one = files->front();
        }
        return o->trial ? runTrial(*o) : runTrain(*o);
    };
}

}  // namespace nnwb::cli
