#include "app/export/EnsembleExport.h"

#include <filesystem>

#include "app/export/ExportSource.h"
#include "model/ensemble/EnsembleBundle.h"

namespace nnwb::onnxexport {

namespace {

// As ExportCommand's readExportInput for --model: batch 1, the file's name in the doc strings.
ExportSpec ensembleSpec(const EnsembleBundle& ensemble, const std::string& bundleFile) {
    return specFromEnsemble(ensemble, 1, std::filesystem::path(bundleFile).filename().string());
}

}  // namespace

ModelSummary exportEnsembleOnnx(const std::string& bundleFile, const std::string& out) {
    const EnsembleBundle ensemble = EnsembleBundle::load(bundleFile);
    return exportModel(ensembleSpec(ensemble, bundleFile), out);
}

Mql5Export exportEnsembleMql5(const std::string& bundleFile, const std::string& dir,
                              const TradingSettings& trading) {
    const EnsembleBundle ensemble = EnsembleBundle::load(bundleFile);
    return writeMql5Export(ensembleSpec(ensemble, bundleFile), ensemble.common, dir, trading);
}

}  // namespace nnwb::onnxexport
