#include "model/ExperimentData.h"

#include "model/SyntheticData.h"
#include "model/data/DataPipeline.h"

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
        const DataConfig cfg = DataConfig::fromJson(e.data);
        DataResult r = buildDataSplit(cfg, e.baseDir);
        if (!r.ok) {
            out.error = r.error;
            return out;
        }
        const auto slash = cfg.file.find_last_of('/');
        out.description = (slash == std::string::npos ? cfg.file : cfg.file.substr(slash + 1)) +
                          ", " + std::to_string(r.bars.size()) + " bars";
        out.warnings = std::move(r.warnings);
        out.split = std::move(r.split);
        out.priceData = true;
        out.dataConfig = cfg;
        out.stats = std::move(r.stats);
        out.featureNames = std::move(r.featureNames);
        out.trainFirstBar = r.trainFirstBar;
        out.trainLastBar = r.trainLastBar;
        out.validationFirstBar = r.validationFirstBar;
        out.validationLastBar = r.validationLastBar;
        out.bars = std::make_shared<const BarSeries>(std::move(r.bars));
        out.ok = true;
    } catch (const std::exception& ex) {
        out.error = ex.what();
    }
    return out;
}

Shape experimentInputShape(const Experiment& e) {
    if (e.data.value("source", std::string("file")) == "synthetic") {
        const auto c = SyntheticConfig::fromJson(e.data);
        return Shape{c.units, c.window};
    }
    const DataConfig cfg = DataConfig::fromJson(e.data);
    return Shape{cfg.window, cfg.featureCount()};
}

}  // namespace nnwb
