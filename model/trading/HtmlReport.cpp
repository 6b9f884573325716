#include "model/trading/HtmlReport.h"
#include "model/JsonRead.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "model/FigureText.h"
#include "model/data/DateTime.h"
#include "model/trading/SvgChart.h"
#include "model/trading/TradeDistribution.h"
#include "model/trading/TradingReportText.h"
#include "model/trading/Verdict.h"

namespace nnwb {

using nlohmann::json;

void forEachWalkForwardLine(const std::string& text, const std::string& file,
                            const std::function<void(int, const json&)>& each) {
    std::istringstream in(text);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        json j;
        try {
            j = parseJson(line, "");  // depth-bounded; e.what() is "1:COL: ..."
        } catch (const JsonReadError& e) {
            throw ReportInputError(file + ":" + std::to_string(n) + ": not JSON (" + e.what() +
                                   "); give the output of nnwb-cli walkforward --json");
        }
        each(n, j);
    }
}

WalkForwardOutput parseWalkForwardOutput(const std::string& text, const std::string& file) {
    WalkForwardOutput w;
    forEachWalkForwardLine(text, file, [&](int n, const json& j) {
        if (j.is_object() && j.contains("stitched"))
            w.stitched = j["stitched"];
        else if (j.is_object() && j.contains("fold"))
            w.folds.push_back(j);
        else
            throw ReportInputError(file + ":" + std::to_string(n) +
                                   ": neither a fold record (key fold) nor the stitched object");
    });
    if (!w.stitched.is_object())
        throw ReportInputError(file +
                               ": no {\"stitched\": ...} line; give the output of "
                               "nnwb-cli walkforward --json");
    return w;
}

