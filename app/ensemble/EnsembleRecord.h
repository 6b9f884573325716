// A seed ensemble recorded as one run of the run store (docs/ensembles.md, "One run"):
// EnsembleCurve turns the members' epoch reports (with their validation outputs) into the
// ensemble's own epochs, and recordEnsembleRun stores them as a run whose member runs name it
// (RunStore::setEnsembleMembers), with the kept ensemble's trading figures and bundle.
// Used on the thread that trains the population (the CLI's main thread, the window's training
// worker); Qt-free.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/engine/RunEngine.h"
#include "app/runs/RunRecorder.h"
#include "model/Loss.h"
#include "model/Monitor.h"
#include "model/SampleSet.h"
#include "model/Trainer.h"

namespace nnwb {

// Epoch e of the ensemble: validation figures of the mean of every member's outputs after its
// epoch e (a member that stopped earlier: after its last epoch), training figures the
// members' mean (loss, accuracy, missed of the members that trained epoch e).
class EnsembleCurve {
public:
    // `validation`: the run's validation part (must outlive the curve; may be empty).
    EnsembleCurve(size_t members, const SampleSet& validation, LossKind loss);
    // A member's epoch report (report.model), in the order the population reports them.
    void add(const EpochReport& report);
    // The ensemble's epochs so far (the last one included).
    std::vector<EpochReport> epochs() const;
    // The mean of the members' latest validation outputs (3 per sample, as combineOutputs
    // averages them); null until every member has reported outputs.
    std::shared_ptr<const std::vector<float>> meanOutputs() const;

private:
    EpochReport combined(int epoch, const std::vector<EpochReport>& reports) const;
    size_t members_;
    const SampleSet& validation_;
    LossKind loss_;
    std::vector<std::shared_ptr<const std::vector<float>>> latest_;  // per member
    std::vector<EpochReport> done_;
    std::vector<EpochReport> current_;  // the epoch being reported
};

// The ensemble's epochs as a run's curves are drawn (the window's Metrics charts): each one
// once its members have reported it, its best epoch on the run's monitor, with the members'
// mean validation outputs (for the price chart's signals).
class EnsembleEpochFeed {
public:
    EnsembleEpochFeed(EnsembleCurve& curve, Monitor monitor) : curve_(curve), monitor_(monitor) {}
    // A member's epoch report, passed on to the curve.
    void add(const EpochReport& r);
    // The ensemble's latest epoch once a member has reported since the last call (false:
    // nothing new).
    bool next(EpochReport& e);

private:
    EnsembleCurve& curve_;
    Monitor monitor_;
    bool pending_ = false;
    int bestEpoch_ = 0;
    double best_ = 0;
};

// What the ensemble run stores beside its epochs.
struct EnsembleRunFacts {
    std::string bundleFile;  // the ensemble bundle written (copied into the run's folder)
    int bundleEpoch = 0;     // the largest member epoch
    nlohmann::json trading;  // StoredRun::trading of the kept ensemble; null: none
};

// The ensemble's recorded run.
struct RecordedEnsembleRun {
    int64_t id = 0;         // 0 when recording is off or failed
    std::string modelFile;  // its "best" model: the bundle copied into its folder ("": none)
};

// Records the ensemble of the trained population `run` as one run named
// "<name> ensemble of N" with `curve`'s epochs, and links the members' recorded runs to it.
// Failures are warned about, not thrown.
RecordedEnsembleRun recordEnsembleRun(RunEngine& run, const EnsembleCurve& curve,
                                      const RecordingOptions& options, const std::string& name,
                                      const EnsembleRunFacts& facts, const RunRecorder::Warn& warn);

}  // namespace nnwb
