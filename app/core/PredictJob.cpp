#include "app/core/PredictJob.h"

#include <chrono>
#include <stdexcept>

#include "app/core/BackgroundJobs.h"
#include "app/core/CallQueue.h"
#include "model/data/BarImporter.h"
#include "model/ensemble/EnsemblePrediction.h"
#include "model/trading/PredictionSignals.h"
#include "model/trading/TradingEvaluation.h"

namespace nnwb {

PredictOutcome predictPriceFile(const ModelBundle& bundle, const std::string& device,
                                const std::string& path, const std::atomic<bool>& cancelled,
                                const std::function<void(size_t, size_t)>& rowsDone,
                                const TradingSettings& trading, const EnsembleBundle* ensemble) {
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
        auto afterBatch = [&](size_t done, size_t total) {
            if (rowsDone) rowsDone(done, total);
            step();  // a check point after every batch: Cancel stops a long file here
        };
        if (ensemble) {
            EnsemblePredictor predictor(*ensemble, device);
            step();
            o.result =
                std::make_shared<const PredictionResult>(predictor.run(in, *bars, afterBatch));
        } else {
            Predictor predictor(bundle, device);
            step();
            o.result =
                std::make_shared<const PredictionResult>(predictor.run(in, *bars, afterBatch));
        }
        step();
        try {  // a file the model ran on but that cannot be traded keeps its predictions
            o.trading = std::make_shared<const TradingReport>(
                evaluateTrading(*bars, signalsOf(*o.result), trading));
        } catch (const TradingInputError& e) {
            o.tradingError = QString::fromStdString(e.what());
        }
        o.bars = std::move(bars);
        o.ok = true;
    } catch (const std::exception& e) {
        o.error = QString::fromStdString(e.what());
    }
    return o;
}

PredictJob::PredictJob(std::shared_ptr<const ModelBundle> bundle, const QString& device,
                       const TradingSettings& trading, QObject* parent)
    : QObject(parent),
      bundle_(std::move(bundle)),
      device_(device),
      trading_(trading),
      calls_(std::make_shared<CallQueue>(this, "runQueuedCalls")) {}

PredictJob::~PredictJob() {
    cancel();
    calls_->close();
}

bool PredictJob::start(const QString& path) {
    if (busy()) return false;
    auto cancelled = std::make_shared<std::atomic<bool>>(false);
    cancelled_ = cancelled;
    path_ = path;
    Q_EMIT progress(0, 0);
    BackgroundJobs::instance().post([calls = calls_, bundle = bundle_, ensemble = ensemble_,
                                     cancelled, device = device_.toStdString(),
                                     p = path.toStdString(), trading = trading_, this] {
        using Clock = std::chrono::steady_clock;
        Clock::time_point last;
        auto rowsDone = [&](size_t done, size_t total) {
            const Clock::time_point now = Clock::now();
            if (done < total && now - last < std::chrono::milliseconds(100)) return;
            last = now;
            // Runs on this object's thread only while it lives (the destructor closes calls).
            calls->post([this, cancelled, done, total] {
                if (!*cancelled) Q_EMIT progress(qint64(done), qint64(total));
            });
        };
        PredictOutcome o =
            predictPriceFile(*bundle, device, p, *cancelled, rowsDone, trading, ensemble.get());
        calls->post([this, cancelled, o = std::move(o)] {
            if (*cancelled) return;  // cancelled after the work ended
            cancelled_.reset();
            path_.clear();
            Q_EMIT finished(o);
        });
    });
    return true;
}

void PredictJob::setEnsemble(std::shared_ptr<const EnsembleBundle> ensemble) {
    ensemble_ = std::move(ensemble);
}

void PredictJob::cancel() {
    if (cancelled_) *cancelled_ = true;
    cancelled_.reset();
    path_.clear();
}

void PredictJob::runQueuedCalls() {
    calls_->run();
}

}  // namespace nnwb
