#include "model/overfitting/CpcvHtml.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "model/overfitting/PathDistribution.h"
#include "model/trading/HtmlReport.h"
#include "model/trading/SvgChart.h"

namespace nnwb {

using nlohmann::json;

namespace {

// The figures of the distribution, as the summary names them, with their labels.
const char* const kFigures[][2] = {{"loss", "loss"},
                                   {"accuracyPct", "accuracy %"},
                                   {"missedPct", "missed %"},
                                   {"trades", "trades"},
                                   {"netPoints", "net points"},
                                   {"sharpe", "Sharpe (per bar)"},
                                   {"sharpeAnnual", "Sharpe (annual)"},
                                   {"maxDrawdownPoints", "max drawdown points"}};

std::string cell(const json& v, const char* format = "%.4g") {
    if (!v.is_number()) return "n/a";
    char buf[48];
    std::snprintf(buf, sizeof buf, format, v.get<double>());
    return buf;
}

std::string numbers(const json& list) {
    std::string s;
    for (const json& v : list) s += (s.empty() ? "" : ",") + std::to_string(v.get<long long>());
    return s;
}

// A path's value of a figure: the task figures from outOfSample, the others from trading.
json pathFigure(const json& p, const std::string& key) {
    const json& o = p.value("outOfSample", json::object());
    if (key == "loss") return o.value("loss", json());
    if (key == "accuracyPct") return o.value("accuracyPct", json());
    if (key == "missedPct") return o.value("missedPct", json());
    const json& t = p.value("trading", json());
    return t.is_object() ? t.value(key, json()) : json();
}

std::string pathTable(const CpcvOutput& c) {
    std::string s =
        "<table><tr><th>path</th><th>splits (group 1..N)</th><th>loss</th><th>accuracy %</th>"
        "<th>missed %</th><th>trades</th><th>net points</th><th>Sharpe</th><th>annual</th>"
        "<th>max DD</th></tr>";
    for (const json& p : c.paths) {
        s += "<tr><td class=\"n\">" + std::to_string(p.value("path", 0)) + "</td><td>" +
             numbers(p.value("splits", json::array())) + "</td>";
        const char* formats[] = {"%.6f", "%.2f", "%.2f", "%.0f", "%.1f", "%.4f", "%.3f", "%.1f"};
        for (size_t f = 0; f < 8; ++f)
            s += "<td class=\"n\">" + cell(pathFigure(p, kFigures[f][0]), formats[f]) + "</td>";
        s += "</tr>";
    }
    return s + "</table>";
}

std::string distributionTable(const json& dist) {
    std::string s =
        "<table><tr><th>over the paths</th><th>n</th><th>mean</th><th>sd</th><th>min</th>"
        "<th>10 %</th><th>median</th><th>max</th></tr>";
    for (const auto& f : kFigures) {
        const json& d = dist.value(f[0], json::object());
        s += "<tr><td>" + std::string(f[1]) + "</td><td class=\"n\">" +
             cell(d.value("count", json()), "%.0f") + "</td>";
        for (const char* k : {"mean", "sd", "min", "q10", "median", "max"})
            s += "<td class=\"n\">" + cell(d.value(k, json())) + "</td>";
        s += "</tr>";
    }
    return s + "</table>";
}

std::string histogram(const CpcvOutput& c) {
    std::vector<double> v;
    for (const json& p : c.paths) {
        const json x = pathFigure(p, "sharpe");
        v.push_back(x.is_number() ? x.get<double>() : NAN);
    }
    const PathHistogram h = pathHistogram(v, std::clamp<size_t>(v.size(), 4, 10));
    if (h.counts.empty()) return "<p>No path has a Sharpe ratio (no trades).</p>";
    std::vector<double> counts;
    std::vector<std::string> labels;
    for (size_t i = 0; i < h.counts.size(); ++i) {
        counts.push_back(double(h.counts[i]));
        char buf[48];
        std::snprintf(buf, sizeof buf, "%.3g", h.from + (double(i) + 0.5) * h.width);
        labels.push_back(buf);
    }
    return svgBarChart("paths per bin of the Sharpe ratio per bar (bin centres)", counts, labels,
                       "#4682b4");
}

std::string splitTable(const CpcvOutput& c) {
    std::string s =
        "<table><tr><th>split</th><th>test groups</th><th>status</th><th>epochs</th>"
        "<th>best</th><th>test loss</th><th>test accuracy %</th></tr>";
    for (const json& r : c.splits) {
        const json& t = r.value("testFigures", json::object());
        s += "<tr><td class=\"n\">" + std::to_string(r.value("split", 0)) + "/" +
             std::to_string(r.value("splits", 0)) + "</td><td>" +
             numbers(r.value("testGroups", json::array())) + "</td><td>" +
             htmlEscape(r.value("status", std::string())) + "</td><td class=\"n\">" +
             std::to_string(r.value("epochs", 0)) + "</td><td class=\"n\">" +
             std::to_string(r.value("bestEpoch", 0)) + "</td><td class=\"n\">" +
             cell(t.value("loss", json()), "%.6f") + "</td><td class=\"n\">" +
             cell(t.value("accuracyPct", json()), "%.2f") + "</td></tr>";
    }
    return s + "</table>";
}

}  // namespace

bool isCpcvOutput(const std::string& text) {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("{\"cpcv\":", 0) == 0) return true;
    return false;
}

