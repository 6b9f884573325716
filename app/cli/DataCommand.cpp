#include "app/cli/DataCommand.h"

#include <cstdio>

#include "model/Experiment.h"
#include "model/data/BarImporter.h"
#include "model/data/DataPipeline.h"
#include "model/data/DataSummary.h"
#include "model/data/FeatureChecks.h"

namespace nnwb {

namespace {

const char* const kUsage =
    "usage: nnwb-cli data FILE [--experiment E.json] [--json]\n"
    "  Reads a MetaTrader 5 \"Export bars\" file, a MetaTrader 4 history CSV or a CSV with a\n"
    "  header (datetime or date+time, open, high, low, close[, volume]) and prints its format,\n"
    "  bar count, first and last bar, time frame, gaps, 3-bar fractal counts, the bars that\n"
    "  training and predict need at least (for the data settings of E, else the defaults) and\n"
    "  the features that are constant on the file (a warning on stderr each: no information).\n"
    "  --json  one JSON object: format, bars, first, last, timeframe, gaps, buy, sell, both,\n"
    "          minimumBars, enoughBars, constantFeatures\n";

}  // namespace

int runDataCommand(const std::vector<std::string>& args) {
    std::string file, experiment;
    bool json = false;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--experiment") {
            if (i + 1 >= args.size()) {
                std::fprintf(stderr, "nnwb-cli data: --experiment needs a file\n%s", kUsage);
                return 2;
            }
            experiment = args[++i];
        } else if (a == "--json") {
            json = true;
        } else if (a == "-h" || a == "--help") {
            std::fputs(kUsage, stdout);
            return 0;
        } else if (!a.empty() && a[0] == '-' && a != "-") {
            std::fprintf(stderr, "nnwb-cli data: unknown option '%s'\n%s", a.c_str(), kUsage);
            return 2;
        } else if (file.empty()) {
            file = a;
        } else {
            std::fprintf(stderr, "nnwb-cli data: more than one file given\n%s", kUsage);
            return 2;
        }
    }
    if (file.empty()) {
        std::fprintf(stderr, "nnwb-cli data: no file given\n%s", kUsage);
        return 2;
    }
    // The data settings whose minimum is shown: the experiment's, else the defaults.
    DataConfig config;
    config.features.definitions = IndicatorDefinitions::Mt5;
    if (!experiment.empty()) {
        try {
            const Experiment e = Experiment::load(experiment);
            if (e.data.value("source", std::string("file")) == "file")
                config = DataConfig::fromJson(e.data);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "%s\n", e.what());
            return 2;
        }
    }
    const LoadResult r = loadBarFile(file);
    if (!r.ok) {
        std::fprintf(stderr, "%s\n", r.error.c_str());
        return 2;
    }
    for (const std::string& w : r.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    const std::string name = baseName(file);
    const std::vector<ConstantFeature> constant = constantFeaturesOfFile(r.bars, config.features);
    for (const ConstantFeature& c : constant)
        std::fprintf(stderr, "warning: %s\n",
                     constantFeatureWarning(
                         name, c, !experiment.empty() && config.features.isEnabled(c.feature))
                         .c_str());
    const BarNeeds needs = barsNeeded(config);
    const bool enough = r.bars.size() >= needs.minimum;
    if (!enough)
        std::fprintf(stderr, "warning: %s\n",
                     tooFewBarsMessage(name, r.bars.size(), needs).c_str());
    const DataSummary s = summarizeBars(r.bars);
    if (json) {
        nlohmann::ordered_json j = summaryToJson(s);
        j["minimumBars"] = needs.minimum;
        j["enoughBars"] = enough;
        nlohmann::ordered_json keys = nlohmann::ordered_json::array();
        for (const ConstantFeature& c : constant) keys.push_back(featureKey(c.feature));
        j["constantFeatures"] = keys;
        std::printf("%s\n", j.dump().c_str());
    } else {
        std::fputs(formatSummaryText(s).c_str(), stdout);
        std::printf(
            "%-11s%s\n", "minimum:",
            ("needs at least " + std::to_string(needs.minimum) + " bars, file has " +
             std::to_string(r.bars.size()) + (enough ? "" : " (too few)") + ": indicator warm-up " +
             std::to_string(needs.warmup) + " + window " + std::to_string(needs.window) + " + " +
             std::to_string(needs.reach) + " after it for the fractal label")
                .c_str());
        std::string keys;
        for (const ConstantFeature& c : constant)
            keys += (keys.empty() ? "" : ", ") + std::string(featureKey(c.feature));
        std::printf("%-11s%s\n", "constant:", keys.empty() ? "-" : keys.c_str());
    }
    std::fflush(stdout);
    return 0;
}

}  // namespace nnwb
