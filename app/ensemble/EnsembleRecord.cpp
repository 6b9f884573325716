#include "app/ensemble/EnsembleRecord.h"

#include <array>
#include <filesystem>

#include "app/runs/RunStore.h"
#include "app/runs/Sha256.h"
#include "model/Metrics.h"
#include "model/Monitor.h"
#include "model/ensemble/EnsemblePrediction.h"

namespace fs = std::filesystem;

namespace nnwb {

EnsembleCurve::EnsembleCurve(size_t members, const SampleSet& validation, LossKind loss)
    : members_(members), validation_(validation), loss_(loss), latest_(members) {}

void EnsembleCurve::add(const EpochReport& r) {
    if (!current_.empty() && current_.front().epoch != r.epoch) {
        done_.push_back(combined(current_.front().epoch, current_));
        current_.clear();
    }
    if (size_t(r.model) < members_ && r.validationOutputs)
        latest_[size_t(r.model)] = r.validationOutputs;
    EpochReport kept = r;
    kept.validationOutputs.reset();
    current_.push_back(kept);
}

std::vector<EpochReport> EnsembleCurve::epochs() const {
    std::vector<EpochReport> out = done_;
    if (!current_.empty()) out.push_back(combined(current_.front().epoch, current_));
    return out;
}

std::shared_ptr<const std::vector<float>> EnsembleCurve::meanOutputs() const {
    const size_t samples = validation_.size();
    for (const auto& out : latest_)
        if (!out || out->size() != 3 * samples) return nullptr;
    auto mean = std::make_shared<std::vector<float>>(3 * samples);
    std::vector<std::array<float, 3>> outs(members_);
    for (size_t s = 0; s < samples; ++s) {
        for (size_t m = 0; m < members_; ++m)
            for (size_t o = 0; o < 3; ++o) outs[m][o] = (*latest_[m])[3 * s + o];
        const CombinedOutput c = combineOutputs(outs);
        for (size_t o = 0; o < 3; ++o) (*mean)[3 * s + o] = c.mean[o];
    }
    return mean;
}

EpochReport EnsembleCurve::combined(int epoch, const std::vector<EpochReport>& reports) const {
    EpochReport e;
    e.epoch = epoch;
    e.taskMetrics = reports.front().taskMetrics;
    e.learningRate = reports.front().learningRate;
    e.seconds = reports.front().seconds;
    e.train.samples = reports.front().train.samples;
    const double n = double(reports.size());
    for (const EpochReport& r : reports) {
        e.samplesPerSecond += r.samplesPerSecond;
        e.train.loss += r.train.loss / n;
        e.train.accuracyPct += r.train.accuracyPct / n;
        e.train.missedPct += r.train.missedPct / n;
    }
    const size_t samples = validation_.size();
    bool all = samples > 0 && validation_.outputs == 3;
    for (const auto& out : latest_) all = all && out && out->size() == 3 * samples;
    if (!all) return e;
    MetricsAccumulator acc(3);
    std::vector<std::array<float, 3>> outs(members_);
    for (size_t s = 0; s < samples; ++s) {
        for (size_t m = 0; m < members_; ++m)
            for (size_t o = 0; o < 3; ++o) outs[m][o] = (*latest_[m])[3 * s + o];
        const CombinedOutput c = combineOutputs(outs);
        const float loss = combinedLoss(loss_, c.mean, validation_.target(s));
        acc.add(c.mean.data(), validation_.target(s), &loss, 1);
    }
    e.validation = acc.result();
    return e;
}

void EnsembleEpochFeed::add(const EpochReport& r) {
    curve_.add(r);
    pending_ = true;
}

bool EnsembleEpochFeed::next(EpochReport& e) {
    if (!pending_) return false;
    pending_ = false;
    e = curve_.epochs().back();
    e.validationOutputs = curve_.meanOutputs();
    const double v = monitorValue(monitor_, e.train, e.validation);
    if (bestEpoch_ == 0 || (higherIsBetter(monitor_) ? v > best_ : v < best_)) {
        best_ = v;
        bestEpoch_ = e.epoch;
        e.isBest = true;
    }
    e.bestEpoch = bestEpoch_;
    return true;
}

namespace {

// Copies the ensemble bundle into the run's folder and records it as the run's "best" model;
// returns the copy's path.
std::string keepBundle(const std::string& dbPath, int64_t id, const EnsembleRunFacts& facts) {
    const fs::path folder = RunStore::runFolderOf(dbPath, id);
    fs::create_directories(folder);
    StoredBundle b;
    b.kind = "best";
    b.path = (folder / "best.safetensors").string();
    b.epoch = facts.bundleEpoch;
    fs::copy_file(facts.bundleFile, b.path, fs::copy_options::overwrite_existing);
    b.sha256 = sha256File(b.path, &b.size);
    RunStore(dbPath).setBundle(id, b);
    return b.path;
}

}  // namespace

RecordedEnsembleRun recordEnsembleRun(RunEngine& run, const EnsembleCurve& curve,
                                      const RecordingOptions& options, const std::string& name,
                                      const EnsembleRunFacts& facts,
                                      const RunRecorder::Warn& warn) {
    RecordedEnsembleRun out;
    if (!options.enabled) return out;
    const int n = run.models();
    RecordingOptions o = options;
    o.name = name + " ensemble of " + std::to_string(n);
    RunRecorder rec(o, warn);
    std::vector<int64_t> members;
    for (int m = 0; m < n; ++m)
        if (run.recordedRunIdOf(m) > 0) members.push_back(run.recordedRunIdOf(m));
    try {
        Experiment e = run.experiment();
        e.name = o.name;
        rec.begin(e, run.data(), run.session().backend().info(),
                  run.network().parameterCount() * size_t(n), e.training.epochs,
                  monitorName(run.keeper().monitor()));
        for (const EpochReport& r : curve.epochs()) rec.epoch(r);
        rec.trading(facts.trading);
        if (rec.recording() && !facts.bundleFile.empty())
            out.modelFile = keepBundle(rec.dbPath(), rec.runId(), facts);
        rec.finish(runstatus::kCompleted);
        if (rec.recording()) RunStore(rec.dbPath()).setEnsembleMembers(rec.runId(), members);
    } catch (const std::exception& ex) {
        warn(std::string("the ensemble's run: ") + ex.what());
    }
    if (!rec.recording()) return {};  // its recording failed: no run, nor a model of its
    out.id = rec.runId();
    return out;
}

}  // namespace nnwb
