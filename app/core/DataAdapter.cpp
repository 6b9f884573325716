#include "app/core/DataAdapter.h"

#include <exception>

#include "model/SyntheticData.h"

#include "model/data/BarFileCache.h"
#include "model/data/BarImporter.h"
#include "model/data/DataConfig.h"
#include "model/data/DataPipeline.h"
#include "model/data/DataSummary.h"

namespace nnwb {

std::string dataProblem(const nlohmann::json& data, size_t bars, const std::string& fileName) {
    try {
        if (data.value("source", std::string("file")) != "file") return "";
        const DataConfig cfg = DataConfig::fromJson(data);
        return planSplit(cfg, bars, fileName).error;
    } catch (const std::exception&) {
        return "";  // the settings' own error is shown where they are edited
    }
}

std::vector<std::string> constantFeatureWarnings(const nlohmann::json& data,
                                                 const PriceFileInfo& info) {
    FeatureSpec spec;
    try {
        spec = DataConfig::fromJson(data).features;
    } catch (const std::exception&) {
    }
    std::vector<std::string> out;
    for (const ConstantFeature& c : info.constant)
        out.push_back(constantFeatureWarning(info.fileName, c, spec.isEnabled(c.feature)));
    return out;
}

nlohmann::json withConstantFeaturesOff(nlohmann::json data, const PriceFileInfo& info,
                                       std::vector<std::string>* switchedOff) {
    nlohmann::json f = data.value("features", nlohmann::json::object());
    if (!f.is_object()) f = nlohmann::json::object();
    FeatureSpec spec;
    try {
        spec = DataConfig::fromJson(data).features;
    } catch (const std::exception&) {
    }
    const FeatureSpec off = withoutConstantFeatures(spec, info.constant);
    for (const ConstantFeature& c : info.constant)
        if (spec.isEnabled(c.feature) && !off.isEnabled(c.feature)) {
            f[featureKey(c.feature)] = false;
            if (switchedOff) switchedOff->push_back(featureKey(c.feature));
        }
    data["features"] = f;
    return data;
}

DataShape dataShapeOf(const nlohmann::json& data) {
    DataShape s;
    try {
        const std::string source = data.value("source", std::string("file"));
        if (source == "synthetic") {
            const auto cfg = SyntheticConfig::fromJson(data);
            s.input = {cfg.units, cfg.window};
            s.targets = cfg.classes;
            s.ok = true;
            return s;
        }
        const DataConfig cfg = DataConfig::fromJson(data);
        s.input = {cfg.window, cfg.featureCount()};
        if (s.input.window < 1) {
            s.error = "data.features: at least one feature must be switched on";
            return s;
        }
        s.targets = 3;
        s.ok = true;
    } catch (const std::exception& e) {
        s.error = e.what();
    }
    return s;
}

bool priceFilesSupported() {
    return true;
}

PriceFileInfo inspectPriceFile(const std::string& path) {
    PriceFileInfo info;
    info.path = path;
    const auto slash = path.find_last_of("/\\");
    info.fileName = slash == std::string::npos ? path : path.substr(slash + 1);
    try {
        LoadResult r = loadBarFileCached(path);
        if (!r.ok) {
            info.error = r.error;
            return info;
        }
        const DataSummary s = summarizeBars(r.bars);
        info.format = s.format;
        info.bars = s.bars;
        info.first = s.bars ? formatBarTime(s.firstTime) : std::string();
        info.last = s.bars ? formatBarTime(s.lastTime) : std::string();
        info.timeframe = timeframeName(s.timeframe);
        info.gaps = s.gaps;
        info.buy = s.buy;
        info.sell = s.sell;
        info.both = s.both;
        info.constant = constantFeaturesOfFile(r.bars, FeatureSpec{});
        info.series = std::make_shared<const BarSeries>(std::move(r.bars));
        info.ok = true;
    } catch (const std::exception& e) {
        info.error = info.fileName + ":0: " + e.what();
    }
    return info;
}

}  // namespace nnwb
