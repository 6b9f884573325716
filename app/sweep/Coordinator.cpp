#include "app/sweep/Coordinator.h"

#include <signal.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "app/runs/RunRecorder.h"
#include "app/runs/Sha256.h"
#include "app/sweep/SweepHistory.h"
#include "app/sweep/TrialExperimentFile.h"
#include "app/sweep/TrialRunRow.h"
#include "app/sweep/TrialTell.h"
#include "app/trial/ChildSupervisor.h"
#include "app/trial/EpochReportJson.h"
#include "app/trial/TrialStartupClock.h"
#include "model/sweep/Sampler.h"
#include "model/sweep/TpeSampler.h"

namespace fs = std::filesystem;

namespace nnwb {

using sweep::TrialState;

namespace {
// The progress lines of one round, printed when it ends (after its writes are committed), so
// a line never tells of a trial's end the store does not hold yet.
class HeldLines {
public:
    explicit HeldLines(std::FILE* to) : to_(to) {
        if (to_) mem_ = ::open_memstream(&text_, &size_);
    }
    ~HeldLines() {
        if (mem_) std::fclose(mem_);
        if (to_ && size_ > 0) {
            std::fwrite(text_, 1, size_, to_);
            std::fflush(to_);
        }
        std::free(text_);
    }
    HeldLines(const HeldLines&) = delete;
    HeldLines& operator=(const HeldLines&) = delete;
    std::FILE* stream() const { return mem_ ? mem_ : to_; }

private:
    std::FILE* to_;
    std::FILE* mem_ = nullptr;
    char* text_ = nullptr;
    size_t size_ = 0;
};
}  // namespace

struct Coordinator::TrialRun {
    int number = 0;
    int attempt = 0;  // the trial's attempt this process runs (the key of its store updates)
    std::string experimentFile;
    int64_t runId = 0;
    std::vector<int64_t> memberRuns;  // an ensemble trial's member runs, in member order
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
    ChildSupervisor::Id child = 0;
    std::vector<TrialRun> trials;  // one, or a packed population's members in member order
    bool packed = false;           // the protocol lines carry "member"
    std::string errFile;           // the process's stderr
    LaunchTimes times;             // its launch and the start-up breakdown's (monotonic seconds)
    double lastEpochAt = 0.0;      // its last epoch line read (monotonic seconds; 0: none)
    bool startedLine = false;
};

Coordinator::Coordinator(const sweep::SweepSpec& spec, int64_t sweepId, RunStore& store,
                         CoordinatorOptions options)
    : spec_(spec), id_(sweepId), runs_(store), store_(store), o_(std::move(options)) {
    out_ = o_.progress;
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

bool Coordinator::stopAsked() {
    if (!stopping_ && store_.storedStatus(id_) == sweepstatus::kStopping) stopping_ = true;
    return stopping_;
}

bool Coordinator::startNext(Slot& slot) {
    if (stopAsked()) return false;  // no trial (nor configuration) after a stop
    for (;;) {
        // The queued trials in order, topped up with new configurations to the population size
        // (one: a configuration only when none is queued).
        std::vector<int> queued;
        for (;;) {
            queued.clear();
            for (const TrialRow& t : trials_)
                if (t.state == TrialState::Queued) queued.push_back(t.number);
            if (int(queued.size()) >= packSize()) break;
            const bool inBudget = spec_.timeBudgetS <= 0 ||
                                  trial::monotonicSeconds() - startedAt_ < spec_.timeBudgetS;
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
        if (fit < int(pack.size()) && out_) {
            std::fprintf(out_,
                         "sweep %lld: a population of %zu trials does not fit the memory of "
                         "%s (shared by %d slots); packing %d, the others wait\n",
                         (long long)id_, pack.size(), slot.label.c_str(), share, fit);
            std::fflush(out_);
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
    r->times.launchedAt = trial::monotonicSeconds();
    Worker& worker = workers_[size_t(&slot - o_.slots.data())];
    if (worker.readyAt > 0.0) {  // the slot's worker said ready: the time since then
        slotTime_.startup.between += r->times.launchedAt - worker.readyAt;
        slotTime_.startup.betweens += 1;
        worker.readyAt = 0.0;
    }
    r->packed = pack.size() > 1;
    const std::string leader = folder_ + "/trial-" + std::to_string(packNumbers.front());
    r->errFile = leader + ".err";
    const bool priceFile = pack.front().data.value("source", std::string("file")) == "file";
    std::vector<std::string> argv = {"train"};
    std::vector<std::string> models;
    for (size_t i = 0; i < pack.size(); ++i) {
        TrialRun m;
        m.number = packNumbers[i];
        const std::string base = folder_ + "/trial-" + std::to_string(m.number);
        m.experimentFile = base + ".json";
        // The kept weights become the run's model (a bundle for a price file, as RunRecorder
        // stores them), so a trial opens as a run with its model.
        m.modelFile = base + ".safetensors";
        const double before = trial::monotonicSeconds();
        writeTrialExperiment(pack[i], m.experimentFile);  // not synced: only the trial reads it
        r->times.fileSeconds += trial::monotonicSeconds() - before;
        argv.insert(argv.end(), {"--experiment", m.experimentFile});
        models.insert(models.end(), {priceFile ? "--save-model" : "--save-weights", m.modelFile});
        r->trials.push_back(std::move(m));
    }
    argv.push_back("--trial");
    argv.insert(argv.end(), models.begin(), models.end());
    if (spec_.ensemble > 1) {  // an ensemble trial: seeds S..S+K-1 of its experiment's S
        const uint64_t seed = pack.front().training.seed;
        argv.insert(argv.end(),
                    {"--ensemble", "--population", std::to_string(spec_.ensemble), "--vary",
                     "seed=" + std::to_string(seed) + ".." +
                         std::to_string(seed + uint64_t(spec_.ensemble) - 1)});
    }
    if (r->packed && out_) {
        std::string list;
        for (int n : packNumbers) list += (list.empty() ? "" : ", ") + std::to_string(n);
        std::fprintf(out_, "sweep %lld: trials %s packed as one population on %s\n", (long long)id_,
                     list.c_str(), slot.label.c_str());
        std::fflush(out_);
    }
    try {
        r->child = startTrialProcess(size_t(&slot - o_.slots.data()), argv, *r);
        r->times.sentAt = trial::monotonicSeconds();
    } catch (const std::exception& ex) {
        for (const TrialRun& m : r->trials) failToStart(*row(m.number), ex.what());
        return;
    }
    // Its attempts are stored while the trial starts (its lines are read only after this).
    for (TrialRun& m : r->trials) {
        m.attempt = store_.startTrial(id_, m.number, slot.label);
        refresh(m.number);
    }
    running_.push_back(std::move(r));
}

std::string Coordinator::perTrialProcessReason() const {
    if (!o_.keepWorkers) return "asked for (sweep run|resume --process-per-trial)";
    // Every other kind (a trial alone, packed, ensemble, walk-forward and CPCV bases) is the
    // same `train --trial` command, which a kept worker runs in its process (TrialWorker.h).
    // Slurm bundles run one trial per array task (BundleTask.cpp): nothing to keep there.
    return {};
}

ChildSupervisor::Id Coordinator::startTrialProcess(size_t slot,
                                                   const std::vector<std::string>& argv,
                                                   Running& r) {
    const Slot& s = o_.slots[slot];
    if (!perTrialProcessReason().empty()) {
        std::vector<std::string> full = {o_.cliPath};
        full.insert(full.end(), argv.begin(), argv.end());
        r.times.newProcess = true;
        return children_->start(slot, full, s.cpus, r.errFile);
    }
    Worker& w = workers_[slot];
    if (w.child == 0) {
        w.child = children_->start(slot, {o_.cliPath, "sweep", "worker"}, s.cpus, r.errFile);
        w.errFile = r.errFile;
        r.times.newProcess = true;
    }
    r.errFile = w.errFile;  // the worker's stderr: its first trial's file
    trial::Line l;
    l.kind = trial::LineKind::Trial;
    l.argv = argv;
    children_->send(w.child, trial::encodeLine(l));
    return w.child;
}

void Coordinator::workerReady(Running& r, int status) {
    const double readyAt = trial::monotonicSeconds();
    const ChildSupervisor::Id child = r.child;
    const size_t slot = size_t(r.slot - o_.slots.data());
    processEnded(child, status);  // its trials end as those of a process that exited so
    if (workers_[slot].child != child) return;
    workers_[slot].readyAt = readyAt;
    if (!startNext(o_.slots[slot])) children_->stop(child);
}

void Coordinator::handleLine(Running& r, const std::string& text) {
    std::optional<trial::Line> line;
    try {
        line = trial::decodeLine(text);
    } catch (const trial::LineError& e) {
        // A bad line: a trial alone is killed, a packed member stopped alone (every member not
        // ended when the line names none).
        for (size_t i = 0; i < r.trials.size(); ++i)
            if (!r.packed || !e.member() || int(i) == *e.member())
                badLine(r, r.trials[i], e.what());
        return;
    }
    if (!line) return;  // not a protocol line (the protocol owns stdout; ignore stray text)
    if (line->kind == trial::LineKind::Ready) {  // a kept worker ended the trial (all members)
        workerReady(r, line->readyStatus);
        return;
    }
    if (!r.packed) {
        handleTrialLine(r, r.trials.front(), *line);
        return;
    }
    if (line->kind == trial::LineKind::Answer) {
        answerMembers(r, line->answerMembers);
        return;
    }
    if (!line->member) {
        // An end line of the whole process (bad input before anything trained) ends them all.
        if (line->kind == trial::LineKind::End)
            for (TrialRun& m : r.trials)
                if (!m.ended) handleTrialLine(r, m, *line);
        return;
    }
    const int i = *line->member;
    if (i < int(r.trials.size())) handleTrialLine(r, r.trials[size_t(i)], *line);
}

void Coordinator::badLine(Running& r, TrialRun& m, const std::string& why) {
    if (m.ended || !m.failure.empty()) return;
    m.failure = why;
    if (!r.packed) children_->kill(r.child);
}

void Coordinator::handleTrialLine(Running& r, TrialRun& m, const trial::Line& l) {
    // A member the coordinator ended (a bad line, no objective) is answered "stop" at the next
    // round; its lines until then are not recorded.
    if (r.packed && !m.failure.empty() && l.kind == trial::LineKind::Epoch) return;
    switch (l.kind) {
        case trial::LineKind::Started:
            if (!r.startedLine) {
                const double now = trial::monotonicSeconds();
                slotTime_.startupSeconds += now - r.times.launchedAt;
                slotTime_.startup.add(r.times, l.started.value("startup", nlohmann::json()), now);
            }
            r.startedLine = true;
            recordStarted(m, l.started);
            break;
        case trial::LineKind::Epoch:
            r.lastEpochAt = trial::monotonicSeconds();
            recordEpoch(r, m, l.epoch, l.members);
            break;
        case trial::LineKind::Result:
            m.result = {{"trading", l.trading}};
            if (l.outOfSample) m.result["outOfSample"] = metricsToJson(*l.outOfSample, true);
            break;
        case trial::LineKind::End:
            m.ended = true;
            m.endStatus = l.end.status;
            m.endError = l.end.error;
            m.modelEpoch = l.end.modelEpoch;
            break;
        case trial::LineKind::Fold:  // a walk-forward's folds: its result line has the figures
        case trial::LineKind::Answer:
        case trial::LineKind::Trial:  // the coordinator's own (a worker's stdin)
        case trial::LineKind::Ready:  // handled by handleLine
            break;
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
    const bool ensemble = j.contains("ensemble") && j["ensemble"].is_array();
    if (ensemble) names.name += " ensemble of " + std::to_string(j["ensemble"].size());
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
    if (ensemble) recordMembers(m, experiment, loaded, j, names);
    refresh(n);
}

void Coordinator::recordMembers(TrialRun& m, const Experiment& experiment, bool loaded,
                                const nlohmann::json& started, const TrialRunNames& names) {
    const nlohmann::json& seeds = started["ensemble"];
    m.memberRuns.clear();
    for (size_t k = 0; k < seeds.size(); ++k) {
        nlohmann::json j = started;
        j.erase("ensemble");
        j["seed"] = seeds[k];
        j["parameters"] = started.value("parameters", int64_t(0)) / int64_t(seeds.size());
        Experiment e = experiment;
        e.training.seed = seeds[k].get<uint64_t>();
        TrialRunNames member = names;
        member.name = spec_.name + " trial " + std::to_string(m.number) + " [model " +
                      std::to_string(k + 1) + "]";
        StoredRun run = trialRunRow(e, m.experimentFile, j, member);
        if (!loaded) run.experiment = nullptr;
        m.memberRuns.push_back(runs_.insertRun(run));
    }
    runs_.setEnsembleMembers(m.runId, m.memberRuns);
}

void Coordinator::recordEpoch(Running& r, TrialRun& m, const EpochReport& rep,
                              const std::vector<EpochReport>& members) {
    std::optional<int> best;
    if (rep.bestEpoch > 0) best = rep.bestEpoch;
    const int n = m.number, attempt = m.attempt;
    std::optional<double> v;
    if (!spec_.objective.atEnd()) {  // (an end figure's value comes with the result)
        v = spec_.objective.value(rep, m.hasValidation, m.parameters);
        if (!v || !std::isfinite(*v)) {  // a trial alone is killed; a packed member stopped
            badLine(
                r, m,
                "the objective " + spec_.objective.metric +
                    (v ? " is not finite" : " is not in the epoch reports (no validation part?)"));
            return;
        }
    }
    // The trial's row as the store will hold it once the epoch is written (its value: the best
    // objective so far): the pruner's history. The answer goes out before the writes, so the
    // trial trains its next epoch while they are made; the store decides the row after them.
    TrialRow& t = *row(n);
    t.epochsDone = rep.epoch;
    if (v) t.epochs[rep.epoch] = *v;
    const double bestSoFar = v ? bestOfEpochs(t, spec_.objective).value_or(*v) : 0.0;
    if (v) t.value = bestSoFar;
    m.spsSum += rep.samplesPerSecond;
    m.epochs += 1;
    m.last = rep;
    if (!r.packed && rep.epoch < spec_.epochs && !rep.stoppedEarly) answerEpoch(r, m, rep.epoch);
    runs_.addEpoch(m.runId, StoredEpoch{rep, rep.learningRate}, best,
                   [&](SQLite::Database& db, int64_t) {
                       if (v)
                           SweepStore::addEpoch(db, id_, n, attempt, rep.epoch, *v, bestSoFar);
                       else
                           SweepStore::setEpochsDone(db, id_, n, attempt, rep.epoch);
                   });
    for (const EpochReport& mr : members) {
        if (mr.model < 0 || size_t(mr.model) >= m.memberRuns.size()) continue;
        std::optional<int> memberBest;
        if (mr.bestEpoch > 0) memberBest = mr.bestEpoch;
        runs_.addEpoch(m.memberRuns[size_t(mr.model)], StoredEpoch{mr, mr.learningRate},
                       memberBest);
    }
    refresh(n);
}

void Coordinator::answerEpoch(Running& r, TrialRun& m, int epoch) {
    trial::Answer a = trial::Answer::Continue;
    if (stopping_) {
        a = trial::Answer::Stop;
    } else if (pruner_ && pruner_->shouldPrune(trialHistory(trials_, spec_), m.number, epoch)) {
        m.prunedAt = epoch;
        a = trial::Answer::Prune;
    }
    children_->send(r.child, trial::encodeAnswers({{0, a}}, true));
}

void Coordinator::answerMembers(Running& r, const std::vector<int>& members) {
    // One answer line for the round: every member still training, the pruner asked for each
    // after all of the round's epochs are stored (as for trials running side by side).
    std::vector<std::pair<int, trial::Answer>> answers;
    for (int i : members) {
        if (i < 0 || i >= int(r.trials.size())) continue;
        TrialRun& m = r.trials[size_t(i)];
        const int epoch = row(m.number)->epochsDone;
        trial::Answer a = trial::Answer::Continue;
        if (stopping_ || !m.failure.empty()) {
            a = trial::Answer::Stop;
        } else if (pruner_ && !spec_.objective.atEnd() &&
                   pruner_->shouldPrune(trialHistory(trials_, spec_), m.number, epoch)) {
            m.prunedAt = epoch;
            a = trial::Answer::Prune;
        }
        answers.emplace_back(i, a);
    }
    children_->send(r.child, trial::encodeAnswers(answers, false));
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
        for (int64_t member : m.memberRuns)  // an ensemble trial's members end with it
            runs_.finishRun(member, told.runStatus, state == TrialState::Complete ? "" : end.error,
                            std::nullopt);
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
        // An ensemble's bundle holds each member's kept epoch: the run's best model.
        b.kind = m.modelEpoch == m.last.bestEpoch || !m.memberRuns.empty() ? "best" : "last";
        const fs::path folder = runs_.runFolder(m.runId);
        fs::create_directories(folder);
        b.path = (folder / (b.kind + ".safetensors")).string();
        fs::rename(m.modelFile, b.path);
        b.epoch = m.modelEpoch;
        b.sha256 = sha256File(b.path, &b.size);
        runs_.setBundle(m.runId, b);
    } catch (const std::exception& e) {
        // The run keeps its curves; only its model is missing (said in the trial's error file).
        if (out_)
            std::fprintf(out_, "  trial %d: its model was not stored: %s\n", m.number, e.what());
    }
}

void Coordinator::progressLine(const TrialRow& t, const std::string& what) {
    if (!out_) return;
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
    std::fprintf(out_, "sweep %lld: trial %d %s", (long long)id_, t.number, what.c_str());
    if (t.value) std::fprintf(out_, "  %s %.6g", spec_.objective.metric.c_str(), *t.value);
    if (t.epochsDone) std::fprintf(out_, " after %d epochs", t.epochsDone);
    if (best) std::fprintf(out_, "  (best %.6g, trial %d)", *best->value, best->number);
    std::fprintf(out_, "  %d/%d done, %d running\n", done, spec_.runCap, running);
    if (!t.error.empty() && t.state == TrialState::Failed)
        std::fprintf(out_, "  trial %d: %s\n", t.number, t.error.c_str());
    std::fflush(out_);
}

Coordinator::Running* Coordinator::runningOf(ChildSupervisor::Id child) {
    for (const auto& r : running_)
        if (r->child == child) return r.get();
    return nullptr;
}

void Coordinator::processEnded(ChildSupervisor::Id child, int status) {
    const auto it = std::find_if(running_.begin(), running_.end(),
                                 [&](const auto& r) { return r->child == child; });
    if (it == running_.end()) return;
    Running& r = **it;
    if (r.lastEpochAt > 0.0) {  // the trial's end, as the breakdown shows it
        slotTime_.startup.ending += trial::monotonicSeconds() - r.lastEpochAt;
        slotTime_.startup.endings += 1;
    }
    for (TrialRun& m : r.trials) finished(r, m, status);
    slotTime_.busySeconds += trial::monotonicSeconds() - r.times.launchedAt;
    slotTime_.trialsEnded += int(r.trials.size());
    running_.erase(it);
}

// Stops at a `sweep stop`; ends (its trials with it) when another coordinator took the sweep.
void Coordinator::checkSweep(double now, double& lastCheck, double& lastBeat) {
    if (now - lastCheck > 0.5) {  // for the running trials' answers (stop at their next epoch)
        lastCheck = now;
        stopAsked();
    }
    if (now - lastBeat > 5.0) {
        lastBeat = now;
        if (!store_.heartbeat(id_))  // its trials end with it (~ChildSupervisor kills them)
            throw std::runtime_error("sweep " + std::to_string(id_) +
                                     " was taken over by another coordinator (this one's "
                                     "heartbeat had stopped for 15 minutes); this one ends");
    }
}

std::string Coordinator::run() {
    ::signal(SIGPIPE, SIG_IGN);
    startedAt_ = trial::monotonicSeconds();
    slotTime_ = SlotTime();
    trials_ = store_.trials(id_);
    children_ = std::make_unique<ChildSupervisor>(o_.slots.size());
    workers_.assign(o_.slots.size(), Worker());
    recover();
    ChildSupervisor::Handlers h;
    h.line = [&](ChildSupervisor::Id c, const std::string& line) {
        if (Running* r = runningOf(c)) handleLine(*r, line);
    };
    h.exited = [&](ChildSupervisor::Id c, size_t slot, int status) {
        if (workers_[slot].child == c) workers_[slot] = Worker();  // a worker ended (or died)
        processEnded(c, status);  // the trials it was running, if any
    };
    // A free slot's next trial at once (stored before another ended trial's line is printed).
    h.next = [&](size_t slot) { return startNext(o_.slots[slot]); };
    double lastCheck = 0.0, lastBeat = trial::monotonicSeconds();
    const int64_t commitsBefore = runs_.commits();
    while (round(h, lastCheck, lastBeat)) children_->waitForOutput(200);
    slotTime_.storeCommits = runs_.commits() - commitsBefore;
    slotTime_.slots = int(o_.slots.size());
    slotTime_.wallSeconds = trial::monotonicSeconds() - startedAt_;
    // A stop asked for once every trial had ended (or as the last ones did) cut nothing short.
    const std::string status =
        stopping_ && workLeft() ? sweepstatus::kStopped : sweepstatus::kCompleted;
    store_.setStatus(id_, status);
    return status;
}

bool Coordinator::round(const ChildSupervisor::Handlers& h, double& lastCheck, double& lastBeat) {
    const HeldLines lines(o_.progress);  // printed after the commit below
    out_ = lines.stream();
    struct Restore {
        std::FILE*& out;
        std::FILE* to;
        ~Restore() { out = to; }
    } restore{out_, o_.progress};
    RunStore::Batch batch(runs_);
    checkSweep(trial::monotonicSeconds(), lastCheck, lastBeat);
    children_->fill(h);
    const bool more = children_->running() > 0;
    if (more) children_->handleOutput(h);  // the lines and ends there are now
    const double before = trial::monotonicSeconds();
    batch.commit();
    slotTime_.storeSeconds += trial::monotonicSeconds() - before;
    return more;
}

bool Coordinator::workLeft() const {
    for (const TrialRow& t : trials_)
        if (t.state == TrialState::Queued) return true;  // a trial the stop ended, or unstarted
    const bool inBudget =
        spec_.timeBudgetS <= 0 || trial::monotonicSeconds() - startedAt_ < spec_.timeBudgetS;
    return inBudget && !samplerDone_ && int(trials_.size()) + spec_.seedsPerConfig <= spec_.runCap;
}

}  // namespace nnwb
