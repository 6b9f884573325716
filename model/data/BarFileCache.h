// The price files read by this process, kept by path and stamp (model/data/FileStamp.h: device,
// inode, size, modification and status-change times; the status-change time moves on any
// rewrite), so that the Data pane's inspection, a Train, a comparison, Predict and a sweep
// worker's trials parse one file once: a later read of an unchanged file is a copy of the
// first. A file changed in the last second is not kept (ReadStamp). Holds the last few files.
// Any thread (one lock).
#pragma once

#include <string>

#include "model/data/BarSeries.h"

namespace nnwb {

// loadBarFile(path), from the cache when the file has not changed since it was read (the same
// stamp); failures, and files that had changed less than a second before the read, are not
// kept (such a file is parsed at every read until it has settled).
LoadResult loadBarFileCached(const std::string& path);

// How many reads of a file were parsed from disk since the process started (for tests).
int barFileParses();

}  // namespace nnwb
