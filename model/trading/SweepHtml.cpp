#include "model/trading/SweepHtml.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "model/trading/HtmlReport.h"
#include "model/trading/SvgChart.h"
#include "model/trading/Verdict.h"

namespace nnwb {

using nlohmann::json;

namespace {

// j[key], or null when `j` is no object or has no `key` (a const json's [] must not miss).
const json& field(const json& j, const char* key) {
    static const json none;
    return j.is_object() && j.contains(key) ? j[key] : none;
}

std::string num(const json& v, const char* format = "%.4g") {
    if (!v.is_number()) return v.is_null() ? "n/a" : htmlEscape(v.dump());
    const double d = v.get<double>();
    if (std::fabs(d) >= 1000 && std::isfinite(d)) return groupedNumber(d);
    char buf[48];
    std::snprintf(buf, sizeof buf, format, d);
    return buf;
}

std::string text(const json& v) {
    return htmlEscape(v.is_string() ? v.get<std::string>() : v.is_null() ? "" : v.dump());
}

// An objective's column heading: its metric, the "parameters" metric as "parameter count" (the
// leaderboard's "parameters" column holds the trial's sampled parameters).
std::string metricHeading(const json& objective) {
    const json& m = field(objective, "metric");
    return m.is_string() && m.get<std::string>() == "parameters" ? "parameter count" : text(m);
}

// "layers[2].units" stays, "training.optimizer.lr" is "lr" (as the window's axes say).
std::string shortPath(const std::string& p) {
    const size_t dot = p.rfind('.');
    if (dot == std::string::npos) return p;
    const size_t before = p.rfind('.', dot - 1);
    const std::string parent = p.substr(before == std::string::npos ? 0 : before + 1,
                                        dot - (before == std::string::npos ? 0 : before + 1));
    return parent.rfind("layers[", 0) == 0 ? parent + p.substr(dot) : p.substr(dot + 1);
}

struct PcAxis {
    std::string title;
    std::vector<std::string> labels;  // categorical when not empty
    double low = 0, high = 0;
    bool log = false;
    double unit(const json& v) const {
        if (!labels.empty()) {
            const std::string s = v.is_string() ? v.get<std::string>() : v.dump();
            const auto it = std::find(labels.begin(), labels.end(), s);
            return labels.size() < 2 ? 0.5 : double(it - labels.begin()) / (labels.size() - 1.0);
        }
        const double x = v.get<double>();
        if (high <= low) return 0.5;
        if (log) return (std::log(x) - std::log(low)) / (std::log(high) - std::log(low));
        return (x - low) / (high - low);
    }
};

PcAxis parameterAxis(const json& trials, const std::string& name) {
    PcAxis a;
    a.title = shortPath(name);
    std::vector<double> nums;
    std::set<std::string> cats;
    for (const json& t : trials) {
        const json& p = t.value("params", json::object());
        if (!p.is_object() || !p.contains(name)) continue;
        const json& v = p[name];
        if (v.is_number())
            nums.push_back(v.get<double>());
        else
            cats.insert(v.is_string() ? v.get<std::string>() : v.dump());
    }
    if (!cats.empty() || nums.empty()) {
        for (double n : nums) cats.insert(json(n).dump());
        a.labels.assign(cats.begin(), cats.end());
    } else {
        a.low = *std::min_element(nums.begin(), nums.end());
        a.high = *std::max_element(nums.begin(), nums.end());
        a.log = a.low > 0 && a.high / a.low > 50.0;
    }
    return a;
}

std::string fmt(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
}

// Blue (0, the best) to red (1, the worst).
std::string rankColour(double t) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "#%02x%02x%02x", int(31 + t * (214 - 31)),
                  int(119 + t * (39 - 119)), int(180 + t * (40 - 180)));
    return buf;
}

