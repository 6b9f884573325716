#include "model/FoldData.h"

#include "model/data/BarFileCache.h"
#include "model/data/DataPipeline.h"

namespace nnwb {

WalkForwardData loadWalkForwardData(const Experiment& e) {
    WalkForwardData out;
    try {
        if (e.data.value("source", std::string("file")) != "file") {
            out.error =
                "validation.mode: walk-forward needs a price file (data.source \"file\"), this "
                "experiment trains on synthetic data";
            return out;
        }
        out.config = DataConfig::fromJson(e.data);
        if (out.config.file.empty()) {
            out.error = "data.file: no bar file given";
            return out;
        }
        LoadResult loaded = loadBarFileCached(out.config.resolvedFile(e.baseDir));
        if (!loaded.ok) {
            out.error = loaded.error;
            return out;
        }
        out.warnings = std::move(loaded.warnings);
        const auto slash = out.config.file.find_last_of('/');
        out.fileName =
            slash == std::string::npos ? out.config.file : out.config.file.substr(slash + 1);
        out.bars = std::make_shared<const BarSeries>(std::move(loaded.bars));
        if (e.validation.scheme == "cpcv") {
            out.error = "validation.scheme: cpcv does not run yet";
            return out;
        }
        out.plan = planFolds(e.validation, out.bars->time, barsNeeded(out.config), out.fileName);
        if (!out.plan.ok()) {
            out.error = out.plan.error;
            return out;
        }
        out.ok = true;
    } catch (const std::exception& ex) {
        out.error = ex.what();
    }
    return out;
}

FoldData loadFoldData(const WalkForwardData& wf, size_t k) {
    FoldData out;
    out.data = std::make_shared<ExperimentData>();
    ExperimentData& d = *out.data;
    const Fold& f = wf.plan.folds.at(k);
    SampleRanges ranges;
    ranges.trainFirst = f.trainFirst;
    ranges.trainLast = f.trainLast;
    ranges.validationFirst = f.validationFirst;
    ranges.validationLast = f.validationLast;
    ranges.testFirst = f.testFirst;
    ranges.testLast = f.testLast;
    DataResult r = buildDataSplitForRanges(wf.config, *wf.bars, ranges);
    if (!r.ok) {
        d.error = r.error;
        return out;
    }
    d.description = wf.fileName + ", " + std::to_string(wf.bars->size()) + " bars, fold " +
                    std::to_string(k + 1) + "/" + std::to_string(wf.plan.folds.size());
    d.warnings = std::move(r.warnings);
    d.split = std::move(r.split);
    d.priceData = true;
    d.dataConfig = wf.config;
    d.stats = std::move(r.stats);
    d.featureNames = std::move(r.featureNames);
    d.bars = wf.bars;
    d.trainFirstBar = r.trainFirstBar;
    d.trainLastBar = r.trainLastBar;
    d.validationFirstBar = r.validationFirstBar;
    d.validationLastBar = r.validationLastBar;
    d.ok = true;
    out.test = std::move(r.test);
    out.testFirstBar = r.testFirstBar;
    out.testLastBar = r.testLastBar;
    return out;
}

}  // namespace nnwb
