#include "model/ExperimentData.h"

#include "model/SyntheticData.h"

namespace nnwb {

ExperimentData loadExperimentData(const Experiment& e) {
    ExperimentData out;
    const std::string source = e.data.value("source", std::string("file"));
    try {
        if (source == "synthetic") {
            const auto cfg = SyntheticConfig::fromJson(e.data);
            out.split = makeSyntheticSplit(cfg);
            out.description = "synthetic, " + std::to_string(cfg.samples) + " samples";
            out.ok = true;
            return out;
        }
        out.error = "data.source: '" + source + "' is not supported by this build";
    } catch (const std::exception& ex) {
        out.error = ex.what();
    }
    return out;
}

}  // namespace nnwb
