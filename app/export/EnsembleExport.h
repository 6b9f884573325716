// An ensemble bundle file exported as one ONNX graph of its members (specFromEnsemble, the
// file's name as the source), alone or with the Expert Advisor that reads its agreement output:
// what `nnwb-cli export --model FILE` writes for an ensemble bundle (app/cli/ExportCommand calls
// these) and the window's Export ONNX and Export for MetaTrader 5 for an opened ensemble, so the
// two cannot differ. Plain functions; any thread (reads and writes files).
#pragma once

#include <string>

#include "app/export/Mql5Expert.h"
#include "app/export/OnnxExport.h"
#include "model/trading/TradingSettings.h"

namespace nnwb {
struct EnsembleBundle;
}

namespace nnwb::onnxexport {

// The graph's spec of `ensemble`, read from `bundleFile`, in batch `batch` (0: dynamic).
ExportSpec ensembleExportSpec(const EnsembleBundle& ensemble, const std::string& bundleFile,
                              int batch = 1);
// Writes `out`. Throws ModelBundleError for a file that is no ensemble bundle (naming it),
// std::invalid_argument for members that do not fit their model, std::runtime_error when
// `out` cannot be written.
ModelSummary exportEnsembleOnnx(const std::string& bundleFile, const std::string& out,
                                int batch = 1);
// Writes DIR/model.onnx and DIR/nnwb_expert.mq5 (writeMql5Export), the expert trading under
// `trading` (its inputs' defaults, InpMinAgreement included); batch 1 or 0 (dynamic). Throws as
// exportEnsembleOnnx.
Mql5Export exportEnsembleMql5(const std::string& bundleFile, const std::string& dir,
                              const TradingSettings& trading, int batch = 1);

}  // namespace nnwb::onnxexport
