// nnwb-cli: the headless workbench (devices, data, train, ...). Qt-free so it builds on a GPU
// server without Qt. The command line is parsed by CLI11 from the commands' declarations
// (Commands.h); its help is generated from them (HelpFormatter.h).
#include <cstdio>
#include <exception>
#include <memory>
#include <string>

#include "app/cli/CliDocs.h"
#include "app/cli/Commands.h"
#include "app/cli/HelpFormatter.h"
#include "nnwb/Version.h"

namespace {

using nnwb::cli::HelpFormatter;

// The command given ("runs list"): its app and the apps above it, root first.
struct Given {
    std::vector<const CLI::App*> chain;
    const CLI::App* app;
    std::string path;
};

Given given(const CLI::App& root) {
    Given g{{&root}, &root, {}};
    for (std::vector<CLI::App*> subs = root.get_subcommands(); !subs.empty();
         subs = subs.front()->get_subcommands()) {
        g.app = subs.front();
        g.chain.push_back(g.app);
        g.path += (g.path.empty() ? "" : " ") + g.app->get_name();
    }
    return g;
}

std::vector<std::string> commandNames(const CLI::App& app) {
    std::vector<std::string> names;
    for (const CLI::App* sub :
         app.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); }))
        names.push_back(sub->get_name());
    return names;
}

// A CLI11 parse error in nnwb-cli's words: a missing flag names its value ("--experiment FILE
// is required"), a missing value says so ("--sort needs a value"), a missing command lists them.
std::string message(const CLI::App& app, const CLI::ParseError& e) {
    const std::string what = e.what();
    const std::string required = " is required";
    if (dynamic_cast<const CLI::RequiredError*>(&e) && what.size() > required.size() &&
        what.compare(what.size() - required.size(), required.size(), required) == 0) {
        const std::string name = what.substr(0, what.size() - required.size());
        for (const CLI::Option* opt :
             app.get_options([&](const CLI::Option* o) { return o->check_name(name); }))
            if (opt->nonpositional() && opt->get_type_size() != 0) {
                const std::string type = opt->get_type_name();
                return name + " " + type.substr(0, type.find(':')) + required;
            }
    }
    if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) &&
        what.find(" missing") != std::string::npos)
        return what.substr(0, what.find(':')) + " needs a value";
    if (dynamic_cast<const CLI::RequiredError*>(&e) && !commandNames(app).empty()) {
        std::string names;
        for (const std::string& n : commandNames(app)) names += (names.empty() ? "" : ", ") + n;
        return "needs a command: " + names;
    }
    return what;
}

// What is left over after parsing: an unknown option or command, or an argument too many.
std::string leftOver(const Given& g) {
    for (const CLI::App* app : g.chain) {
        const std::vector<std::string> rest = app->remaining();
        if (rest.empty()) continue;
        const std::string& first = rest.front();
        if (first.size() > 1 && first[0] == '-') return "unknown option '" + first + "'";
        if (!commandNames(*app).empty()) return "unknown command '" + first + "'";
        return "unexpected argument '" + first + "'";
    }
    return {};
}

// "nnwb-cli CMD: message" and the command's usage on stderr; exit status 2. Without a command,
// the whole help.
int usageError(const CLI::App& root, const HelpFormatter& help, const Given& g,
               const std::string& what) {
    if (g.path.empty()) {
        if (!what.empty()) std::fprintf(stderr, "nnwb-cli: %s\n", what.c_str());
        std::fputs(root.help().c_str(), stderr);
        return 2;
    }
    std::fprintf(stderr, "nnwb-cli %s: %s\n", g.path.c_str(), what.c_str());
    std::fputs(help.make_usage(g.app, "nnwb-cli " + g.path).c_str(), stderr);
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc == 2 && std::string(argv[1]) == "--version") {  // the version CMake gives
        std::printf("nnwb-cli %s\n", NNWB_VERSION);
        return 0;
    }
    CLI::App root(
        "The headless workbench: devices, price files, training, comparisons, prediction, ONNX "
        "export, the run history and sweeps. `nnwb-cli COMMAND --help` lists a command's options.",
        "nnwb-cli");
    const auto help = std::make_shared<HelpFormatter>();
    root.formatter(help);  // inherited by every command
    root.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    root.require_subcommand(1);
    root.allow_extras();  // left-over arguments get nnwb-cli's messages (leftOver)
    root.footer(
        "Exit status: 0 done, 1 a run failed (e.g. a non-finite loss), 2 bad input or arguments "
        "(the reason on stderr).");
    nnwb::cli::Runners runners;
    nnwb::cli::addDevicesCommand(root, runners);
    nnwb::cli::addDataCommand(root, runners);
    nnwb::cli::addTrainCommand(root, runners);
    nnwb::cli::addWalkForwardCommand(root, runners);
    nnwb::cli::addBenchCommand(root, runners);
    nnwb::cli::addCompareCommand(root, runners);
    nnwb::cli::addPredictCommand(root, runners);
    nnwb::cli::addExportCommand(root, runners);
    nnwb::cli::addRunsCommand(root, runners);
    nnwb::cli::addSweepCommand(root, runners);
    nnwb::cli::addReportCommand(root, runners);
    root.add_subcommand("help", "this help")->group("");  // `nnwb-cli help`, not listed
    // What the build installs (CliDocs.h): the manual page and the bash completion, not listed.
    root.add_subcommand("help-man", "nnwb-cli(1) as roff")->group("");
    root.add_subcommand("help-completion", "the bash completion script")->group("");

    try {
        root.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
        std::fputs(root.help().c_str(), stdout);
        return 0;
    } catch (const CLI::ParseError& e) {
        const Given g = given(root);
        for (const CLI::App* app : g.chain)  // --help anywhere on the line wins, as before
            if (app->get_help_ptr() && app->get_help_ptr()->count() > 0) {
                std::fputs(root.help().c_str(), stdout);
                return 0;
            }
        const std::string rest = leftOver(g);  // an unknown option first: it may be the cause
        return usageError(root, *help, g, rest.empty() ? message(*g.app, e) : rest);
    }
    const Given g = given(root);
    if (g.path == "help") {
        std::fputs(help->make_help(&root, "nnwb-cli", CLI::AppFormatMode::Normal).c_str(), stdout);
        return 0;
    }
    if (g.path == "help-man" || g.path == "help-completion") {
        const std::string text = g.path == "help-man"
                                     ? nnwb::cli::manPage(root, *help, NNWB_VERSION)
                                     : nnwb::cli::bashCompletion(root);
        std::fputs(text.c_str(), stdout);
        return 0;
    }
    const std::string rest = leftOver(g);
    if (!rest.empty()) return usageError(root, *help, g, rest);
    try {
        return runners.at(g.app)();
    } catch (const nnwb::cli::UsageError& e) {
        std::fprintf(stderr, "nnwb-cli %s: %s\n", g.path.c_str(), e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "nnwb-cli %s: %s\n", g.path.c_str(), e.what());
        return 1;
    }
}
