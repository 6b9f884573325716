// An ensemble bundle file exported as `nnwb-cli export --model FILE` exports it (ExportCommand):
// one ONNX graph of its members in batch 1 (specFromEnsemble, the file's name as the source),
// alone or with the Expert Advisor that reads its agreement output; what the window's Export
// ONNX and Export for MetaTrader 5 write for an opened ensemble. Plain functions; any thread
// (reads and writes files).
#pragma once

#include <string>

#include "app/export/Mql5Expert.h"
#include "app/export/OnnxExport.h"
#include "model/trading/TradingSettings.h"

namespace nnwb::onnxexport {

// Writes `out`. Throws ModelBundleError for a file that is no ensemble bundle (naming it),
// std::invalid_argument for members that do not fit their model, std::runtime_error when
// `out` cannot be written.
ModelSummary exportEnsembleOnnx(const std::string& bundleFile, const std::string& out);
// Writes DIR/model.onnx and DIR/nnwb_expert.mq5 (writeMql5Export), the expert trading under
// `trading` (its minAgreement the default of InpMinAgreement). Throws as exportEnsembleOnnx.
Mql5Export exportEnsembleMql5(const std::string& bundleFile, const std::string& dir,
                              const TradingSettings& trading);

}  // namespace nnwb::onnxexport
