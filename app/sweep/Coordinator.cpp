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

struct Coordinator::Running {
    int number = 0;
    Slot* slot = nullptr;
    std::unique_ptr<TrialProcess> proc;
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
    std::string failure;      // the coordinator ended it (a bad line, no objective)
    double launchedAt = 0.0;  // steady seconds
    bool startedLine = false;
    nlohmann::json result;  // its "result" line (end-of-trial figures); null: none came
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

void Coordinator::recover() {
    for (TrialRow& t : trials_) {
        if (t.state != TrialState::Running) continue;
        if (t.attempts < o_.maxAttempts) {
            store_.requeueTrial(id_, t.number,
                                "attempt " + std::to_string(t.attempts) +
                                    " was interrupted (its coordinator ended)");
            t.state = TrialState::Queued;
        } else {
            t.error = "interrupted in each of its " + std::to_string(t.attempts) + " attempts";
            store_.failTrial(id_, t.number, t.error);
            t.state = TrialState::Failed;
        }
    }
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
    for (int r = 0; r < spec_.seedsPerConfig; ++r) {
        TrialRow t;
        t.number = total + r;
        t.config = configs;
        t.replicate = r;
        t.params = *config;
        store_.addTrial(id_, t);
        trials_.push_back(t);
    }
    return true;
}

bool Coordinator::startNext(Slot& slot) {
    for (;;) {
        int next = -1;
        for (const TrialRow& t : trials_)
            if (t.state == TrialState::Queued) {
                next = t.number;
                break;
            }
        if (next < 0) {
            const bool inBudget =
                spec_.timeBudgetS <= 0 || steadySeconds() - startedAt_ < spec_.timeBudgetS;
            if (!inBudget || samplerDone_ || !addConfiguration()) return false;
            continue;
        }
        launch(next, slot);
        if (row(next)->state == TrialState::Running) return true;
    }
}

void Coordinator::launch(int number, Slot& slot) {
    TrialRow& t = *row(number);
    Experiment e;
    try {
        e = spec_.experimentFor(t.params, t.replicate);
    } catch (const sweep::SpecError& err) {
        t.state = TrialState::Failed;
        t.error = err.what();
        store_.failTrial(id_, number, t.error);
        progressLine(t, "failed");
        return;
    }
    e.training.device = slot.device;
    e.data = e.dataWithAbsoluteFile();
    auto r = std::make_unique<Running>();
    r->number = number;
    r->slot = &slot;
    r->launchedAt = steadySeconds();
    r->experimentFile = folder_ + "/trial-" + std::to_string(number) + ".json";
    e.save(r->experimentFile);
    store_.startTrial(id_, number, slot.label);
    t.state = TrialState::Running;
    t.attempts += 1;
    t.epochs.clear();
    t.value.reset();
    t.runId = 0;
    t.epochsDone = 0;
    t.slot = slot.label;
    // The kept weights become the run's model (a bundle for a price file, as RunRecorder
    // stores them), so a trial opens as a run with its model.
    r->modelFile = folder_ + "/trial-" + std::to_string(number) + ".safetensors";
    const bool priceFile = e.data.value("source", std::string("file")) == "file";
    const std::vector<std::string> argv = {
        o_.cliPath,        "train",   "--experiment",
        r->experimentFile, "--trial", priceFile ? "--save-model" : "--save-weights",
        r->modelFile};
    try {
        r->proc = std::make_unique<TrialProcess>(
            argv, slot.cpus, folder_ + "/trial-" + std::to_string(number) + ".err");
    } catch (const std::exception& ex) {
        t.state = TrialState::Failed;
        t.error = ex.what();
        store_.failTrial(id_, number, t.error);
        progressLine(t, "failed");
        return;
    }
    running_.push_back(std::move(r));
}

void Coordinator::handleLine(Running& r, const std::string& line) {
    TrialRow& t = *row(r.number);
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(line);
    } catch (const std::exception&) {
        return;  // not a protocol line (the protocol owns stdout; ignore stray text)
    }
    const std::string ev = j.value("event", "");
    if (ev == "started") {
        if (!r.startedLine) slotTime_.startupSeconds += steadySeconds() - r.launchedAt;
        r.startedLine = true;
        StoredRun run;
        run.name = spec_.name + " trial " + std::to_string(r.number);
        run.tags = "sweep";
        run.source = "sweep";
        run.comparison = "sweep-" + std::to_string(id_);
        try {
            run.experiment = Experiment::load(r.experimentFile).toJson();
        } catch (const std::exception&) {
        }
        run.experimentFile = r.experimentFile;
        if (run.experiment.contains("data") && run.experiment["data"].contains("file"))
            run.dataFile = run.experiment["data"].value("file", "");
        run.dataDescription = j.value("data", "");
        run.deviceId = j.value("deviceId", "");
        run.deviceName = j.value("deviceName", "");
        run.seed = j.value("seed", uint64_t(0));
        run.appVersion = nnwbVersion();
        r.parameters = j.value("parameters", int64_t(0));
        run.parameters = r.parameters;
        run.trainSamples = j.value("trainSamples", int64_t(0));
        run.validationSamples = j.value("validationSamples", int64_t(0));
        r.hasValidation = run.validationSamples > 0;
        run.epochsPlanned = j.value("epochs", spec_.epochs);
        run.note = "sweep " + std::to_string(id_) + " trial " + std::to_string(r.number) + ": " +
                   t.params.dump();
        const int n = r.number;
        r.runId = runs_.insertRun(
            run, [&](SQLite::Database& db, int64_t rid) { SweepStore::linkRun(db, id_, n, rid); });
        t.runId = r.runId;
        return;
    }
    if (ev == "epoch") {
        EpochReport rep;
        try {
            rep = epochReportFromJson(j);
        } catch (const std::exception& e) {
            r.failure = std::string("a bad epoch line from the trial: ") + e.what();
            r.proc->kill();
            return;
        }
        std::optional<int> best;
        if (rep.bestEpoch > 0) best = rep.bestEpoch;
        const int n = r.number;
        if (spec_.objective.atEnd()) {  // the value comes with the result; the run's curves
            runs_.addEpoch(r.runId, StoredEpoch{rep, rep.learningRate}, best,
                           [&](SQLite::Database& db, int64_t) {
                               SweepStore::setEpochsDone(db, id_, n, rep.epoch);
                           });
            t.epochsDone = rep.epoch;
            r.spsSum += rep.samplesPerSecond;
            r.epochs += 1;
            r.last = rep;
            if (rep.epoch < spec_.epochs && !rep.stoppedEarly) answerEpoch(r, rep.epoch);
            return;
        }
        const std::optional<double> v = spec_.objective.value(rep, r.hasValidation, r.parameters);
        if (!v || !std::isfinite(*v)) {
            r.failure =
                "the objective " + spec_.objective.metric +
                (v ? " is not finite" : " is not in the epoch reports (no validation part?)");
            r.proc->kill();
            return;
        }
        runs_.addEpoch(r.runId, StoredEpoch{rep, rep.learningRate}, best,
                       [&](SQLite::Database& db, int64_t) {
                           SweepStore::addEpoch(db, id_, n, rep.epoch, *v);
                       });
        t.epochs[rep.epoch] = *v;
        t.epochsDone = rep.epoch;
        t.value = *v;
        r.spsSum += rep.samplesPerSecond;
        r.epochs += 1;
        r.last = rep;
        if (rep.epoch < spec_.epochs && !rep.stoppedEarly) answerEpoch(r, rep.epoch);
        return;
    }
    if (ev == "result") {
        r.result = j;
        return;
    }
    if (ev == "end") {
        r.ended = true;
        r.endStatus = j.value("status", "");
        r.endError = j.value("error", "");
        r.modelEpoch = j.value("modelEpoch", 0);
    }
}

