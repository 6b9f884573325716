// nnwb-cli export: a trained model to an ONNX file that MetaTrader 5 (and any ONNX runtime)
// runs (see app/export/OnnxExport.h), or with --mql5 DIR that file plus the Expert Advisor
// that computes its features in MetaTrader 5 (app/export/Mql5Expert.h).
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "app/cli/Commands.h"
#include "app/cli/FlagChecks.h"
#include "app/cli/HelpFormatter.h"

#ifdef NNWB_HAS_ONNX
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
#include "model/ensemble/EnsembleBundle.h"
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

namespace {

struct ExportOptions {
    std::string model, experiment, weights, onnx, mql5, batch = "1";
};

int runExport(const ExportOptions& o) {
#ifndef NNWB_HAS_ONNX
    (void)o;
    std::fprintf(stderr,
                 "nnwb-cli export: this nnwb-cli was built without ONNX export "
                 "(configure with -DNNWB_ONNX=ON; needs libonnx-dev and libprotobuf-dev)\n");
    return 2;
#else
    const std::string &modelPath = o.model, &experimentPath = o.experiment,
                      &weightsPath = o.weights, &mql5Dir = o.mql5;
    std::string out = o.onnx;
    const int batch = o.batch == "dynamic" ? 0 : std::atoi(o.batch.c_str());  // checked
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
    ModelBundle bundle;       // for --mql5: the data settings and statistics the expert needs
    TradingSettings trading;  // for --mql5: the expert's rules (the experiment's, else defaults)
    try {
        if (!modelPath.empty()) {
            EnsembleBundle ensemble;  // an ensemble bundle: one graph of its members
            loadAnyBundle(modelPath, bundle, ensemble);
            spec = ensemble.size() > 0 ? onnxexport::specFromEnsemble(ensemble, batch, source)
                                       : onnxexport::specFromBundle(bundle, batch, source);
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
                trading = exp.trading;
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
            written = onnxexport::writeMql5Export(spec, bundle, mql5Dir, trading);
        } catch (const std::invalid_argument& e) {  // nothing written
            throw UsageError(input + ": " + e.what());
        }  // a folder or file that cannot be written: exit 1
        s = written.summary;
        out = written.onnxPath;
        std::printf(
            "wrote %s: the Expert Advisor (compile it next to %s); it trades the %s trading "
            "rules; what a live account does otherwise is listed at the top of the file and in "
            "docs/onnx-and-mt5.md\n",
            written.expertPath.c_str(), onnxexport::kMql5ModelFile,
            modelPath.empty() ? "experiment's" : "default");
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

}  // namespace

void addExportCommand(CLI::App& root, Runners& runners) {
    auto o = std::make_shared<ExportOptions>();
    CLI::App* cmd = root.add_subcommand(
        "export",
        "ONNX model for MetaTrader 5 / onnxruntime: raw features in, [batch, 3] none/buy/sell "
        "out; --mql5 DIR instead of --onnx: DIR/model.onnx and the Expert Advisor "
        "DIR/nnwb_expert.mq5\n"
        "Writes an ONNX model (opset 17) for MetaTrader 5 / onnxruntime: raw features in, "
        "[batch, 3] none/buy/sell out; checked with ONNX's checker and shape inference.");
    cmd->footer("Exit status: 0 written, 1 the writer failed, 2 bad input or files.");
    cmd->add_option("--model", o->model, "a model bundle (train --save-model)")
        ->type_name("M.safetensors");
    cmd->add_option("--experiment", o->experiment, "an experiment, with --weights")
        ->type_name("FILE");
    cmd->add_option("--weights", o->weights, "its trained weights (train --save-weights)")
        ->type_name("W.safetensors");
    cmd->add_option("--onnx", o->onnx, "the ONNX file to write")->type_name("OUT.onnx");
    cmd->add_option("--mql5", o->mql5,
                    "instead of --onnx: write DIR/model.onnx and DIR/nnwb_expert.mq5, an Expert "
                    "Advisor that computes the model's features from MqlRates, runs the model and "
                    "prints none/buy/sell per bar (compile it next to model.onnx; batch 1 or "
                    "dynamic)")
        ->type_name("DIR");
    cmd->add_option("--batch", o->batch, "the batch dimension")
        ->type_name("N|dynamic")
        ->check(integerInOr(1, 1 << 20, "dynamic"))
        ->capture_default_str();
    auto* help = dynamic_cast<HelpFormatter*>(cmd->get_formatter().get());
    if (help)
        help->setForms(cmd, {"--model M.safetensors --onnx OUT.onnx [--batch N|dynamic]",
                             "--experiment FILE --weights W.safetensors --onnx OUT.onnx "
                             "[--batch N|dynamic]",
                             "(--model M.safetensors | --experiment FILE --weights W.safetensors) "
                             "--mql5 DIR [--batch 1|dynamic]"});
    runners[cmd] = [o] { return runExport(*o); };
}

}  // namespace nnwb::cli
