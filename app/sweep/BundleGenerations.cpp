#include "app/sweep/BundleGenerations.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "app/sweep/BundleImport.h"
#include "app/sweep/SlurmJobs.h"
#include "app/sweep/SweepHistory.h"
#include "app/sweep/SweepStore.h"
#include "app/trial/TrialStartupClock.h"
#include "model/AtomicFile.h"
#include "model/sweep/SuccessiveHalving.h"

namespace fs = std::filesystem;

namespace nnwb {

namespace {

using sweep::TrialState;

// One array of a generation: a rung (or the whole generation without asha).
struct Step {
    int generation = 0, rung = 0, epochs = 0, jobId = 0;
    std::vector<int> tasks, promoted;
    std::string submitted;
    bool imported = false;

    nlohmann::json toJson() const {
        return {{"jobId", jobId},         {"generation", generation}, {"rung", rung},
                {"epochs", epochs},       {"tasks", tasks},           {"promoted", promoted},
                {"submitted", submitted}, {"imported", imported}};
    }
    static Step fromJson(const nlohmann::json& j) {
        Step s;
        s.jobId = j.value("jobId", 0);
        s.generation = j.at("generation").get<int>();
        s.rung = j.at("rung").get<int>();
        s.epochs = j.at("epochs").get<int>();
        s.tasks = j.at("tasks").get<std::vector<int>>();
        s.promoted = j.value("promoted", std::vector<int>{});
        s.submitted = j.value("submitted", "");
        s.imported = j.value("imported", false);
        return s;
    }
};

// "0-2,5,7-8%K" for sbatch --array.
std::string arraySpec(const std::vector<int>& tasks, int concurrent) {
    std::string s;
    for (size_t i = 0; i < tasks.size();) {
        size_t j = i;
        while (j + 1 < tasks.size() && tasks[j + 1] == tasks[j] + 1) ++j;
        s += (s.empty() ? "" : ",") + std::to_string(tasks[i]) +
             (j > i ? "-" + std::to_string(tasks[j]) : "");
        i = j + 1;
    }
    return s + "%" + std::to_string(concurrent);
}

// The spec as a bundle freezes it, to tell whether a folder holds a bundle of `spec`.
nlohmann::json frozenSpec(const sweep::SweepSpec& spec) {
    nlohmann::json j = spec.source;
    j["experiment"] = "experiment.json";
    if (!j.contains("epochs")) j["epochs"] = spec.epochs;
    return j;
}

// DIR/coordinator.lock, held (flock) while this coordinator runs the bundle: a second one,
// started while the first still runs (say, one orphaned by a killed shell), is refused rather
// than deciding the same rungs at the same time. The kernel lets go when the process ends.
class CoordinatorLock {
public:
    explicit CoordinatorLock(const std::string& dir) {
        const std::string file = dir + "/coordinator.lock";
        fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd_ < 0) throw BundleError(file + ": " + std::strerror(errno));
        if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
            std::string pid;
            try {
                pid = readFile(file);
            } catch (const std::exception&) {
            }
            ::close(fd_);
            throw BundleError(dir + ": another coordinator (pid " +
                              (pid.empty() ? std::string("?") : pid) +
                              ") runs this search now; wait for it, or stop it and run this again");
        }
        const std::string pid = std::to_string(::getpid());
        if (::ftruncate(fd_, 0) != 0 || ::write(fd_, pid.data(), pid.size()) < 0) {
            // The pid is only for the message above; the lock holds without it.
        }
    }
    ~CoordinatorLock() { ::close(fd_); }
    CoordinatorLock(const CoordinatorLock&) = delete;
    CoordinatorLock& operator=(const CoordinatorLock&) = delete;

private:
    int fd_ = -1;
};

class GenerationRun {
public:
    GenerationRun(RunStore& store, Bundle b, const GenerationOptions& o, std::FILE* out)
        : store_(store), b_(std::move(b)), spec_(loadBundleSpec(b_)), o_(o), out_(out) {
        stages_ =
            sweep::halvingStages(spec_.pruner == "asha" ? &spec_.asha : nullptr, spec_.epochs);
        std::error_code ec;
        if (fs::exists(stepsFile(), ec)) try {
                for (const auto& j : nlohmann::json::parse(readFile(stepsFile())))
                    steps_.push_back(Step::fromJson(j));
            } catch (const std::exception& e) {
                throw BundleError(stepsFile() + ": " + e.what());
            }
        sweepId_ = bundleSweepId(store_, b_.dir);
        startedAt_ = trial::monotonicSeconds();
    }

