// A run store's sweeps, trials and runs as text: what an import may change, so that two dumps
// compare "the same rows" (tst_cli_sweep_bundle, tst_slurm_cluster). Header-only, for test
// programs that link the sweep store; call on the test's thread.
#pragma once

#include <filesystem>
#include <string>

#include "app/runs/RunStore.h"
#include "app/sweep/SweepStore.h"

namespace nnwb::test {

inline std::string sweepStoreDump(const std::string& db) {
    if (!std::filesystem::exists(db)) return "no store";
    RunStore store(db, false);
    SweepStore sweeps(store);
    std::string out;
    for (const auto& s : sweeps.list()) {
        out += std::to_string(s.id) + " " + s.status + " " + s.endedAt + "\n";
        for (const auto& t : sweeps.trials(s.id))
            out += std::to_string(t.number) + " " + sweep::trialStateName(t.state) + " " +
                   std::to_string(t.runId) + " " + std::to_string(t.epochsDone) + " " +
                   (t.value ? std::to_string(*t.value) : "-") + " " + t.error + "\n";
    }
    for (const auto& r : store.list())
        out += std::to_string(r.id) + " " + r.uuid + " " + r.status + " " +
               std::to_string(r.epochsDone) + "\n";
    return out;
}

}  // namespace nnwb::test
