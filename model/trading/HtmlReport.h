// The tear sheet of a walk-forward (`nnwb-cli report --walkforward FILE --html OUT`): one
// self-contained HTML page (inline SVG from SvgChart.h, no scripts, no external references)
// built from the JSON lines `nnwb-cli walkforward --json` prints: the summary, the verdict
// (Verdict.h), the figures table, per-fold figures, and from the stitched trades the equity and
// its drawdown, monthly net, the distribution of trade returns, entries by hour and weekday and
// the trade list; and the page of one stored run (runHtml). Pure functions; any thread.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/trading/Verdict.h"

namespace nnwb {

class ReportInputError : public std::invalid_argument {
public:
    explicit ReportInputError(const std::string& what) : std::invalid_argument(what) {}
};

struct WalkForwardOutput {
    std::vector<nlohmann::json> folds;  // the fold records, in order
    nlohmann::json stitched;            // the "stitched" object
};

// Calls `line(n, j)` for each JSON line of `text` in turn (blank lines skipped; n from 1), for
// the readers of `walkforward --json` below and in CpcvHtml.h. Throws ReportInputError
// "FILE:N: not JSON (...)" at the first line that is not JSON.
void forEachWalkForwardLine(const std::string& text, const std::string& file,
                            const std::function<void(int, const nlohmann::json&)>& line);
// Reads the JSON lines of `walkforward --json` (`text` read from `file`, named in errors with
// its line): fold objects and one {"stitched": ...}. Throws ReportInputError.
WalkForwardOutput parseWalkForwardOutput(const std::string& text, const std::string& file);

// The HTML page; `source` names the file it came from.
std::string walkForwardHtml(const WalkForwardOutput& w, const std::string& source);

// What the report of one stored run shows (`nnwb-cli report RUN --html OUT`).
struct RunReportInput {
    std::string title;               // "run 12: NAME"
    std::string summary;             // data, device, status, epochs: one plain line
    nlohmann::json trading;          // the stored trading JSON (figures of the validation part)
    std::vector<std::string> times;  // the per-bar returns' bar times ("YYYY-MM-DD HH:MM")
    std::vector<double> pct;         // the per-bar returns, % (percentage points)
};

// The page of a run: summary, verdict, figures, the summed % equity per bar and its
// underwater chart, the % per month; where the trading JSON has trades (the window's run,
// app/report/ReportPages.h) also the equity against the baselines, the distribution of trade
// returns, entries by hour and weekday and the trade list (a stored run keeps no trades).
std::string runHtml(const RunReportInput& r);

// Parts the other pages (SweepHtml.h) share: the page's head (doctype, title, the reports'
// style) up to <body>; the strategy / buy and hold / random figures table of a trading JSON;
// the verdict's figures of a trading JSON (`folds` > 0: a walk-forward's stitched series).
std::string htmlReportHead(const std::string& title);
std::string htmlTradingFigures(const nlohmann::json& trading);
VerdictFigures verdictFiguresOfJson(const nlohmann::json& trading, int folds = 0);

}  // namespace nnwb