namespace {

struct ReportTrade {
    std::string entry, exit, direction, reason;
    double net = 0, netPct = 0, bars = 0;
    int year = 0, month = 0, day = 0, hour = 0;
};

std::vector<ReportTrade> reportTrades(const json& trading) {
    std::vector<ReportTrade> out;
    if (!trading.contains("trades") || !trading["trades"].is_array()) return out;
    for (const json& t : trading["trades"]) {
        ReportTrade r;
        r.entry = t.value("entryTime", "");
        r.exit = t.value("exitTime", "");
        r.direction = t.value("direction", "");
        r.reason = t.value("exitReason", "");
        r.net = t.value("net", 0.0);
        r.netPct = t.value("netPct", 0.0);
        r.bars = t.value("bars", 0.0);
        int minute = 0;
        std::sscanf(r.entry.c_str(), "%d%*c%d%*c%d %d:%d", &r.year, &r.month, &r.day, &r.hour,
                    &minute);
        out.push_back(r);
    }
    return out;
}

std::string reportCell(const json& series, const std::string& key) {
    // An accuracy is a share of the signals: n/a below kMinSignalsForAccuracy (FigureText.h).
    const auto signals = series.find("signals");
    if (key == "accuracy" && signals != series.end() && signals->is_number() &&
        !accuracyShown(signals->get<size_t>()))
        return "n/a";
    const auto v = tradingFigureFromJson(series, key);
    if (!v) return "n/a";
    if (std::isinf(*v)) return "inf";
    if (std::fabs(*v) >= 1000) return groupedNumber(*v);  // -30,968, not -3.097e+04
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.4g", *v);
    return buf;
}

std::string reportFigures(const json& t) {
    static const char* const kRows[][2] = {
        {"trades", "trades"},
        {"winRate", "win rate %"},
        {"profitFactor", "profit factor"},
        {"netPoints", "net points"},
        {"netPct", "sum of trade returns, %"},
        {"perTradePoints", "per trade points"},
        {"maxDrawdownPoints", "max drawdown points"},
        {"maxDrawdownPct", "drawdown of summed trade returns, %"},
        {"sharpeAnnual", "Sharpe annualised"},
        {"sortinoAnnual", "Sortino annualised"},
        {"exposure", "exposure %"}};
    std::string s =
        "<table><tr><th></th><th>strategy</th><th>buy &amp; hold</th>"
        "<th>random</th></tr>";
    for (const auto& row : kRows) {
        s += "<tr><td>" + htmlEscape(row[1]) + "</td>";
        for (const char* part : {"strategy", "buyAndHold", "random"})
            s += "<td class=\"n\">" + reportCell(t.value(part, json::object()), row[0]) + "</td>";
        s += "</tr>";
    }
    return s + "</table>";
}

std::string reportFolds(const std::vector<json>& folds) {
    std::string s =
        "<table><tr><th>fold</th><th>test period</th><th>epochs</th><th>best</th>"
        "<th>test loss</th><th>test accuracy %</th><th>test missed %</th>"
        "<th>signals</th></tr>";
    for (const json& f : folds) {
        const json test = f.value("test", json::object());
        s += "<tr><td>" + std::to_string(f.value("fold", 0)) + "/" +
             std::to_string(f.value("folds", 0)) + "</td><td>" +
             htmlEscape(test.value("from", "") + " .. " + test.value("to", "")) + "</td>";
        s += "<td class=\"n\">" + std::to_string(f.value("epochs", 0)) + "</td><td class=\"n\">" +
             std::to_string(f.value("bestEpoch", 0)) + "</td>";
        for (const char* k : {"loss", "accuracy", "missed", "signals"})
            s += "<td class=\"n\">" + reportCell(test, k) + "</td>";
        s += "</tr>";
    }
    return s + "</table>";
}

// Each fold's part of the stitched trading (the fold records' "trading", WalkForwardJson.h):
// trades, net, profit factor, Sharpe and drawdown, as the Trading tab's fold table; "" when no
// fold has it (an output written before the folds carried it).
std::string reportFoldTrading(const std::vector<json>& folds) {
    std::string rows;
    for (const json& f : folds) {
        if (!f.contains("trading") || !f["trading"].is_object()) continue;
        const json& t = f["trading"];
        const json test = f.value("test", json::object());
        rows += "<tr><td>" + std::to_string(f.value("fold", 0)) + "/" +
                std::to_string(f.value("folds", 0)) + "</td><td>" +
                htmlEscape(test.value("from", "") + " .. " + test.value("to", "")) + "</td>";
        for (const char* k :
             {"trades", "netPoints", "profitFactor", "sharpeAnnual", "maxDrawdownPoints"})
            rows += "<td class=\"n\">" + reportCell(t, k) + "</td>";
        rows += "</tr>";
    }
    if (rows.empty()) return "";
    return "<h2>Trading per fold</h2><p>Each fold's part of the stitched out-of-sample series: "
           "the trades its model signalled in its test window and the equity over that "
           "window.</p><table><tr><th>fold</th><th>test period</th><th>trades</th>"
           "<th>net points</th><th>profit factor</th><th>Sharpe annualised</th>"
           "<th>max drawdown points</th></tr>" +
           rows + "</table>";
}

std::string reportEquity(const std::vector<ReportTrade>& trades) {
    std::vector<double> equity, underwater;
    std::vector<std::string> labels;
    double sum = 0, peak = 0;
    for (const ReportTrade& t : trades) {
        sum += t.net;
        peak = std::max(peak, sum);
        equity.push_back(sum);
        underwater.push_back(sum - peak);
        labels.push_back(t.exit.substr(0, 10));
    }
    return svgLineChart("Equity of the strategy, points after costs, at each trade's exit",
                        {{"strategy", "#1f77b4", equity, false}}, labels) +
           svgLineChart("Underwater: fall from the running peak, points",
                        {{"drawdown", "#d62728", underwater, true}}, labels, 960, 200);
}

std::string reportMonthly(const std::vector<ReportTrade>& trades, bool percent = false) {
    std::map<int, std::map<int, double>> net;  // year -> month -> net points (by entry)
    double most = 0;
    for (const ReportTrade& t : trades) net[t.year][t.month] += t.net;
    for (const auto& y : net)
        for (const auto& m : y.second) most = std::max(most, std::fabs(m.second));
    std::string s = "<table><tr><th>year</th>";
    for (int m = 1; m <= 12; ++m) s += "<th>" + std::to_string(m) + "</th>";
    s += "</tr>";
    for (const auto& y : net) {
        s += "<tr><td>" + std::to_string(y.first) + "</td>";
        for (int m = 1; m <= 12; ++m) {
            const auto it = y.second.find(m);
            if (it == y.second.end()) {
                s += "<td></td>";
                continue;
            }
            const double a = most > 0 ? std::fabs(it->second) / most : 0;
            char style[96];
            std::snprintf(style, sizeof style, " style=\"background:rgba(%s,%.2f)\"",
                          it->second < 0 ? "214,39,40" : "44,160,44", 0.1 + 0.6 * a);
            s += "<td class=\"n\"" + std::string(style) + ">" +
                 (percent ? reportCell(json{{"v", it->second}}, "v") : groupedNumber(it->second)) +
                 "</td>";
        }
        s += "</tr>";
    }
    return s + "</table>";
}

// The distribution of the trades' net % and their entries by hour and weekday
// (TradeDistribution.h, as the window's Trading tab).
std::string reportDistributions(const std::vector<ReportTrade>& trades) {
    std::vector<double> returns;
    std::vector<Trade> entries;
    for (const ReportTrade& t : trades) {
        returns.push_back(t.netPct);
        Trade e;
        e.entryTime = fromCalendar(t.year > 0 ? t.year : 1970, t.month > 0 ? t.month : 1,
                                   t.day > 0 ? t.day : 1, t.hour);
        e.net = t.net;
        entries.push_back(e);
    }
    const Histogram h = histogramOf(returns, 30);
    std::vector<std::string> binLabels;
    for (size_t b = 0; b < h.count.size(); ++b) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.2g", h.first + h.width * (double(b) + 0.5));
        binLabels.push_back(buf);
    }
    const EntryProfile p = entryProfile(entries);
    std::vector<std::string> hours(24);
    for (int i = 0; i < 24; ++i) hours[size_t(i)] = std::to_string(i);
    return svgBarChart("Distribution of trade returns (net % of the entry price, count per bin)",
                       h.count, binLabels, "#1f77b4") +
           svgBarChart("Entries by hour of the entry bar (the file's clock)",
                       {p.countByHour.begin(), p.countByHour.end()}, hours, "#9467bd", 960, 200) +
           svgBarChart("Entries by weekday", {p.countByWeekday.begin(), p.countByWeekday.end()},
                       {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}, "#8c564b", 480, 200);
}

