// The MQL5 code of every bar feature, one table entry per feature key (featureKey in
// model/data/Features.h), for the generated Expert Advisor (Mql5Expert.h). An entry gives the
// statements run once before the bar loop (filling indicator buffers through the functions of
// Mql5Indicators.h), the expression of bar i, and the helper functions it needs. Adding a
// feature to nnwb means adding its entry here. Pure functions on a constant table; any thread.
#pragma once

#include <string>
#include <vector>

#include "model/data/Features.h"

namespace nnwb::onnxexport {

struct Mql5FeatureCode {
    // Statements before the bar loop, one per string; an identical statement of two features
    // (e.g. the MACD buffers of macdMain and macdSignal) is emitted once.
    std::vector<std::string> setup;
    // The feature of bar i as an MQL5 double expression; it may use rates[i] (MqlRates, oldest
    // first), dt (the MqlDateTime of rates[i].time) and the buffers of `setup`.
    std::string value;
    std::vector<std::string> helpers;  // functions of Mql5Indicators.h that `setup` calls
};

// Throws std::invalid_argument("the MQL5 generator has no code for feature 'KEY' ...") for a
// feature without an entry.
Mql5FeatureCode mql5FeatureCode(Feature f, const FeatureSpec& spec);
bool hasMql5FeatureCode(Feature f);

}  // namespace nnwb::onnxexport
