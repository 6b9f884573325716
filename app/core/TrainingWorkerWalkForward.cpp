// TrainingWorker's walk-forward validation: every fold of the experiment through
// app/engine/WalkForward (the code path of nnwb-cli walkforward), on the worker thread, its
// events passed on as the worker's queued signals; Stop and Pause act through the run's
// TrainControl as in a single run. Under scheme cpcv every split in turn (app/engine/Cpcv.h),
// then the paths stitched and traded (app/engine/CpcvFigures.h). With training.ensemble N > 1
// every fold trains the N seeds as one ensemble (app/ensemble/EnsembleWalkForward.h, as nnwb-cli
// walkforward --population N --vary seed=S..S+N-1 --ensemble), its stitched series the
// ensemble's with the agreement per bar, the fold's curves the ensemble's epochs (its members'
// as member epochs) and the outcome the CLI's comparison of the ensemble with its members.
#include <exception>
#include <memory>
#include <stdexcept>

#include "app/core/TrainingWorker.h"
#include "app/engine/Cpcv.h"
#include "app/engine/CpcvFigures.h"
#include "app/engine/WalkForward.h"
#include "app/ensemble/EnsembleKeep.h"
#include "app/ensemble/EnsembleWalkForward.h"
#include "model/FigureText.h"
#include "model/RunFailure.h"

