#include "app/sweep/Coordinator.h"

#include <poll.h>
#include <signal.h>

#include <chrono>
#include <cmath>
#include <filesystem>

#include "app/compare/EpochReportJson.h"
#include "app/runs/RunRecorder.h"
#include "app/runs/Sha256.h"
#include "app/sweep/SweepHistory.h"
#include "app/sweep/TrialProcess.h"
#include "app/sweep/TrialRunRow.h"
#include "app/sweep/TrialTell.h"
#include "model/sweep/Sampler.h"
#include "model/sweep/TpeSampler.h"

namespace fs = std::filesystem;

namespace nnwb {

using sweep::TrialState;

namespace {
double steadySeconds() {
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}
}  // namespace

struct Coordinator::TrialRun {
    int number = 0;
    int attempt = 0;  // the trial's attempt this process runs (the key of its store updates)
    std::string experimentFile;
    int64_t runId = 0;
    int64_t parameters = 0;
    bool hasValidation = false;
    bool ended = false;  // its "end" line came
    std::string endStatus, endError;
    std::string modelFile;  // where the trial saves its kept weights
    int modelEpoch = 0;     // their epoch, from the end line (0: none saved)
    std::optional<int> prunedAt;
    double spsSum = 0.0;
    int epochs = 0;
    EpochReport last;
    std::string failure;    // the coordinator ended it (a bad line, no objective)
    nlohmann::json result;  // its "result" line (end-of-trial figures); null: none came
};

struct Coordinator::Running {
    Slot* slot = nullptr;
    std::unique_ptr<TrialProcess> proc;
    std::vector<TrialRun> trials;  // one, or a packed population's members in member order
    bool packed = false;           // the protocol lines carry "member"
    std::string errFile;           // the process's stderr
    double launchedAt = 0.0;       // steady seconds
    bool startedLine = false;
};

Coordinator::Coordinator(const sweep::SweepSpec& spec, int64_t sweepId, RunStore& store,
                         CoordinatorOptions options)
    : spec_(spec), id_(sweepId), runs_(store), store_(store), o_(std::move(options)) {
    sampler_ = sweep::makeSpecSampler(spec_);
    if (spec_.pruner == "asha") pruner_ = sweep::makeAshaPruner(spec_.asha);
    if (spec_.pruner == "median") pruner_ = sweep::makeMedianPruner(spec_.median);
    const fs::path db(runs_.path());
    folder_ = (db.parent_path() / (db.stem().string() + "-sweeps") / std::to_string(id_)).string();
    fs::create_directories(folder_);
}

Coordinator::~Coordinator() = default;

TrialRow* Coordinator::row(int number) {
    for (TrialRow& t : trials_)
        if (t.number == number) return &t;
    return nullptr;
}

void Coordinator::refresh(int number) {
    if (auto stored = store_.trial(id_, number)) *row(number) = std::move(*stored);
}

void Coordinator::recover() {
    removeLeftovers();
    for (TrialRow& t : trials_) {
        if (t.state != TrialState::Running) continue;
        if (t.attempts < o_.maxAttempts) {
            store_.requeueTrial(id_, t.number,
                                "attempt " + std::to_string(t.attempts) +
                                    " was interrupted (its coordinator ended)");
        } else {
            store_.failTrial(
                id_, t.number,
                "interrupted in each of its " + std::to_string(t.attempts) + " attempts");
        }
        refresh(t.number);
    }
}

void Coordinator::removeLeftovers() {
    std::error_code ec;
    for (const TrialRow& t : trials_)  // a model its dead trial process left (it runs again)
        if (t.state == TrialState::Running || t.state == TrialState::Queued)
            fs::remove(folder_ + "/trial-" + std::to_string(t.number) + ".safetensors", ec);
    // The temporary files of saves a kill cut short (writeFileAtomic's NAME.tmp-PID-N): no one
    // writes in this folder while the sweep is claimed by this process.
    for (fs::directory_iterator it(folder_, ec), end; !ec && it != end; it.increment(ec))
        if (it->path().filename().string().find(".tmp-") != std::string::npos)
            fs::remove(it->path(), ec);
}

bool Coordinator::addConfiguration() {
    int configs = 0;
    for (const TrialRow& t : trials_) configs = std::max(configs, t.config + 1);
    const int total = int(trials_.size());
    if (total + spec_.seedsPerConfig > spec_.runCap) return false;
    const auto config = sampler_->ask(configHistory(trials_, spec_), configs);
    if (!config) {
        samplerDone_ = true;
        return false;
    }
    std::vector<TrialRow> replicates;
    for (int r = 0; r < spec_.seedsPerConfig; ++r) {
        TrialRow t;
        t.number = total + r;
        t.config = configs;
        t.replicate = r;
        t.params = *config;
        replicates.push_back(std::move(t));
    }
    store_.addTrials(id_, replicates);  // together: a kill cannot store only some of them
    trials_.insert(trials_.end(), replicates.begin(), replicates.end());
    return true;
}

bool Coordinator::startNext(Slot& slot) {
    for (;;) {
        // The queued trials in order, topped up with new configurations to the population size
        // (one: a configuration only when none is queued).
        std::vector<int> queued;
        for (;;) {
            queued.clear();
            for (const TrialRow& t : trials_)
                if (t.state == TrialState::Queued) queued.push_back(t.number);
            if (int(queued.size()) >= packSize()) break;
            const bool inBudget =
                spec_.timeBudgetS <= 0 || steadySeconds() - startedAt_ < spec_.timeBudgetS;
            if (!inBudget || samplerDone_ || !addConfiguration()) break;
        }
        if (queued.empty()) return false;
        launch(queued, slot);
        for (const auto& r : running_)
            if (r->slot == &slot) return true;
    }
}

void Coordinator::failToStart(TrialRow& t, const std::string& error) {
    store_.failTrial(id_, t.number, error);
    refresh(t.number);
    progressLine(t, "failed");
}

void Coordinator::packFor(const std::vector<int>& queued, const Slot& slot,
                          std::vector<int>& packNumbers, std::vector<Experiment>& pack) {
    // The experiments of the queued trials (one that makes none fails), then those that may
    // share a population with the first; the others wait in the queue, in their order.
    std::vector<int> numbers;
    std::vector<Experiment> experiments;
    for (int number : queued) {
        TrialRow& t = *row(number);
        Experiment e;
        try {
            e = spec_.experimentFor(t.params, t.replicate);
        } catch (const sweep::SpecError& err) {
            failToStart(t, err.what());
            continue;
        }
        e.training.device = slot.device;
        e.data = e.dataWithAbsoluteFile();
        numbers.push_back(number);
        experiments.push_back(std::move(e));
        if (packSize() <= 1) break;
    }
    if (numbers.empty()) return;
    for (size_t i : packableWith(experiments, packSize())) {
        packNumbers.push_back(numbers[i]);
        pack.push_back(experiments[i]);
    }
    if (pack.size() > 1) {
        int share = 0;  // the slots on this device share its memory
        for (const Slot& s : o_.slots) share += s.device == slot.device;
        const int fit = packMemory_.fitting(pack, slot.device, share);
        if (fit < int(pack.size()) && o_.progress) {
            std::fprintf(o_.progress,
                         "sweep %lld: a population of %zu trials does not fit the memory of "
                         "%s (shared by %d slots); packing %d, the others wait\n",
                         (long long)id_, pack.size(), slot.label.c_str(), share, fit);
            std::fflush(o_.progress);
        }
        pack.resize(size_t(fit));
        packNumbers.resize(size_t(fit));
    }
}

void Coordinator::launch(const std::vector<int>& queued, Slot& slot) {
    std::vector<int> packNumbers;
    std::vector<Experiment> pack;
    packFor(queued, slot, packNumbers, pack);
    if (pack.empty()) return;
    auto r = std::make_unique<Running>();
    r->slot = &slot;
    r->launchedAt = steadySeconds();
    r->packed = pack.size() > 1;
    const std::string leader = folder_ + "/trial-" + std::to_string(packNumbers.front());
    r->errFile = leader + ".err";
    const bool priceFile = pack.front().data.value("source", std::string("file")) == "file";
    std::vector<std::string> argv = {o_.cliPath, "train"};
    std::vector<std::string> models;
    for (size_t i = 0; i < pack.size(); ++i) {
        TrialRun m;
        m.number = packNumbers[i];
        const std::string base = folder_ + "/trial-" + std::to_string(m.number);
        m.experimentFile = base + ".json";
        // The kept weights become the run's model (a bundle for a price file, as RunRecorder
        // stores them), so a trial opens as a run with its model.
        m.modelFile = base + ".safetensors";
        pack[i].save(m.experimentFile);
        argv.insert(argv.end(), {"--experiment", m.experimentFile});
        models.insert(models.end(), {priceFile ? "--save-model" : "--save-weights", m.modelFile});
        r->trials.push_back(std::move(m));
    }
    argv.push_back("--trial");
    argv.insert(argv.end(), models.begin(), models.end());
    if (r->packed && o_.progress) {
        std::string list;
        for (int n : packNumbers) list += (list.empty() ? "" : ", ") + std::to_string(n);
        std::fprintf(o_.progress, "sweep %lld: trials %s packed as one population on %s\n",
                     (long long)id_, list.c_str(), slot.label.c_str());
        std::fflush(o_.progress);
    }
    for (TrialRun& m : r->trials) {
        m.attempt = store_.startTrial(id_, m.number, slot.label);
        refresh(m.number);
    }
    try {
        r->proc = std::make_unique<TrialProcess>(argv, slot.cpus, r->errFile);
    } catch (const std::exception& ex) {
        for (const TrialRun& m : r->trials) failToStart(*row(m.number), ex.what());
        return;
    }
    running_.push_back(std::move(r));
}

void Coordinator::handleLine(Running& r, const std::string& line) {
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(line);
    } catch (const std::exception&) {
        return;  // not a protocol line (the protocol owns stdout; ignore stray text)
    }
    if (!j.is_object()) return;
    const std::string ev = j.value("event", "");
    if (!r.packed) {
        handleTrialLine(r, r.trials.front(), j);
        return;
    }
    if (ev == "answer") {
        answerMembers(r, j.value("members", nlohmann::json::array()));
        return;
    }
    const auto member = j.find("member");
    if (member == j.end() || !member->is_number_integer()) {
        // An end line of the whole process (bad input before anything trained) ends them all.
        if (ev == "end")
            for (TrialRun& m : r.trials)
                if (!m.ended) handleTrialLine(r, m, j);
        return;
    }
    const int i = member->get<int>();
    if (i >= 0 && i < int(r.trials.size())) handleTrialLine(r, r.trials[size_t(i)], j);
}

