#include "app/export/EnsembleExport.h"

#include <filesystem>

#include "app/export/ExportSource.h"
#include "model/ensemble/EnsembleBundle.h"

namespace nnwb::onnxexport {

ExportSpec ensembleExportSpec(const EnsembleBundle& ensemble, const std::string& bundleFile,
                              int batch) {
    return specFromEnsemble(ensemble, batch, std::filesystem::path(bundleFile).filename().string());
}

ModelSummary exportEnsembleOnnx(const std::string& bundleFile, const std::string& out, int batch) {
    const EnsembleBundle ensemble = EnsembleBundle::load(bundleFile);
    return exportModel(ensembleExportSpec(ensemble, bundleFile, batch), out);
}

Mql5Export exportEnsembleMql5(const std::string& bundleFile, const std::string& dir,
                              const TradingSettings& trading, int batch) {
    const EnsembleBundle ensemble = EnsembleBundle::load(bundleFile);
    return writeMql5Export(ensembleExportSpec(ensemble, bundleFile, batch), ensemble.common, dir,
                           trading);
}

}  // namespace nnwb::onnxexport
