#include "app/core/PredictJob.h"

#include <stdexcept>

#include "app/core/BackgroundJobs.h"
#include "app/core/CallQueue.h"
#include "model/data/BarImporter.h"

namespace nnwb {

PredictOutcome predictPriceFile(const ModelBundle& bundle, const std::string& device,
                                const std::string& path, const std::atomic<bool>& cancelled) {
    PredictOutcome o;
    o.path = QString::fromStdString(path);
    auto step = [&cancelled] {
        if (cancelled) throw std::runtime_error("cancelled");
    };
    try {
        LoadResult loaded = loadBarFile(path);
        if (!loaded.ok) throw PredictionInputError(loaded.error);
        step();
        auto bars = std::make_shared<const BarSeries>(std::move(loaded.bars));
        const PredictionInputs in = buildPredictionInputs(bundle, *bars);
        step();
        Predictor predictor(bundle, device);
        step();
        o.result = std::make_shared<const PredictionResult>(predictor.run(in, *bars));
        o.bars = std::move(bars);
        o.ok = true;
    } catch (const std::exception& e) {
        o.error = QString::fromStdString(e.what());
    }
    return o;
}

PredictJob::PredictJob(std::shared_ptr<const ModelBundle> bundle, const QString& device,
                       QObject* parent)
    : QObject(parent),
      bundle_(std::move(bundle)),
      device_(device),
      calls_(std::make_shared<CallQueue>(this, "runQueuedCalls")) {}

PredictJob::~PredictJob() {
    cancel();
    calls_->close();
}

bool PredictJob::start(const QString& path) {
    if (busy()) return false;
    auto cancelled = std::make_shared<std::atomic<bool>>(false);
    cancelled_ = cancelled;
    BackgroundJobs::instance().post([calls = calls_, bundle = bundle_, cancelled,
                                     device = device_.toStdString(), p = path.toStdString(), this] {
        PredictOutcome o = predictPriceFile(*bundle, device, p, *cancelled);
        // Runs on this object's thread only while it lives (the destructor closes calls).
        calls->post([this, cancelled, o = std::move(o)] {
            if (*cancelled) return;  // cancelled after the work ended
            cancelled_.reset();
            Q_EMIT finished(o);
        });
    });
    return true;
}

void PredictJob::cancel() {
    if (cancelled_) *cancelled_ = true;
    cancelled_.reset();
}

void PredictJob::runQueuedCalls() {
    calls_->run();
}

}  // namespace nnwb
