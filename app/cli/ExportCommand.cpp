// nnwb-cli export: a trained model to an ONNX file that MetaTrader 5 (and any ONNX runtime)
// runs; see app/export/OnnxExport.h.
#include <cstdio>
#include <string>

#include "app/cli/Commands.h"

#ifdef NNWB_HAS_ONNX
#include <filesystem>

#include "app/export/ExportSource.h"
#include "app/export/OnnxExport.h"
#include "model/Experiment.h"
#include "model/Safetensors.h"
#endif

namespace nnwb::cli {

int runExport(const Args& args) {
#ifndef NNWB_HAS_ONNX
    (void)args;
    std::fprintf(stderr,
                 "nnwb-cli export: this nnwb-cli was built without ONNX export "
                 "(configure with -DNNWB_ONNX=ON; needs libonnx-dev and libprotobuf-dev)\n");
    return 2;
#else
    std::string experimentPath, weightsPath, out;
    int batch = 1;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--experiment")
            experimentPath = flagValue(args, i);
        else if (a == "--weights")
            weightsPath = flagValue(args, i);
        else if (a == "--onnx")
            out = flagValue(args, i);
        else if (a == "--batch") {
            if (i + 1 < args.size() && args[i + 1] == "dynamic") {
                batch = 0;
                ++i;
            } else {
                batch = flagInt(args, i, 1, 1 << 20);
            }
        } else {
            throw UsageError("unknown option '" + a + "'");
        }
    }
    if (experimentPath.empty() || weightsPath.empty())
        throw UsageError("--experiment FILE and --weights FILE are required");
    if (out.empty()) throw UsageError("--onnx OUT.onnx is required");

    Experiment exp;
    TensorMap weights;
    try {
        exp = Experiment::load(experimentPath);
        weights = loadSafetensors(weightsPath);
    } catch (const std::exception& e) {  // ExperimentError, SafetensorsError, unreadable file
        throw UsageError(e.what());
    }
    onnxexport::ExportSpec spec;
    try {
        onnxexport::SourceInfo info;
        info.weightsLabel = std::filesystem::path(weightsPath).filename().string();
        spec = onnxexport::specFromExperiment(exp, weights, batch, info);
    } catch (const std::invalid_argument& e) {
        throw UsageError(weightsPath + ": " + e.what());
    }
    const onnxexport::ModelSummary s = onnxexport::exportModel(spec, out);
    std::string ops;
    for (const auto& [op, n] : s.ops)
        ops += (ops.empty() ? "" : ", ") + op + " " + std::to_string(n);
    auto dims = [](const std::vector<int64_t>& d) {
        std::string o = "[";
        for (size_t i = 0; i < d.size(); ++i)
            o += (i ? ", " : "") + (d[i] < 0 ? std::string("batch") : std::to_string(d[i]));
        return o + "]";
    };
    std::printf("wrote %s: %zu bytes, opset %d, %zu parameters\n", out.c_str(),
                size_t(std::filesystem::file_size(out)), s.opset, s.parameters);
    std::printf("input 'features' %s float32 (raw features), output 'scores' %s float32 (%s)\n",
                dims(s.inputDims).c_str(), dims(s.outputDims).c_str(),
                spec.metadata.at("nnwb.classes").c_str());
    std::printf("operators: %s\n", ops.c_str());
    return 0;
#endif
}

}  // namespace nnwb::cli
