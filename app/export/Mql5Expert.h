// The MetaTrader 5 side of an export: an Expert Advisor (.mq5) generated for one model bundle
// that embeds the exported model.onnx as a resource, computes the model's features from
// CopyRates' MqlRates exactly as nnwb does (the feature code comes from Mql5FeatureTable.h),
// feeds the last `window` closed bars to OnnxRun and turns the three outputs into a none, buy
// or sell signal as nnwb's predict does (the largest; ties go to the first), and trades it under
// nnwb's trading rules (Mql5Trading.h). The feature code lies between kMql5FeaturesBegin and
// kMql5FeaturesEnd, the trading code between kMql5TradingBegin and kMql5TradingEnd, so that
// tests can compile both as C++.
// Plain functions; any thread (writeMql5Export writes files).
#pragma once

#include <string>

#include "app/export/OnnxExport.h"
#include "model/ModelBundle.h"
#include "model/trading/TradingSettings.h"

namespace nnwb::onnxexport {

constexpr const char* kMql5FeaturesBegin = "// nnwb:features begin";
constexpr const char* kMql5FeaturesEnd = "// nnwb:features end";
constexpr const char* kMql5ModelFile = "model.onnx";
constexpr const char* kMql5ExpertFile = "nnwb_expert.mq5";

// The .mq5 text for `bundle`, whose model is `onnxFile` in the same folder, trading under
// `trading` (the inputs' defaults). Throws std::invalid_argument for a feature without MQL5
// code. `ensemble`: the model is an ensemble's graph (OnnxExport.h), whose second output, the
// agreement, the expert reads and trades under InpMinAgreement.
std::string mql5ExpertSource(const ModelBundle& bundle,
                             const std::string& onnxFile = kMql5ModelFile,
                             const TradingSettings& trading = TradingSettings(),
                             bool ensemble = false);

struct Mql5Export {
    std::string onnxPath, expertPath;
    ModelSummary summary;
};

// Writes DIR/model.onnx (exportModel of `spec`; an ensemble's when spec.members is not empty,
// `bundle` then its shared part) and DIR/nnwb_expert.mq5 for `bundle`, creating
// DIR when missing. Throws std::invalid_argument before writing anything when the export
// cannot run in the expert (a fixed batch other than 1, a feature without MQL5 code), and
// std::runtime_error("cannot ... PATH: reason") when a file or the folder cannot be written.
Mql5Export writeMql5Export(const ExportSpec& spec, const ModelBundle& bundle,
                           const std::string& dir,
                           const TradingSettings& trading = TradingSettings());

}  // namespace nnwb::onnxexport
