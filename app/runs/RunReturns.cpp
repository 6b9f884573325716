#include "app/runs/RunReturns.h"

#include <cstring>
#include <stdexcept>
#include <string>

#include <SQLiteCpp/SQLiteCpp.h>

#include "app/runs/RunStore.h"

// The blobs hold the values in the machine's byte order, little-endian on every platform nnwb
// builds for.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "run_returns blobs are little-endian");

namespace nnwb {

nlohmann::json returnSeriesJson(const TradingEquity& equity) {
    nlohmann::json time = nlohmann::json::array(), pct = nlohmann::json::array();
    for (size_t i = 1; i < equity.pct.size() && i < equity.time.size(); ++i) {
        time.push_back(equity.time[i]);
        pct.push_back(equity.pct[i] - equity.pct[i - 1]);
    }
    return {{"time", std::move(time)}, {"pct", std::move(pct)}};
}

std::optional<ReturnSeries> takeReturnSeries(nlohmann::json& trading) {
    if (!trading.is_object() || !trading.contains("returnSeries")) return std::nullopt;
    const nlohmann::json j = std::move(trading["returnSeries"]);
    trading.erase("returnSeries");
    if (!j.is_object() || !j.contains("time") || !j.contains("pct") || !j["time"].is_array() ||
        !j["pct"].is_array() || j["time"].size() != j["pct"].size())
        throw std::invalid_argument(
            "returnSeries: not an object of two arrays \"time\" and \"pct\" of one length");
    ReturnSeries s;
    try {
        s.time = j["time"].get<std::vector<int64_t>>();
        s.pct = j["pct"].get<std::vector<double>>();
    } catch (const nlohmann::json::exception& e) {
        throw std::invalid_argument(std::string("returnSeries: ") + e.what());
    }
    return s;
}

void writeReturnSeries(SQLite::Database& db, int64_t runId, const ReturnSeries& series) {
    SQLite::Statement u(db,
                        "INSERT OR REPLACE INTO run_returns (run_id, bars, time, pct) "
                        "VALUES (?, ?, ?, ?)");
    u.bind(1, runId);
    u.bind(2, int64_t(series.pct.size()));
    u.bind(3, series.time.data(), int(series.time.size() * sizeof(int64_t)));
    u.bind(4, series.pct.data(), int(series.pct.size() * sizeof(double)));
    u.exec();
}

std::map<int64_t, ReturnSeries> readReturnSeries(RunStore& store,
                                                 const std::vector<int64_t>& runIds) {
    std::map<int64_t, ReturnSeries> out;
    store.read("cannot read the runs' returns", [&](SQLite::Database& db) {
        SQLite::Statement q(db, "SELECT bars, time, pct FROM run_returns WHERE run_id = ?");
        for (int64_t id : runIds) {
            q.reset();
            q.bind(1, id);
            if (!q.executeStep()) continue;
            const size_t bars = size_t(q.getColumn(0).getInt64());
            const SQLite::Column time = q.getColumn(1), pct = q.getColumn(2);
            if (size_t(time.getBytes()) != bars * sizeof(int64_t) ||
                size_t(pct.getBytes()) != bars * sizeof(double))
                throw std::runtime_error("run " + std::to_string(id) +
                                         "'s run_returns row is damaged (" + std::to_string(bars) +
                                         " bars, blobs of " + std::to_string(time.getBytes()) +
                                         " and " + std::to_string(pct.getBytes()) + " bytes)");
            ReturnSeries s;
            s.time.resize(bars);
            s.pct.resize(bars);
            if (bars > 0) {
                std::memcpy(s.time.data(), time.getBlob(), bars * sizeof(int64_t));
                std::memcpy(s.pct.data(), pct.getBlob(), bars * sizeof(double));
            }
            out[id] = std::move(s);
        }
    });
    return out;
}

}  // namespace nnwb
