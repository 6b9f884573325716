// `nnwb-cli train --trial` on a walk-forward experiment (TrialProtocol.h): the folds in order,
// unrecorded, then one "result" line with the stitched out-of-sample figures and the trading
// of the stitched series, and the "end" line. A fold's epochs are not protocol lines: pruning
// or stopping a fold of a walk-forward makes no sense, so the trial reads nothing.
#include <cstdio>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "app/cli/Commands.h"
#include "app/cli/RunErrors.h"
#include "app/cli/TrialProtocol.h"
#include "app/cli/WalkForwardRun.h"
#include "app/engine/WalkForward.h"
#include "app/engine/WalkForwardTrading.h"
#include "app/runs/RunReturns.h"
#include "app/runs/StoredRun.h"
#include "compute/Backend.h"
#include "model/TrainingSession.h"
#include "model/trading/TradingEvaluation.h"
#include "model/trading/TradingReportText.h"

namespace nnwb::cli {

namespace {

// "started" once (the first fold's run), one "fold" line per fold that ended.
struct TrialFoldEvents : WalkForwardEvents {
    trial::TrialEmitter out{false};
    size_t folds = 0;
    bool startedPrinted = false;
    void started(RunEngine& run) override {
        if (startedPrinted) return;
        startedPrinted = true;
        trial::Line l;
        l.kind = trial::LineKind::Started;
        l.started = trialStartedJson(run);
        l.started["folds"] = folds;
        out.write(l);
    }
    void foldEnded(const FoldRecord& r) override {
        trial::Line l;
        l.kind = trial::LineKind::Fold;
        l.fold.fold = int(r.index + 1);
        l.fold.folds = int(r.folds);
        l.fold.status = foldEndWord(r.end);
        l.fold.epochs = r.epochs;
        l.fold.bestEpoch = r.bestEpoch;
        l.fold.test = r.test;
        l.fold.error = r.error;
        out.write(l);
    }
    void warning(const std::string& m) override {
        std::fprintf(stderr, "nnwb-cli train: warning: %s\n", m.c_str());
    }
    void end(RunEnd how, const std::string& error) {
        trial::Line l;
        l.kind = trial::LineKind::End;
        l.end.status = trialEndWord({how});
        l.end.error = error;
        out.write(l);
    }
};

}  // namespace

int runTrialWalkForward(const Experiment& exp) {
    std::unique_ptr<WalkForward> wf;
    try {
        wf = std::make_unique<WalkForward>(exp);
    } catch (const DataLoadError& e) {
        throw UsageError(e.what());
    }
    TrialFoldEvents events;
    events.folds = wf->plan().folds.size();
    if (wf->data().isCpcv())  // the splits, then the paths' figures (CpcvRunTrial.cpp)
        return runTrialCpcv(exp, *wf, events,
                            [&](RunEnd how, const std::string& why) { events.end(how, why); });
    const WalkForwardResult result =
        asUsageErrors([&] { return wf->run(RecordingOptions::none(), events); });
    if (result.end != RunEnd::Completed) {
        events.end(result.end, result.error);
        return trialExitStatus({{result.end}});
    }
    // The stitched series traded under the experiment's trading settings (the engine's).
    nlohmann::json trading = nullptr;
    try {
        trading = stitchedTradingJson(*wf, tradeStitched(*wf, result));
    } catch (const std::exception& e) {
        trading = {{"error", e.what()}};
    }
    printTrialResult(trading, result.stitched);
    events.end(RunEnd::Completed, "");
    return trialExitStatus({{RunEnd::Completed}});
}

}  // namespace nnwb::cli