std::string leaderboard(const json& r) {
    const bool second = r.contains("secondObjective");
    std::string s = "<table><tr><th>rank</th><th>trial</th><th>run</th><th>" +
                    metricHeading(field(r, "objective")) + "</th>" +
                    (second ? "<th>" + metricHeading(field(r, "secondObjective")) + "</th>" : "") +
                    "<th>epochs</th><th>parameters</th></tr>";
    int rank = 0;
    for (const json& t : r.value("leaderboard", json::array())) {
        s += "<tr><td class=\"n\">" + std::to_string(++rank) + "</td><td class=\"n\">" +
             num(field(t, "number"), "%.0f") + "</td><td class=\"n\">" +
             num(field(t, "run"), "%.0f") + "</td><td class=\"n\">" +
             num(field(t, "value"), "%.6g") + "</td>" +
             (second ? "<td class=\"n\">" + num(field(t, "secondValue"), "%.6g") + "</td>" : "") +
             "<td class=\"n\">" + num(field(t, "epochs"), "%.0f") + "</td><td>" +
             text(field(t, "params")) + "</td></tr>";
    }
    return s + "</table>";
}

std::string importance(const json& r) {
    const json& imp = r.value("importance", json::array());
    if (imp.empty())
        return "<p>No parameter importance: too few complete trials (docs/sweeps.md).</p>";
    std::string s =
        "<table><tr><th>parameter</th><th>importance (omega squared)</th><th></th></tr>";
    for (const json& p : imp) {
        const double v = p.value("index", 0.0);
        s += "<tr><td>" + text(field(p, "parameter")) + "</td><td class=\"n\">" +
             num(field(p, "index"), "%.3f") + "</td><td><svg width=\"" +
             fmt(4 + 300 * std::clamp(v, 0.0, 1.0)) + "\" height=\"10\"><rect width=\"" +
             fmt(4 + 300 * std::clamp(v, 0.0, 1.0)) +
             "\" height=\"10\" fill=\"#1f77b4\"/></svg></td></tr>";
    }
    return s + "</table>";
}

std::string figureRows(const json& j,
                       const std::vector<std::pair<const char*, const char*>>& rows) {
    std::string s = "<table>";
    for (const auto& [key, label] : rows)
        if (j.contains(key))
            s += "<tr><td>" + htmlEscape(label) + "</td><td class=\"n\">" + num(field(j, key)) +
                 "</td></tr>";
    return s + "</table>";
}

std::string deflatedSharpe(const json& d) {
    if (!d.is_object())
        return "<p>No deflated Sharpe ratio: no complete or pruned trial has trading "
               "figures.</p>";
    return "<p>" + text(field(d, "meaning")) + "</p>" +
           figureRows(d, {{"trials", "trials that traded"},
                          {"bestTrial", "best trial (by Sharpe)"},
                          {"run", "its run"},
                          {"sharpe", "its Sharpe per bar"},
                          {"sharpeAnnual", "its Sharpe annualised"},
                          {"expectedMaxSharpe", "expected best Sharpe of as many trials by luck"},
                          {"expectedMaxSharpeAnnual", "the same annualised"},
                          {"returns", "returns (bars)"},
                          {"skewness", "skewness"},
                          {"kurtosis", "kurtosis"},
                          {"probability", "deflated Sharpe ratio (probability)"}});
}

std::string overfitting(const json& o) {
    if (!o.is_object()) return {};
    std::string s = "<h2>Probability of backtest overfitting (CSCV)</h2>";
    if (o.contains("refused")) return s + "<p>Not computed: " + text(field(o, "refused")) + "</p>";
    s += "<p>" + text(field(o, "meaning")) + "</p>";
    s += figureRows(o, {{"pbo", "PBO"},
                        {"probabilityOfLoss", "probability of an out-of-sample loss"},
                        {"trials", "trials"},
                        {"bars", "bars"},
                        {"blocks", "blocks"},
                        {"splits", "splits"}});
    if (o.contains("degradation") && field(o, "degradation").is_object())
        s += "<p>Degradation of out-of-sample with in-sample performance: slope " +
             num(field(field(o, "degradation"), "slope")) + ", R² " +
             num(field(field(o, "degradation"), "rSquared")) + ".</p>";
    return s;
}

