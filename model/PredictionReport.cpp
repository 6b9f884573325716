#include "model/PredictionReport.h"

#include <charconv>
#include <cstdio>

#include "model/FigureText.h"
#include "model/MetricsJson.h"
#include "model/data/DateTime.h"
#include "model/data/Fractals.h"

namespace nnwb {

namespace {

// The shortest text that reads back as the same float / double.
std::string floatText(float v) {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

std::string doubleText(double v) {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

}  // namespace

const char* signalName(int signal) {
    return signal == 1 ? "buy" : signal == 2 ? "sell" : "none";
}

std::string labelName(const PredictionRow& row) {
    if (!row.labelled) return "";
    const bool buy = row.label & kFractalBuy, sell = row.label & kFractalSell;
    return buy && sell ? "both" : buy ? "buy" : sell ? "sell" : "none";
}

std::string predictionCsv(const PredictionResult& r) {
    const bool ensemble = r.members > 1;
    std::string out = ensemble ? "time,close,none,buy,sell,signal,label,agreement,spread\n"
                               : "time,close,none,buy,sell,signal,label\n";
    out.reserve(out.size() + r.rows.size() * 72);
    for (const PredictionRow& row : r.rows) {
        out += formatBarTime(row.time);
        out += ',' + doubleText(row.close);
        for (float v : row.outputs) out += ',' + floatText(v);
        out += ',';
        out += signalName(row.signal);
        out += ',' + labelName(row);
        if (ensemble) out += ',' + floatText(row.agreement) + ',' + floatText(row.spread);
        out += '\n';
    }
    return out;
}

nlohmann::ordered_json predictionMetricsJson(const EpochMetrics& m) {
    nlohmann::ordered_json j;
    putEpochMetrics(j, m);
    return j;
}

nlohmann::ordered_json predictionToJson(const PredictionResult& r, const ModelBundle& b,
                                        const std::string& dataFile, size_t bars) {
    nlohmann::ordered_json j;
    j["model"] = {{"experiment", b.experiment},
                  {"epoch", b.epoch},
                  {"trainedOn", b.trainedOn},
                  {"timeframe", b.timeframe},
                  {"appVersion", b.appVersion}};
    j["data"] = {
        {"file", dataFile}, {"bars", bars}, {"rows", r.rows.size()}, {"labelled", r.labelled}};
    nlohmann::ordered_json range = nlohmann::ordered_json::array();
    for (const OutOfRangeFeature& f : r.outOfRange)
        range.push_back({{"feature", f.feature},
                         {"share", f.share},
                         {"rows", f.rows},
                         {"outside", f.outside},
                         {"worstZ", f.worstZ},
                         {"worstValue", f.worstValue},
                         {"constantInTraining", f.constantInTraining},
                         {"trainingMean", f.trainingMean}});
    j["warnings"] = {{"outOfRange", std::move(range)}};
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const PredictionRow& row : r.rows) {
        nlohmann::ordered_json o;
        o["time"] = formatBarTime(row.time);
        o["close"] = row.close;
        o["none"] = row.outputs[0];
        o["buy"] = row.outputs[1];
        o["sell"] = row.outputs[2];
        o["signal"] = signalName(row.signal);
        if (row.labelled)
            o["label"] = labelName(row);
        else
            o["label"] = nullptr;
        if (r.members > 1) {
            o["agreement"] = row.agreement;
            o["spread"] = row.spread;
        }
        rows.push_back(std::move(o));
    }
    j["rows"] = std::move(rows);
    j["metrics"] = predictionMetricsJson(r.metrics);
    return j;
}

std::string outOfRangeWarningText(const std::vector<OutOfRangeFeature>& features) {
    if (features.empty()) return "";
    std::string out =
        "the inputs lie far outside the training range (another instrument or price scale?); "
        "the model was not trained for them and its signals mean little here:\n";
    for (const OutOfRangeFeature& f : features) out += "  " + outOfRangeText(f) + "\n";
    return out;
}

std::string predictionMetricsText(const EpochMetrics& m) {
    char buf[512];
    std::string out;
    std::snprintf(buf, sizeof buf,
                  "metrics over %zu labelled bars: loss %.6f  accuracy %s  "
                  "missed %.2f%% (%zu patterns)\n",
                  m.samples, m.loss, accuracyText(m.accuracyPct, m.signalCount).c_str(),
                  m.missedPct, m.patterns);
    out += buf;
    out += "confusion (rows: true label, columns: signal)\n";
    out += "            none       buy      sell\n";
    static const char* const kNames[3] = {"none", "buy", "sell"};
    for (size_t a = 0; a < 3; ++a) {
        std::snprintf(buf, sizeof buf, "  %-5s %9lld %9lld %9lld\n", kNames[a],
                      static_cast<long long>(m.confusion[a][0]),
                      static_cast<long long>(m.confusion[a][1]),
                      static_cast<long long>(m.confusion[a][2]));
        out += buf;
    }
    return out;
}

}  // namespace nnwb
