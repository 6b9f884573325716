#include "app/core/KeptEnsembleJob.h"

#include <exception>

#include "app/core/BackgroundJobs.h"
#include "app/core/CallQueue.h"
#include "app/runs/Sha256.h"
#include "model/Predictor.h"
#include "model/data/BarImporter.h"
#include "model/ensemble/EnsembleBundle.h"
#include "model/ensemble/EnsemblePrediction.h"

namespace nnwb {

KeptEnsembleJob::KeptEnsembleJob(QObject* parent)
    : QObject(parent), calls_(std::make_shared<CallQueue>(this, "runQueuedCalls")) {}

KeptEnsembleJob::~KeptEnsembleJob() {
    calls_->close();
}

KeptEnsembleFigures KeptEnsembleJob::measureNow(const std::string& bundle, const std::string& data,
                                                const std::string& trainedSha256) {
    KeptEnsembleFigures f;
    try {
        const EnsembleBundle b = EnsembleBundle::load(bundle);
        f.members = b.size();
        if (b.common.validationFirst == 0) {
            f.error = QStringLiteral("%1: no validation part").arg(QString::fromStdString(bundle));
            return f;
        }
        const LoadResult loaded = loadBarFile(data);
        if (!loaded.ok) {
            f.error = QString::fromStdString(loaded.error);
            return f;
        }
        f.dataChanged = !trainedSha256.empty() && sha256File(data) != trainedSha256;
        const PredictionInputs in = buildPredictionInputs(
            b.common, loaded.bars, b.common.validationFirst, b.common.validationLast);
        EnsemblePredictor predictor(b, "cpu");
        const PredictionResult r = predictor.run(in, loaded.bars);
        f.validation = r.metrics;
        f.labelled = r.labelled;
    } catch (const std::exception& e) {
        f.error = QString::fromStdString(e.what());
    }
    return f;
}

void KeptEnsembleJob::measure(const QString& bundle, const QString& data,
                              const QString& trainedSha256,
                              std::function<void(const KeptEnsembleFigures&)> done) {
    BackgroundJobs::instance().post([calls = calls_, b = bundle.toStdString(),
                                     d = data.toStdString(), sha = trainedSha256.toStdString(),
                                     done = std::move(done)] {
        KeptEnsembleFigures f = measureNow(b, d, sha);
        // Runs on this object's thread only while it lives (the destructor closes calls).
        calls->post([done, f = std::move(f)] { done(f); });
    });
}

void KeptEnsembleJob::runQueuedCalls() {
    calls_->run();
}

}  // namespace nnwb
