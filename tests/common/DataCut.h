// A cut of the bundled EURUSD H1 file (nnwb::defaultDataFile()) for the tests that train on
// real bars: its header line and first `bars` bars, as a file of the test's own. One copy here
// instead of one per test file. Any thread.
#pragma once

#include <fstream>
#include <string>

#include "model/data/DataConfig.h"

namespace nnwb::test {

// Writes the header and the first `bars` bars of the bundled data to `path`; returns `path`.
inline std::string writeDataCut(const std::string& path, int bars) {
    std::ifstream in(defaultDataFile());
    std::ofstream out(path);
    std::string line;
    for (int i = 0; i < bars + 1 && std::getline(in, line); ++i) out << line << "\n";
    return path;
}

}  // namespace nnwb::test
