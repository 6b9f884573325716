// Applies a model bundle to a price file in the background (BackgroundJobs): reads the file,
// builds the samples as training did and runs the network on its own backend. The outcome
// comes back through a CallQueue as finished(); cancel() and the destructor drop it, so the
// widget that owns the job is never called after it is gone. Create and use on one thread
// (the GUI's); the work runs on a BackgroundJobs thread.
#pragma once

#include <atomic>
#include <memory>

#include <QObject>
#include <QString>

#include "model/ModelBundle.h"
#include "model/Predictor.h"

namespace nnwb {

class CallQueue;

struct PredictOutcome {
    bool ok = false;
    QString error, path;
    std::shared_ptr<const BarSeries> bars;
    std::shared_ptr<const PredictionResult> result;
};

class PredictJob : public QObject {
    Q_OBJECT
public:
    PredictJob(std::shared_ptr<const ModelBundle> bundle, const QString& device,
               QObject* parent = nullptr);
    ~PredictJob() override;

    // Reads `path` and runs the model on it; false (nothing started) while one is running.
    bool start(const QString& path);
    // Drops the running prediction's outcome (the work stops at its next step).
    void cancel();
    bool busy() const { return cancelled_ != nullptr; }
    const ModelBundle& bundle() const { return *bundle_; }

Q_SIGNALS:
    void finished(const nnwb::PredictOutcome& outcome);

private Q_SLOTS:
    void runQueuedCalls();

private:
    std::shared_ptr<const ModelBundle> bundle_;
    QString device_;
    std::shared_ptr<CallQueue> calls_;
    std::shared_ptr<std::atomic<bool>> cancelled_;  // the running prediction's (null: none)
};

// The work of one prediction (any thread): reads `path` and runs `bundle` on `device`;
// `cancelled` is looked at between the steps (the outcome is then an error "cancelled").
PredictOutcome predictPriceFile(const ModelBundle& bundle, const std::string& device,
                                const std::string& path, const std::atomic<bool>& cancelled);

}  // namespace nnwb
