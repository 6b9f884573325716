#include "model/trading/TradingCsv.h"

#include <charconv>

#include "model/data/DateTime.h"

namespace nnwb {

namespace {

std::string num(double v) {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

}  // namespace

std::string tradesCsv(const TradingReport& r) {
    std::string out =
        "direction,signal_bar,entry_bar,entry_time,entry_price,exit_bar,exit_time,exit_price,"
        "exit_reason,stop_level,take_level,bars,spread_points,gross_points,cost_points,net_points,"
        "gross_pct,cost_pct,net_pct\n";
    for (const Trade& t : r.trades) {
        out += t.direction > 0 ? "long" : "short";
        out += ',' + std::to_string(t.signalBar) + ',' + std::to_string(t.entryBar) + ',' +
               formatBarTime(t.entryTime) + ',' + num(t.entryPrice) + ',' +
               std::to_string(t.exitBar) + ',' + formatBarTime(t.exitTime) + ',' +
               num(t.exitPrice) + ',' + exitReasonName(t.exitReason) + ',' + num(t.stopLevel) +
               ',' + num(t.takeLevel) + ',' + std::to_string(t.bars) + ',' + num(t.spread) + ',' +
               num(t.gross) + ',' + num(t.cost) + ',' + num(t.net) + ',' + num(t.grossPct) + ',' +
               num(t.costPct) + ',' + num(t.netPct) + '\n';
    }
    return out;
}

std::string equityCsv(const TradingReport& r) {
    std::string out = "bar,time,position,equity_points,equity_pct\n";
    const TradingEquity& e = r.equity;
    for (size_t i = 0; i < e.bar.size(); ++i)
        out += std::to_string(e.bar[i]) + ',' + formatBarTime(e.time[i]) + ',' +
               std::to_string(e.position[i]) + ',' + num(e.points[i]) + ',' + num(e.pct[i]) + '\n';
    return out;
}

}  // namespace nnwb
