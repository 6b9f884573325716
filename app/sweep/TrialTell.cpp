#include "app/sweep/TrialTell.h"

#include <cmath>

#include "app/runs/StoredRun.h"
#include "app/sweep/SweepHistory.h"

namespace nnwb {

using sweep::TrialState;

namespace {

// The second objective: an end figure from the result, else the last epoch's figure (the mean
// speed for samplesPerSecond) when there were epochs.
std::optional<double> secondValue(const sweep::SweepSpec& spec, const AttemptEnd& a) {
    if (!spec.second) return std::nullopt;
    if (spec.second->atEnd()) return spec.second->resultValue(a.result);
    if (a.epochs <= 0) return std::nullopt;
    if (spec.second->metric == "samplesPerSecond") return a.spsSum / a.epochs;
    return spec.second->value(a.last, a.hasValidation, a.parameters);
}

// Why a finished trial has no end-of-trial objective (nothing traded, the evaluation failed).
std::string missingEndObjective(const sweep::SweepSpec& spec, const AttemptEnd& a, bool notFinite) {
    std::string error = "the objective " + spec.objective.metric +
                        (notFinite ? " is not finite" : " is not in the trial's result");
    const nlohmann::json trading = a.result.is_object() && a.result.contains("trading")
                                       ? a.result["trading"]
                                       : nlohmann::json(nullptr);
    if (trading.is_object() && trading.contains("error") && trading["error"].is_string())
        error += " (trading: " + trading["error"].get<std::string>() + ")";
    else if (spec.objective.metric.rfind("trading.", 0) == 0 && trading.is_null())
        error += " (nothing to trade: no price file, no validation part or not three outputs)";
    return error;
}

}  // namespace

TrialOutcome tellTrial(const sweep::SweepSpec& spec, const TrialRow& trial, const AttemptEnd& a) {
    std::optional<double> best = spec.objective.atEnd() ? spec.objective.resultValue(a.result)
                                                        : bestOfEpochs(trial, spec.objective);
    TrialOutcome o;
    TrialEnd& e = o.end;
    e.second = secondValue(spec, a);
    e.state = TrialState::Failed;
    o.runStatus = runstatus::kFailed;
    if (!a.failure.empty()) {
        e.error = a.failure;
    } else if (a.ended && trialEndWordComplete(a.status) &&
               (!best || !std::isfinite(*best))) {  // a finished trial without its objective
        e.error = spec.objective.atEnd()
                      ? missingEndObjective(spec, a, best.has_value())
                      : "the objective " + spec.objective.metric + " is not in the trial's epochs";
        best.reset();
    } else if (a.ended && trialEndWordComplete(a.status)) {
        e.state = TrialState::Complete;
        o.runStatus = a.status;
    } else if (a.ended && a.pausedAtRung) {  // pruned at its rung, or waiting for the next one
        e.state = a.prunedAt ? TrialState::Pruned : TrialState::Running;
        o.runStatus = runstatus::kStopped;
        if (a.prunedAt) e.error = "pruned after epoch " + std::to_string(*a.prunedAt);
    } else if (a.ended && a.status == "pruned") {
        e.state = TrialState::Pruned;
        o.runStatus = runstatus::kStopped;
        e.error = "pruned after epoch " + std::to_string(a.prunedAt.value_or(trial.epochsDone));
    } else if (a.ended && a.status == runstatus::kStopped && a.stopRequested) {
        e.state = TrialState::Queued;  // `sweep stop`: `sweep resume` runs it again
        o.runStatus = runstatus::kStopped;
        e.error = "stopped by sweep stop";
        e.attemptCounts = false;  // maxAttempts counts interruptions only
    } else if (a.ended && a.status == runstatus::kFailed) {
        e.error = a.error.empty() ? "the trial failed" : a.error;
    } else {
        e.error = a.died.empty() ? "the trial process ended without finishing" : a.died;
        if (a.mayRetry) e.state = TrialState::Queued;
    }
    if (e.state == TrialState::Pruned) e.prunedAt = a.prunedAt;
    if (e.state != TrialState::Queued) e.value = best;
    return o;
}

}  // namespace nnwb
