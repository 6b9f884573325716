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
#include "model/data/FeatureChecks.h"

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
    // Features (of all kinds, default periods) with one value on every bar: no information.
    std::vector<ConstantFeature> constant;
};

// Loads and summarizes a bar file (MT5, MT4 or generic CSV).
PriceFileInfo inspectPriceFile(const std::string& path);
// True when this build contains the price-file importers.
bool priceFilesSupported();

// What keeps the data section `data` from training on a file of `bars` bars (too few bars for
// one labelled window: "needs at least N bars, file has M"; no training or validation part),
// or "" when it can; synthetic data and unreadable settings give "".
std::string dataProblem(const nlohmann::json& data, size_t bars, const std::string& fileName);
// One warning per constant feature of the file, saying whether `data` switches it on.
std::vector<std::string> constantFeatureWarnings(const nlohmann::json& data,
                                                 const PriceFileInfo& info);
// `data` with the file's constant features switched off (what a new experiment for the file
// uses); `switchedOff` gets their keys.
nlohmann::json withConstantFeaturesOff(nlohmann::json data, const PriceFileInfo& info,
                                       std::vector<std::string>* switchedOff = nullptr);

}  // namespace nnwb
