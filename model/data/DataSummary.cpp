#include "model/data/DataSummary.h"

#include <cstdio>

#include "model/data/Fractals.h"

namespace nnwb {

DataSummary summarizeBars(const BarSeries& b) {
    DataSummary s;
    s.format = b.format;
    s.source = b.source;
    s.bars = b.size();
    s.timeframe = b.timeframe;
    if (b.empty()) return s;
    s.firstTime = b.time.front();
    s.lastTime = b.time.back();
    for (size_t i = 1; i < b.size(); ++i)
        if (b.time[i] - b.time[i - 1] > s.timeframe) ++s.gaps;
    const std::vector<uint8_t> flags = fractalFlags(b.high, b.low, FractalRule::ThreeBar);
    for (uint8_t f : flags) {
        s.buy += (f & kFractalBuy) != 0;
        s.sell += (f & kFractalSell) != 0;
        s.both += f == (kFractalBuy | kFractalSell);
    }
    return s;
}

std::string timeframeName(int64_t sec) {
    if (sec > 0) {
        if (sec == 604800) return "W1";
        if (sec == 86400) return "D1";
        if (sec % 3600 == 0 && sec / 3600 <= 12) return "H" + std::to_string(sec / 3600);
        if (sec % 60 == 0 && sec / 60 <= 30) return "M" + std::to_string(sec / 60);
    }
    return std::to_string(sec) + " s";
}

std::string formatSummaryText(const DataSummary& s) {
    auto line = [](const char* key, const std::string& value) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%-11s", (std::string(key) + ":").c_str());
        return std::string(buf) + value + "\n";
    };
    std::string out;
    if (!s.source.empty()) out += line("file", s.source);
    out += line("format", s.format);
    out += line("bars", std::to_string(s.bars));
    out += line("first", s.bars ? formatBarTime(s.firstTime) : "-");
    out += line("last", s.bars ? formatBarTime(s.lastTime) : "-");
    out +=
        line("timeframe", std::to_string(s.timeframe) + " s (" + timeframeName(s.timeframe) + ")");
    out += line("gaps", std::to_string(s.gaps));
    out += line("buy", std::to_string(s.buy));
    out += line("sell", std::to_string(s.sell));
    out += line("both", std::to_string(s.both));
    return out;
}

nlohmann::ordered_json summaryToJson(const DataSummary& s) {
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    j["format"] = s.format;
    j["bars"] = s.bars;
    j["first"] =
        s.bars ? nlohmann::ordered_json(formatBarTime(s.firstTime)) : nlohmann::ordered_json();
    j["last"] =
        s.bars ? nlohmann::ordered_json(formatBarTime(s.lastTime)) : nlohmann::ordered_json();
    j["timeframe"] = s.timeframe;
    j["gaps"] = s.gaps;
    j["buy"] = s.buy;
    j["sell"] = s.sell;
    j["both"] = s.both;
    return j;
}

}  // namespace nnwb