namespace nnwb {

namespace {

// The folds' events as the worker's signals.
struct WorkerFoldEvents : WalkForwardEvents {
    TrainingWorker* worker;
    std::function<void()> between;
    std::function<RunInfo(RunEngine&)> info;
    // An ensemble's folds: its members' epoch reports go out as memberEpochFinished (thin
    // lines), the ensemble's own epochs as epochFinished (the fold's curves).
    bool ensemble = false;
    WorkerFoldEvents(TrainingWorker* w, std::function<void()> b,
                     std::function<RunInfo(RunEngine&)> i)
        : worker(w), between(std::move(b)), info(std::move(i)) {}
    void foldStarted(const FoldRecord& r) override { Q_EMIT worker->foldStarted(r); }
    void foldEnded(const FoldRecord& r) override { Q_EMIT worker->foldEnded(r); }
    void started(RunEngine& run) override { Q_EMIT worker->runStarted(info(run)); }
    void progress(const TrainingProgress& p) override { Q_EMIT worker->progress(p); }
    void epoch(const EpochReport& r) override {
        if (!ensemble) {
            Q_EMIT worker->epochFinished(r);
            return;
        }
        EpochReport member = r;
        member.validationOutputs.reset();
        Q_EMIT worker->memberEpochFinished(member);
    }
    void betweenEpochs() override { between(); }
    void warning(const std::string& m) override {
        Q_EMIT worker->recordingWarning(QString::fromStdString(m));
    }
};

// The cpcv plan's splits in turn, stitched into paths and traded; the result's end, error and
// split records as a walk-forward's, the paths in `cpcv`.
WalkForwardResult runCpcv(WalkForward& wf, const RecordingOptions& recording,
                          WalkForwardEvents& events, TrainControl* control,
                          std::shared_ptr<const CpcvOutcome>& cpcv) {
    auto out = std::make_shared<CpcvOutcome>();
    out->result = stitchCpcv(wf.data().cpcv, runCpcvSplits(wf, recording, events, control));
    out->evaluation = evaluateCpcvPaths(out->result, *wf.data().bars, wf.experiment().trading);
    WalkForwardResult r;
    r.end = out->result.end;
    r.error = out->result.error;
    r.folds = out->result.splits;
    cpcv = std::move(out);
    return r;
}

QString cpcvSummary(const CpcvOutcome& o) {
    return QObject::tr("CPCV, %1 splits, %2 paths; %3")
        .arg(o.result.splits.size())
        .arg(o.result.paths.size())
        .arg(QString::fromStdString(cpcvVerdict(o.evaluation)));
}

// The folds of `wf`: each trains `e`, or with training.ensemble N > 1 its N seeds as one
// ensemble (not under cpcv, as the CLI refuses --ensemble there), whose comparison with its
// members goes to `summary`.
WalkForwardResult runFolds(WalkForward& wf, const Experiment& e, const RecordingOptions& recording,
                           WorkerFoldEvents& events, TrainControl* control,
                           std::shared_ptr<const nlohmann::json>& summary) {
    const int n = e.training.ensemble;
    if (n <= 1) return wf.run(recording, events, control);
    events.ensemble = true;
    TrainingWorker* worker = events.worker;
    const EnsembleWalkForwardResult r =
        runEnsembleFolds(wf, seedEnsembleMembers(e, n, "training.ensemble"), recording, events,
                         control, [worker](const EpochReport& ensembleEpoch) {
                             Q_EMIT worker->epochFinished(ensembleEpoch);
                         });
    summary = std::make_shared<const nlohmann::json>(
        ensembleWalkForwardJson(r, *wf.data().bars, e.trading));
    return r.ensemble;
}

QString outcomeSummary(const WalkForwardResult& r, int ensemble) {
    const EpochMetrics& m = r.stitched;
    QString text = QObject::tr("walk-forward, %1 folds").arg(r.folds.size());
    // ", an ensemble of N seeds" made the line 808 px, shortened at 1280x720 (677 px of room).
    if (ensemble > 1) text += QObject::tr(" × %1 seeds").arg(ensemble);
    if (m.samples == 0) return text;
    return text + QObject::tr("; out of sample: loss %1, accuracy %2, missed %3 %")
                      .arg(m.loss, 0, 'f', 5)
                      .arg(QString::fromStdString(accuracyText(m.accuracyPct, m.signalCount)))
                      .arg(m.missedPct, 0, 'f', 2);
}

}  // namespace

void TrainingWorker::walkForward(const RecordingOptions& recording) {
    running_ = true;
    std::unique_ptr<WalkForward> wf;
    try {
        wf = std::make_unique<WalkForward>(experiment_);
        if (experiment_.training.ensemble > 1 && wf->data().isCpcv())
            throw std::invalid_argument(
                "training.ensemble: an ensemble is not trained under validation.scheme cpcv "
                "(as nnwb-cli walkforward --ensemble)");
    } catch (const std::exception& e) {
        runFailed_ = true;
        finish(RunEnd::Failed, QString::fromStdString(describeRunFailure(e, true)));
        return runDeferred();
    }
    WalkForwardPlan plan;
    plan.bars = wf->data().bars;
    plan.fractalRule = wf->data().config.fractalRule();
    plan.plan = wf->plan();
    plan.fileName = QString::fromStdString(wf->data().fileName);
    plan.scheme = QString::fromStdString(experiment_.validation.scheme);
    plan.cpcv = wf->data().cpcv;
    Q_EMIT walkForwardPlanned(plan);
    WorkerFoldEvents events(
        this, [this] { calls_.run(); }, [](RunEngine& run) { return runInfo(run, false); });
    WalkForwardResult result;
    std::shared_ptr<const CpcvOutcome> cpcv;
    std::shared_ptr<const nlohmann::json> ensembleSummary;
    try {
        result = wf->data().isCpcv() ? runCpcv(*wf, recording, events, control_.get(), cpcv)
                                     : runFolds(*wf, experiment_, recording, events, control_.get(),
                                                ensembleSummary);
    } catch (const std::exception& e) {
        result.end = RunEnd::Failed;
        result.error = describeRunFailure(e, true);
    }
    WalkForwardOutcome outcome;
    outcome.end = result.end;
    outcome.error = QString::fromStdString(result.error);
    outcome.folds = result.folds;
    outcome.outOfSample = std::make_shared<const SignalSeries>(std::move(result.outOfSample));
    outcome.stitched = result.stitched;
    if (cpcv) outcome.outOfSample.reset();
    outcome.cpcv = cpcv;
    outcome.ensembleSummary = ensembleSummary;
    Q_EMIT walkForwardFinished(outcome);
    runFailed_ = result.end == RunEnd::Failed;
    finish(result.end, result.end == RunEnd::Failed      ? outcome.error
                       : result.end != RunEnd::Completed ? QString()
                       : cpcv                            ? cpcvSummary(*cpcv)
                              : outcomeSummary(result, experiment_.training.ensemble));
    runDeferred();
}

}  // namespace nnwb
