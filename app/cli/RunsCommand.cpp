// `nnwb-cli runs list [--json] [--filter F] [--sort K]`, `runs show ID [--json]`,
// `runs export ID --csv OUT`, `runs rm ID [ID ...]`, each with `--runs-db PATH`: the run store
// from the command line. Reading never creates a database. CLI main thread; Qt-free.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "app/cli/Commands.h"
#include "app/cli/FlagChecks.h"
#include "app/cli/RecordingFlags.h"
#include "app/runs/RunQuery.h"
#include "app/runs/RunStore.h"
#include "app/runs/RunsDbPath.h"
#include "app/runs/StoredRunCsv.h"
#include "app/runs/StoredTrading.h"
#include "app/trial/EpochReportJson.h"
#include "model/FigureText.h"

namespace nnwb::cli {

namespace {

struct RunsOptions {
    std::string sub, db, filter, sort = "-date", csv;
    std::vector<int64_t> ids;  // rm
    int64_t id = 0;            // show, export
    bool json = false;
};

std::string fixed(const std::optional<double>& v, int decimals) {
    if (!v || !std::isfinite(*v)) return "–";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, *v);
    return buf;
}

// A figure that can run into thousands (points, trades, samples/s) with its whole part
// grouped, as the window shows it ("-17,796.0"); "–" where there is none.
std::string grouped(const std::optional<double>& v, int decimals) {
    if (!v || !std::isfinite(*v)) return "–";
    return groupedFixed(*v, decimals);
}

// Characters shown, not bytes ("–" is three bytes of UTF-8).
std::string pad(std::string s, size_t w, bool right = false) {
    size_t n = 0;
    for (unsigned char c : s) n += (c & 0xC0) != 0x80;
    if (n >= w) return s;
    return right ? std::string(w - n, ' ') + s : s.append(w - n, ' ');
}

std::string dataName(const StoredRun& r) {
    if (r.dataFile.empty()) return r.dataDescription.empty() ? "–" : r.dataDescription;
    return std::filesystem::path(r.dataFile).filename().string();
}

std::string startedShort(const std::string& iso) {  // 2026-11-23T10:40:12Z -> 2026-11-23 10:40
    if (iso.size() < 16) return iso;
    return iso.substr(0, 10) + " " + iso.substr(11, 5);
}

// Accuracy is the share of emitted signals on a fractal: shown with their count, n/a below
// the minimum ("n/a (3)"), "–" where not measured.
std::string accuracy(bool task, const EpochMetrics& m) {
    return task ? accuracyCell(m.accuracyPct, m.signalCount) : "–";
}

nlohmann::json nullable(const std::optional<double>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json textOrNull(const std::string& s) {
    return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s);
}

nlohmann::json summaryJson(const StoredRun& r) {
    return {{"id", r.id},
            {"name", r.name},
            {"tags", r.tags},
            {"note", r.note},
            {"source", r.source},
            {"comparison", textOrNull(r.comparison)},
            {"status", r.status},
            {"error", r.error},
            {"startedAt", r.startedAt},
            {"endedAt", textOrNull(r.endedAt)},
            {"experimentFile", r.experimentFile},
            {"data",
             {{"file", r.dataFile},
              {"size", r.dataSize},
              {"sha256", r.dataSha256},
              {"bars", r.dataBars},
              {"firstBar", r.dataFirstBar},
              {"lastBar", r.dataLastBar},
              {"description", r.dataDescription}}},
            {"device", {{"id", r.deviceId}, {"name", r.deviceName}}},
            {"seed", r.seed},
            {"appVersion", r.appVersion},
            {"parameters", r.parameters},
            {"trainSamples", r.trainSamples},
            {"validationSamples", r.validationSamples},
            {"epochsPlanned", r.epochsPlanned},
            {"epochs", r.epochsDone},
            {"bestEpoch", r.bestEpoch ? nlohmann::json(*r.bestEpoch) : nlohmann::json(nullptr)},
            {"monitor", r.monitor},
            {"bestValidationLoss", nullable(r.bestValLoss)},
            {"bestValidationAccuracy", nullable(r.bestValAccuracy)},
            {"bestValidationAccuracySignals", r.bestValAccuracySignals
                                                  ? nlohmann::json(*r.bestValAccuracySignals)
                                                  : nlohmann::json(nullptr)},
            {"bestValidationMissed", nullable(r.bestValMissed)},
            {"host", r.host},
            {"pid", r.pid},
            {"trading", r.trading},
            {"ensembleRun", r.ensembleRun > 0 ? nlohmann::json(r.ensembleRun) : nullptr},
            {"ensembleMembers", r.ensembleMembers}};
}

// A figure of the stored trading evaluation of the validation part (strategy, buyAndHold or
// random); none when the run has none.
std::optional<double> tradingFigure(const StoredRun& r, const char* key,
                                    const char* series = "strategy") {
    return storedTradingFigure(r.trading, key, series);
}

std::string profitFactorText(const StoredRun& r, const char* series = "strategy") {
    const auto pf = tradingFigure(r, "profitFactor", series);
    return pf && std::isinf(*pf) ? std::string("inf") : grouped(pf, 2);
}

// A figure that may not exist (no trades: win rate, Sharpe): "n/a" then, else with its unit.
std::string figureText(const std::optional<double>& v, int decimals, const char* unit) {
    return v ? fixed(v, decimals) + unit : std::string("n/a");
}

// "net 12.5 pts (0.11 %), profit factor 1.21, max drawdown 40 pts, 17 trades" for a series.
std::string tradingLine(const StoredRun& r, const char* series) {
    const auto trades = tradingFigure(r, "trades", series);
    if (!trades) return {};
    const bool mean = series == std::string("random");  // the draws' mean count
    const bool one = !mean && std::llround(*trades) == 1;
    return "net " + grouped(tradingFigure(r, "netPoints", series), 1) + " pts (" +
           grouped(tradingFigure(r, "netPct", series), 2) + " %), profit factor " +
           storedTradingText(tradingFigure(r, "profitFactor", series), 2) + ", max drawdown " +
           grouped(tradingFigure(r, "maxDrawdownPoints", series), 1) + " pts, win rate " +
           figureText(tradingFigure(r, "winRate", series), 1, " %") + ", Sharpe " +
           figureText(tradingFigure(r, "sharpeAnnual", series), 2, " a year") + ", " +
           grouped(trades, mean ? 1 : 0) + (one ? " trade" : " trades");
}

void printList(std::vector<StoredRun> runs, const RunsOptions& o) {
    const RunFilter filter(o.filter);
    sortRuns(runs, o.sort);
    std::vector<StoredRun> shown;
    for (StoredRun& r : runs)
        if (filter.matches(r)) shown.push_back(std::move(r));
    if (o.json) {
        nlohmann::json a = nlohmann::json::array();
        for (const StoredRun& r : shown) a.push_back(summaryJson(r));
        std::printf("%s\n", a.dump(2).c_str());
        return;
    }
    size_t nameW = 4, dataW = 4, devW = 6;
    for (const StoredRun& r : shown) {
        nameW = std::max(nameW, r.name.size());
        dataW = std::max(dataW, dataName(r).size());
        devW = std::max(devW, r.deviceId.size());
    }
    std::printf("%s  %s  %s  %s  %s  %s  %s  %s  %s  %s  %s  %s  %s  %s  %s  tags\n",
                pad("id", 4, true).c_str(), pad("started (UTC)", 16).c_str(),
                pad("name", nameW).c_str(), pad("status", 13).c_str(), pad("device", devW).c_str(),
                pad("data", dataW).c_str(), pad("epochs", 7, true).c_str(),
                pad("params", 10, true).c_str(), pad("val loss", 9, true).c_str(),
                pad("val acc % (signals)", 19, true).c_str(), pad("val missed %", 12, true).c_str(),
                pad("net pts", 9, true).c_str(), pad("PF", 5, true).c_str(),
                pad("max DD", 8, true).c_str(), pad("trades", 6, true).c_str());
    for (const StoredRun& r : shown) {
        const std::string epochs =
            std::to_string(r.epochsDone) + "/" + std::to_string(r.epochsPlanned);
        std::printf("%s  %s  %s  %s  %s  %s  %s  %s  %s  %s  %s  %s  %s  %s  %s  %s\n",
                    pad(std::to_string(r.id), 4, true).c_str(),
                    pad(startedShort(r.startedAt), 16).c_str(), pad(r.name, nameW).c_str(),
                    pad(runStatusLabel(r.status), 13).c_str(), pad(r.deviceId, devW).c_str(),
                    pad(dataName(r), dataW).c_str(), pad(epochs, 7, true).c_str(),
                    pad(groupedCount(r.parameters), 10, true).c_str(),
                    pad(fixed(r.bestValLoss, 5), 9, true).c_str(),
                    pad(bestValAccuracyCell(r), 19, true).c_str(),
                    pad(fixed(r.bestValMissed, 2), 12, true).c_str(),
                    pad(grouped(tradingFigure(r, "netPoints"), 1), 9, true).c_str(),
                    pad(profitFactorText(r), 5, true).c_str(),
                    pad(grouped(tradingFigure(r, "maxDrawdownPoints"), 1), 8, true).c_str(),
                    pad(grouped(tradingFigure(r, "trades"), 0), 6, true).c_str(), r.tags.c_str());
    }
    std::printf("%zu of %zu runs\n", shown.size(), runs.size());
}

std::string lr(const std::optional<double>& v) {
    if (!v) return "–";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", *v);
    return buf;
}

// An ensemble run's member runs (docs/ensembles.md): one line each, or their summaries.
void printMembers(const std::vector<StoredRun>& members, bool json, nlohmann::json* out) {
    for (const StoredRun& m : members) {
        if (json) {
            out->push_back(summaryJson(m));
            continue;
        }
        char buf[64] = "";
        if (m.bestValLoss) std::snprintf(buf, sizeof buf, "  best val loss %.6f", *m.bestValLoss);
        std::printf("%-13s run %lld  %s  seed %llu  %d epochs%s\n", "  member", (long long)m.id,
                    m.name.c_str(), (unsigned long long)m.seed, m.epochsDone, buf);
    }
}

// `runs show --json`: the summary, the members, the experiment, the epochs and the bundles.
void printShowJson(const StoredRun& r, const std::vector<StoredRun>& members) {
    nlohmann::json j = summaryJson(r);
    j["members"] = nlohmann::json::array();
    printMembers(members, true, &j["members"]);
    j["experiment"] = r.experiment;
    nlohmann::json epochs = nlohmann::json::array();
    for (const StoredEpoch& e : r.epochs) {
        nlohmann::json ej = epochReportToJson(e.report, r.hasValidation());
        ej["learningRate"] = e.learningRate ? nlohmann::json(*e.learningRate) : nullptr;
        epochs.push_back(ej);
    }
    j["epochReports"] = epochs;
    nlohmann::json bundles = nlohmann::json::array();
    for (const StoredBundle& b : r.bundles)
        bundles.push_back({{"kind", b.kind},
                           {"path", b.path},
                           {"sha256", b.sha256},
                           {"size", b.size},
                           {"epoch", b.epoch}});
    j["bundles"] = bundles;
    std::printf("%s\n", j.dump(2).c_str());
}

// One "key          value" line of `runs show`; nothing for an empty value.
void showLine(const char* k, const std::string& v) {
    if (!v.empty()) std::printf("%-13s %s\n", k, v.c_str());
}

// `runs show`'s lines about the run: what, when, on what data and device, its models.
void printShowRun(const StoredRun& r) {
    const auto line = showLine;
    line("run", std::to_string(r.id) + "  " + r.name);
    line("status", runStatusLabel(r.status));
    line("error", r.error);
    line("tags", r.tags);
    line("note", r.note);
    line("started", r.startedAt);
    line("ended", r.endedAt);
    line("source", r.source + (r.comparison.empty() ? "" : "  (comparison " + r.comparison + ")"));
    line("experiment", r.experimentFile.empty() ? "(unsaved; stored in full)" : r.experimentFile);
    line("data", r.dataFile.empty() ? r.dataDescription : r.dataFile);
    if (!r.dataFile.empty()) {
        line("data size", groupedCount(r.dataSize) + " bytes, sha256 " + r.dataSha256);
        line("data bars",
             groupedCount(r.dataBars) + ", " + r.dataFirstBar + " to " + r.dataLastBar);
    }
    line("samples", groupedCount(r.trainSamples) + " training / " +
                        groupedCount(r.validationSamples) + " validation");
    line("device", r.deviceId + " (" + r.deviceName + ")");
    line("parameters", groupedCount(r.parameters));
    line("seed", std::to_string(r.seed));
    line("app version", r.appVersion);
    line("process", r.host + " pid " + std::to_string(r.pid));
    if (r.bestEpoch) line("best epoch", std::to_string(*r.bestEpoch) + " (" + r.monitor + ")");
    for (const StoredBundle& b : r.bundles)
        line((b.kind + " model").c_str(), b.path + "  epoch " + std::to_string(b.epoch) + ", " +
                                              groupedCount(static_cast<int64_t>(b.size)) +
                                              " bytes, sha256 " + b.sha256);
}

// The costs besides the spread that the stored evaluation charged, from its settings:
// ", commission 2 points a round trip, no slippage"; nothing when the run kept no settings.
// (Before the spread, whose text ends the line.)
std::string storedOtherCostsText(const nlohmann::json& trading) {
    const nlohmann::json s = trading.value("settings", nlohmann::json::object());
    if (!s.is_object()) return {};
    auto points = [](double v) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%g %s", v, v == 1 ? "point" : "points");
        return std::string(buf);
    };
    const nlohmann::json commission = s.value("commission", nlohmann::json());
    const nlohmann::json slippage = s.value("slippagePoints", nlohmann::json());
    std::string out;
    if (commission.is_number())
        out += commission.get<double>() > 0
                   ? ", commission " + points(commission.get<double>()) + " a round trip"
                   : ", no commission";
    if (slippage.is_number())
        out += slippage.get<double>() > 0
                   ? ", slippage " + points(slippage.get<double>()) + " a fill"
                   : ", no slippage";
    return out;
}

