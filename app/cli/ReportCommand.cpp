// `nnwb-cli report RUN|--sweep ID|--walkforward FILE --html OUT`: the tear sheet of a stored
// run or of a sweep (app/report/ReportPages.h, as the window's File > Export Report) or of a
// walk-forward (model/trading/HtmlReport.h, from the JSON lines `nnwb-cli walkforward --json`
// printed), as one self-contained HTML file written with writeFileAtomic. Runs on the CLI's
// main thread.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <stdexcept>

#include "app/cli/Commands.h"
#include "app/report/ReportPages.h"
#include "app/runs/RunsDbPath.h"
#include "model/AtomicFile.h"
#include "model/overfitting/CpcvHtml.h"
#include "model/trading/HtmlReport.h"

namespace nnwb::cli {

namespace {

struct ReportOptions {
    std::string walkForward, html, db;
    int64_t run = 0, sweep = 0;
};

std::string existingDb(const ReportOptions& o) {
    const std::string path = runsDbPath(o.db);
    if (path.empty() || !std::filesystem::exists(path))
        throw UsageError("no runs database at " + (path.empty() ? std::string("(none)") : path));
    return path;
}

// The pages are app/report's (one assembly with the window's File > Export Report).
std::string storedPage(const ReportOptions& o) {
    const std::string path = existingDb(o);
    try {
        return o.run > 0 ? storedRunReportPage(path, o.run) : sweepReportPage(path, o.sweep);
    } catch (const ReportInputError& e) {
        throw UsageError(e.what());
    }
}

int runReport(const ReportOptions& o) {
    if ((o.run > 0) + (o.sweep > 0) + !o.walkForward.empty() != 1)
        throw UsageError("give a run id, --sweep ID or --walkforward FILE (one of them)");
    if (o.run > 0 || o.sweep > 0) {
        writeFileAtomic(o.html, storedPage(o));
        std::printf("wrote the report to %s\n", o.html.c_str());
        return 0;
    }
    std::string text;
    try {
        text = readFile(o.walkForward, size_t(1) << 30);
    } catch (const std::runtime_error& e) {
        throw UsageError(std::string("--walkforward: ") + e.what());
    }
    std::string page;
    try {
        page = isCpcvOutput(text)  // walkforward --scheme cpcv --json: paths, not folds
                   ? cpcvHtml(parseCpcvOutput(text, o.walkForward), o.walkForward)
                   : walkForwardHtml(parseWalkForwardOutput(text, o.walkForward), o.walkForward);
    } catch (const ReportInputError& e) {
        throw UsageError(e.what());
    }
    writeFileAtomic(o.html, page);
    std::printf("wrote the report to %s\n", o.html.c_str());
    return 0;
}

}  // namespace

void addReportCommand(CLI::App& root, Runners& runners) {
    auto o = std::make_shared<ReportOptions>();
    CLI::App* cmd = root.add_subcommand(
        "report",
        "a tear sheet of a run, a sweep or a walk-forward as one self-contained HTML file\n"
        "RUN: a stored run's summary, verdict, trading figures, equity, drawdown and monthly "
        "returns (its validation part). --sweep ID: the sweep's summary, the verdict and "
        "trading figures of its best trial (by Sharpe, with the deflated Sharpe ratio), the "
        "leaderboard, parallel coordinates, parameter importance, the deflated Sharpe ratio, "
        "PBO where `sweep show` has it and the Pareto front. --walkforward FILE: "
        "reads what `nnwb-cli walkforward --json` printed (the fold records and the stitched "
        "object with its trading figures and trades) and writes one HTML page with inline SVG "
        "charts (no scripts, no network): the summary, the verdict, the figures, the folds, "
        "the equity and its drawdown, monthly net, the distribution of trade returns, entries "
        "by hour and weekday and the trade list.");
    cmd->footer(
        "Exit status: 0 written, 1 the file could not be written, 2 bad input (FILE:LINE: "
        "problem).");
    cmd->add_option("RUN", o->run, "a run id of the runs database (nnwb-cli runs list)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--sweep", o->sweep, "a sweep id of the runs database (nnwb-cli sweep list)")
        ->type_name("ID")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--walkforward", o->walkForward, "the output of nnwb-cli walkforward --json")
        ->type_name("FILE");
    cmd->add_option("--runs-db", o->db, "the runs database (default: as nnwb-cli runs)")
        ->type_name("PATH");
    cmd->add_option("--html", o->html, "the HTML file to write")->type_name("OUT")->required();
    runners[cmd] = [o] { return runReport(*o); };
}

}  // namespace nnwb::cli