    int64_t run() {
        header();
        if (!steps_.empty() && !steps_.back().imported && steps_.back().jobId > 0)
            announce(steps_.back(), "(submitted by an earlier run) waited for");
        for (;;) {
            if (!steps_.empty() && !steps_.back().imported) {
                Step& s = steps_.back();
                if (s.jobId == 0) submit(s);
                wait(s);
                finish(s);
                continue;
            }
            Step next;
            if (!plan(next)) break;
            steps_.push_back(next);
            saveSteps();
            submit(steps_.back());
        }
        summary();
        return sweepId_;
    }

private:
    std::string stepsFile() const { return (fs::path(b_.dir) / "jobs.json").string(); }
    void saveSteps() {
        nlohmann::json j = nlohmann::json::array();
        for (const Step& s : steps_) j.push_back(s.toJson());
        writeFileAtomic(stepsFile(), j.dump(1) + "\n");
    }
    bool lastStage(const Step& s) const { return s.rung + 1 >= int(stages_.size()); }
    std::string jobName(const Step& s) const {
        return "nnwb-" + b_.id.substr(0, 8) + "-g" + std::to_string(s.generation) + "r" +
               std::to_string(s.rung);
    }
    std::string stepName(const Step& s) const {
        return "generation " + std::to_string(s.generation) + " rung " + std::to_string(s.rung);
    }

    void header() {
        std::string rungs;
        for (size_t i = 0; i < stages_.size(); ++i)
            rungs += (i ? ", " : "") + std::to_string(stages_[i]);
        std::fprintf(out_,
                     "bundle %s: sweep \"%s\", %s, %d trials in generations of %d "
                     "configurations; epochs per rung %s%s\n",
                     b_.id.c_str(), b_.name.c_str(), spec_.method.c_str(), spec_.runCap,
                     o_.perGeneration, rungs.c_str(),
                     spec_.pruner == "asha"
                         ? (" (asha, eta " + std::to_string(spec_.asha.eta) + ")").c_str()
                         : "");
        std::fflush(out_);
    }

    // Submits the step's array, or adopts the one a killed coordinator submitted.
    void submit(Step& s) {
        const std::string name = jobName(s);
        int job = liveJobNamed(runCommand("squeue --json --me", false), name);
        const bool adopted = job > 0;
        if (!adopted) {
            std::vector<std::string> args;
            if (!lastStage(s)) args = {"--until-epoch", std::to_string(s.epochs)};
            job = submitArray(b_.dir, arraySpec(s.tasks, b_.resources.concurrent), name, args);
        }
        s.jobId = job;
        s.submitted = utcNowText();
        saveSteps();
        announce(s, adopted ? "(already queued) waited for" : "submitted");
    }
    void announce(const Step& s, const char* how) {
        std::fprintf(out_, "%s: job %d %s, %zu trial%s to epoch %d\n", stepName(s).c_str(), s.jobId,
                     how, s.tasks.size(), s.tasks.size() == 1 ? "" : "s", s.epochs);
        std::fflush(out_);
    }

    // Until none of the job's tasks is queued or running any more.
    void wait(const Step& s) {
        int failures = 0;
        for (;;) {
            std::map<int, std::string> states;
            try {
                states = jobTaskStates(runCommand("squeue --json --me", false), s.jobId);
                failures = 0;
            } catch (const std::exception& e) {
                if (++failures >= 10) throw;
                std::fprintf(out_, "warning: %s (asking again)\n", e.what());
            }
            if (failures == 0 && std::none_of(states.begin(), states.end(), [](const auto& kv) {
                    return liveJobState(kv.second);
                }))
                return;
            std::this_thread::sleep_for(std::chrono::duration<double>(o_.pollSeconds));
        }
    }

    // A task of the step that left no result of this step (killed without SIGTERM, a node
    // failure, never started) gets a failed result.json, so the import records it, not loses it.
    void recordLost(const Step& s) {
        for (int task : s.tasks) {
            const BundleTrial& t = b_.trials[size_t(task)];
            const fs::path dir = fs::path(b_.dir) / "results" / std::to_string(task);
            nlohmann::json r = nlohmann::json::object();
            try {
                r = nlohmann::json::parse(readFile((dir / "result.json").string()));
            } catch (const std::exception&) {
            }
            const std::string status = r.value("status", "");
            const bool ours = r.value("bundle", "") == b_.id && r.value("trial", "") == t.id;
            if (ours && (status == "complete" || status == "failed" || status == "interrupted" ||
                         (status == "paused" && r.value("epochsDone", 0) >= s.epochs)))
                continue;
            if (!ours) r = {{"format", kBundleFormat}, {"index", task}, {"epochsDone", 0}};
            r["bundle"] = b_.id;
            r["trial"] = t.id;
            r["status"] = "failed";
            r["error"] = "job " + std::to_string(s.jobId) + " task " + std::to_string(task) +
                         " ended without a result (killed without SIGTERM, a node failure, or "
                         "it never started); see results/slurm-" +
                         std::to_string(s.jobId) + "_" + std::to_string(task) + ".out";
            r["endedAt"] = utcNowText();
            fs::create_directories(dir);
            writeFileAtomic((dir / "result.json").string(), r.dump(2) + "\n");
        }
    }

