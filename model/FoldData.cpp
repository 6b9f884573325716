#include "model/FoldData.h"

#include "model/data/BarFileCache.h"
#include "model/data/DataPipeline.h"

namespace nnwb {

namespace {

BarRange hullOf(const std::vector<BarRange>& blocks) {
    return blocks.empty() ? BarRange{} : BarRange{blocks.front().first, blocks.back().last};
}

WalkForwardData withCpcvPlan(WalkForwardData out, const ValidationConfig& v) {
    out.cpcv = planCpcv(v, out.bars->size(), barsNeeded(out.config), out.fileName);
    if (!out.cpcv.ok()) {
        out.error = out.cpcv.error;
        return out;
    }
    FoldPlan& p = out.plan;
    p.purge = out.cpcv.purge;
    p.embargo = out.cpcv.embargo;
    p.reach = out.cpcv.reach;
    p.firstSample = out.cpcv.firstSample;
    p.lastSample = out.cpcv.lastSample;
    p.contiguous = false;
    for (const CpcvSplit& s : out.cpcv.splits) {
        Fold f;
        const BarRange train = hullOf(s.train), validation = hullOf(s.validation),
                       test = hullOf(s.test);
        f.trainFirst = train.first;
        f.trainLast = train.last;
        f.validationFirst = validation.first;
        f.validationLast = validation.last;
        f.testFirst = test.first;
        f.testLast = test.last;
        p.folds.push_back(f);
    }
    out.ok = true;
    return out;
}

}  // namespace

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
        if (e.validation.scheme == "cpcv") return withCpcvPlan(std::move(out), e.validation);
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
    SampleBlocks blocks;
    if (wf.isCpcv()) {
        const CpcvSplit& s = wf.cpcv.splits.at(k);
        blocks = {s.train, s.validation, s.test};
    } else {
        blocks.train = {{f.trainFirst, f.trainLast}};
        if (f.hasValidation()) blocks.validation = {{f.validationFirst, f.validationLast}};
        blocks.test = {{f.testFirst, f.testLast}};
    }
    DataResult r = buildDataSplitForBlocks(wf.config, *wf.bars, blocks);
    if (!r.ok) {
        d.error = r.error;
        return out;
    }
    d.description = wf.fileName + ", " + std::to_string(wf.bars->size()) +
                    (wf.isCpcv() ? " bars, split " : " bars, fold ") + std::to_string(k + 1) + "/" +
                    std::to_string(wf.plan.folds.size());
    d.warnings = std::move(r.warnings);
    d.split = std::move(r.split);
    d.priceData = true;
    d.dataConfig = wf.config;
    d.stats = std::move(r.stats);
    d.featureNames = std::move(r.featureNames);
    d.bars = wf.bars;
    d.trainFirstBar = r.trainFirstBar;
    d.trainLastBar = r.trainLastBar;
    // A validation of several blocks has no one bar range: its blocks say which bars its
    // samples end on (model/trading/ValidationSignals.h trades them with flat gaps between).
    const bool oneValidationBlock = blocks.validation.size() <= 1;
    d.validationFirstBar = oneValidationBlock ? r.validationFirstBar : 1;
    d.validationLastBar = oneValidationBlock ? r.validationLastBar : 0;
    if (!oneValidationBlock) d.validationBlocks = blocks.validation;
    d.ok = true;
    out.test = std::move(r.test);
    out.testFirstBar = r.testFirstBar;
    out.testLastBar = r.testLastBar;
    return out;
}

}  // namespace nnwb