// `runs show`'s trading lines: the validation part's strategy, buy and hold and random figures.
void printShowTrading(const StoredRun& r) {
    const auto line = showLine;
    if (r.trading.is_object() && r.trading.contains("error")) {
        line("trading", "not evaluated: " + r.trading["error"].dump());
    } else if (r.trading.is_object()) {
        const nlohmann::json& range = r.trading.value("range", nlohmann::json::object());
        const nlohmann::json bars = range.value("bars", nlohmann::json());
        line("trading", "validation part, epoch " +
                            r.trading.value("epoch", nlohmann::json()).dump() + " weights, " +
                            (bars.is_number() ? grouped(bars.get<double>(), 0) : bars.dump()) +
                            " bars" + storedOtherCostsText(r.trading) + ", " +
                            storedSpreadText(r.trading) + " (docs/trading.md)");
        for (const auto& w : r.trading.value("warnings", nlohmann::json::array()))
            if (w.is_string()) line("  warning", w.get<std::string>());
        line("  strategy", tradingLine(r, "strategy"));
        line("  buy & hold", tradingLine(r, "buyAndHold"));
        line("  random", tradingLine(r, "random"));
    }
}

// `runs show`'s epoch table.
void printShowEpochs(const StoredRun& r) {
    const bool val = r.hasValidation();
    std::printf(
        "\nepoch   seconds  samples/s  learn rate      loss  val loss  acc %% (signals)  "
        "val acc %% (signals)  missed %%  val missed %%\n");
    for (const StoredEpoch& e : r.epochs) {
        const EpochReport& p = e.report;
        const bool task = p.taskMetrics;
        auto opt = [](bool have, double v) {
            return have ? std::optional<double>(v) : std::nullopt;
        };
        std::printf("%5d  %8.2f  %9s  %10s  %8s  %8s  %15s  %19s  %8s  %12s%s\n", p.epoch,
                    p.seconds, grouped(p.samplesPerSecond, 0).c_str(), lr(e.learningRate).c_str(),
                    fixed(p.train.loss, 6).c_str(), fixed(opt(val, p.validation.loss), 6).c_str(),
                    accuracy(task, p.train).c_str(),
                    val ? accuracy(task, p.validation).c_str() : "–",
                    fixed(opt(task, p.train.missedPct), 2).c_str(),
                    fixed(opt(val && task, p.validation.missedPct), 2).c_str(),
                    r.bestEpoch && *r.bestEpoch == p.epoch ? "  best" : "");
    }
}