// The equity of the strategy, buy and hold and the random draws' 5-95 % band, and the
// underwater chart, from the trading JSON's "curves", with a dashed line where each fold's test
// window starts.
std::string reportCurves(const json& c, const std::vector<json>& folds) {
    const std::vector<std::string> time = c.value("time", std::vector<std::string>());
    std::vector<std::string> labels;
    for (const std::string& t : time) labels.push_back(t.substr(0, 10));
    std::vector<double> markers;
    for (const json& f : folds) {
        const std::string from = f.value("test", json::object()).value("from", "");
        const auto it = std::lower_bound(time.begin(), time.end(), from);
        if (!from.empty() && it != time.end()) markers.push_back(double(it - time.begin()));
    }
    auto series = [&](const char* key) { return c.value(key, std::vector<double>()); };
    return svgLineChart("Equity, points after costs (dashed: a fold's test window starts)",
                        {{"strategy", "#1f77b4", series("strategy"), false},
                         {"buy and hold", "#e68c14", series("buyAndHold"), false},
                         {"random draws 5 %", "#999999", series("randomLow"), false},
                         {"random draws 95 %", "#999999", series("randomHigh"), false}},
                        labels, 960, 300, markers) +
           svgLineChart("Underwater: fall from the running peak, points",
                        {{"drawdown", "#d62728", series("underwater"), true}}, labels, 960, 200,
                        markers);
}

// The trading JSON's "monthly" list as the year x month table.
std::string reportMonthlyJson(const json& monthly) {
    std::vector<ReportTrade> months;
    for (const json& m : monthly) {
        ReportTrade t;
        t.year = m.value("year", 0);
        t.month = m.value("month", 0);
        t.net = m.value("points", 0.0);
        months.push_back(t);
    }
    return reportMonthly(months);
}

