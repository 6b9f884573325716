// nnwb-cli export: a trained model to an ONNX file that MetaTrader 5 (and any ONNX runtime)
// runs (see app/export/OnnxExport.h), or with --mql5 DIR that file plus the Expert Advisor
// that computes its features in MetaTrader 5 (app/export/Mql5Expert.h). An ensemble bundle is
// written by app/export/EnsembleExport (what the window writes for it); the expert trades under
// the experiment's trading settings when one is given (--experiment), else the defaults.
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

#include "app/export/EnsembleExport.h"
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

#ifdef NNWB_HAS_ONNX
// The flags that go together: a bundle (with --mql5 optionally the experiment whose trading
// settings the expert takes) or an experiment with weights, --onnx or --mql5, and batch 1 (or
// dynamic) for the expert.
void checkExportFlags(const ExportOptions& o, int batch) {
    if (o.model.empty() && o.experiment.empty() && o.weights.empty())
        throw UsageError(
            "give --model M.safetensors (a model bundle), or --experiment FILE --weights "
            "W.safetensors");
    if (!o.model.empty() && !o.weights.empty())
        throw UsageError("--weights goes with --experiment FILE, not with --model (a bundle)");
    if (o.model.empty() && (o.experiment.empty() || o.weights.empty()))
        throw UsageError("--experiment FILE and --weights FILE go together");
    if (!o.model.empty() && !o.experiment.empty() && o.mql5.empty())
        throw UsageError(
            "--experiment with --model: only with --mql5 DIR (the Expert Advisor trades under "
            "the experiment's trading settings; an ONNX file has none)");
    if (o.onnx.empty() == o.mql5.empty())
        throw UsageError(
            "give --onnx OUT.onnx, or --mql5 DIR (writes DIR/model.onnx and "
            "DIR/nnwb_expert.mq5)");
    if (!o.mql5.empty() && batch > 1)
        throw UsageError("--mql5: the expert runs one window per call; use --batch 1 or dynamic");
}

// What is exported: the graph's spec and, for --mql5, the bundle (data settings and
// statistics) and the trading rules the expert needs (the experiment's, else defaults).
struct ExportInput {
    onnxexport::ExportSpec spec;
    ModelBundle bundle;
    TradingSettings trading;
    bool ensemble = false;  // --model is an ensemble bundle: app/export/EnsembleExport writes it
};

// The export's input from a (model or ensemble) bundle, or an experiment and its weights.
// Files that do not fit or cannot be read are bad input, naming the file.
ExportInput readExportInput(const ExportOptions& o, int batch, const std::string& input) {
    const std::string source = std::filesystem::path(input).filename().string();
    ExportInput x;
    try {
        if (!o.model.empty()) {
            EnsembleBundle ensemble;  // an ensemble bundle: one graph of its members
            loadAnyBundle(o.model, x.bundle, ensemble);
            x.ensemble = ensemble.size() > 0;
            x.spec = x.ensemble ? onnxexport::ensembleExportSpec(ensemble, o.model, batch)
                                : onnxexport::specFromBundle(x.bundle, batch, source);
            // The expert trades what was tested: the experiment's trading settings.
            if (!o.experiment.empty()) x.trading = Experiment::load(o.experiment).trading;
            return x;
        }
        const Experiment exp = Experiment::load(o.experiment);
        std::map<std::string, std::string> meta;
        const TensorMap weights = loadSafetensors(o.weights, &meta);
        const int epoch = meta.count("epoch") ? std::atoi(meta.at("epoch").c_str()) : 0;
        if (o.mql5.empty()) {
            x.spec = onnxexport::specFromExperiment(exp, weights, batch, epoch, source);
            return x;
        }
        if (exp.data.value("source", std::string("file")) == "synthetic")
            throw std::invalid_argument(
                "--mql5 needs a model trained on price bars, not synthetic data");
        const ExperimentData data = loadExperimentData(exp);
        if (!data.ok) throw std::invalid_argument(data.error);
        x.bundle = makeModelBundle(exp, data, weights, exp.model, epoch);
        x.trading = exp.trading;
        x.spec = onnxexport::specFromExperimentData(exp, data, weights, batch, epoch, source);
    } catch (const std::invalid_argument& e) {  // model, weights or data that do not fit
        throw UsageError(input + ": " + e.what());
    } catch (const std::exception& e) {  // unreadable or corrupt files, not a bundle
        throw UsageError(e.what());
    }
    return x;
}
#endif

int runExport(const ExportOptions& o) {
#ifndef NNWB_HAS_ONNX
    (void)o;
    std::fprintf(stderr,
                 "nnwb-cli export: this nnwb-cli was built without ONNX export "
                 "(configure with -DNNWB_ONNX=ON; needs libonnx-dev and libprotobuf-dev)\n");
    return 2;
#else
    std::string out = o.onnx;
    const int batch = o.batch == "dynamic" ? 0 : std::atoi(o.batch.c_str());  // checked
    checkExportFlags(o, batch);
    const std::string input = o.model.empty() ? o.weights : o.model;
    const ExportInput x = readExportInput(o, batch, input);
    onnxexport::ModelSummary s;
    if (!o.mql5.empty()) {
        onnxexport::Mql5Export written;
        try {
            written = x.ensemble ? onnxexport::exportEnsembleMql5(o.model, o.mql5, x.trading, batch)
                                 : onnxexport::writeMql5Export(x.spec, x.bundle, o.mql5, x.trading);
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
            o.experiment.empty() ? "default" : "experiment's");
    } else {  // failure: exit 1
        s = x.ensemble ? onnxexport::exportEnsembleOnnx(o.model, out, batch)
                       : onnxexport::exportModel(x.spec, out);
    }
    std::string ops;
    for (const auto& [op, n] : s.ops)
        ops += (ops.empty() ? "" : ", ") + op + " " + std::to_string(n);
    std::printf("wrote %s: %zu bytes, opset %d, %zu parameters\n", out.c_str(),
                size_t(std::filesystem::file_size(out)), s.opset, s.parameters);
    std::printf("input 'features' %s float32 (raw features), output 'scores' %s float32 (%s%s)\n",
                dims(s.inputDims).c_str(), dims(s.outputDims).c_str(),
                joined(x.spec.classNames).c_str(), x.spec.outputSoftmax ? ", probabilities" : "");
    if (x.ensemble)  // the graph's second output (docs/onnx-and-mt5.md, an ensemble as one graph)
        std::printf(
            "output 'agreement' %s float32 (the share of the members voting for the "
            "signal)\n",
            dims({s.outputDims.empty() ? 1 : s.outputDims.front(), 1}).c_str());
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
    cmd->add_option("--experiment", o->experiment,
                    "an experiment, with --weights; with --model and --mql5, the experiment whose "
                    "trading settings the Expert Advisor trades under (else the defaults)")
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
                             "(--model M.safetensors [--experiment FILE] | --experiment FILE "
                             "--weights W.safetensors) --mql5 DIR [--batch 1|dynamic]"});
    runners[cmd] = [o] { return runExport(*o); };
}

}  // namespace nnwb::cli
