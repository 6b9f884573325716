#include "app/core/DataAdapter.h"

#include <exception>

#include "model/SyntheticData.h"

#include "model/data/BarImporter.h"
#include "model/data/DataConfig.h"
#include "model/data/DataSummary.h"

namespace nnwb {

std::vector<std::pair<std::string, std::string>> featureList() {
    return {{"closeOpen", "Close − open"},
            {"highOpen", "High − open"},
            {"lowOpen", "Low − open"},
            {"tickVolume", "Tick volume"},
            {"hour", "Hour"},
            {"dayOfWeek", "Day of week"},
            {"month", "Month"},
            {"rsi", "RSI"},
            {"cci", "CCI"},
            {"atr", "ATR"},
            {"macdMain", "MACD main"},
            {"macdSignal", "MACD signal"}};
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
        LoadResult r = loadBarFile(path);
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
        info.series = std::make_shared<const BarSeries>(std::move(r.bars));
        info.ok = true;
    } catch (const std::exception& e) {
        info.error = info.fileName + ":0: " + e.what();
    }
    return info;
}

}  // namespace nnwb