void Coordinator::handleTrialLine(Running& r, TrialRun& m, const nlohmann::json& j) {
    const std::string ev = j.value("event", "");
    // A member the coordinator ended (a bad line, no objective) is answered "stop" at the next
    // round; its lines until then are not recorded.
    if (r.packed && !m.failure.empty() && ev == "epoch") return;
    if (ev == "started") {
        if (!r.startedLine) slotTime_.startupSeconds += steadySeconds() - r.launchedAt;
        r.startedLine = true;
        recordStarted(m, j);
    } else if (ev == "epoch") {
        recordEpoch(r, m, j);
    } else if (ev == "result") {
        m.result = j;
    } else if (ev == "end") {
        m.ended = true;
        m.endStatus = j.value("status", "");
        m.endError = j.value("error", "");
        m.modelEpoch = j.value("modelEpoch", 0);
    }
}

void Coordinator::recordStarted(TrialRun& m, const nlohmann::json& j) {
    Experiment experiment;
    bool loaded = true;
    try {
        experiment = Experiment::load(m.experimentFile);
    } catch (const std::exception&) {  // it wrote the file: its run keeps the rest
        loaded = false;
    }
    TrialRunNames names;
    names.name = spec_.name + " trial " + std::to_string(m.number);
    names.tags = "sweep";
    names.comparison = "sweep-" + std::to_string(id_);
    names.note = "sweep " + std::to_string(id_) + " trial " + std::to_string(m.number) + ": " +
                 row(m.number)->params.dump();
    StoredRun run = trialRunRow(experiment, m.experimentFile, j, names);
    if (!loaded) run.experiment = nullptr;
    m.parameters = run.parameters;
    m.hasValidation = run.validationSamples > 0;
    const int n = m.number, attempt = m.attempt;
    m.runId = runs_.insertRun(run, [&](SQLite::Database& db, int64_t rid) {
        SweepStore::linkRun(db, id_, n, attempt, rid);
    });
    refresh(n);
}

