// `nnwb-cli train --trial` on a cpcv experiment (a sweep trial whose base experiment's
// validation.scheme is cpcv): every split in turn on the run engine, unrecorded, its events as a
// walk-forward trial's (one "fold" line per split), then the paths stitched and traded and one
// "result" line whose trading figures are the paths' (app/engine/CpcvTrialResult.h: the means as
// "strategy", every statistic in "pathStatistics", the per-bar mean of the paths' returns as
// "returnSeries") and whose out-of-sample figures are the paths' means. CLI thread; Qt-free.
#include <string>
#include <vector>

#include "app/cli/RunErrors.h"
#include "app/cli/TrialProtocol.h"
#include "app/cli/WalkForwardRun.h"
#include "app/engine/Cpcv.h"
#include "app/engine/CpcvTrialResult.h"
#include "app/engine/RunOutcome.h"

namespace nnwb::cli {

int runTrialCpcv(const Experiment& exp, WalkForward& wf, WalkForwardEvents& events,
                 const std::function<void(RunEnd, const std::string&)>& end) {
    const std::vector<FoldOutcome> outcomes =
        asUsageErrors([&] { return runCpcvSplits(wf, RecordingOptions::none(), events); });
    const CpcvResult result = stitchCpcv(wf.data().cpcv, outcomes);
    if (result.end != RunEnd::Completed) {
        end(result.end, result.error);
        return trialExitStatus({{result.end}});
    }
    const CpcvEvaluation eval = evaluateCpcvPaths(result, *wf.data().bars, exp.trading);
    printTrialResult(cpcvTrialTrading(eval, exp.trading), cpcvTrialOutOfSample(result, eval));
    end(RunEnd::Completed, "");
    return trialExitStatus({{RunEnd::Completed}});
}

}  // namespace nnwb::cli
