// `nnwb-cli report RUN|--walkforward FILE --html OUT`: the tear sheet of a stored run or of a
// walk-forward (model/trading/HtmlReport.h, from the JSON lines `nnwb-cli walkforward --json`
// printed), as one self-contained HTML file written with writeFileAtomic. Runs on the CLI's
// main thread.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <stdexcept>

#include "app/cli/Commands.h"
#include "app/runs/RunReturns.h"
#include "app/runs/RunStore.h"
#include "app/runs/RunsDbPath.h"
#include "model/AtomicFile.h"
#include "model/data/DateTime.h"
#include "model/trading/HtmlReport.h"

namespace nnwb::cli {

namespace {

struct ReportOptions {
    std::string walkForward, html, db;
    int64_t run = 0;
};

std::string runPage(const ReportOptions& o) {
    const std::string path = runsDbPath(o.db);
    if (path.empty() || !std::filesystem::exists(path))
        throw UsageError("no runs database at " + (path.empty() ? std::string("(none)") : path));
    RunStore store(path, false);
    const std::optional<StoredRun> run = store.get(o.run);
    if (!run) throw UsageError("no run " + std::to_string(o.run) + " in " + path);
    RunReportInput in;
    in.title = "Run " + std::to_string(run->id) + ": " + run->name;
    in.summary = run->dataFile + " (" + run->dataFirstBar + " .. " + run->dataLastBar + "), " +
                 run->deviceName + ", " + run->status + ", started " + run->startedAt +
                 "; trading figures of the validation part with the best epoch's weights";
    in.trading = run->trading;
    const auto returns = readReturnSeries(store, {run->id});
    const auto it = returns.find(run->id);
    if (it != returns.end()) {
        in.pct = it->second.pct;
        for (int64_t t : it->second.time) in.times.push_back(formatBarTime(t));
    }
    return runHtml(in);
}

int runReport(const ReportOptions& o) {
    if ((o.run > 0) == !o.walkForward.empty())
        throw UsageError("give a run id or --walkforward FILE (one of them)");
    if (o.run > 0) {
        writeFileAtomic(o.html, runPage(o));
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
        page = walkForwardHtml(parseWalkForwardOutput(text, o.walkForward), o.walkForward);
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
        "a tear sheet of a run or a walk-forward as one self-contained HTML file\n"
        "RUN: a stored run's summary, verdict, trading figures, equity, drawdown and monthly "
        "returns (its validation part). --walkforward FILE: "
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
    cmd->add_option("--walkforward", o->walkForward, "the output of nnwb-cli walkforward --json")
        ->type_name("FILE");
    cmd->add_option("--runs-db", o->db, "the runs database (default: as nnwb-cli runs)")
        ->type_name("PATH");
    cmd->add_option("--html", o->html, "the HTML file to write")->type_name("OUT")->required();
    runners[cmd] = [o] { return runReport(*o); };
}

}  // namespace nnwb::cli
