// The tear sheets of `nnwb-cli report` and of the window's File > Export Report, assembled once
// here: a stored run's and a sweep's from the runs database, a shown run's from its trading
// report, a walk-forward's from its fold records (WalkForwardJson.h). The HTML pages themselves
// are model/trading/HtmlReport.h's and SweepHtml.h's. Qt-free; any thread (each call opens its
// own read-only connection to the database).
#pragma once

#include <cstdint>
#include <string>

#include "model/trading/HtmlReport.h"
#include "model/trading/TradingReport.h"

namespace nnwb {

// The page of run `run` of the runs database `db` (an existing file). Throws ReportInputError
// ("no run 7 in PATH") when there is none.
std::string storedRunReportPage(const std::string& db, int64_t run);
// The page of sweep `sweep` of `db`. Throws ReportInputError when there is none or its spec no
// longer loads.
std::string sweepReportPage(const std::string& db, int64_t sweep);
// What runHtml shows of a trading report: its figures, trades, curves and monthly net
// (tradingReportJson with the trades) and the per-bar returns of its % equity.
RunReportInput runReportInput(const std::string& title, const std::string& summary,
                              const TradingReport& trading);

}  // namespace nnwb
