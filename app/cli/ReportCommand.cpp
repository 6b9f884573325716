// `nnwb-cli report --walkforward FILE --html OUT`: the tear sheet of a walk-forward
// (model/trading/HtmlReport.h) from the JSON lines `nnwb-cli walkforward --json` printed, as one
// self-contained HTML file written with writeFileAtomic. Runs on the CLI's main thread.
#include <cstdio>
#include <memory>
#include <stdexcept>

#include "app/cli/Commands.h"
#include "model/AtomicFile.h"
#include "model/trading/HtmlReport.h"

namespace nnwb::cli {

namespace {

struct ReportOptions {
    std::string walkForward, html;
};

int runReport(const ReportOptions& o) {
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
        "a tear sheet as one self-contained HTML file\n"
        "Reads what `nnwb-cli walkforward --json` printed (the fold records and the stitched "
        "object with its trading figures and trades) and writes one HTML page with inline SVG "
        "charts (no scripts, no network): the summary, the verdict, the figures, the folds, "
        "the equity and its drawdown, monthly net, the distribution of trade returns, entries "
        "by hour and weekday and the trade list.");
    cmd->footer(
        "Exit status: 0 written, 1 the file could not be written, 2 bad input (FILE:LINE: "
        "problem).");
    cmd->add_option("--walkforward", o->walkForward, "the output of nnwb-cli walkforward --json")
        ->type_name("FILE")
        ->required();
    cmd->add_option("--html", o->html, "the HTML file to write")->type_name("OUT")->required();
    runners[cmd] = [o] { return runReport(*o); };
}

}  // namespace nnwb::cli
