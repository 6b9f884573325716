// Measures an ensemble bundle's kept ensemble on its validation part in the background
// (BackgroundJobs), for Open Model on an ensemble run: the bundle predicts the bars of its
// training's validation range on the run's price file through the library code of `nnwb-cli
// predict --model B --from F --to L` (buildPredictionInputs, EnsemblePredictor), on the file as
// it is now: whether it is still the file the run trained on is told by its SHA-256. The result
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
    // The price file is no longer the one the run trained on (its SHA-256 differs from the
    // run's): the figures are those on the file as it is now.
    bool dataChanged = false;
};

class KeptEnsembleJob : public QObject {
    Q_OBJECT
public:
    explicit KeptEnsembleJob(QObject* parent = nullptr);
    ~KeptEnsembleJob() override;

    // Predicts the validation part of ensemble bundle `bundle` on price file `data` (on the
    // CPU, predict's default device) and compares the file's SHA-256 with `trainedSha256`, the
    // run's (empty: not compared); `done` then runs on this object's thread.
    void measure(const QString& bundle, const QString& data, const QString& trainedSha256,
                 std::function<void(const KeptEnsembleFigures&)> done);

    // The work itself (any thread).
    static KeptEnsembleFigures measureNow(const std::string& bundle, const std::string& data,
                                          const std::string& trainedSha256);

private Q_SLOTS:
    void runQueuedCalls();

private:
    std::shared_ptr<CallQueue> calls_;
};

}  // namespace nnwb
