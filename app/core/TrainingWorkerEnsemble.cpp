// TrainingWorker's ensemble run (training.ensemble = N > 1, docs/ensembles.md): the N seeds
// train as one population on the run engine, the same code path as nnwb-cli train --population
// N --vary seed=S..S+N-1 --ensemble (app/ensemble/): each member's epochs go out as
// memberEpochFinished(), the ensemble's own (EnsembleCurve) as epochFinished(); at the end the
// members' kept weights become one ensemble bundle, recorded as one run with its member runs.
#include <exception>
#include <memory>

#include <QTemporaryDir>

#include "app/core/QtText.h"
#include "app/core/TrainingWorker.h"
#include "app/ensemble/EnsembleKeep.h"
#include "app/ensemble/EnsembleRecord.h"

namespace nnwb {

namespace {

EnsembleKept keptOf(const KeptEnsemble& k, int64_t runId) {
    EnsembleKept out;
    out.members = int(k.bundle.size());
    out.runId = runId;
    const PredictionResult& r = k.validation.combined;
    if (r.rows.empty()) return out;
    out.firstBar = r.rows.front().bar;
    for (const PredictionRow& row : r.rows) {
        out.outputs.insert(out.outputs.end(), row.outputs.begin(), row.outputs.end());
        out.agreement.push_back(row.agreement);
    }
    out.validationLoss = r.metrics.loss;
    out.validation = r.metrics;
    out.taskMetrics = r.labelled > 0;  // a bundle predicts [none, buy, sell]
    out.meanAgreement = meanAgreement(r);
    return out;
}

}  // namespace

void TrainingWorker::trainEnsemble(int epochs, const RecordingOptions& recording) {
    running_ = true;
    RunEngine& run = *engine_;
    run.trainer().setKeepValidationOutputs(true);
    EnsembleCurve curve(size_t(run.models()), run.data().split.validation,
                        experiment_.training.loss);
    EnsembleEpochFeed ensemble(curve, run.keeper().monitor());
    RecordingOptions record = recording;
    // The members' runs share one id, as nnwb-cli train --ensemble gives them.
    if (record.comparison.empty()) record.comparison = "ensemble-" + newRunUuid().substr(0, 12);
    auto emitEnsembleEpoch = [this, &ensemble] {
        EpochReport e;
        if (ensemble.next(e)) Q_EMIT epochFinished(e);
    };
    RunEventHandlers events;
    events.onStarted = [this](RunEngine&) { Q_EMIT runStarted(runInfo(false)); };
    events.onProgress = [this](const TrainingProgress& p) { Q_EMIT progress(p); };
    events.onEpoch = [this, &ensemble](const EpochReport& r) {
        ensemble.add(r);
        EpochReport member = r;
        member.validationOutputs.reset();
        Q_EMIT memberEpochFinished(member);
    };
    events.onBetween = [this, emitEnsembleEpoch] {
        emitEnsembleEpoch();
        calls_.run();
    };
    events.onWarning = [this](const std::string& m) { Q_EMIT recordingWarning(q(m)); };
    const RunResult result = run.train(epochs, StartMode::Restart, record, events, control_.get(),
                                       /*sentenceErrors=*/true);
    emitEnsembleEpoch();
    running_ = false;
    QString failed;
    for (int m = 0; m < run.models() && failed.isEmpty(); ++m)
        if (run.resultOf(m).end == RunEnd::Failed)
            failed = tr("Member %1 (seed %2) failed: %3. The ensemble was not kept.")
                         .arg(m + 1)
                         .arg(run.experimentOf(m).training.seed)
                         .arg(q(run.resultOf(m).error));
    QString summary;
    if (failed.isEmpty()) {
        try {
            summary = keepEnsemble(curve, record);
        } catch (const std::exception& e) {
            failed = tr("The ensemble was not kept: %1").arg(q(e.what()));
        }
    }
    if (failed.isEmpty())
        finish(result.end, summary);
    else
        fail(failed);
    runDeferred();
}

QString TrainingWorker::keepEnsemble(const EnsembleCurve& curve, const RecordingOptions& record) {
    RunEngine& run = *engine_;
    for (int m = 0; m < run.models(); ++m)
        if (run.keeperOf(m).result().empty())
            return tr("No epoch completed: the ensemble was not kept.");
    // The bundle stays in a folder of the worker's (the window's model until the next run;
    // recordEnsembleRun copies it into the ensemble's run folder).
    auto dir = std::make_unique<QTemporaryDir>();
    if (!dir->isValid()) throw std::runtime_error("no temporary folder for the ensemble bundle");
    const std::string file = dir->filePath(QStringLiteral("ensemble.safetensors")).toStdString();
    const KeptEnsemble k = keepEnsembleBundle(run, file, experiment_.name);
    const RecordedEnsembleRun recorded = recordEnsembleRun(
        run, curve, record, experiment_.name, {file, k.bundle.common.epoch, k.trading},
        [this](const std::string& m) { Q_EMIT recordingWarning(q(m)); });
    const int64_t id = recorded.id;
    ensembleDir_ = std::move(dir);
    EnsembleKept kept = keptOf(k, id);
    // The recorded run's model file (Open Model on the run takes it: its exports name it),
    // else the worker's copy.
    kept.file = recorded.modelFile.empty() ? file : recorded.modelFile;
    // The population's network shows no Score matrices: its best member's, as one network.
    const AttentionSnapshotPtr scores = viewBestMember(k.bundle, kept.attentionOf);
    Q_EMIT ensembleKept(kept);
    if (scores) Q_EMIT attentionReady(scores);
    QString text = tr("ensemble of %1 seeds").arg(kept.members);
    if (!kept.agreement.empty())
        text += tr(": validation loss %1, mean agreement %2")
                    .arg(kept.validationLoss, 0, 'f', 6)
                    .arg(kept.meanAgreement, 0, 'f', 3);
    if (id > 0) text += tr(" (run #%1)").arg(id);
    return text;
}

AttentionSnapshotPtr TrainingWorker::viewBestMember(const EnsembleBundle& bundle,
                                                    std::string& label) {
    memberView_.reset();
    const size_t m = bestAndMedianMember(bundle).first;
    AttentionSnapshotPtr scores;
    try {
        // The member's own settings (its seed) on the run's data, its kept epoch's weights.
        memberView_ =
            std::make_unique<RunEngine>(engine_->experimentOf(int(m)), engine_->sharedData());
        memberView_->adoptWeights(bundle.weights[m], bundle.members[m].epoch);
        scores = memberView_->attentionSnapshot(scoreSample_.load(), false);
    } catch (const std::exception&) {
        scores = nullptr;  // no heatmaps then; the ensemble is kept all the same
    }
    if (!scores) {  // no attention layer: nothing to show, the device freed
        memberView_.reset();
        return nullptr;
    }
    label = tr("member %1 of %2, seed %3")
                .arg(m + 1)
                .arg(bundle.size())
                .arg(bundle.members[m].seed)
                .toStdString();
    return scores;
}

}  // namespace nnwb
