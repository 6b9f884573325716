// Measures an ensemble bundle's kept ensemble on its validation part in the background
// (BackgroundJobs), for Open Model on an ensemble run: the bundle predicts the bars of its
// training's validation range on the run's price file through the library code of `nnwb-cli
// predict --model B --from F --to L` (buildPredictionInputs, EnsemblePredictor). The result
// comes back through a CallQueue to the callback given; the destructor drops results still to
// come. Create and use on one thread (the GUI's); the work runs on a BackgroundJobs thread.
#pragma once

#include <functional>
#include <memory>

#include <QObject>
#include <QString>

#include "model/Metrics.h"

namespace nnwb {

class CallQueue;

struct KeptEnsembleFigures {
    QString error;            // empty: measured
    EpochMetrics validation;  // the combined rows' figures on the validation part
    size_t labelled = 0;      // rows with a known label (0: no confusion matrix)
    size_t members = 0;
};

class KeptEnsembleJob : public QObject {
    Q_OBJECT
public:
    explicit KeptEnsembleJob(QObject* parent = nullptr);
    ~KeptEnsembleJob() override;

    // Predicts the validation part of ensemble bundle `bundle` on price file `data` (on the
    // CPU, predict's default device); `done` then runs on this object's thread.
    void measure(const QString& bundle, const QString& data,
                 std::function<void(const KeptEnsembleFigures&)> done);

    // The work itself (any thread).
    static KeptEnsembleFigures measureNow(const std::string& bundle, const std::string& data);

private Q_SLOTS:
    void runQueuedCalls();

private:
    std::shared_ptr<CallQueue> calls_;
};

}  // namespace nnwb
