// The price files read by this process, kept by path, device, inode, size and modification and
// status-change times (ns; the status-change time moves on any rewrite), so that the Data pane's
// inspection, a Train, a comparison and Predict parse one file once: a later read of an
// unchanged file is a copy of the first. Holds the last few files. Any thread (one lock).
#pragma once

#include <string>

#include "model/data/BarSeries.h"

namespace nnwb {

// loadBarFile(path), from the cache when the file has not changed since it was read (the same
// file, size and times); failures are not kept.
LoadResult loadBarFileCached(const std::string& path);

// How many reads of a file were parsed from disk since the process started (for tests).
int barFileParses();

}  // namespace nnwb
