// `nnwb-cli sweep run SPEC [--slots S]`, `sweep resume ID [--slots S]`, `sweep list`,
// `sweep show ID [--json] [--top N] [--cscv-blocks S]`, `sweep export ID [--csv OUT]
// [--returns FILE]`, `sweep stop ID`, each with
// `--runs-db PATH`: sweeps from the command line (docs/sweeps.md). run and resume coordinate
// the trials (app/sweep/Coordinator.h) and print a progress line per finished trial. CLI main
// thread; Qt-free.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "app/cli/Commands.h"
#include "app/cli/FlagChecks.h"
#include "app/cli/RecordingFlags.h"
#include "app/cli/TrialWorker.h"
#include "app/runs/RunStore.h"
#include "app/runs/RunsDbPath.h"
#include "app/sweep/Coordinator.h"
#include "app/sweep/SweepDeflatedSharpe.h"
#include "app/sweep/SweepOverfitting.h"
#include "app/sweep/SweepReadModel.h"
#include "app/sweep/SweepReport.h"
#include "app/trial/ChildProcess.h"
#include "model/AtomicFile.h"
#include "model/overfitting/Cscv.h"

namespace nnwb::cli {

namespace {

namespace fs = std::filesystem;

struct SweepOptions {
    std::string sub, db, spec, slots, csv, returns;
    int64_t id = 0;
    bool json = false, quiet = false;
    int top = 10;
    int cscvBlocks = kCscvDefaultBlocks;
    int population = 0;            // 0: the spec's
    bool processPerTrial = false;  // no kept workers (docs/sweeps.md "Kept workers")
};

std::vector<Slot> slotsOf(const SweepOptions& o) {
    try {
        return o.slots.empty() ? defaultSlots(usableCpus()) : parseSlots(o.slots, usableCpus());
    } catch (const std::invalid_argument& e) {
        throw UsageError(std::string("--slots: ") + e.what());
    }
}

// The spec of a stored sweep, relative paths taken from where its file was.
sweep::SweepSpec specOf(const SweepRow& s) {
    try {
        return storedSpec(s);
    } catch (const sweep::SpecError& e) {
        throw UsageError(std::string("its spec no longer loads: ") + e.what());
    }
}

// --population K on a walk-forward sweep: refused before anything is stored (as the spec key).
void checkPopulationFlag(const sweep::SweepSpec& spec, const SweepOptions& o) {
    const nlohmann::json& v = spec.baseExperiment.value("validation", nlohmann::json::object());
    if (o.population > 1 && v.is_object() && v.value("mode", "") == "walkforward")
        throw UsageError(
            "--population: walk-forward trials are not packed (each trains its "
            "folds in turn)");
}

int coordinate(const sweep::SweepSpec& spec, int64_t id, RunStore& store, const SweepOptions& o) {
    checkPopulationFlag(spec, o);
    CoordinatorOptions co;
    co.cliPath = thisExecutable();
    co.slots = slotsOf(o);
    co.progress = o.quiet ? nullptr : stdout;
    co.population = o.population;
    co.keepWorkers = !o.processPerTrial;
    if (!o.quiet) {
        std::string labels;
        for (const Slot& s : co.slots) labels += (labels.empty() ? "" : ", ") + s.label;
        std::printf("sweep %lld \"%s\": %s, up to %d trials on %s (store %s)\n", (long long)id,
                    spec.name.c_str(), spec.method.c_str(), spec.runCap, labels.c_str(),
                    store.path().c_str());
        std::fflush(stdout);
    }
    Coordinator c(spec, id, store, co);
    const std::string status = c.run();
    if (!o.quiet) {
        const SlotTime& t = c.slotTime();
        std::printf(
            "sweep %lld %s: %d trials ended in %.1f s on %d slots (%.0f trials/hour); slot time "
            "idle %.1f %%, in trial start-up %.1f %%; store %lld commits (%.1f a trial), %.1f s\n",
            (long long)id, status.c_str(), t.trialsEnded, t.wallSeconds, t.slots, t.trialsPerHour(),
            100.0 * t.idleShare(),
            t.slots * t.wallSeconds > 0 ? 100.0 * t.startupSeconds / (t.slots * t.wallSeconds)
                                        : 0.0,
            (long long)t.storeCommits,
            t.trialsEnded > 0 ? double(t.storeCommits) / t.trialsEnded : 0.0, t.storeSeconds);
        const std::string parts = t.startup.text();  // where the start-up went
        if (!parts.empty()) std::printf("sweep %lld %s\n", (long long)id, parts.c_str());
    }
    return status == sweepstatus::kCompleted ? 0 : 4;
}

// `sweep list`: one line per sweep, newest first.
int listSweeps(SweepStore& sweeps, const std::string& path) {
    const auto all = sweeps.list();
    if (all.empty()) std::printf("no sweeps in %s\n", path.c_str());
    for (const SweepRow& s : all) {
        const auto trials = sweeps.trials(s.id);
        int done = 0;
        for (const TrialRow& t : trials)
            done += t.state != sweep::TrialState::Queued && t.state != sweep::TrialState::Running;
        std::printf("%4lld  %-24s  %-11s  %s  %d/%zu trials done\n", (long long)s.id,
                    s.name.c_str(), s.status.c_str(), s.createdAt.c_str(), done, trials.size());
    }
    return 0;
}

// `sweep show`: the read model as JSON, or as text.
int showSweep(RunStore& store, const SweepRow& row, const sweep::SweepSpec& spec,
              const std::vector<TrialRow>& trials, const SweepOptions& o) {
    const nlohmann::json report = sweepShowReport(store, row, spec, trials, o.cscvBlocks);
    const nlohmann::json dsr = report.value("deflatedSharpe", nlohmann::json());
    const nlohmann::json pbo = report.value("overfitting", nlohmann::json());
    if (o.json)
        std::printf("%s\n", report.dump(2).c_str());
    else
        std::fputs((sweepReportText(report, size_t(o.top)) +
                    (dsr.is_null() ? "" : "\n" + sweepDeflatedSharpeText(dsr)) +
                    (pbo.is_null() ? "" : "\n" + sweepOverfittingText(pbo)))
                       .c_str(),
                   stdout);
    return 0;
}

int runSweep(SweepOptions& o) {
    const std::string path = runsDbPath(o.db);
    if (o.sub == "run") {
        sweep::SweepSpec spec;
        try {
            spec = sweep::SweepSpec::load(o.spec);
        } catch (const sweep::SpecError& e) {
            throw UsageError(e.what());
        }
        slotsOf(o);  // bad --slots before anything is stored
        checkPopulationFlag(spec, o);
        RunStore store(path);
        SweepStore sweeps(store);
        const int64_t id =
            sweeps.create(spec.name, spec.source, fs::absolute(o.spec).lexically_normal().string());
        return coordinate(spec, id, store, o);
    }
    if (!fs::exists(path)) throw UsageError("no runs database at " + path);
    RunStore store(path, false);
    SweepStore sweeps(store);
    if (o.sub == "list") return listSweeps(sweeps, path);
    const auto row = sweeps.sweep(o.id);
    if (!row) throw UsageError("no sweep " + std::to_string(o.id) + " in " + path);
    if (o.sub == "stop") {
        const std::string was = sweeps.requestStop(o.id);
        if (was == sweepstatus::kRunning)
            std::printf(
                "sweep %lld: stop requested; its coordinator ends the trials at their next epoch\n",
                (long long)o.id);
        else
            std::printf("sweep %lld is %s: nothing to stop\n", (long long)o.id, was.c_str());
        return 0;
    }
    const sweep::SweepSpec spec = specOf(*row);
    if (o.sub == "resume") {
        try {
            const std::string had = sweeps.claim(o.id);
            if (!o.quiet)
                std::printf("sweep %lld was %s: resuming\n", (long long)o.id, had.c_str());
        } catch (const RunStoreError& e) {
            throw UsageError(e.what());
        }
        return coordinate(spec, o.id, store, o);
    }
    const auto trials = sweeps.trials(o.id);
    if (o.sub == "show") return showSweep(store, *row, spec, trials, o);
    if (o.csv.empty() && o.returns.empty())
        throw UsageError("sweep export: give --csv OUT, --returns FILE or both");
    if (!o.returns.empty()) {
        const SweepReturnsMatrix m = sweepStoredReturns(store, trials);
        if (m.trials.empty())
            throw UsageError("sweep " + std::to_string(o.id) +
                             ": no complete or pruned trial has stored per-bar returns (no "
                             "trading figures, or recorded before nnwb kept them)");
        writeFileAtomic(o.returns, sweepReturnsCsv(m));
        std::printf("wrote %s (%zu bars x %zu trials)\n", o.returns.c_str(), m.time.size(),
                    m.trials.size());
    }
    if (o.csv.empty()) return 0;
    writeFileAtomic(o.csv, sweepCsv(spec, trials));
    std::printf("wrote %s (%zu trials)\n", o.csv.c_str(), trials.size());
    return 0;
}

// --slots, --population, --process-per-trial and --quiet of sweep run and sweep resume.
void addSweepSlotFlags(CLI::App* sub, SweepOptions& o) {
    sub->add_option("--slots", o.slots,
                    "where trials run: cpu=N (N slots sharing the cores), opencl:P:D=K (K "
                    "trials at a time on that device), opencl:P:*=K (K on every device of "
                    "platform P), comma-separated (default: one CPU slot per two cores and, "
                    "on a GPU host, 8 on every GPU of its first platform with one)")
        ->type_name("S");
    sub->add_option("--population", o.population,
                    "pack up to K trials that may share a population (same architecture, "
                    "batch size, data; docs/sweeps.md#packed-trials) into one process per "
                    "slot (default: the spec's population, 1)")
        ->type_name("K")
        ->check(integerIn(1, sweep::SweepSpec::kMaxPopulation));
    sub->add_flag("--process-per-trial", o.processPerTrial,
                  "start a process for every trial instead of keeping one worker process per "
                  "slot that runs trial after trial (docs/sweeps.md#kept-workers)");
    sub->add_flag("--quiet", o.quiet, "no progress lines");
}

// sweep show's --json, --top and --cscv-blocks.
void addSweepShowFlags(CLI::App* show, SweepOptions& o) {
    show->add_flag("--json", o.json, "one JSON object (every trial too) instead of the text");
    show->add_option("--top", o.top, "leaderboard rows")
        ->check(CLI::Range(1, 100000))
        ->capture_default_str();
    show->add_option("--cscv-blocks", o.cscvBlocks,
                     "blocks S the trials' returns are cut into for the probability of backtest "
                     "overfitting (even; docs/overfitting.md)")
        ->type_name("S")
        ->check(CLI::Validator(
            [](std::string& v) -> std::string {
                int s = 0;
                try {
                    s = std::stoi(v);
                } catch (const std::exception&) {
                    return "not a number: " + v;
                }
                return s >= 2 && s <= kCscvMaxBlocks && s % 2 == 0
                           ? std::string()
                           : "must be even, 2 to " + std::to_string(kCscvMaxBlocks);
            },
            "EVEN", "even"))
        ->capture_default_str();
}

}  // namespace

void addSweepCommand(CLI::App& root, Runners& runners) {
    auto o = std::make_shared<SweepOptions>();
    CLI::App* cmd = root.add_subcommand(
        "sweep", "search settings and architectures: trials on every local slot (docs/sweeps.md)");
    cmd->require_subcommand(1);
    cmd->footer(
        "Exit status: 0 done, 1 the store or a process failed, 2 bad input, 4 the sweep "
        "was stopped (sweep resume goes on).");
    auto add = [&](const char* name, const char* what) {
        CLI::App* sub = cmd->add_subcommand(name, what);
        sub->footer(cmd->get_footer());
        runners[sub] = [o, name] {
            o->sub = name;
            return runSweep(*o);
        };
        addRunsDbFlag(*sub, o->db);
        return sub;
    };
    auto id = [&](CLI::App* sub) {
        sub->add_option("ID", o->id, "the sweep")
            ->check(CLI::Range(int64_t(1), INT64_MAX))
            ->required();
    };
    CLI::App* run = add("run", "start a sweep from a spec file and run it to the end");
    run->add_option("SPEC", o->spec, "the sweep spec (JSON)")->required();
    addSweepSlotFlags(run, *o);
    CLI::App* resume = add("resume", "go on with a sweep that was stopped or interrupted");
    id(resume);
    addSweepSlotFlags(resume, *o);
    add("list", "the sweeps of the run store, newest first");
    CLI::App* show = add("show", "leaderboard, best trial, Pareto front, parameter importance");
    id(show);
    addSweepShowFlags(show, *o);
    CLI::App* csv = add("export",
                        "its trials as CSV (one row per trial, one column per parameter), the "
                        "trials' per-bar returns as a bars x trials CSV, or both");
    id(csv);
    csv->add_option("--csv", o->csv, "the trials' CSV file to write")->type_name("OUT");
    csv->add_option("--returns", o->returns,
                    "the returns CSV to write: a header of trial numbers, one row per bar "
                    "(docs/overfitting.md)")
        ->type_name("FILE");
    CLI::App* stop = add(
        "stop", "ask the sweep's coordinator to stop (its running trials go back to the queue)");
    id(stop);
    addSweepSlurmCommands(*cmd, runners);
    // A slot's kept worker, started by the coordinator (not listed: docs/sweeps.md).
    CLI::App* worker = cmd->add_subcommand("worker", "a sweep slot's kept worker process");
    worker->group("");
    runners[worker] = [] { return runTrialWorker(); };
}

}  // namespace nnwb::cli
