// Applies a model bundle to a price file in the background (BackgroundJobs): reads the file,
// builds the samples as training did and runs the network on its own backend. Progress (rows
// done of all) and the outcome come back through a CallQueue as progress() and finished();
// cancel() and the destructor stop the work at its next check point (after a step or a batch)
// and drop what it would still report, so the widget that owns the job is never called after
// it is gone. The predicted signals are traded with the job's trading settings, as
// `nnwb-cli predict --trading` does. Create and use on one thread (the GUI's); the work runs on a
// BackgroundJobs thread.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>

#include <QObject>
#include <QString>

#include "model/ModelBundle.h"
#include "model/Predictor.h"
#include "model/ensemble/EnsembleBundle.h"
#include "model/trading/TradingReport.h"
#include "model/trading/TradingSettings.h"

namespace nnwb {

class CallQueue;

struct PredictOutcome {
    bool ok = false;
    QString error, path;
    std::shared_ptr<const BarSeries> bars;
    std::shared_ptr<const PredictionResult> result;
    // The predicted signals traded over the file (evaluateTrading); null with tradingError
    // set when they cannot be (e.g. no price point for the symbol).
    std::shared_ptr<const TradingReport> trading;
    QString tradingError;
};

class PredictJob : public QObject {
    Q_OBJECT
public:
    PredictJob(std::shared_ptr<const ModelBundle> bundle, const QString& device,
               const TradingSettings& trading = TradingSettings(), QObject* parent = nullptr);
    ~PredictJob() override;

    // Reads `path` and runs the model on it; false (nothing started) while one is running.
    bool start(const QString& path);
    // Stops the running prediction at its next check point (after a step or a batch of rows)
    // and drops its progress and outcome; busy() is false at once.
    void cancel();
    bool busy() const { return cancelled_ != nullptr; }
    const ModelBundle& bundle() const { return *bundle_; }
    // Predicts with this ensemble (docs/ensembles.md) instead; its common part is bundle().
    void setEnsemble(std::shared_ptr<const EnsembleBundle> ensemble);
    const EnsembleBundle* ensemble() const { return ensemble_.get(); }
    // The file of the running prediction (empty: none).
    const QString& path() const { return path_; }

Q_SIGNALS:
    // The running prediction: `total` 0 while the file is read and its samples built, then
    // `done` of `total` rows run through the model (at most every 100 ms, and the last batch).
    void progress(qint64 done, qint64 total);
    void finished(const nnwb::PredictOutcome& outcome);

private Q_SLOTS:
    void runQueuedCalls();

private:
    std::shared_ptr<const ModelBundle> bundle_;
    std::shared_ptr<const EnsembleBundle> ensemble_;
    QString device_;
    TradingSettings trading_;
    QString path_;
    std::shared_ptr<CallQueue> calls_;
    std::shared_ptr<std::atomic<bool>> cancelled_;  // the running prediction's (null: none)
};

// The work of one prediction (any thread): reads `path` and runs `bundle` on `device`, calling
// `rowsDone` (if given) after each batch with the rows done and the rows in all, then trades
// the signals with `trading`. `cancelled` is looked at between the steps and after each
// batch: once set, the work stops there and the outcome is the error "cancelled".
// With `ensemble`, its members run and are combined (model/ensemble/EnsemblePrediction.h;
// `bundle` is then its common part): the rows carry the agreement and spread.
PredictOutcome predictPriceFile(const ModelBundle& bundle, const std::string& device,
                                const std::string& path, const std::atomic<bool>& cancelled,
                                const std::function<void(size_t, size_t)>& rowsDone = {},
                                const TradingSettings& trading = TradingSettings(),
                                const EnsembleBundle* ensemble = nullptr);

}  // namespace nnwb