std::string reportTradeList(const std::vector<ReportTrade>& trades) {
    std::string s =
        "<table><tr><th>#</th><th>direction</th><th>entry</th><th>exit</th>"
        "<th>exit reason</th><th>bars</th><th>net points</th><th>net %</th></tr>";
    for (size_t i = 0; i < trades.size(); ++i) {
        const ReportTrade& t = trades[i];
        char nums[128];
        std::snprintf(nums, sizeof nums,
                      "<td class=\"n\">%.0f</td><td class=\"n\">%.1f</td><td class=\"n\">%.4f</td>",
                      t.bars, t.net, t.netPct);
        s += "<tr><td class=\"n\">" + std::to_string(i + 1) + "</td><td>" +
             htmlEscape(t.direction) + "</td><td>" + htmlEscape(t.entry) + "</td><td>" +
             htmlEscape(t.exit) + "</td><td>" + htmlEscape(t.reason) + "</td>" + nums + "</tr>";
    }
    return s + "</table>";
}

VerdictFigures reportVerdict(const json& stitched) {
    const json t = stitched.value("trading", json::object());
    const json strategy = t.value("strategy", json::object());
    const json random = t.value("random", json::object());
    VerdictFigures f;
    f.trades = tradingFigureFromJson(strategy, "trades").value_or(0);
    f.netPoints = tradingFigureFromJson(strategy, "netPoints").value_or(0);
    f.buyAndHoldPoints = tradingFigureFromJson(t.value("buyAndHold", json::object()), "netPoints")
                             .value_or(kNotAvailable);
    f.randomShare = tradingFigureFromJson(random, "netAtOrAbove").value_or(kNotAvailable);
    f.randomDraws = random.value("draws", 0);
    f.folds = stitched.value("folds", 0);
    return f;
}

const char* kReportStyle =
    "<style>body{font-family:sans-serif;margin:24px;max-width:1000px}"
    "table{border-collapse:collapse;margin:8px 0 16px}td,th{border:1px solid #ccc;"
    "padding:2px 6px;font-size:12px}td.n{text-align:right}.verdict{font-size:16px;"
    "padding:10px;background:#f3f3f3;border-left:4px solid #555}svg{display:block;"
    "margin:8px 0}</style>";

std::string reportHead(const std::string& title) {
    return "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>" +
           htmlEscape(title) + "</title>" + std::string(kReportStyle) + "</head><body>";
}

// Sums of `pct` by the month (YYYY-MM) of `times`, as a year x month heatmap.
std::string reportMonthlyPct(const std::vector<std::string>& times,
                             const std::vector<double>& pct) {
    std::vector<ReportTrade> months;
    for (size_t i = 0; i < pct.size() && i < times.size(); ++i) {
        ReportTrade t;
        std::sscanf(times[i].c_str(), "%d%*c%d", &t.year, &t.month);
        t.net = pct[i];
        months.push_back(t);
    }
    return reportMonthly(months, true);
}

}  // namespace

std::string htmlReportHead(const std::string& title) {
    return reportHead(title);
}

std::string htmlTradingFigures(const json& trading) {
    return reportFigures(trading);
}

VerdictFigures verdictFiguresOfJson(const json& trading, int folds) {
    return reportVerdict(json{{"trading", trading}, {"folds", folds}});
}

