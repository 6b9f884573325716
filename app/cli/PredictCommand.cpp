// nnwb-cli predict: applies a model bundle to a price file (see README "Applying a model").
#include <cstdio>
#include <limits>
#include <memory>
#include <string>

#include "app/cli/Commands.h"
#include "app/cli/FlagChecks.h"
#include "app/cli/TradingFlags.h"
#include "compute/ComputeError.h"
#include "model/AtomicFile.h"
#include "model/Experiment.h"
#include "model/ModelBundle.h"
#include "model/Network.h"
#include "model/PredictionReport.h"
#include "model/Predictor.h"
#include "model/data/BarImporter.h"
#include "model/data/DataSummary.h"
#include "model/data/DateTime.h"
#include "model/ensemble/EnsemblePrediction.h"
#include "model/trading/PredictionSignals.h"
#include "model/trading/TradingCsv.h"
#include "model/trading/TradingEvaluation.h"
#include "model/trading/TradingReportText.h"

namespace nnwb::cli {

namespace {

struct PredictOptions {
    std::string model, data, device = "cpu", csv, from, to;
    bool json = false;
    // --trading: the trading evaluation of the predicted signals.
    bool trading = false;
    std::string experiment, tradesCsv, equityCsv;
    nlohmann::json tradingFlags = nlohmann::json::object();
};

// The trading settings: the experiment's section (--experiment) or the defaults, then the flags.
TradingSettings tradingSettingsOf(const PredictOptions& o) {
    TradingSettings base;
    if (!o.experiment.empty()) {
        try {
            base = Experiment::load(o.experiment).trading;
        } catch (const ExperimentError& e) {
            throw UsageError(e.what());
        }
    }
    return applyTradingFlags(base, o.tradingFlags);
}

// Trading flags without --trading would be ignored silently: refused instead.
void checkTradingFlagsNeedTrading(const PredictOptions& o) {
    if (o.trading) return;
    std::string given;
    if (!o.experiment.empty()) given = "--experiment";
    if (!o.tradesCsv.empty()) given = "--trades-csv";
    if (!o.equityCsv.empty()) given = "--equity-csv";
    if (!o.tradingFlags.empty()) given = o.tradingFlags.begin().key();
    if (!given.empty()) throw UsageError(given + " needs --trading");
}

TradingReport evaluate(const TradingSettings& settings, const BarSeries& bars,
                       const PredictionResult& r) {
    try {
        return evaluateTrading(bars, signalsOf(r), settings);
    } catch (const TradingInputError& e) {
        throw UsageError(e.what());
    }
}

int64_t barTimeOf(const std::string& v, int64_t otherwise) {
    int64_t t = otherwise;
    if (!v.empty()) parseDateTime(v, t);  // checked by barTime() as the line was parsed
    return t;
}

void printTrading(const PredictOptions& o, const TradingReport& t) {
    std::printf("trading (docs/trading.md):\n%s", tradingReportText(t).c_str());
    if (!o.tradesCsv.empty())
        std::printf("wrote %s (%zu trades)\n", o.tradesCsv.c_str(), t.trades.size());
    if (!o.equityCsv.empty())
        std::printf("wrote %s (%zu bars)\n", o.equityCsv.c_str(), t.equity.bar.size());
}

// The model or ensemble bundle's predictions of the bars from..to on --device (bad files and
// devices are bad input).
PredictionResult predictBars(const PredictOptions& o, const ModelBundle& bundle,
                             const EnsembleBundle& ensemble, const BarSeries& bars, int64_t from,
                             int64_t to, DeviceInfo& device) {
    PredictionInputs inputs;
    try {
        inputs = buildPredictionInputs(bundle, bars, from, to);
    } catch (const PredictionInputError& e) {
        throw UsageError(e.what());
    }
    std::unique_ptr<Predictor> predictor;
    std::unique_ptr<EnsemblePredictor> ensemblePredictor;
    try {
        if (ensemble.size() > 0)
            ensemblePredictor = std::make_unique<EnsemblePredictor>(ensemble, o.device);
        else
            predictor = std::make_unique<Predictor>(bundle, o.device);
    } catch (const ComputeError& e) {
        throw UsageError(e.what());
    } catch (const ShapeError& e) {
        throw UsageError(o.model + ": model: " + e.what());
    } catch (const ModelBundleError& e) {
        throw UsageError(o.model + ": " + e.what());
    }
    device = predictor ? predictor->backend().info() : ensemblePredictor->backend().info();
    return predictor ? predictor->run(inputs, bars) : ensemblePredictor->run(inputs, bars);
}

// The text output: what predicted what, the rows (unless written to --csv), the metrics and
// the trading figures.
void printPrediction(const PredictOptions& o, const ModelBundle& bundle, size_t members,
                     const BarSeries& bars, const PredictionResult& r, const DeviceInfo& info,
                     const TradingReport& trading) {
    const std::string epochText = members > 0
                                      ? "an ensemble of " + std::to_string(members) + " members"
                                      : "epoch " + std::to_string(bundle.epoch);
    std::printf(
        "predict: %s (%s, %s, trained on %s %s) on %s, %zu bars: %zu rows from %s to "
        "%s, %zu labelled; %s (%s)\n",
        baseName(o.model).c_str(), bundle.experiment.c_str(), epochText.c_str(),
        bundle.trainedOn.c_str(), timeframeName(bundle.timeframe).c_str(), baseName(o.data).c_str(),
        bars.size(), r.rows.size(), formatBarTime(r.rows.front().time).c_str(),
        formatBarTime(r.rows.back().time).c_str(), r.labelled, info.id.c_str(), info.name.c_str());
    if (o.csv.empty()) {
        const bool more = r.members > 1;  // an ensemble's agreement and spread
        std::printf(more ? "%-16s %14s %11s %11s %11s  %-6s %-5s  agreement   spread\n"
                         : "%-16s %14s %11s %11s %11s  %-6s %s\n",
                    "time", "close", "none", "buy", "sell", "signal", "label");
        for (const PredictionRow& row : r.rows) {
            std::printf(more ? "%-16s %14.6g %11.6f %11.6f %11.6f  %-6s %-5s"
                             : "%-16s %14.6g %11.6f %11.6f %11.6f  %-6s %s",
                        formatBarTime(row.time).c_str(), row.close,
                        static_cast<double>(row.outputs[0]), static_cast<double>(row.outputs[1]),
                        static_cast<double>(row.outputs[2]), signalName(row.signal),
                        row.labelled ? labelName(row).c_str() : "-");
            if (more)
                std::printf("  %9.3f %8.6f", static_cast<double>(row.agreement),
                            static_cast<double>(row.spread));
            std::printf("\n");
        }
    }
    std::printf("%s", predictionMetricsText(r.metrics).c_str());
    if (!o.csv.empty()) std::printf("wrote %s (%zu rows)\n", o.csv.c_str(), r.rows.size());
    if (o.trading) printTrading(o, trading);
}

int runPredict(const PredictOptions& o) {
    const int64_t from = barTimeOf(o.from, std::numeric_limits<int64_t>::min());
    const int64_t to = barTimeOf(o.to, std::numeric_limits<int64_t>::max());
    if (from > to) throw UsageError("--from is after --to");
    checkTradingFlagsNeedTrading(o);
    const TradingSettings tradingSettings = o.trading ? tradingSettingsOf(o) : TradingSettings();

    ModelBundle bundle;
    EnsembleBundle ensemble;  // an ensemble bundle's members (none for one model)
    try {
        loadAnyBundle(o.model, bundle, ensemble);
    } catch (const ModelBundleError& e) {
        throw UsageError(e.what());
    }
    LoadResult loaded = loadBarFile(o.data);
    if (!loaded.ok) throw UsageError(loaded.error);
    for (const std::string& w : loaded.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    const BarSeries& bars = loaded.bars;
    DeviceInfo device;
    const PredictionResult r = predictBars(o, bundle, ensemble, bars, from, to, device);
    // Inputs far outside the training range: on stderr (and in --json's "warnings").
    const std::string range = outOfRangeWarningText(r.outOfRange);
    if (!range.empty()) std::fprintf(stderr, "warning: %s", range.c_str());

    if (!o.csv.empty()) writeFileAtomic(o.csv, predictionCsv(r));
    TradingReport trading;
    if (o.trading) {
        trading = evaluate(tradingSettings, bars, r);
        if (!o.tradesCsv.empty()) writeFileAtomic(o.tradesCsv, tradesCsv(trading));
        if (!o.equityCsv.empty()) writeFileAtomic(o.equityCsv, equityCsv(trading));
    }
    if (o.json) {
        nlohmann::ordered_json j = predictionToJson(r, bundle, baseName(o.data), bars.size());
        if (o.trading) {
            j["trading"] = tradingReportJson(trading);
            j["trading"]["settings"] = tradingSettings.toJson();
        }
        std::printf("%s\n", j.dump().c_str());
    } else {
        printPrediction(o, bundle, ensemble.size(), bars, r, device, trading);
    }
    return 0;
}

}  // namespace

void addPredictCommand(CLI::App& root, Runners& runners) {
    auto o = std::make_shared<PredictOptions>();
    CLI::App* cmd = root.add_subcommand(
        "predict",
        "apply a model bundle: one row per bar (outputs, signal, true label), then the metrics\n"
        "Applies a model bundle to a price file: one row per bar (outputs, signal, true label "
        "where known), then the metrics of the bars whose labels are known.");
    cmd->footer("Exit status: 0 done, 1 the model failed on the device, 2 bad input or files.");
    cmd->add_option("--model", o->model, "the model bundle (train --save-model)")
        ->type_name("M.safetensors")
        ->required();
    cmd->add_option("--data", o->data, "the price file")->type_name("FILE")->required();
    cmd->add_option("--from", o->from, "the first bar time to predict (default: the first)")
        ->type_name("T")
        ->check(barTime());
    cmd->add_option("--to", o->to, "the last bar time to predict (default: the last)")
        ->type_name("T")
        ->check(barTime());
    cmd->add_option("--device", o->device, "cpu or opencl:P:D")
        ->type_name("ID")
        ->capture_default_str();
    cmd->add_option("--csv", o->csv, "the rows as CSV instead of the table")->type_name("OUT");
    cmd->add_flag("--json", o->json, "one JSON object instead of the table");
    cmd->add_flag("--trading", o->trading,
                  "also trade the signals (docs/trading.md): the table of strategy, buy & hold "
                  "and random baseline; with --json a \"trading\" object");
    cmd->add_option("--experiment", o->experiment,
                    "with --trading: the trading settings of this experiment file's trading "
                    "section (default: the defaults)")
        ->type_name("FILE");
    cmd->add_option("--trades-csv", o->tradesCsv, "with --trading: the trades as CSV")
        ->type_name("OUT");
    cmd->add_option("--equity-csv", o->equityCsv, "with --trading: the equity per bar as CSV")
        ->type_name("OUT");
    addTradingFlags(*cmd, o->tradingFlags);
    runners[cmd] = [o] { return runPredict(*o); };
}

}  // namespace nnwb::cli
