// `nnwb-cli data FILE [--json]`: loads a bar file and prints its summary (format, bars, first
// and last bar, time frame, gaps, fractal counts) as aligned text or one JSON object. Bad input
// prints "FILE:LINE: problem" to stderr and returns 2. Qt-free; called on the CLI's main thread.
#pragma once

#include <string>
#include <vector>

namespace nnwb {

// `args` are the arguments after the word "data". Returns the process exit code:
// 0 success, 2 bad input or bad usage.
int runDataCommand(const std::vector<std::string>& args);

}  // namespace nnwb