void Coordinator::recordEpoch(Running& r, TrialRun& m, const nlohmann::json& j) {
    // A bad line or objective: a trial alone is killed; a packed member is stopped alone.
    auto failTrial = [&](const std::string& why) {
        m.failure = why;
        if (!r.packed) r.proc->kill();
    };
    EpochReport rep;
    try {
        rep = epochReportFromJson(j);
    } catch (const std::exception& e) {
        failTrial(std::string("a bad epoch line from the trial: ") + e.what());
        return;
    }
    std::optional<int> best;
    if (rep.bestEpoch > 0) best = rep.bestEpoch;
    const int n = m.number, attempt = m.attempt;
    if (spec_.objective.atEnd()) {  // the value comes with the result; the run's curves
        runs_.addEpoch(m.runId, StoredEpoch{rep, rep.learningRate}, best,
                       [&](SQLite::Database& db, int64_t) {
                           SweepStore::setEpochsDone(db, id_, n, attempt, rep.epoch);
                       });
    } else {
        const std::optional<double> v = spec_.objective.value(rep, m.hasValidation, m.parameters);
        if (!v || !std::isfinite(*v)) {
            failTrial(
                "the objective " + spec_.objective.metric +
                (v ? " is not finite" : " is not in the epoch reports (no validation part?)"));
            return;
        }
        TrialRow with = *row(n);  // the trial's value: the best objective so far
        with.epochs[rep.epoch] = *v;
        const double bestSoFar = bestOfEpochs(with, spec_.objective).value_or(*v);
        runs_.addEpoch(m.runId, StoredEpoch{rep, rep.learningRate}, best,
                       [&](SQLite::Database& db, int64_t) {
                           SweepStore::addEpoch(db, id_, n, attempt, rep.epoch, *v, bestSoFar);
                       });
    }
    refresh(n);
    m.spsSum += rep.samplesPerSecond;
    m.epochs += 1;
    m.last = rep;
    if (!r.packed && rep.epoch < spec_.epochs && !rep.stoppedEarly) answerEpoch(r, m, rep.epoch);
}

