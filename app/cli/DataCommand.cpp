// `nnwb-cli data FILE [--experiment E.json] [--json]`: loads a bar file and prints its summary
// (format, bars, first and last bar, time frame, gaps, fractal counts, the minimum number of
// bars, constant features) as aligned text or one JSON object. Bad input prints "FILE:LINE:
// problem" to stderr and exits 2.
#include <cstdio>
#include <memory>
#include <string>

#include "app/cli/Commands.h"
#include "model/Experiment.h"
#include "model/data/BarImporter.h"
#include "model/data/DataPipeline.h"
#include "model/data/DataSummary.h"
#include "model/data/FeatureChecks.h"

namespace nnwb::cli {

namespace {

struct DataOptions {
    std::string file, experiment;
    bool json = false;
};

int runData(const DataOptions& o) {
    const std::string& file = o.file;
    const std::string& experiment = o.experiment;
    const bool json = o.json;
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

}  // namespace

void addDataCommand(CLI::App& root, Runners& runners) {
    auto o = std::make_shared<DataOptions>();
    CLI::App* cmd = root.add_subcommand(
        "data",
        "summary of a price file (format, bars, fractals, the bars training needs)\n"
        "Reads a MetaTrader 5 \"Export bars\" file, a MetaTrader 4 history CSV or a CSV with a "
        "header (datetime or date+time, open, high, low, close[, volume]) and prints its format, "
        "bar count, first and last bar, time frame, gaps, 3-bar fractal counts, the bars that "
        "training and predict need at least (for the data settings of E, else the defaults) and "
        "the features that are constant on the file (a warning on stderr each: no information).");
    cmd->footer(
        "Exit status: 0 done, 2 bad input (FILE:LINE: problem on stderr for a file that cannot be "
        "read).");
    cmd->add_option("FILE", o->file, "the price file")->required();
    cmd->add_option("--experiment", o->experiment,
                    "the experiment whose data settings give the minimum number of bars")
        ->type_name("E.json");
    cmd->add_flag("--json", o->json,
                  "one JSON object: format, bars, first, last, timeframe, gaps, buy, sell, both, "
                  "minimumBars, enoughBars, constantFeatures");
    runners[cmd] = [o] { return runData(*o); };
}

}  // namespace nnwb::cli
