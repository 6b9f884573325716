// `nnwb-cli sweep export-bundle SPEC DIR`, `sweep submit SPEC DIR --slurm [--per-generation
// K]`, `sweep task BUNDLE I`, `sweep import BUNDLE`, `sweep status BUNDLE|ID`: sweeps on a Slurm
// cluster as job arrays (docs/slurm.md). The bundle, task, import, the search in generations
// and Slurm's commands are app/sweep/SweepBundle.h, BundleTask.h, BundleImport.h,
// BundleGenerations.h and SlurmJobs.h; this file parses flags and prints. CLI main thread;
// Qt-free.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "app/cli/Commands.h"
#include "app/cli/RecordingFlags.h"
#include "app/runs/RunStore.h"
#include "app/runs/RunsDbPath.h"
#include "app/sweep/BundleGenerations.h"
#include "app/sweep/BundleImport.h"
#include "app/sweep/BundleTask.h"
#include "app/sweep/SlurmJobs.h"
#include "app/sweep/SweepBundle.h"
#include "app/sweep/SweepStore.h"
#include "app/trial/ChildProcess.h"
#include "model/AtomicFile.h"

namespace nnwb::cli {

namespace {

namespace fs = std::filesystem;

struct SlurmOptions {
    std::string sub, spec, dir, db, target;
    int index = 0, untilEpoch = 0;
    bool slurm = false;
    BundleResources res;
    GenerationOptions generations;
};

// The spec (UsageError naming FILE:LINE when it is bad) and the resources with the nnwb-cli
// the nodes run (this one unless --cli).
std::pair<sweep::SweepSpec, BundleResources> specAndResources(const SlurmOptions& o) {
    std::pair<sweep::SweepSpec, BundleResources> out;
    try {
        out.first = sweep::SweepSpec::load(o.spec);
    } catch (const sweep::SpecError& e) {
        throw UsageError(e.what());
    }
    out.second = o.res;
    if (out.second.cli.empty()) out.second.cli = thisExecutable();
    return out;
}

Bundle exportBundle(const SlurmOptions& o) {
    const auto [spec, res] = specAndResources(o);
    try {
        const Bundle b = writeBundle(spec, o.dir, res);
        std::printf("bundle %s: sweep \"%s\", %zu trials, %zu data files, in %s\n", b.id.c_str(),
                    b.name.c_str(), b.trials.size(), b.data.size(), b.dir.c_str());
        return b;
    } catch (const BundleError& e) {
        throw UsageError(e.what());
    }
}

// Task index -> its Slurm state (PENDING, RUNNING, ...), from squeue --json for the bundle's
// jobs (jobs.json; a later job's state wins: a rung after the one before); empty without jobs
// or without squeue.
std::map<int, std::string> slurmStates(const std::string& dir) {
    std::map<int, std::string> out;
    nlohmann::json jobs;
    std::string queue;
    try {
        jobs = nlohmann::json::parse(readFile((fs::path(dir) / "jobs.json").string()));
        queue = runCommand("squeue --json --me", false);
        for (const auto& job : jobs)
            for (const auto& [task, state] : jobTaskStates(queue, job.value("jobId", 0)))
                out[task] = state;
    } catch (const std::exception&) {
    }
    return out;
}

int status(const SlurmOptions& o) {
    std::string dir = o.target;
    if (!fs::is_directory(dir)) {  // a sweep id of the run store, imported from a bundle
        const std::string path = runsDbPath(o.db);
        if (!fs::exists(path)) throw UsageError("no bundle folder and no runs database at " + path);
        RunStore store(path, false);
        SweepStore sweeps(store);
        int64_t id = 0;
        try {
            id = std::stoll(dir);
        } catch (const std::exception&) {
            throw UsageError(dir + ": neither a bundle folder nor a sweep id");
        }
        const auto row = sweeps.sweep(id);
        if (!row) throw UsageError("no sweep " + dir + " in " + path);
        dir = fs::path(row->specFile).parent_path().string();
        if (!fs::exists(fs::path(dir) / "bundle.json"))
            throw UsageError("sweep " + std::to_string(id) +
                             " was not run from a bundle (sweep show has its trials)");
    }
    Bundle b;
    try {
        b = readBundle(dir);
    } catch (const BundleError& e) {
        throw UsageError(e.what());
    }
    const auto slurm = slurmStates(b.dir);
    std::map<std::string, int> counts;
    std::printf("bundle %s: sweep \"%s\", %zu tasks\n", b.id.c_str(), b.name.c_str(),
                b.trials.size());
    std::printf("%5s  %-10s  %-12s  %6s  %s\n", "task", "slurm", "result", "epochs",
                "device / error");
    for (const BundleTrial& t : b.trials) {
        const fs::path file = fs::path(b.dir) / "results" / std::to_string(t.index) / "result.json";
        std::string result = "-", detail;
        int epochs = 0;
        try {
            const auto r = nlohmann::json::parse(readFile(file.string()));
            result = r.value("status", "?");
            if (result == "paused" && t.prunedAt > 0) result = "pruned";
            epochs = r.value("epochsDone", 0);
            detail = r.value("device", "");
            if (r.contains("error")) detail += "  " + r.value("error", "");
        } catch (const std::exception&) {
            if (fs::exists(file)) result = "unreadable";
        }
        const auto s = slurm.find(t.index);
        const std::string queue = s == slurm.end() ? "-" : s->second;
        // Queued or running by Slurm, else what its result says.
        const bool live = queue == "PENDING" || queue == "RUNNING" || queue == "REQUEUED" ||
                          queue == "CONFIGURING" || queue == "COMPLETING";
        counts[live || result == "-" ? (queue == "-" ? "no result" : queue) : result] += 1;
        std::printf("%5d  %-10s  %-12s  %6d  %s\n", t.index, queue.c_str(), result.c_str(), epochs,
                    detail.c_str());
    }
    std::string sum;
    for (const auto& [k, n] : counts)
        sum += (sum.empty() ? "" : ", ") + std::to_string(n) + " " + k;
    std::printf("%s\n", sum.c_str());
    return 0;
}

// sweep submit --slurm --per-generation K: the coordinator of a search in generations.
int runInGenerations(const SlurmOptions& o) {
    if (o.generations.perGeneration < 1) throw UsageError("--per-generation: must be at least 1");
    const auto [spec, res] = specAndResources(o);
    RunStore store(runsDbPath(o.db));
    try {
        runGenerations(store, spec, o.dir, res, o.generations, stdout);
    } catch (const BundleError& e) {
        throw UsageError(e.what());
    }
    return 0;
}

int runSlurm(SlurmOptions& o) {
    if (o.sub == "export-bundle") {
        const Bundle b = exportBundle(o);
        std::printf("submit it with: cd %s && sbatch submit.sbatch (docs/slurm.md)\n",
                    b.dir.c_str());
        return 0;
    }
    if (o.sub == "submit" && o.generations.perGeneration > 0) return runInGenerations(o);
    if (o.sub == "submit") {
        if (!o.slurm) throw UsageError("submit: --slurm is the only way to submit for now");
        const Bundle b = exportBundle(o);
        const int jobId = submitArray(b.dir,
                                      "0-" + std::to_string(b.trials.size() - 1) + "%" +
                                          std::to_string(b.resources.concurrent),
                                      "nnwb-" + b.id.substr(0, 8), {});
        writeFileAtomic(
            (fs::path(b.dir) / "jobs.json").string(),
            nlohmann::json::array({{{"jobId", jobId}, {"submitted", utcNowText()}}}).dump() + "\n");
        std::printf("submitted job array %d (%zu tasks, at most %d at a time)\n", jobId,
                    b.trials.size(), b.resources.concurrent);
        return 0;
    }
    if (o.sub == "task") {
        try {
            return runBundleTask(o.dir, o.index, thisExecutable(), stdout, o.untilEpoch);
        } catch (const BundleError& e) {
            throw UsageError(e.what());
        }
    }
    if (o.sub == "status") return status(o);
    // import
    RunStore store(runsDbPath(o.db));
    BundleImportReport r;
    try {
        r = importBundle(store, o.dir);
    } catch (const BundleError& e) {
        throw UsageError(e.what());
    }
    for (const std::string& why : r.refused) std::printf("refused: %s\n", why.c_str());
    if (r.sweepId == 0)
        std::printf("nothing imported: %d tasks without a result yet\n", r.waiting);
    else
        std::printf(
            "sweep %lld%s: %d trials imported, %d unchanged, %d without a result yet, %zu "
            "refused\n",
            (long long)r.sweepId, r.created ? " (new)" : "", r.imported, r.unchanged, r.waiting,
            r.refused.size());
    return r.refused.empty() ? 0 : 2;
}

}  // namespace

void addSweepSlurmCommands(CLI::App& sweepCmd, Runners& runners) {
    auto o = std::make_shared<SlurmOptions>();
    auto add = [&](const char* name, const char* what) {
        CLI::App* sub = sweepCmd.add_subcommand(name, what);
        sub->footer(sweepCmd.get_footer());
        runners[sub] = [o, name] {
            o->sub = name;
            return runSlurm(*o);
        };
        return sub;
    };
    auto resources = [&](CLI::App* sub) {
        sub->add_option("SPEC", o->spec, "the sweep spec (JSON)")->required();
        sub->add_option("DIR", o->dir, "the bundle folder to make (new or empty)")->required();
        sub->add_option("--concurrent", o->res.concurrent, "K: tasks at a time (--array=...%K)")
            ->capture_default_str();
        sub->add_option("--cpus-per-task", o->res.cpusPerTask, "cores per task")
            ->capture_default_str();
        sub->add_flag("--gpu", o->res.gpu, "one GPU per task (--gres=gpu:1)");
        sub->add_option("--time", o->res.time, "time limit per task")->capture_default_str();
        sub->add_option("--mem", o->res.mem, "memory per task")->capture_default_str();
        sub->add_option("--partition", o->res.partition, "the Slurm partition");
        sub->add_option("--device", o->res.device,
                        "cpu, opencl:P (the GPU Slurm assigns on platform P) or opencl:P:D")
            ->capture_default_str();
        sub->add_option("--setup", o->res.setup,
                        "a shell line before the task (e.g. 'module load opencl'); repeatable");
        sub->add_option("--cli", o->res.cli,
                        "the nnwb-cli on the cluster's nodes (default: this one's path)");
        o->res.cli.clear();
    };
    resources(add("export-bundle",
                  "write a sweep bundle for a Slurm cluster: trials, data, submit.sbatch "
                  "(docs/slurm.md)"));
    CLI::App* submit = add("submit", "export a bundle and submit it with sbatch");
    resources(submit);
    submit->add_flag("--slurm", o->slurm, "submit to Slurm as a job array")->required();
    submit
        ->add_option("--per-generation", o->generations.perGeneration,
                     "run the search in generations of K configurations: ask, submit, wait, "
                     "import, ask again with the results (asha: rungs); run again to go on")
        ->check(CLI::PositiveNumber);
    submit
        ->add_option("--poll", o->generations.pollSeconds,
                     "seconds between squeue calls while an array runs (--per-generation)")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    addRunsDbFlag(*submit, o->db);
    CLI::App* task = add("task", "run one array task of a bundle (what submit.sbatch runs)");
    task->add_option("BUNDLE", o->dir, "the bundle folder")->required();
    task->add_option("I", o->index, "the task ($SLURM_ARRAY_TASK_ID)")->required();
    task->add_option("--until-epoch", o->untilEpoch,
                     "stop after this epoch, resumable (a rung of a search in generations)");
    CLI::App* import =
        add("import", "bring a bundle's finished trials into the run store (idempotent)");
    import->add_option("BUNDLE", o->dir, "the bundle folder")->required();
    addRunsDbFlag(*import, o->db);
    CLI::App* st = add("status", "each task of a bundle: Slurm's state and its result file");
    st->add_option("TARGET", o->target, "the bundle folder, or an imported sweep's id")->required();
    addRunsDbFlag(*st, o->db);
}

}  // namespace nnwb::cli