void Coordinator::answerEpoch(Running& r, TrialRun& m, int epoch) {
    if (stopping_) {
        r.proc->send("stop");
        return;
    }
    if (pruner_ && pruner_->shouldPrune(trialHistory(trials_, spec_), m.number, epoch)) {
        m.prunedAt = epoch;
        r.proc->send("prune");
        return;
    }
    r.proc->send("continue");
}

void Coordinator::answerMembers(Running& r, const nlohmann::json& members) {
    // One answer line for the round: every member still training, the pruner asked for each
    // after all of the round's epochs are stored (as for trials running side by side).
    nlohmann::json answers = nlohmann::json::object();
    for (const nlohmann::json& v : members) {
        if (!v.is_number_integer() || v.get<int>() < 0 || v.get<int>() >= int(r.trials.size()))
            continue;
        TrialRun& m = r.trials[v.get<size_t>()];
        const int epoch = row(m.number)->epochsDone;
        std::string word = "continue";
        if (stopping_ || !m.failure.empty()) {
            word = "stop";
        } else if (pruner_ && !spec_.objective.atEnd() &&
                   pruner_->shouldPrune(trialHistory(trials_, spec_), m.number, epoch)) {
            m.prunedAt = epoch;
            word = "prune";
        }
        answers[std::to_string(v.get<int>())] = word;
    }
    r.proc->send(answers.dump());
}