void Coordinator::answerEpoch(Running& r, int epoch) {
    if (stopping_) {
        r.proc->send("stop");
        return;
    }
    if (pruner_ && pruner_->shouldPrune(trialHistory(trials_, spec_), r.number, epoch)) {
        r.prunedAt = epoch;
        r.proc->send("prune");
        return;
    }
    r.proc->send("continue");
}

void Coordinator::finished(Running& r, int exitStatus) {
    TrialRow& t = *row(r.number);
    std::optional<double> best = spec_.objective.atEnd() ? spec_.objective.resultValue(r.result)
                                                         : bestOfEpochs(t, spec_.objective);
    std::optional<double> second;
    if (spec_.second && spec_.second->atEnd()) {
        second = spec_.second->resultValue(r.result);
    } else if (spec_.second && r.epochs > 0) {
        if (spec_.second->metric == "samplesPerSecond")
            second = r.spsSum / r.epochs;
        else
            second = spec_.second->value(r.last, r.hasValidation, r.parameters);
    }
    TrialState state = TrialState::Failed;
    std::string runStatus = runstatus::kFailed, error;
    if (!r.failure.empty()) {
        error = r.failure;
    } else if (r.ended &&
               (r.endStatus == runstatus::kCompleted || r.endStatus == runstatus::kStoppedEarly) &&
               spec_.objective.atEnd() && (!best || !std::isfinite(*best))) {
        // An end-of-trial objective the result does not have (nothing traded, the evaluation
        // failed): the trial fails, saying why.
        error = "the objective " + spec_.objective.metric +
                (best ? " is not finite" : " is not in the trial's result");
        const nlohmann::json trading = r.result.is_object() && r.result.contains("trading")
                                           ? r.result["trading"]
                                           : nlohmann::json(nullptr);
        if (trading.is_object() && trading.contains("error"))
            error += " (trading: " + trading["error"].get<std::string>() + ")";
        else if (spec_.objective.metric.rfind("trading.", 0) == 0 && trading.is_null())
            error += " (nothing to trade: no price file, no validation part or not three outputs)";
        best.reset();
    } else if (r.ended &&
               (r.endStatus == runstatus::kCompleted || r.endStatus == runstatus::kStoppedEarly)) {
        state = TrialState::Complete;
        runStatus = r.endStatus;
    } else if (r.ended && r.endStatus == "pruned") {
        state = TrialState::Pruned;
        runStatus = runstatus::kStopped;
        error = "pruned after epoch " + std::to_string(r.prunedAt.value_or(t.epochsDone));
    } else if (r.ended && r.endStatus == runstatus::kStopped && stopping_) {
        state = TrialState::Queued;  // `sweep stop`: `sweep resume` runs it again
        runStatus = runstatus::kStopped;
        error = "stopped by sweep stop";
    } else if (r.ended && r.endStatus == runstatus::kFailed) {
        error = r.endError.empty() ? "the trial failed" : r.endError;
    } else {
        error = "the trial process ended without finishing (exit status " +
                std::to_string(exitStatus) + "; see " + folder_ + "/trial-" +
                std::to_string(r.number) + ".err)";
        if (t.attempts < o_.maxAttempts) state = TrialState::Queued;
    }
    const std::optional<int> prunedAt = state == TrialState::Pruned ? r.prunedAt : std::nullopt;
    const std::optional<double> value = state == TrialState::Queued ? std::nullopt : best;
    const int n = r.number;
    auto endRows = [&](SQLite::Database& db, int64_t) {
        SweepStore::endTrial(db, id_, n, state, value, second, prunedAt, error);
    };
    if (r.runId > 0) {
        std::optional<int> bestEpoch;
        if (r.last.bestEpoch > 0) bestEpoch = r.last.bestEpoch;
        if (state != TrialState::Queued) storeModel(r);
        // The trial's trading figures, as a recorded run stores them (Runs tab, sweep show).
        if (state != TrialState::Queued && r.result.is_object() && r.result.contains("trading") &&
            r.result["trading"].is_object())
            runs_.setTrading(r.runId, r.result["trading"]);
        runs_.finishRun(r.runId, runStatus, state == TrialState::Complete ? "" : error, bestEpoch,
                        endRows);
    } else {
        runs_.write("cannot end trial " + std::to_string(n),
                    [&](SQLite::Database& db) { endRows(db, 0); });
    }
    t.state = state;
    t.value = value;
    t.secondValue = second;
    t.prunedAt = prunedAt;
    t.error = error;
    progressLine(t, state == TrialState::Queued ? "requeued" : sweep::trialStateName(state));
}

