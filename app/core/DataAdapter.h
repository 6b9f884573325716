// The app layer's view of the data pipeline: the sample shape an experiment's data section
// gives (without loading any file), the summary of a price file, and the list of per-bar
// features. Wraps model/data (price importers, DataConfig, DataSummary) for the GUI.
// Pure functions; any thread (inspectPriceFile reads a file: call it off the GUI thread).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/Shape.h"
#include "model/data/BarSeries.h"

namespace nnwb {

struct DataShape {
    bool ok = false;
    std::string error;
    Shape input;      // per sample
    int targets = 3;  // values per target
};

// {"source":"synthetic",...} → {units, window}; a price file → {window, enabled features}.
DataShape dataShapeOf(const nlohmann::json& data);

struct PriceFileInfo {
    bool ok = false;
    std::string error;  // "FILE:LINE: problem"
    std::string path, fileName, format;
    size_t bars = 0;
    std::string first, last;  // "YYYY-MM-DD HH:MM"
    std::string timeframe;    // "H1"
    size_t gaps = 0;
    size_t buy = 0, sell = 0, both = 0;       // 3-bar fractals
    std::shared_ptr<const BarSeries> series;  // the loaded bars (shared, read-only)
};

// Loads and summarizes a bar file (MT5, MT4 or generic CSV).
PriceFileInfo inspectPriceFile(const std::string& path);
// True when this build contains the price-file importers.
bool priceFilesSupported();

// The twelve per-bar features: JSON key (in data.features) and label, in pipeline order.
std::vector<std::pair<std::string, std::string>> featureList();

}  // namespace nnwb
