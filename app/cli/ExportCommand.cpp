// nnwb-cli export: a trained model to an ONNX file that MetaTrader 5 (and any ONNX runtime)
// runs (see app/export/OnnxExport.h), or with --mql5 DIR that file plus the Expert Advisor
// that computes its features in MetaTrader 5 (app/export/Mql5Expert.h).
#include <cstdio>
#include <string>

#include "app/cli/Commands.h"

#ifdef NNWB_HAS_ONNX
#include <cstdlib>
#include <filesystem>
#include <map>
#include <vector>

#include "app/export/ExportSource.h"
#include "app/export/Mql5Expert.h"
#include "app/export/OnnxExport.h"
#include "model/Experiment.h"
#include "model/ExperimentData.h"
#include "model/ModelBundle.h"
#include "model/Safetensors.h"
#endif

namespace nnwb::cli {

#ifdef NNWB_HAS_ONNX
namespace {

std::string joined(const std::vector<std::string>& v) {
    std::string o;
    for (const auto& s : v) o += (o.empty() ? "" : ", ") + s;
    return o;
}

std::string dims(const std::vector<int64_t>& d) {
    std::string o = "[";
    for (size_t i = 0; i < d.size(); ++i)
        o += (i ? ", " : "") + (d[i] < 0 ? std::string("batch") : std::to_string(d[i]));
    return o + "]";
}

}  // namespace
#endif

int runExport(const Args& args) {
#ifndef NNWB_HAS_ONNX
    (void)args;
    std::fprintf(stderr,
                 "nnwb-cli export: this nnwb-cli was built without ONNX export "
                 "(configure with -DNNWB_ONNX=ON; needs libonnx-dev and libprotobuf-dev)\n");
    return 2;
#else
    std::string modelPath, experimentPath, weightsPath, out, mql5Dir;
    int batch = 1;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--model")
            modelPath = flagValue(args, i);
        else if (a == "--experiment")
            experimentPath = flagValue(args, i);
        else if (a == "--weights")
            weightsPath = flagValue(args, i);
        else if (a == "--onnx")
            out = flagValue(args, i);
        else if (a == "--mql5")
            mql5Dir = flagValue(args, i);
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
    const bool pair = !experimentPath.empty() || !weightsPath.empty();
    if (modelPath.empty() == !pair)
        throw UsageError(
            "give --model M.safetensors (a model bundle), or --experiment FILE --weights "
            "W.safetensors");
    if (pair && (experimentPath.empty() || weightsPath.empty()))
        throw UsageError("--experiment FILE and --weights FILE go together");
    if (out.empty() == mql5Dir.empty())
        throw UsageError(
            "give --onnx OUT.onnx, or --mql5 DIR (writes DIR/model.onnx and "
            "DIR/nnwb_expert.mq5)");
    if (!mql5Dir.empty() && batch > 1)
        throw UsageError("--mql5: the expert runs one window per call; use --batch 1 or dynamic");

    const std::string input = modelPath.empty() ? weightsPath : modelPath;
    const std::string source = std::filesystem::path(input).filename().string();
    onnxexport::ExportSpec spec;
    ModelBundle bundle;  // for --mql5: the data settings and statistics the expert needs
    try {
        if (!modelPath.empty()) {
            bundle = ModelBundle::load(modelPath);
            spec = onnxexport::specFromBundle(bundle, batch, source);
        } else {
            const Experiment exp = Experiment::load(experimentPath);
            std::map<std::string, std::string> meta;
            const TensorMap weights = loadSafetensors(weightsPath, &meta);
            const int epoch = meta.count("epoch") ? std::atoi(meta.at("epoch").c_str()) : 0;
            if (mql5Dir.empty()) {
                spec = onnxexport::specFromExperiment(exp, weights, batch, epoch, source);
            } else {
                if (exp.data.value("source", std::string("file")) == "synthetic")
                    throw std::invalid_argument(
                        "--mql5 needs a model trained on price bars, not synthetic data");
                const ExperimentData data = loadExperimentData(exp);
                if (!data.ok) throw std::invalid_argument(data.error);
                bundle = makeModelBundle(exp, data, weights, exp.model, epoch);
                spec = onnxexport::specFromExperimentData(exp, data, weights, batch, epoch, source);
            }
        }
    } catch (const std::invalid_argument& e) {  // model, weights or data that do not fit
        throw UsageError(input + ": " + e.what());
    } catch (const std::exception& e) {  // unreadable or corrupt files, not a bundle
        throw UsageError(e.what());
    }
    onnxexport::ModelSummary s;
    if (!mql5Dir.empty()) {
        onnxexport::Mql5Export written;
        try {
            written = onnxexport::writeMql5Export(spec, bundle, mql5Dir);
        } catch (const std::invalid_argument& e) {  // nothing written
            throw UsageError(input + ": " + e.what());
        }  // a folder or file that cannot be written: exit 1
        s = written.summary;
        out = written.onnxPath;
        std::printf("wrote %s: the Expert Advisor (compile it next to %s)\n",
                    written.expertPath.c_str(), onnxexport::kMql5ModelFile);
    } else {
        s = onnxexport::exportModel(spec, out);  // failure: exit 1
    }
    std::string ops;
    for (const auto& [op, n] : s.ops)
        ops += (ops.empty() ? "" : ", ") + op + " " + std::to_string(n);
    std::printf("wrote %s: %zu bytes, opset %d, %zu parameters\n", out.c_str(),
                size_t(std::filesystem::file_size(out)), s.opset, s.parameters);
    std::printf("input 'features' %s float32 (raw features), output 'scores' %s float32 (%s%s)\n",
                dims(s.inputDims).c_str(), dims(s.outputDims).c_str(),
                joined(spec.classNames).c_str(), spec.outputSoftmax ? ", probabilities" : "");
    std::printf("operators: %s\n", ops.c_str());
    return 0;
#endif
}

}  // namespace nnwb::cli
