// The first Slurm array of a coordinator (`nnwb-cli sweep submit --slurm`) as the Slurm tests wait
// for it: the job id it records in BUNDLE/jobs.json. One copy here instead of one per test file.
// Test thread only: it runs the event loop while it waits (the coordinator's output is read).
#pragma once

#include <QTest>

#include <exception>
#include <string>

#include <nlohmann/json.hpp>

#include "common/TextHelpers.h"

namespace nnwb::test {

// The job id of the first array in `bundle`/jobs.json, looked for every 50 ms for up to 15 s
// (0 when none came).
inline int awaitFirstArray(const std::string& bundle) {
    int job = 0;
    for (int i = 0; i < 300 && job == 0; ++i) {
        QTest::qWait(50);
        try {
            job = nlohmann::json::parse(readText(bundle + "/jobs.json")).at(0).value("jobId", 0);
        } catch (const std::exception&) {
        }
    }
    return job;
}

}  // namespace nnwb::test