void Coordinator::finished(Running& r, TrialRun& m, int exitStatus) {
    TrialRow& t = *row(m.number);
    AttemptEnd a;
    a.ended = m.ended;
    a.status = m.endStatus;
    a.error = m.endError;
    a.failure = m.failure;
    a.died = "the trial process ended without finishing (exit status " +
             std::to_string(exitStatus) + "; see " + r.errFile + ")";
    a.result = m.result;
    a.last = m.last;
    a.epochs = m.epochs;
    a.spsSum = m.spsSum;
    a.hasValidation = m.hasValidation;
    a.parameters = m.parameters;
    a.prunedAt = m.prunedAt;
    a.stopRequested = stopping_;
    a.mayRetry = t.attempts < o_.maxAttempts;
    const TrialOutcome told = tellTrial(spec_, t, a);
    const TrialEnd& end = told.end;
    const TrialState state = end.state;
    const int n = m.number;
    auto endRows = [&](SQLite::Database& db, int64_t) {
        SweepStore::endTrial(db, id_, n, m.attempt, end);
    };
    if (m.runId > 0) {
        std::optional<int> bestEpoch;
        if (m.last.bestEpoch > 0) bestEpoch = m.last.bestEpoch;
        if (state != TrialState::Queued) storeModel(m);
        // The trial's trading figures, as a recorded run stores them (Runs tab, sweep show).
        if (state != TrialState::Queued && m.result.is_object() && m.result.contains("trading") &&
            m.result["trading"].is_object())
            runs_.setTrading(m.runId, m.result["trading"]);
        runs_.finishRun(m.runId, told.runStatus, state == TrialState::Complete ? "" : end.error,
                        bestEpoch, endRows);
    } else {
        runs_.write("cannot end trial " + std::to_string(n),
                    [&](SQLite::Database& db) { endRows(db, 0); });
    }
    refresh(n);
    progressLine(t, state == TrialState::Queued ? "requeued" : sweep::trialStateName(state));
}

void Coordinator::storeModel(TrialRun& m) {
    std::error_code ec;
    if (m.modelEpoch <= 0 || !fs::exists(m.modelFile, ec)) return;
    try {
        StoredBundle b;
        b.kind = m.modelEpoch == m.last.bestEpoch ? "best" : "last";
        const fs::path folder = runs_.runFolder(m.runId);
        fs::create_directories(folder);
        b.path = (folder / (b.kind + ".safetensors")).string();
        fs::rename(m.modelFile, b.path);
        b.epoch = m.modelEpoch;
        b.sha256 = sha256File(b.path, &b.size);
        runs_.setBundle(m.runId, b);
    } catch (const std::exception& e) {
        // The run keeps its curves; only its model is missing (said in the trial's error file).
        if (o_.progress)
            std::fprintf(o_.progress, "  trial %d: its model was not stored: %s\n", m.number,
                         e.what());
    }
}

