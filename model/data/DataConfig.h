// The data section of an experiment: where the bars come from, the window, the validation
// share, the features and their periods, normalization, positional encoding and the fractal
// rule; with its JSON form (the "data" object of an experiment file). Plain value type; any
// thread. fromJson throws std::invalid_argument("data.<key>: problem"); nothing else throws.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "model/data/Features.h"
#include "model/data/Fractals.h"

namespace nnwb {

struct DataConfig {
    std::string source = "file";   // "file" or "synthetic" (synthetic is built by the Trainer)
    std::string file;              // bar file; relative paths are resolved against a base dir
    int window = 20;               // bars per sample (>= 2)
    double validationShare = 0.2;  // newest share of samples used for validation, 0..0.9
    FeatureSpec features;          // switches and indicator periods
    std::string normalization = "zscore";  // "zscore" (training-part statistics) or "none"
    bool positionalEncoding = false;       // add sinusoidal PE to every sample's inputs
    std::string fractal = "3bar";          // "3bar" or "5bar" (Williams)
    // Keys of the "data" object this struct does not know (for example settings of the
    // synthetic generator), kept so that a load/save round trip loses nothing.
    nlohmann::json extra = nlohmann::json::object();

    int featureCount() const { return features.count(); }
    FractalRule fractalRule() const;
    // `file` made absolute: unchanged if absolute, else baseDir/file (baseDir may be empty).
    std::string resolvedFile(const std::string& baseDir) const;
    // "" if the values are usable, else the message fromJson would throw ("data.window: ...").
    std::string validate() const;

    // {"source", "file", "window", "validationShare", "features": {"closeOpen": bool, ...,
    //  "macdSignal": bool, "rsiPeriod", "cciPeriod", "atrPeriod", "macdFast", "macdSlow",
    //  "macdSignalPeriod"}, "normalization", "positionalEncoding", "fractal", "indicators"}
    //  plus `extra`.
    nlohmann::json toJson() const;
    // Missing keys take the defaults above, except "indicators": a data section without it
    // was written before MT5 definitions existed and keeps "textbook" (a new DataConfig has
    // "mt5"). Wrong types or values throw std::invalid_argument.
    static DataConfig fromJson(const nlohmann::json& j);
};

// The bundled default data set (EUR/USD H1 2017-2018, MT5 layout) in the source tree's
// resources/data folder, as an absolute path.
std::string defaultDataFile();

}  // namespace nnwb
