// Per-epoch figures of every run of a comparison as CSV (one row per run and epoch:
// run, device, epoch, seconds, samples/s, training and validation loss / accuracy % /
// missed %), written atomically. Any thread. Qt-free.
#pragma once

#include <string>
#include <vector>

#include "app/compare/RunRecord.h"

namespace nnwb {

std::string comparisonCsv(const std::vector<RunRecord>& runs);
// Throws std::runtime_error("cannot save PATH: reason"); an existing file stays as it was.
void writeComparisonCsv(const std::string& path, const std::vector<RunRecord>& runs);

}  // namespace nnwb