void Coordinator::progressLine(const TrialRow& t, const std::string& what) {
    if (!o_.progress) return;
    int done = 0, running = 0;
    const TrialRow* best = nullptr;
    for (const TrialRow& x : trials_) {
        if (x.state == TrialState::Complete || x.state == TrialState::Pruned ||
            x.state == TrialState::Failed)
            ++done;
        if (x.state == TrialState::Running) ++running;
        if (x.state == TrialState::Complete && x.value &&
            (!best || spec_.objective.oriented(*x.value) < spec_.objective.oriented(*best->value)))
            best = &x;
    }
    std::fprintf(o_.progress, "sweep %lld: trial %d %s", (long long)id_, t.number, what.c_str());
    if (t.value) std::fprintf(o_.progress, "  %s %.6g", spec_.objective.metric.c_str(), *t.value);
    if (t.epochsDone) std::fprintf(o_.progress, " after %d epochs", t.epochsDone);
    if (best) std::fprintf(o_.progress, "  (best %.6g, trial %d)", *best->value, best->number);
    std::fprintf(o_.progress, "  %d/%d done, %d running\n", done, spec_.runCap, running);
    if (!t.error.empty() && t.state == TrialState::Failed)
        std::fprintf(o_.progress, "  trial %d: %s\n", t.number, t.error.c_str());
    std::fflush(o_.progress);
}

std::string Coordinator::run() {
    ::signal(SIGPIPE, SIG_IGN);
    startedAt_ = steadySeconds();
    slotTime_ = SlotTime();
    trials_ = store_.trials(id_);
    recover();
    double lastCheck = 0.0, lastBeat = steadySeconds();
    for (;;) {
        const double now = steadySeconds();
        if (now - lastCheck > 0.5) {
            lastCheck = now;
            const auto s = store_.sweep(id_);
            if (s && s->status == sweepstatus::kStopping) stopping_ = true;
        }
        if (now - lastBeat > 5.0) {
            lastBeat = now;
            if (!store_.heartbeat(id_))  // its trials end with it (~TrialProcess kills them)
                throw std::runtime_error("sweep " + std::to_string(id_) +
                                         " was taken over by another coordinator (this one's "
                                         "heartbeat had stopped for 15 minutes); this one ends");
        }
        if (!stopping_)
            for (Slot& slot : o_.slots) {
                bool busy = false;
                for (const auto& r : running_) busy = busy || r->slot == &slot;
                if (!busy && !startNext(slot)) break;
            }
        if (running_.empty()) break;
        std::vector<pollfd> fds;
        for (const auto& r : running_) fds.push_back({r->proc->outFd(), POLLIN, 0});
        ::poll(fds.data(), fds.size(), 200);
        for (size_t i = 0; i < running_.size();) {
            Running& r = *running_[i];
            std::vector<std::string> lines;
            const bool open = r.proc->outFd() >= 0 && r.proc->readLines(lines);
            for (const std::string& l : lines) handleLine(r, l);
            if (open && !r.proc->exited()) {
                ++i;
                continue;
            }
            const int status = r.proc->wait();
            if (r.proc->outFd() >= 0) {  // ended with stdout still open: drain it
                std::vector<std::string> rest;
                while (r.proc->readLines(rest)) {
                }
                for (const std::string& l : rest) handleLine(r, l);
            }
            for (TrialRun& m : r.trials) finished(r, m, status);
            slotTime_.busySeconds += steadySeconds() - r.launchedAt;
            slotTime_.trialsEnded += int(r.trials.size());
            Slot& freed = *r.slot;
            running_.erase(running_.begin() + long(i));
            // The slot's next trial at once (stored before another ended trial's line is
            // printed), not after every process of this round is handled.
            if (!stopping_) startNext(freed);
        }
    }
    slotTime_.slots = int(o_.slots.size());
    slotTime_.wallSeconds = steadySeconds() - startedAt_;
    // A stop asked for once every trial had ended (or as the last ones did) cut nothing short.
    const std::string status =
        stopping_ && workLeft() ? sweepstatus::kStopped : sweepstatus::kCompleted;
    store_.setStatus(id_, status);
    return status;
}

bool Coordinator::workLeft() const {
    for (const TrialRow& t : trials_)
        if (t.state == TrialState::Queued) return true;  // a trial the stop ended, or unstarted
    const bool inBudget =
        spec_.timeBudgetS <= 0 || steadySeconds() - startedAt_ < spec_.timeBudgetS;
    return inBudget && !samplerDone_ && int(trials_.size()) + spec_.seedsPerConfig <= spec_.runCap;
}

}  // namespace nnwb