std::string pareto(const json& r) {
    if (!r.contains("pareto")) return {};
    std::string s = "<h2>Pareto front (" + metricHeading(field(r, "objective")) + " and " +
                    metricHeading(field(r, "secondObjective")) +
                    ")</h2><table><tr><th>trial</th><th>value</th><th>second value</th>"
                    "<th>parameters</th></tr>";
    for (const json& t : field(r, "pareto"))
        s += "<tr><td class=\"n\">" + num(field(t, "number"), "%.0f") + "</td><td class=\"n\">" +
             num(field(t, "value"), "%.6g") + "</td><td class=\"n\">" +
             num(field(t, "secondValue"), "%.6g") + "</td><td>" + text(field(t, "params")) +
             "</td></tr>";
    return s + "</table>";
}

std::vector<std::string> parameterNames(const SweepReportInput& in) {
    if (!in.parameters.empty()) return in.parameters;
    std::set<std::string> names;  // every trial's parameters, when the spec's are not given
    for (const json& t : in.report.value("trials", json::array()))
        for (const auto& [k, v] : t.value("params", json::object()).items()) names.insert(k);
    return {names.begin(), names.end()};
}

}  // namespace

std::string svgParallelCoordinates(const json& trials, const std::vector<std::string>& parameters,
                                   const std::string& objective, bool minimize, int width,
                                   int height) {
    std::vector<PcAxis> axes;
    for (const std::string& p : parameters) axes.push_back(parameterAxis(trials, p));
    PcAxis obj;
    obj.title = objective;
    std::vector<double> values;
    for (const json& t : trials)
        if (t.contains("value") && field(t, "value").is_number())
            values.push_back(field(t, "value"));
    if (!values.empty()) {
        obj.low = *std::min_element(values.begin(), values.end());
        obj.high = *std::max_element(values.begin(), values.end());
    }
    axes.push_back(obj);
    const double top = 44, bottom = height - 30.0, left = 60, right = width - 60.0;
    auto axisX = [&](size_t i) {
        return axes.size() < 2 ? (left + right) / 2 : left + (right - left) * i / (axes.size() - 1);
    };
    auto y = [&](double unit) { return bottom - (bottom - top) * unit; };
    std::string s = "<svg width=\"" + std::to_string(width) + "\" height=\"" +
                    std::to_string(height) + "\" viewBox=\"0 0 " + std::to_string(width) + " " +
                    std::to_string(height) + "\" font-family=\"sans-serif\" font-size=\"11\">" +
                    "<text x=\"8\" y=\"16\" font-size=\"13\" font-weight=\"bold\">Parallel "
                    "coordinates: one line per trial, blue best to red worst " +
                    htmlEscape(objective) + ", grey without a value</text>";
    // Lines first (grey under coloured), axes over them.
    std::string grey, coloured;
    for (const json& t : trials) {
        const json& params = t.value("params", json::object());
        const bool valued = t.contains("value") && field(t, "value").is_number();
        std::string path;
        bool pen = false;
        for (size_t i = 0; i < axes.size(); ++i) {
            const bool last = i + 1 == axes.size();
            const json* v = last ? (valued ? &field(t, "value") : nullptr)
                            : params.is_object() && params.contains(parameters[i])
                                ? &params[parameters[i]]
                                : nullptr;
            if (!v || (axes[i].labels.empty() && !v->is_number())) {
                pen = false;
                continue;
            }
            path += (pen ? " L" : " M") + fmt(axisX(i)) + " " + fmt(y(axes[i].unit(*v)));
            pen = true;
        }
        if (path.empty()) continue;
        if (!valued) {
            grey += "<path d=\"" + path + "\" fill=\"none\" stroke=\"#bbb\" stroke-width=\"1\"/>";
            continue;
        }
        double rank = obj.unit(field(t, "value"));  // 0 the lowest value
        if (!minimize) rank = 1 - rank;
        coloured += "<path d=\"" + path + "\" fill=\"none\" stroke=\"" + rankColour(rank) +
                    "\" stroke-width=\"1.3\" stroke-opacity=\"0.8\"/>";
    }
    s += grey + coloured;
    for (size_t i = 0; i < axes.size(); ++i) {
        const PcAxis& a = axes[i];
        const std::string x = fmt(axisX(i));
        s += "<line x1=\"" + x + "\" x2=\"" + x + "\" y1=\"" + fmt(top) + "\" y2=\"" + fmt(bottom) +
             "\" stroke=\"#333\"/>";
        s += "<text x=\"" + x + "\" y=\"" + fmt(top - 8) + "\" text-anchor=\"middle\">" +
             htmlEscape(a.title) + "</text>";
        if (!a.labels.empty()) {
            for (size_t k = 0; k < a.labels.size(); ++k)
                s += "<text x=\"" + fmt(axisX(i) + 4) + "\" y=\"" +
                     fmt(y(a.labels.size() < 2 ? 0.5 : double(k) / (a.labels.size() - 1))) +
                     "\" dominant-baseline=\"middle\">" + htmlEscape(a.labels[k]) + "</text>";
        } else {
            s += "<text x=\"" + x + "\" y=\"" + fmt(bottom + 14) + "\" text-anchor=\"middle\">" +
                 num(a.low) + "</text>";
            s += "<text x=\"" + fmt(axisX(i) + 4) + "\" y=\"" + fmt(top + 4) + "\">" + num(a.high) +
                 (a.log ? " (log)" : "") + "</text>";
        }
    }
    return s + "</svg>";
}