std::string runHtml(const RunReportInput& r) {
    std::string h = reportHead("nnwb run report") + "<h1>" + htmlEscape(r.title) + "</h1><p>" +
                    htmlEscape(r.summary) + "</p>";
    const json& t = r.trading;
    if (!t.is_object() || t.contains("error") || !t.contains("strategy")) {
        const std::string why = t.is_object() && t.contains("error")
                                    ? "the trading evaluation failed: " + t.value("error", "")
                                    : std::string("the run has no trading figures");
        return h + "<p class=\"verdict\">" + htmlEscape(why) + "</p></body></html>\n";
    }
    VerdictFigures f = reportVerdict(json{{"trading", t}});
    h += "<p class=\"verdict\">" + htmlEscape(tradingVerdict(f)) + "</p>";
    h += "<h2>Figures of the validation part</h2>" + reportFigures(t);
    std::vector<double> equity, underwater;
    double sum = 0, peak = 0;
    for (double v : r.pct) {
        sum += v;
        peak = std::max(peak, sum);
        equity.push_back(sum);
        underwater.push_back(sum - peak);
    }
    if (equity.empty()) return h + "<p>The run keeps no per-bar returns.</p></body></html>\n";
    std::vector<std::string> labels;
    for (const std::string& s : r.times) labels.push_back(s.substr(0, 10));
    h += "<h2>Equity and drawdown</h2>" +
         svgLineChart("Equity: sum of trade returns, % (per bar, after costs)",
                      {{"strategy", "#1f77b4", equity, false}}, labels) +
         svgLineChart("Underwater: fall from the running peak, percentage points",
                      {{"drawdown", "#d62728", underwater, true}}, labels, 960, 200);
    h += "<h2>Monthly sum of returns, %</h2>" + reportMonthlyPct(r.times, r.pct);
    const std::vector<ReportTrade> trades = reportTrades(t);
    if (trades.empty())  // a stored run: its figures and returns, no trades
        return h +
               "<p>A stored run keeps no trade list: the distribution of trades and entries by "
               "hour are in the reports of a walk-forward or of the window's run.</p>"
               "</body></html>\n";
    if (t.contains("curves")) h += "<h2>Against the baselines</h2>" + reportCurves(t["curves"], {});
    h += "<h2>Trades</h2>" + reportDistributions(trades);
    return h + "<h2>Trade list</h2>" + reportTradeList(trades) + "</body></html>\n";
}

std::string walkForwardHtml(const WalkForwardOutput& w, const std::string& source) {
    const json& st = w.stitched;
    const json trading = st.value("trading", json::object());
    const std::vector<ReportTrade> trades = reportTrades(trading);
    const json oos = st.value("outOfSample", json::object());
    std::string h =
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<title>nnwb walk-forward report</title>" +
        std::string(kReportStyle) + "</head><body>";
    h += "<h1>Walk-forward report</h1><p>From " + htmlEscape(source) + ": " +
         std::to_string(st.value("folds", 0)) + " of " +
         std::to_string(st.value("plannedFolds", 0)) + " folds, status " +
         htmlEscape(st.value("status", "")) + "; out of sample " +
         htmlEscape(oos.is_object() ? oos.value("from", "") + " .. " + oos.value("to", "")
                                    : "none") +
         ", accuracy " + reportCell(oos, "accuracy") + " %, loss " + reportCell(oos, "loss") +
         ".</p>";
    h += "<p class=\"verdict\">" + htmlEscape(tradingVerdict(reportVerdict(st))) + "</p>";
    if (trading.is_object() && !trading.empty()) h += "<h2>Figures</h2>" + reportFigures(trading);
    h += "<h2>Folds</h2>" + reportFolds(w.folds) + reportFoldTrading(w.folds);
    if (trades.empty()) {
        h += "<p>No trades in the file (a walk-forward output without a trade list), so no "
             "equity, monthly or distribution charts.</p>";
    } else {
        if (trading.contains("curves") && trading.contains("monthly")) {
            h += "<h2>Equity and drawdown</h2>" + reportCurves(trading["curves"], w.folds);
            h += "<h2>Monthly net points (the equity's change over each month)</h2>" +
                 reportMonthlyJson(trading["monthly"]);
        } else {  // an output without the curves: the equity at each trade's exit
            h += "<h2>Equity and drawdown</h2>" + reportEquity(trades);
            h += "<h2>Monthly net points (by entry month)</h2>" + reportMonthly(trades);
        }
        h += "<h2>Trades</h2>" + reportDistributions(trades);
        h += "<h2>Trade list</h2>" + reportTradeList(trades);
    }
    return h + "</body></html>\n";
}

}  // namespace nnwb
