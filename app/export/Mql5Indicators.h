// The MQL5 text of the indicator functions the generated Expert Advisor calls (Mql5Expert.h):
// one entry per function, each a transcription of its counterpart in model/data/Indicators.cpp
// (the same loops and the same order of operations), working on MqlRates arrays oldest first.
// Pure functions on constant tables; any thread.
#pragma once

#include <string>
#include <vector>

namespace nnwb::onnxexport {

// The functions `names` (e.g. "NnwbRsi") and every function they call, each once, callees
// before callers. Throws std::invalid_argument for a name that is not in the table.
std::string mql5Helpers(const std::vector<std::string>& names);

}  // namespace nnwb::onnxexport