    void import() {
        const BundleImportReport rep = importBundle(store_, b_.dir);
        for (const std::string& why : rep.refused) std::fprintf(out_, "refused: %s\n", why.c_str());
        if (rep.sweepId > 0) sweepId_ = rep.sweepId;
        if (sweepId_ == 0)
            throw BundleError(b_.dir + ": nothing could be imported" +
                              (rep.refused.empty() ? "" : " (" + rep.refused.front() + ")"));
    }

    // The bundle's trials as stored (a trial not imported yet: queued), for the sampler.
    std::vector<TrialRow> rows() {
        std::map<int, TrialRow> stored;
        if (sweepId_ > 0)
            for (TrialRow& r : SweepStore(store_).trials(sweepId_)) stored[r.number] = r;
        std::vector<TrialRow> out;
        for (const BundleTrial& t : b_.trials) {
            auto it = stored.find(t.index);
            if (it != stored.end()) {
                out.push_back(it->second);
                continue;
            }
            TrialRow r;
            r.number = t.index;
            r.config = t.config;
            r.replicate = t.replicate;
            r.params = t.params;
            out.push_back(r);
        }
        return out;
    }

    // Imports the step's results; at a rung that is not the last, promotes the best 1/eta and
    // records the others as pruned (in bundle.json, then imported).
    void finish(Step& s) {
        recordLost(s);
        import();
        if (!lastStage(s)) {
            const std::vector<TrialRow> all = rows();
            std::vector<sweep::RungEntry> entries;
            for (int task : s.tasks) {
                const TrialRow& r = all[size_t(task)];
                sweep::RungEntry e;
                e.task = task;
                e.finished = r.state == TrialState::Complete;
                const auto v = r.epochs.find(s.epochs);
                if (r.state == TrialState::Running && v != r.epochs.end() &&
                    std::isfinite(v->second))
                    e.value = spec_.objective.oriented(v->second);
                entries.push_back(e);
            }
            s.promoted = sweep::promoteFromRung(entries, spec_.asha.eta);
            for (int task : s.tasks)
                if (all[size_t(task)].state == TrialState::Running &&
                    !std::count(s.promoted.begin(), s.promoted.end(), task))
                    b_.trials[size_t(task)].prunedAt = s.epochs;
            saveBundle(b_);
            import();
        }
        s.imported = true;
        saveSteps();
        report(s);
    }

    void report(const Step& s) {
        const std::vector<TrialRow> all = rows();
        int complete = 0, pruned = 0, failed = 0;
        for (int task : s.tasks) {
            const TrialState st = all[size_t(task)].state;
            complete += st == TrialState::Complete;
            pruned += st == TrialState::Pruned;
            failed += st == TrialState::Failed;
        }
        std::string best = "no value yet";
        std::optional<double> bestValue;
        for (const TrialRow& r : all) {
            const auto v = bestOfEpochs(r, spec_.objective);
            if (v && (!bestValue ||
                      spec_.objective.oriented(*v) < spec_.objective.oriented(*bestValue))) {
                bestValue = v;
                char buf[160];
                std::snprintf(buf, sizeof buf, "best %s %.6g (trial %d, %s)",
                              spec_.objective.metric.c_str(), *v, r.number,
                              sweep::trialStateName(r.state));
                best = buf;
            }
        }
        std::string moved = std::to_string(complete) + " complete";
        if (!lastStage(s)) moved = std::to_string(s.promoted.size()) + " promoted";
        std::fprintf(out_, "%s: job %d done: %s, %d pruned, %d failed; %s; %zu/%d trials\n",
                     stepName(s).c_str(), s.jobId, moved.c_str(), pruned, failed, best.c_str(),
                     b_.trials.size(), spec_.runCap);
        std::fflush(out_);
    }

    // The next step: the next rung of this generation, or a new generation; false when the
    // run cap (or the sampler, or the time budget) is spent.
    bool plan(Step& next) {
        if (!steps_.empty()) {
            const Step& l = steps_.back();
            if (!lastStage(l) && !l.promoted.empty()) {
                next.generation = l.generation;
                next.rung = l.rung + 1;
                next.epochs = stages_[size_t(next.rung)];
                next.tasks = l.promoted;
                return true;
            }
        }
        std::set<int> covered;
        for (const Step& s : steps_)
            if (s.rung == 0) covered.insert(s.tasks.begin(), s.tasks.end());
        for (const BundleTrial& t : b_.trials)  // asked by a coordinator killed before it ran them
            if (!covered.count(t.index)) next.tasks.push_back(t.index);
        if (next.tasks.empty() && !askGeneration(next.tasks)) return false;
        next.generation = steps_.empty() ? 0 : steps_.back().generation + 1;
        next.rung = 0;
        next.epochs = stages_.front();
        return true;
    }