void Coordinator::storeModel(Running& r) {
    std::error_code ec;
    if (r.modelEpoch <= 0 || !fs::exists(r.modelFile, ec)) return;
    try {
        StoredBundle b;
        b.kind = r.modelEpoch == r.last.bestEpoch ? "best" : "last";
        const fs::path folder = runs_.runFolder(r.runId);
        fs::create_directories(folder);
        b.path = (folder / (b.kind + ".safetensors")).string();
        fs::rename(r.modelFile, b.path);
        b.epoch = r.modelEpoch;
        b.sha256 = sha256File(b.path, &b.size);
        runs_.setBundle(r.runId, b);
    } catch (const std::exception& e) {
        // The run keeps its curves; only its model is missing (said in the trial's error file).
        if (o_.progress)
            std::fprintf(o_.progress, "  trial %d: its model was not stored: %s\n", r.number,
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
            store_.heartbeat(id_);
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
            finished(r, status);
            slotTime_.busySeconds += steadySeconds() - r.launchedAt;
            slotTime_.trialsEnded += 1;
            running_.erase(running_.begin() + long(i));
        }
    }
    slotTime_.slots = int(o_.slots.size());
    slotTime_.wallSeconds = steadySeconds() - startedAt_;
    const std::string status = stopping_ ? sweepstatus::kStopped : sweepstatus::kCompleted;
    store_.setStatus(id_, status);
    return status;
}

}  // namespace nnwb
