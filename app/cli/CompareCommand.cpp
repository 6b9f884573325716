// `nnwb-cli compare A B [...] [--epochs N] [--device ID ...] [--csv OUT]`: checks every
// experiment up front (bad input exits 2 before anything trains; so does an experiment with
// training.ensemble > 1, which compare would train as one model), trains them on the data of
// the first through ComparisonRunner, prints a per-epoch table while they run and the summary
// table at the end. Exit 1 when a run failed (the others still finish).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "app/cli/Commands.h"
#include "app/cli/FlagChecks.h"
#include "app/cli/PresetPath.h"
#include "app/cli/RecordingFlags.h"
#include "app/compare/ComparisonCsv.h"
#include "app/compare/ComparisonRunner.h"
#include "app/compare/ComparisonSet.h"
#include "app/compare/ComparisonSummary.h"
#include "compute/Backend.h"
#include "compute/BackendRegistry.h"
#include "model/ExperimentData.h"
#include "model/FigureText.h"
#include "model/Network.h"

namespace nnwb::cli {

namespace {

// "stopped early", the longest status.
constexpr size_t kStatusWidth = 13;

struct CompareOptions {
    std::vector<std::string> experiments, devices;
    int epochs = 0;
    std::string csv;
    RecordingOptions record;
};

// The rules between flags that CLI11 does not state.
void check(const CompareOptions& o) {
    if (o.experiments.size() < 2)
        throw UsageError("needs two or more experiments (files or preset names)");
    if (o.devices.size() > 1 && o.devices.size() != o.experiments.size())
        throw UsageError("--device given " + std::to_string(o.devices.size()) + " times for " +
                         std::to_string(o.experiments.size()) +
                         " experiments (give it once for all, or once per experiment)");
}

// A file when one exists at that path, else a preset name.
Experiment loadExperiment(const std::string& arg, std::string* file) {
    try {
        std::error_code ec;  // a FIFO or device is refused by Experiment::load, not opened here
        *file = std::filesystem::exists(arg, ec) ? arg : resolvePreset(arg);
        return Experiment::load(*file);
    } catch (const std::exception& e) {
        throw UsageError(e.what());
    }
}

void checkDevice(const std::string& label, const std::string& id,
                 const std::vector<DeviceInfo>& devices) {
    std::string known;
    for (const DeviceInfo& d : devices) {
        if (d.id == id) return;
        known += (known.empty() ? "" : ", ") + d.id;
    }
    throw UsageError(label + ": device '" + id + "' does not exist here (devices: " + known + ")");
}

// Characters shown, not bytes: "–" is three bytes of UTF-8.
size_t shownWidth(const std::string& s) {
    size_t n = 0;
    for (unsigned char c : s) n += (c & 0xC0) != 0x80;
    return n;
}
std::string padRight(std::string s, size_t w) {
    const size_t n = shownWidth(s);
    return n < w ? s.append(w - n, ' ') : s;
}
std::string padLeft(const std::string& s, size_t w) {
    const size_t n = shownWidth(s);
    return n < w ? std::string(w - n, ' ') + s : s;
}
std::string fixed(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

class Table {
public:
    explicit Table(size_t labelWidth) : labelWidth_(labelWidth) {}
    void epochHeader() const {
        std::printf(
            "%s  epoch      loss  val loss  acc %% (signals)  val acc %% (signals)  missed %%  "
            "val missed %%  s/epoch  samples/s\n",
            padRight("run", labelWidth_).c_str());
    }
    void epochRow(const RunRecord& run, const EpochReport& r, int epochs) const {
        const bool val = run.hasValidation(), task = r.taskMetrics;
        auto opt = [](bool have, double v, int d, size_t w) {
            return padLeft(have ? fixed(v, d) : std::string("–"), w);
        };
        // With its signal count; "n/a (3)" below the minimum of signals, "–" where not measured.
        auto acc = [](bool have, const EpochMetrics& m, size_t w) {
            return padLeft(have ? accuracyCell(m.accuracyPct, m.signalCount) : "–", w);
        };
        std::printf("%s  %5s  %s  %s  %s  %s  %s  %s  %s  %s\n",
                    padRight(run.label, labelWidth_).c_str(),
                    (std::to_string(r.epoch) + "/" + std::to_string(epochs)).c_str(),
                    fixed(r.train.loss, 6).c_str(), opt(val, r.validation.loss, 6, 8).c_str(),
                    acc(task, r.train, 15).c_str(), acc(val && task, r.validation, 19).c_str(),
                    opt(task, r.train.missedPct, 2, 8).c_str(),
                    opt(val && task, r.validation.missedPct, 2, 12).c_str(),
                    padLeft(formatSummaryValue(kSecondsPerEpoch, r.seconds), 7).c_str(),
                    padLeft(formatSummaryValue(kSamplesPerSecond, r.samplesPerSecond), 9).c_str());
        std::fflush(stdout);
    }
    void summary(const std::vector<RunRecord>& runs) const {
        const std::vector<SummaryRow> rows = summarize(runs);
        size_t deviceWidth = 6;
        for (const SummaryRow& row : rows) deviceWidth = std::max(deviceWidth, row.deviceId.size());
        std::printf("\nsummary (* best of column; validation figures)\n%s  %s  %s  epochs",
                    padRight("run", labelWidth_).c_str(), padRight("device", deviceWidth).c_str(),
                    padRight("status", kStatusWidth).c_str());
        for (int c = 0; c < kSummaryColumns; ++c)
            std::printf("  %s", padLeft(summaryColumnInfo(c).header, width(c)).c_str());
        std::printf("\n");
        for (const SummaryRow& row : rows) {
            std::printf("%s  %s  %s  %6d", padRight(row.label, labelWidth_).c_str(),
                        padRight(row.deviceId, deviceWidth).c_str(),
                        padRight(row.status, kStatusWidth).c_str(), row.epochs);
            for (int c = 0; c < kSummaryColumns; ++c) {
                const std::string v = formatSummaryCell(row, c) + (row.best[c] ? "*" : " ");
                std::printf("  %s", padLeft(v, width(c)).c_str());
            }
            std::printf("\n");
        }
        std::printf("\ndevices:\n");
        for (const SummaryRow& row : rows)
            std::printf("  %s  %s  %s\n", padRight(row.label, labelWidth_).c_str(),
                        padRight(row.deviceId, deviceWidth).c_str(),
                        row.deviceName.empty() ? "(not started)" : row.deviceName.c_str());
    }

private:
    static size_t width(int column) {
        return std::max<size_t>(std::string(summaryColumnInfo(column).header).size(), 14);
    }
    size_t labelWidth_;
};

// Each run's device and model before anything trains (bad input names the argument), and a
// note for a run whose data section differs from the first's (every run trains on the first's).
void checkComparisonRuns(const CompareOptions& opt, const ComparisonSet& set,
                         const std::vector<Experiment>& experiments) {
    const std::vector<DeviceInfo> devices = listDevices();
    const nlohmann::json& shared = experiments.front().data;
    for (size_t i = 0; i < experiments.size(); ++i) {
        const std::string& arg = opt.experiments[i];
        // One network per run (ComparisonRunner): an ensemble would be compared as one seed.
        if (const std::string why = comparisonEnsembleRefusal(experiments[i]); !why.empty())
            throw UsageError(arg + ": " + why);
        checkDevice(arg, experiments[i].training.device, devices);
        try {
            Network(Network::layersFromJson(experiments[i].model),
                    experimentInputShape(experiments[i]));
        } catch (const std::exception& e) {
            throw UsageError(arg + ": model: " + e.what());
        }
        if (i > 0 && resolvedDataSection(set.runs[i].experiment) != shared)
            std::fprintf(stderr,
                         "nnwb-cli compare: note: %s trains on the data section of %s (the same "
                         "data and split for every run)\n",
                         arg.c_str(), opt.experiments[0].c_str());
    }
}

// The end: the summary table, each failed run on stderr, the CSV; the exit status (1 when a
// run failed or the CSV could not be written).
int finishComparison(const CompareOptions& opt, const Table& table,
                     const std::vector<RunRecord>& records) {
    table.summary(records);
    int code = 0;
    for (const RunRecord& r : records) {
        if (r.status != RunStatus::Failed) continue;
        std::fprintf(stderr, "nnwb-cli compare: run %s failed: %s\n", r.label.c_str(),
                     r.error.c_str());
        code = 1;
    }
    if (!opt.csv.empty()) {
        try {
            writeComparisonCsv(opt.csv, records);
            std::printf("wrote %s\n", opt.csv.c_str());
        } catch (const std::exception& e) {
            std::fprintf(stderr, "nnwb-cli compare: %s\n", e.what());
            code = 1;
        }
    }
    return code;
}

int runCompare(const CompareOptions& opt) {
    check(opt);
    ComparisonSet set;
    std::vector<std::string> files;
    for (size_t i = 0; i < opt.experiments.size(); ++i) {
        std::string file;
        const Experiment e = loadExperiment(opt.experiments[i], &file);
        files.push_back(file);
        const std::string device = opt.devices.empty()       ? std::string()
                                   : opt.devices.size() == 1 ? opt.devices[0]
                                                             : opt.devices[i];
        set.addRun(e, file, device);
    }
    set.epochs = opt.epochs;

    const std::vector<Experiment> experiments = set.trainingExperiments();
    checkComparisonRuns(opt, set, experiments);
    auto data = std::make_shared<const ExperimentData>(loadExperimentData(experiments.front()));
    if (!data->ok) throw UsageError(opt.experiments[0] + ": " + data->error);

    std::vector<std::string> labels;
    size_t labelWidth = 3;
    for (const ComparisonRun& r : set.runs) {
        labels.push_back(r.record.label);
        labelWidth = std::max(labelWidth, r.record.label.size());
    }
    std::printf("compare: %zu runs on %s: %s training / %s validation samples\n",
                experiments.size(), data->description.c_str(),
                groupedCount(int64_t(data->split.train.size())).c_str(),
                groupedCount(int64_t(data->split.validation.size())).c_str());
    const Table table(labelWidth);
    table.epochHeader();
    std::fflush(stdout);

    ComparisonRunner runner(experiments, labels, data);
    runner.setRecording(opt.record, files);
    ComparisonRunner::Callbacks cb;
    cb.warning = stderrWarning("compare");
    cb.started = [&](size_t, const RunRecord& r) {
        std::printf("%s  started on %s (%s), %s parameters\n",
                    padRight(r.label, labelWidth).c_str(), r.deviceId.c_str(), r.deviceName.c_str(),
                    formatSummaryValue(kParameters, double(r.parameters)).c_str());
        std::fflush(stdout);
    };
    cb.epoch = [&](size_t i, const RunRecord& r, const EpochReport& report) {
        table.epochRow(r, report, experiments[i].training.epochs);
    };
    cb.finished = [&](size_t, const RunRecord& r) {
        if (r.status == RunStatus::Failed)
            std::printf("%s  FAILED: %s\n", padRight(r.label, labelWidth).c_str(), r.error.c_str());
        std::fflush(stdout);
    };
    runner.run(cb);

    return finishComparison(opt, table, runner.records());
}

}  // namespace

void addCompareCommand(CLI::App& root, Runners& runners) {
    auto o = std::make_shared<CompareOptions>();
    CLI::App* cmd = root.add_subcommand(
        "compare",
        "train experiment files or presets on the same data (concurrently on different devices); "
        "per-epoch table, summary, per-epoch CSV\n"
        "The runs train on the data and split of the first experiment; each is recorded in the "
        "run store.");
    cmd->footer("Exit status: 0 done, 1 a run failed (the others still finish), 2 bad input.");
    cmd->add_option("EXPERIMENT", o->experiments,
                    "experiment files, or preset names (resources/presets)")
        ->option_text("A B [...]")
        ->take_all();
    cmd->add_option("--epochs", o->epochs, "epochs of every run instead of each experiment's own")
        ->type_name("N")
        ->check(integerIn(1, 1000000));
    cmd->add_option("--device", o->devices, "once for all runs, or once per run in order")
        ->type_name("ID")
        ->take_all()
        ->allow_extra_args(false);
    cmd->add_option("--csv", o->csv, "one row per run and epoch")->type_name("OUT");
    addRecordingFlags(*cmd, o->record, false);
    runners[cmd] = [o] { return runCompare(*o); };
}

}  // namespace nnwb::cli