    // Asks the sampler for the next generation's configurations (with every stored trial's
    // result; the ones asked before in this generation count as running) and adds them.
    bool askGeneration(std::vector<int>& tasks) {
        const double elapsed = trial::monotonicSeconds() - startedAt_;
        if (spec_.timeBudgetS > 0 && elapsed >= spec_.timeBudgetS) return false;
        const int room = (spec_.runCap - int(b_.trials.size())) / spec_.seedsPerConfig;
        const int want = std::min(o_.perGeneration, room);
        std::vector<TrialRow> history = rows();
        int config = 0;
        for (const TrialRow& r : history) config = std::max(config, r.config + 1);
        auto sampler = sweep::makeSpecSampler(spec_);
        std::vector<nlohmann::json> configs;
        for (int i = 0; i < want; ++i, ++config) {
            const auto p = sampler->ask(configHistory(history, spec_), config);
            if (!p) break;
            configs.push_back(*p);
            for (int r = 0; r < spec_.seedsPerConfig; ++r) {
                TrialRow row;
                row.number = int(history.size());
                row.config = config;
                row.replicate = r;
                row.params = *p;
                history.push_back(row);
            }
        }
        if (configs.empty()) return false;
        const size_t first = b_.trials.size();
        appendBundleTrials(b_, spec_, configs);
        for (size_t i = first; i < b_.trials.size(); ++i) tasks.push_back(int(i));
        return true;
    }

    void summary() {
        const std::vector<TrialRow> all = rows();
        std::map<std::string, int> counts;
        for (const TrialRow& r : all) counts[sweep::trialStateName(r.state)] += 1;
        std::string sum;
        for (const auto& [k, n] : counts)
            sum += (sum.empty() ? "" : ", ") + std::to_string(n) + " " + k;
        std::fprintf(out_, "sweep %lld: %zu trials (%s); sweep show %lld has the leaderboard\n",
                     (long long)sweepId_, all.size(), sum.c_str(), (long long)sweepId_);
        std::fflush(out_);
    }

    RunStore& store_;
    Bundle b_;
    sweep::SweepSpec spec_;
    GenerationOptions o_;
    std::FILE* out_;
    std::vector<int> stages_;
    std::vector<Step> steps_;
    int64_t sweepId_ = 0;
    double startedAt_ = 0.0;  // monotonic seconds (the time budget counts from it)
};

}  // namespace

int64_t runGenerations(RunStore& store, const sweep::SweepSpec& spec, const std::string& dirIn,
                       const BundleResources& resources, const GenerationOptions& options,
                       std::FILE* out) {
    if (options.perGeneration < 1) throw BundleError("--per-generation: must be at least 1");
    if (options.pollSeconds <= 0) throw BundleError("--poll: must be more than 0 seconds");
    if (spec.pruner == "median")
        throw BundleError(spec.file +
                          ": earlyTerminate median decides after every epoch, which needs a "
                          "coordinator beside each trial; a sweep run in generations takes asha "
                          "(rungs) or no earlyTerminate");
    const fs::path dir = fs::absolute(dirIn).lexically_normal();
    Bundle b;
    std::error_code ec;
    std::unique_ptr<CoordinatorLock> lock;
    if (fs::exists(dir / "bundle.json", ec)) {
        lock = std::make_unique<CoordinatorLock>(dir.string());
        b = readBundle(dir.string());
        if (b.perGeneration == 0)
            throw BundleError(dir.string() +
                              ": a bundle of one array (sweep export-bundle), not one run in "
                              "generations; use a new folder");
        if (b.spec != frozenSpec(spec))
            throw BundleError(dir.string() +
                              "/spec.json: the bundle there was made from another "
                              "spec than " +
                              spec.file + "; use a new folder");
        if (b.perGeneration != options.perGeneration)
            throw BundleError(dir.string() + ": the bundle there runs generations of " +
                              std::to_string(b.perGeneration) + ", not " +
                              std::to_string(options.perGeneration));
    } else {
        b = startBundle(spec, dir.string(), resources, options.perGeneration);
        lock = std::make_unique<CoordinatorLock>(dir.string());
    }
    return GenerationRun(store, std::move(b), options, out).run();
}

}  // namespace nnwb
