#include "model/Monitor.h"

#include <stdexcept>

namespace nnwb {

std::string monitorName(Monitor m) {
    switch (m) {
        case Monitor::ValidationLoss:
            return "validation_loss";
        case Monitor::ValidationAccuracy:
            return "validation_accuracy";
        case Monitor::ValidationMissed:
            return "validation_missed";
        case Monitor::TrainingLoss:
            return "training_loss";
    }
    return "validation_loss";
}

Monitor monitorFromName(const std::string& name) {
    for (Monitor m : {Monitor::ValidationLoss, Monitor::ValidationAccuracy,
                      Monitor::ValidationMissed, Monitor::TrainingLoss})
        if (monitorName(m) == name) return m;
    throw std::invalid_argument("'" + name +
                                "' is not one of validation_loss, validation_accuracy, "
                                "validation_missed, training_loss");
}

std::string monitorLabel(Monitor m) {
    switch (m) {
        case Monitor::ValidationLoss:
            return "validation loss";
        case Monitor::ValidationAccuracy:
            return "validation accuracy %";
        case Monitor::ValidationMissed:
            return "validation missed %";
        case Monitor::TrainingLoss:
            return "training loss";
    }
    return "validation loss";
}

Monitor effectiveMonitor(Monitor wanted, bool hasValidation, bool taskMetrics) {
    if (!hasValidation) return Monitor::TrainingLoss;
    if (!taskMetrics &&
        (wanted == Monitor::ValidationAccuracy || wanted == Monitor::ValidationMissed))
        return Monitor::ValidationLoss;
    return wanted;
}

bool higherIsBetter(Monitor m) {
    return m == Monitor::ValidationAccuracy;
}

double monitorValue(Monitor m, const EpochMetrics& train, const EpochMetrics& validation) {
    switch (m) {
        case Monitor::ValidationLoss:
            return validation.loss;
        case Monitor::ValidationAccuracy:
            return validation.accuracyPct;
        case Monitor::ValidationMissed:
            return validation.missedPct;
        case Monitor::TrainingLoss:
            return train.loss;
    }
    return validation.loss;
}

}  // namespace nnwb
