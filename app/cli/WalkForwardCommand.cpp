#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "app/cli/Commands.h"
#include "app/cli/FlagChecks.h"
#include "app/cli/ParallelFolds.h"
#include "app/cli/PresetPath.h"
#include "app/cli/RecordingFlags.h"
#include "app/cli/RunErrors.h"
#include "app/cli/TrainingFlags.h"
#include "app/cli/ValidationFlags.h"
#include "app/cli/WalkForwardRun.h"
#include "app/engine/RunOutcome.h"
#include "app/engine/WalkForward.h"
#include "app/engine/WalkForwardTrading.h"
#include "app/ensemble/EnsembleKeep.h"
#include "app/ensemble/EnsembleWalkForward.h"
#include "app/report/WalkForwardJson.h"
#include "compute/Backend.h"
#include "model/AtomicFile.h"
#include "model/FigureText.h"
#include "model/PopulationSpec.h"
#include "model/PredictionReport.h"
#include "model/TrainingSession.h"
#include "model/data/DateTime.h"
#include "model/trading/TradingEvaluation.h"
#include "model/trading/TradingReportText.h"

namespace nnwb::cli {

namespace {

using ojson = nlohmann::ordered_json;

std::string foldName(const FoldRecord& r) {
    return std::to_string(r.index + 1) + "/" + std::to_string(r.folds);
}

std::string pct(const EpochMetrics& m, double value) {
    char buf[32];
    if (m.samples == 0) return "-";
    std::snprintf(buf, sizeof buf, "%.2f", value);
    return buf;
}

// "n/a" below kMinSignalsForAccuracy signals, as every other place shows it.
std::string accuracy(const EpochMetrics& m) {
    return accuracyShown(m.signalCount) ? pct(m, m.accuracyPct) : std::string("n/a");
}

std::string loss(const EpochMetrics& m) {
    char buf[32];
    if (m.samples == 0) return "-";
    std::snprintf(buf, sizeof buf, "%.6f", m.loss);
    return buf;
}

void printTable(const WalkForwardResult& w) {
    std::printf("\n%-7s %-35s %6s %5s %10s %8s %9s %10s %8s %9s %7s\n", "fold", "test period",
                "epochs", "best", "val loss", "val acc", "val miss", "test loss", "test acc",
                "test miss", "signals");
    for (const FoldRecord& r : w.folds) {
        const std::string period = formatBarTime(r.testFrom) + " .. " + formatBarTime(r.testTo);
        const EpochMetrics& v = r.validation;
        const EpochMetrics& t = r.test;
        std::printf(
            "%-7s %-35s %6d %5d %10s %8s %9s %10s %8s %9s %7zu%s\n", foldName(r).c_str(),
            period.c_str(), r.epochs, r.bestEpoch, r.hasValidation ? loss(v).c_str() : "-",
            r.hasValidation ? accuracy(v).c_str() : "-",
            r.hasValidation ? pct(v, v.missedPct).c_str() : "-", loss(t).c_str(),
            accuracy(t).c_str(), pct(t, t.missedPct).c_str(), t.signalCount,
            r.end == RunEnd::Completed ? "" : (std::string("  ") + foldEndWord(r.end)).c_str());
    }
    std::printf(
        "(accuracy, missed in %%; validation: each fold's early-stopping validation at its "
        "best epoch; test: its test window with that epoch's weights)\n");
}

std::string csvNumber(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", x);
    return buf;
}

// One row per fold, then the stitched out-of-sample row ("all").
std::string foldTableCsv(const WalkForwardResult& w, const BarSeries& bars) {
    std::string out =
        "fold,train_from,train_to,validation_from,validation_to,test_from,test_to,epochs,"
        "best_epoch,validation_loss,validation_accuracy,validation_missed,test_samples,"
        "test_loss,test_accuracy,test_missed,test_signals,test_patterns\n";
    auto figures = [](const EpochMetrics& m) {
        return std::to_string(m.samples) + "," + csvNumber(m.loss) + "," +
               csvNumber(m.accuracyPct) + "," + csvNumber(m.missedPct) + "," +
               std::to_string(m.signalCount) + "," + std::to_string(m.patterns);
    };
    for (const FoldRecord& r : w.folds) {
        const EpochMetrics& v = r.validation;
        out += std::to_string(r.index + 1) + "," + formatBarTime(r.trainFrom) + "," +
               formatBarTime(r.trainTo) + "," +
               (r.hasValidation ? formatBarTime(r.validationFrom) : "") + "," +
               (r.hasValidation ? formatBarTime(r.validationTo) : "") + "," +
               formatBarTime(r.testFrom) + "," + formatBarTime(r.testTo) + "," +
               std::to_string(r.epochs) + "," + std::to_string(r.bestEpoch) + "," +
               (r.hasValidation ? csvNumber(v.loss) + "," + csvNumber(v.accuracyPct) + "," +
                                      csvNumber(v.missedPct)
                                : std::string(",,")) +
               "," + figures(r.test) + "\n";
    }
    if (!w.outOfSample.empty())
        out += "all,,,,," + formatBarTime(bars.time[w.outOfSample.bar.front()]) + "," +
               formatBarTime(bars.time[w.outOfSample.bar.back()]) + ",,,,,," + figures(w.stitched) +
               "\n";
    return out;
}

// Prints the folds as they go (text mode; JSON prints the records at the end).
struct Printer : WalkForwardEvents {
    bool json = false;
    std::string command;
    void foldStarted(const FoldRecord& r) override {
        if (json) return;
        const Fold& f = r.fold;
        std::printf("fold %s: training %s .. %s (%zu samples)", foldName(r).c_str(),
                    formatBarTime(r.trainFrom).c_str(), formatBarTime(r.trainTo).c_str(),
                    f.trainLast - f.trainFirst + 1);
        if (r.hasValidation)
            std::printf(", validation %s .. %s (%zu)", formatBarTime(r.validationFrom).c_str(),
                        formatBarTime(r.validationTo).c_str(),
                        f.validationLast - f.validationFirst + 1);
        std::printf(", test %s .. %s (%zu)\n", formatBarTime(r.testFrom).c_str(),
                    formatBarTime(r.testTo).c_str(), f.testSamples());
        std::fflush(stdout);
    }
    void foldEnded(const FoldRecord& r) override {
        if (json) return;
        if (r.end != RunEnd::Completed) {
            std::printf("fold %s: %s after %d epochs\n", foldName(r).c_str(), foldEndWord(r.end),
                        r.epochs);
        } else {
            std::printf("fold %s: %d epochs%s, best %d: test loss %s accuracy %s%s missed %s%%\n",
                        foldName(r).c_str(), r.epochs, r.stoppedEarly ? " (stopped early)" : "",
                        r.bestEpoch, loss(r.test).c_str(), accuracy(r.test).c_str(),
                        accuracyShown(r.test.signalCount) ? "%" : "",
                        pct(r.test, r.test.missedPct).c_str());
        }
        std::fflush(stdout);
    }
    void warning(const std::string& m) override { stderrWarning(command)(m); }
};

// The members of --population N --vary ... --ensemble (none without --ensemble); UsageError
// for what cannot make an ensemble walk-forward.
std::vector<Experiment> ensembleMembers(const Experiment& exp, const WalkForwardOptions& o,
                                        bool cpcv) {
    if (!o.ensemble) {
        if (o.population > 0 || !o.vary.empty())
            throw UsageError(std::string(o.population > 0 ? "--population" : "--vary") +
                             ": walkforward trains a population only as an ensemble "
                             "(--population N --vary KEY=VALUES --ensemble)");
        const int n = exp.training.ensemble;  // the setting: seeds S..S+N-1, as the window
        if (n <= 1) return {};
        const std::string what = "training.ensemble " + std::to_string(n);
        if (!o.slots.empty()) throw UsageError(what + ": not with --slots");
        if (cpcv) throw UsageError(what + ": not with validation.scheme cpcv");
        try {
            return seedEnsembleMembers(exp, n, "training.ensemble");
        } catch (const std::exception& e) {
            throw UsageError(e.what());
        }
    }
    if (o.population == 0)
        throw UsageError("--ensemble: only with --population N (N >= 2 members)");
    if (o.population < 2)
        throw UsageError("--ensemble: an ensemble needs at least 2 members, not --population " +
                         std::to_string(o.population));
    if (!o.slots.empty()) throw UsageError("--ensemble: not with --slots");
    if (cpcv) throw UsageError("--ensemble: not with validation.scheme cpcv");
    try {
        return populationMembers(exp, o.population, o.vary);
    } catch (const PopulationSpecError& e) {
        throw UsageError(e.what());
    }
}

}  // namespace

int runWalkForward(const Experiment& exp, const WalkForwardOptions& o) {
    std::unique_ptr<WalkForward> wf;
    try {
        wf = std::make_unique<WalkForward>(exp);
    } catch (const DataLoadError& e) {
        throw UsageError(e.what());
    }
    const WalkForwardData& data = wf->data();
    for (const std::string& w : data.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    const std::vector<Experiment> members = ensembleMembers(exp, o, data.isCpcv());
    if (data.isCpcv()) return runCpcvWalkForward(exp, *wf, o);
    const FoldPlan& plan = wf->plan();
    const ValidationConfig& v = exp.validation;
    if (!o.json)
        std::printf(
            "%s: %s, %zu bars; walk-forward %s, %zu folds, purge %zu, embargo %zu bars, "
            "early-stopping share %.0f%%\n",
            exp.name.c_str(), data.fileName.c_str(), data.bars->size(), v.scheme.c_str(),
            plan.folds.size(), plan.purge, plan.embargo, 100.0 * v.earlyStoppingShare);
    RecordingOptions record = o.record;
    record.experimentFile = o.experimentFile;
    Printer printer;
    printer.json = o.json;
    printer.command = o.command;
    EnsembleWalkForwardResult ensemble;
    const bool isEnsemble = !members.empty();  // --ensemble or the setting training.ensemble
    const WalkForwardResult result = asUsageErrors([&] {
        if (isEnsemble) {
            ensemble = runEnsembleFolds(*wf, members, record, printer);
            return ensemble.ensemble;
        }
        return o.slots.empty() ? wf->run(record, printer)
                               : runFoldsInParallel(*wf, o.slots, record, printer);
    });
    const nlohmann::json ensembleSummary =
        isEnsemble ? ensembleWalkForwardJson(ensemble, *data.bars, exp.trading) : nullptr;
    // The stitched series traded under the experiment's trading settings (docs/trading.md).
    const StitchedTrading stitchedTrading = tradeStitched(*wf, result);
    const TradingReport* trading = stitchedTrading.report.get();
    if (o.json) {
        // The records the report reads (app/report/WalkForwardJson.h): folds with their part of
        // the trading, the stitched object with the report's trades.
        for (const ojson& line : walkForwardJsonLines(result, *data.bars, plan, trading))
            std::printf("%s\n", line.dump().c_str());
        if (isEnsemble)
            std::printf("%s\n", nlohmann::json{{"ensemble", ensembleSummary}}.dump().c_str());
    } else {
        printTable(result);
        if (!result.outOfSample.empty()) {
            const size_t a = result.outOfSample.bar.front(), b = result.outOfSample.bar.back();
            std::printf("\nout of sample, stitched from %zu folds: %s .. %s\n", result.folds.size(),
                        formatBarTime(data.bars->time[a]).c_str(),
                        formatBarTime(data.bars->time[b]).c_str());
            std::printf("%s", predictionMetricsText(result.stitched).c_str());
        }
        if (trading)
            std::printf("\ntrading the stitched signals (docs/trading.md)\n%s",
                        tradingReportText(*trading).c_str());
        if (isEnsemble) std::printf("%s", ensembleWalkForwardText(ensembleSummary).c_str());
    }
    std::fflush(stdout);
    if (!o.csv.empty()) {
        writeFileAtomic(o.csv, foldTableCsv(result, *data.bars));
        std::fprintf(o.json ? stderr : stdout, "wrote the fold table to %s\n", o.csv.c_str());
    }
    if (result.end == RunEnd::Failed) throw std::runtime_error(result.error);
    if (!stitchedTrading.error.empty()) throw UsageError("trading: " + stitchedTrading.error);
    return 0;
}

namespace {

struct WalkForwardCliOptions {
    std::string experiment, device, csv, slots, foldOut;
    int population = 0;
    std::vector<std::string> vary;
    bool ensemble = false;
    int fold = 0;  // --fold K (1-based): the child of --slots
    int epochs = -1, batch = -1;
    bool json = false;
    RecordingOptions record;
    nlohmann::json training = nlohmann::json::object();
    nlohmann::json validation = nlohmann::json::object();
};

int run(WalkForwardCliOptions& o) {
    std::string path;
    try {
        path = resolvePreset(o.experiment);
    } catch (const std::runtime_error& e) {
        throw UsageError(std::string("--experiment: ") + e.what());
    }
    Experiment exp;
    try {
        exp = Experiment::load(path);
    } catch (const ExperimentError& e) {
        throw UsageError(e.what());
    }
    if (!o.device.empty()) exp.training.device = o.device;
    if (o.epochs > 0) exp.training.epochs = o.epochs;
    if (o.batch > 0) exp.training.batchSize = o.batch;
    exp.training = applyTrainingFlags(exp.training, o.training);
    exp.validation = applyValidationFlags(exp.validation, o.validation);
    exp.validation.mode = "walkforward";
    WalkForwardOptions w;
    w.experimentFile = path;
    w.json = o.json;
    w.csv = o.csv;
    w.slots = o.slots;
    w.record = o.record;
    w.record.source = "cli-walkforward";
    w.population = o.population;
    w.vary = o.vary;
    w.ensemble = o.ensemble;
    if (o.fold > 0 && o.ensemble) throw UsageError("--ensemble: not with --fold");
    if (o.fold > 0) {  // one fold, for a parent's --slots
        if (o.foldOut.empty()) throw UsageError("--fold: needs --fold-out FILE");
        std::unique_ptr<WalkForward> wf;
        try {
            wf = std::make_unique<WalkForward>(exp);
        } catch (const DataLoadError& e) {
            throw UsageError(e.what());
        }
        if (size_t(o.fold) > wf->plan().folds.size())
            throw UsageError("--fold: " + std::to_string(o.fold) + " is beyond the plan's " +
                             std::to_string(wf->plan().folds.size()) + " folds");
        w.record.experimentFile = path;
        return asUsageErrors(
            [&] { return runFoldToFile(*wf, size_t(o.fold - 1), w.record, o.foldOut); });
    }
    return runWalkForward(exp, w);
}

}  // namespace

void addWalkForwardCommand(CLI::App& root, Runners& runners) {
    auto o = std::make_shared<WalkForwardCliOptions>();
    CLI::App* cmd = root.add_subcommand(
        "walkforward",
        "walk-forward validation: train one run per fold, test it on the fold's test window, and "
        "print the fold table and the stitched out-of-sample figures; each fold is recorded as a "
        "run \"NAME fold k/N\"");
    cmd->footer(
        "The experiment's validation section gives the folds (docs/settings.md, Validation); "
        "the flags below override it. Exit status: 0 done, 1 a fold's run failed, 2 bad input "
        "(folds that do not fit the file name the setting).");
    cmd->add_option("--experiment", o->experiment, "the experiment JSON, or a preset's name")
        ->type_name("FILE|PRESET")
        ->required();
    addRunSizeFlags(*cmd, o->device, o->epochs, o->batch,
                    "epochs per fold instead of the experiment's");
    cmd->add_flag("--json", o->json,
                  "one JSON object per fold (periods, epochs, best epoch, figures), then "
                  "{\"stitched\": ...}");
    cmd->add_option("--csv", o->csv, "write the fold table (and the stitched row \"all\") as CSV")
        ->type_name("FILE");
    cmd->add_option("--slots", o->slots,
                    "run the folds as parallel processes on these slots (as sweep run's: "
                    "cpu=N, opencl:P:D=K); the same figures as in turn")
        ->type_name("S");
    cmd->add_option("--fold", o->fold,
                    "train and test only fold K (1-based) and write its outcome to --fold-out "
                    "(what --slots runs in each process)")
        ->type_name("K")
        ->check(integerIn(1, 1000000));
    cmd->add_option("--fold-out", o->foldOut, "where --fold writes the fold's outcome (JSON)")
        ->type_name("FILE");
    cmd->add_option("--population", o->population,
                    "with --ensemble: every fold trains N members as one population")
        ->type_name("N")
        ->check(integerIn(1, 4096));
    cmd->add_option("--vary", o->vary,
                    "with --population: KEY=VALUES the members differ in (seed=1..N: a seed "
                    "ensemble; docs/population.md); repeatable")
        ->type_name("KEY=VALUES")
        ->allow_extra_args(false);
    cmd->add_flag("--ensemble", o->ensemble,
                  "with --population N: each fold's members as one ensemble (mean output, "
                  "agreement); the stitched series is the ensemble's, set against a single "
                  "seed and the members' median (docs/ensembles.md)");
    addValidationFlags(*cmd, o->validation, false);
    addRecordingFlags(*cmd, o->record);
    addTrainingFlags(*cmd, o->training);
    runners[cmd] = [o] { return run(*o); };
}

}  // namespace nnwb::cli
