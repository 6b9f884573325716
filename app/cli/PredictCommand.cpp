// nnwb-cli predict: applies a model bundle to a price file (see README "Applying a model").
#include <cstdio>
#include <limits>
#include <string>

#include "app/cli/Commands.h"
#include "compute/ComputeError.h"
#include "model/AtomicFile.h"
#include "model/ModelBundle.h"
#include "model/Network.h"
#include "model/PredictionReport.h"
#include "model/Predictor.h"
#include "model/data/BarImporter.h"
#include "model/data/DataSummary.h"
#include "model/data/DateTime.h"

namespace nnwb::cli {

namespace {

int64_t flagTime(const Args& args, size_t& i) {
    const std::string flag = args[i];
    const std::string v = flagValue(args, i);
    int64_t t = 0;
    if (!parseDateTime(v, t))
        throw UsageError(flag + ": '" + v + "' is not a date and time (e.g. 2018-06-01 or " +
                         "\"2018-06-01 13:00\")");
    return t;
}

}  // namespace

int runPredict(const Args& args) {
    std::string modelPath, dataPath, device = "cpu", csvPath;
    int64_t from = std::numeric_limits<int64_t>::min(), to = std::numeric_limits<int64_t>::max();
    bool json = false;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--model")
            modelPath = flagValue(args, i);
        else if (a == "--data")
            dataPath = flagValue(args, i);
        else if (a == "--from")
            from = flagTime(args, i);
        else if (a == "--to")
            to = flagTime(args, i);
        else if (a == "--device")
            device = flagValue(args, i);
        else if (a == "--csv")
            csvPath = flagValue(args, i);
        else if (a == "--json")
            json = true;
        else
            throw UsageError("unknown option '" + a + "'");
    }
    if (modelPath.empty()) throw UsageError("--model M.safetensors is required");
    if (dataPath.empty()) throw UsageError("--data FILE is required");
    if (from > to) throw UsageError("--from is after --to");

    ModelBundle bundle;
    try {
        bundle = ModelBundle::load(modelPath);
    } catch (const ModelBundleError& e) {
        throw UsageError(e.what());
    }
    LoadResult loaded = loadBarFile(dataPath);
    if (!loaded.ok) throw UsageError(loaded.error);
    for (const std::string& w : loaded.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    const BarSeries& bars = loaded.bars;

    PredictionInputs inputs;
    try {
        inputs = buildPredictionInputs(bundle, bars, from, to);
    } catch (const PredictionInputError& e) {
        throw UsageError(e.what());
    }
    std::unique_ptr<Predictor> predictor;
    try {
        predictor = std::make_unique<Predictor>(bundle, device);
    } catch (const ComputeError& e) {
        throw UsageError(e.what());
    } catch (const ShapeError& e) {
        throw UsageError(modelPath + ": model: " + e.what());
    } catch (const ModelBundleError& e) {
        throw UsageError(modelPath + ": " + e.what());
    }
    const PredictionResult r = predictor->run(inputs, bars);
    // Inputs far outside the training range: on stderr (and in --json's "warnings").
    const std::string range = outOfRangeWarningText(r.outOfRange);
    if (!range.empty()) std::fprintf(stderr, "warning: %s", range.c_str());

    if (!csvPath.empty()) writeFileAtomic(csvPath, predictionCsv(r));
    const std::string file = baseName(dataPath);
    if (json) {
        std::printf("%s\n", predictionToJson(r, bundle, file, bars.size()).dump().c_str());
    } else {
        const auto info = predictor->backend().info();
        std::printf(
            "predict: %s (%s, epoch %d, trained on %s %s) on %s, %zu bars: %zu rows from %s to "
            "%s, %zu labelled; %s (%s)\n",
            baseName(modelPath).c_str(), bundle.experiment.c_str(), bundle.epoch,
            bundle.trainedOn.c_str(), timeframeName(bundle.timeframe).c_str(), file.c_str(),
            bars.size(), r.rows.size(), formatBarTime(r.rows.front().time).c_str(),
            formatBarTime(r.rows.back().time).c_str(), r.labelled, info.id.c_str(),
            info.name.c_str());
        if (csvPath.empty()) {
            std::printf("%-16s %14s %11s %11s %11s  %-6s %s\n", "time", "close", "none", "buy",
                        "sell", "signal", "label");
            for (const PredictionRow& row : r.rows)
                std::printf(
                    "%-16s %14.6g %11.6f %11.6f %11.6f  %-6s %s\n", formatBarTime(row.time).c_str(),
                    row.close, static_cast<double>(row.outputs[0]),
                    static_cast<double>(row.outputs[1]), static_cast<double>(row.outputs[2]),
                    signalName(row.signal), row.labelled ? labelName(row).c_str() : "-");
        }
        std::printf("%s", predictionMetricsText(r.metrics).c_str());
        if (!csvPath.empty()) std::printf("wrote %s (%zu rows)\n", csvPath.c_str(), r.rows.size());
    }
    return 0;
}

}  // namespace nnwb::cli