CpcvOutput parseCpcvOutput(const std::string& text, const std::string& file) {
    CpcvOutput c;
    forEachWalkForwardLine(text, file, [&](int n, const json& j) {
        if (j.is_object() && j.contains("cpcv") && j["cpcv"].is_object())
            c.summary = j["cpcv"];
        else if (j.is_object() && j.contains("split"))
            c.splits.push_back(j);
        else if (j.is_object() && j.contains("path"))
            c.paths.push_back(j);
        else
            throw ReportInputError(file + ":" + std::to_string(n) +
                                   ": neither a split record (key split), a path record (key "
                                   "path) nor the {\"cpcv\": ...} summary");
    });
    if (!c.summary.is_object())
        throw ReportInputError(file +
                               ": no {\"cpcv\": ...} line; give the output of nnwb-cli "
                               "walkforward --scheme cpcv --json");
    return c;
}

std::string cpcvHtml(const CpcvOutput& c, const std::string& source) {
    const json& s = c.summary;
    std::string h = htmlReportHead("nnwb CPCV report") +
                    "<h1>Combinatorial purged cross-validation</h1><p>" + htmlEscape(source) +
                    ": " + cell(s.value("groups", json()), "%.0f") + " groups, " +
                    cell(s.value("testGroups", json()), "%.0f") +
                    " test groups: " + cell(s.value("splits", json()), "%.0f") + " splits (" +
                    cell(s.value("splitsRun", json()), "%.0f") + " run), " +
                    cell(s.value("paths", json()), "%.0f") + " paths; purge " +
                    cell(s.value("purge", json()), "%.0f") + ", embargo " +
                    cell(s.value("embargo", json()), "%.0f") + " bars; " +
                    htmlEscape(s.value("status", std::string())) + ".</p>";
    const json& verdict = s.value("verdict", json());
    if (verdict.is_string())
        h += "<p class=\"verdict\">" + htmlEscape(verdict.get<std::string>()) + "</p>";
    if (c.paths.empty()) {
        h += "<p class=\"verdict\">No paths: not every split completed.</p>";
    } else {
        h += "<h2>Paths</h2><p>Each path: every group's test predictions once, from the split "
             "named per group (docs/walkforward-cpcv.md).</p>" +
             pathTable(c);
        h += "<h2>Sharpe ratio over the paths</h2>" + histogram(c);
        h += "<h2>Distribution over the paths</h2>" +
             distributionTable(s.value("distribution", json::object())) +
             "<p>sd: sample deviation; 10 %: the lower decile, linear between order "
             "statistics.</p>";
    }
    h += "<h2>Splits</h2>" + splitTable(c);
    return h + "</body></html>\n";
}

}  // namespace nnwb