void printShow(const StoredRun& r, bool json, const std::vector<StoredRun>& members = {}) {
    if (json) return printShowJson(r, members);
    printShowRun(r);
    if (!members.empty()) {
        showLine("ensemble", "of " + std::to_string(members.size()) +
                                 " members; its epochs: the mean of the members' outputs after "
                                 "that epoch (docs/ensembles.md)");
        printMembers(members, false, nullptr);
    }
    if (r.ensembleRun > 0) showLine("member of", "ensemble run " + std::to_string(r.ensembleRun));
    printShowTrading(r);
    printShowEpochs(r);
}

int runRuns(const RunsOptions& o) {
    const std::string path = runsDbPath(o.db);
    if (path.empty()) throw UsageError("no runs database location (set NNWB_RUNS_DB or HOME)");
    if (!std::filesystem::exists(path)) {
        if (o.sub == "list") {
            if (o.json)
                std::printf("[]\n");
            else
                std::printf("no runs recorded yet (no database at %s)\n", path.c_str());
            return 0;
        }
        throw UsageError("no runs database at " + path);
    }
    RunStore store(path, false);
    if (o.sub == "list") {
        try {
            printList(store.list(), o);
        } catch (const std::invalid_argument& e) {
            throw UsageError(e.what());
        }
        return 0;
    }
    if (o.sub == "rm") {
        for (int64_t id : o.ids)
            if (!store.get(id)) throw UsageError("no run " + std::to_string(id) + " in " + path);
        for (int64_t id : o.ids) {
            try {
                store.remove(id);
            } catch (const RunInUseError& e) {
                throw UsageError(e.what());
            }
            std::printf("removed run %lld and its files\n", static_cast<long long>(id));
        }
        return 0;
    }
    const auto run = store.get(o.id);
    if (!run) throw UsageError("no run " + std::to_string(o.id) + " in " + path);
    if (o.sub == "show") {
        printShow(*run, o.json,
                  run->ensembleMembers > 0 ? store.members(run->id) : std::vector<StoredRun>{});
        return 0;
    }
    writeStoredRunCsv(o.csv, *run);
    std::printf("wrote %s (%zu epochs)\n", o.csv.c_str(), run->epochs.size());
    return 0;
}

}  // namespace