std::string sweepHtml(const SweepReportInput& in) {
    const json& r = in.report;
    const json& counts = r.value("counts", json::object());
    const std::string title = "Sweep " + r.value("id", json(0)).dump() + ": " + r.value("name", "");
    std::string h = htmlReportHead("nnwb sweep report") + "<h1>" + htmlEscape(title) + "</h1>";
    h += "<p>" + text(field(r, "status")) + ", method " + text(field(r, "method")) + ", pruner " +
         text(field(r, "pruner")) + ", objective " + text(field(field(r, "objective"), "metric")) +
         " (" + text(field(field(r, "objective"), "goal")) +
         "); trials: " + num(field(counts, "complete"), "%.0f") + " complete, " +
         num(field(counts, "pruned"), "%.0f") + " pruned, " + num(field(counts, "failed"), "%.0f") +
         " failed, " + num(field(counts, "running"), "%.0f") + " running, " +
         num(field(counts, "queued"), "%.0f") + " queued; created " + text(field(r, "createdAt")) +
         (in.source.empty() ? "" : "; from " + htmlEscape(in.source)) + ".</p>";
    const json& dsr = r.value("deflatedSharpe", json());
    const json& t = in.bestTrading;
    if (t.is_object() && t.contains("strategy")) {
        VerdictFigures f = verdictFiguresOfJson(t);
        if (dsr.is_object() && field(dsr, "probability").is_number())
            f.deflatedSharpe = field(dsr, "probability").get<double>();
        const std::string whose = dsr.is_object()
                                      ? "Trial " + field(dsr, "bestTrial").dump() +
                                            " (the best Sharpe of the sweep), validation part: "
                                      : "The best trial, validation part: ";
        h += "<p class=\"verdict\">" + htmlEscape(whose + tradingVerdict(f)) + "</p>";
        h += "<h2>Its trading figures</h2>" + htmlTradingFigures(t);
    } else {
        h += "<p class=\"verdict\">No trial has trading figures: no verdict.</p>";
    }
    h += "<h2>Leaderboard</h2>" + leaderboard(r);
    const std::vector<std::string> params = parameterNames(in);
    h += "<h2>Parallel coordinates</h2>" +
         svgParallelCoordinates(r.value("trials", json::array()), params,
                                field(r, "objective").value("metric", ""),
                                field(r, "objective").value("goal", "min") == "min");
    h += "<h2>Parameter importance</h2>" + importance(r);
    h += "<h2>Deflated Sharpe ratio</h2>" + deflatedSharpe(dsr);
    h += overfitting(r.value("overfitting", json()));
    h += pareto(r);
    return h + "</body></html>\n";
}

}  // namespace nnwb
