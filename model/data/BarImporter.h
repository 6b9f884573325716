// Reads price bars from MetaTrader 5 "Export bars" files, MetaTrader 4 history CSVs and
// generic OHLC(V) CSVs with a header, detecting layout, delimiter and encoding (UTF-8 with or
// without BOM, UTF-16; LF or CRLF). Errors are values ("FILE:LINE: problem"), never a partial
// series, never an exception. Stateless functions; any thread (one call per thread).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/data/BarSeries.h"

namespace nnwb {

// Loads the file at `path`. Error messages name the file by its base name; file-level
// problems that have no line (cannot open, is a directory) use line 0.
LoadResult loadBarFile(const std::string& path);

// Parses raw file bytes as if they were read from a file called `fileName` (used in messages
// and as BarSeries::source).
LoadResult parseBarText(std::string bytes, const std::string& fileName);

// The most common spacing between consecutive times (ties: the smaller); 0 for < 2 times.
int64_t inferTimeframe(const std::vector<int64_t>& time);

// "EURUSD.csv" for "/data/EURUSD.csv" (either slash).
std::string baseName(const std::string& path);

}  // namespace nnwb