void addRunsCommand(CLI::App& root, Runners& runners) {
    auto o = std::make_shared<RunsOptions>();
    CLI::App* runs = root.add_subcommand(
        "runs", "the recorded runs of the run store (every Train, comparison run and CLI run)");
    runs->require_subcommand(1);
    runs->footer("Exit status: 0 done, 1 the store failed, 2 bad input or no such store or run.");
    auto add = [&](const char* name, const char* what) {
        CLI::App* sub = runs->add_subcommand(name, what);
        sub->footer(runs->get_footer());
        runners[sub] = [o, name] {
            o->sub = name;
            return runRuns(*o);
        };
        return sub;
    };
    auto id = [&](CLI::App* sub) {
        sub->add_option("ID", o->id, "the run")->check(runId())->required();
    };
    CLI::App* list = add("list", "the recorded runs, newest first");
    list->add_flag("--json", o->json, "one JSON array instead of the table");
    list->add_option("--filter", o->filter,
                     "words or key:value (keys name tag status device data source note id "
                     "comparison)")
        ->type_name("F");
    list->add_option("--sort", o->sort,
                     "id name date status device data params epochs loss accuracy missed; -K "
                     "sorts descending")
        ->type_name("K")
        ->capture_default_str();
    CLI::App* show = add("show", "one run: settings, data, device, epochs, models");
    id(show);
    show->add_flag("--json", o->json, "one JSON object instead of the text");
    CLI::App* csv = add("export", "its per-epoch figures as CSV");
    id(csv);
    csv->add_option("--csv", o->csv, "the CSV file to write")->type_name("OUT")->required();
    CLI::App* rm = add("rm", "delete runs and their model files");
    rm->add_option("ID", o->ids, "the runs")->check(runId())->required()->take_all();
    for (CLI::App* sub : {list, show, csv, rm}) addRunsDbFlag(*sub, o->db);
}

}  // namespace nnwb::cli
