#include "onnx/OnnxCase.h"
#include "nnwb/TestPaths.h"

#include <QByteArray>
#include <QProcess>
#include <QStandardPaths>
#include <QStringList>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>

#include <nlohmann/json.hpp>

#include "app/export/ExportSource.h"
#include "app/export/OnnxExport.h"
#include "model/ExperimentData.h"
#include "model/ModelBundle.h"
#include "model/NetworkWeights.h"
#include "model/TrainingSession.h"
#include "model/data/BarImporter.h"
#include "model/data/DataPipeline.h"
#include "model/data/Features.h"
#include "model/data/Normalization.h"
#include "model/data/PositionalEncoding.h"

namespace nnwb::test {

namespace {

void writeFloats(const std::string& path, const std::vector<float>& v) {
    std::ofstream f(path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(v.data()), std::streamsize(v.size() * sizeof(float)));
}

std::vector<float> readFloats(const std::string& path) {
    std::ifstream f(path, std::ios::binary | std::ios::ate);
    const auto n = size_t(f.tellg());
    std::vector<float> v(n / sizeof(float));
    f.seekg(0);
    f.read(reinterpret_cast<char*>(v.data()), std::streamsize(v.size() * sizeof(float)));
    return v;
}

// nnwb's outputs for the first `count` samples of `set`, on the session's CPU network.
std::vector<float> nnwbOutputs(TrainingSession& s, const SampleSet& set, int count) {
    Network& net = s.network();
    Backend& be = s.backend();
    const size_t per = set.inputShape.size();
    const int outs = int(net.outputShape().size());
    const int chunk = net.maxBatch();
    Buffer x = be.alloc(size_t(chunk) * per);
    std::vector<float> out(size_t(count) * outs);
    for (int first = 0; first < count; first += chunk) {
        const int n = std::min(chunk, count - first);
        be.upload(x, set.input(size_t(first)), size_t(n) * per);
        be.download(net.forward(x, n, false), out.data() + size_t(first) * outs, size_t(n) * outs);
    }
    return out;
}

int argmax3(const float* v) {
    int best = 0;  // ties to the first, as Backend::recordOutcomes
    for (int k = 1; k < 3; ++k)
        if (v[k] > v[best]) best = k;
    return best;
}

}  // namespace

const BarSeries& bundledBars() {
    static const BarSeries bars = [] {
        LoadResult r = loadBarFile(defaultDataFile());
        return r.ok ? std::move(r.bars) : BarSeries{};
    }();
    return bars;
}

bool onnxOperatorAllowed(const std::string& op) {
    static const std::set<std::string> ops{
        "Add",     "Sub",   "Mul",     "Div",  "Sqrt",      "MatMul",  "ReduceMean",
        "Softmax", "Tanh",  "Sigmoid", "Relu", "LeakyRelu", "Reshape", "Transpose",
        "Split",   "Slice", "Gather",  "Conv", "Flatten"};
    return ops.count(op) > 0;
}

OnnxCaseResult runOnnxCase(const Experiment& e, const BarSeries& bars, int exportBatch,
                           const std::string& dir, const std::string& tag, int samples) {
    OnnxCaseResult res;
    auto fail = [&](const std::string& what) {
        res.error = tag + ": " + what;
        return res;
    };
    // 1. Data: a slice of real bars through the training pipeline, or the synthetic task.
    const bool synthetic = e.data.value("source", std::string("file")) == "synthetic";
    DataResult bar;
    auto data = std::make_shared<ExperimentData>();
    if (synthetic) {
        *data = loadExperimentData(e);
        if (!data->ok) return fail(data->error);
    } else {
        const DataConfig cfg = DataConfig::fromJson(e.data);
        bar = buildDataSplitFromBars(cfg, bars);
        if (!bar.ok) return fail(bar.error);
        data->ok = true;  // as loadExperimentData fills it for a price file
        data->split = bar.split;
        data->priceData = true;
        data->dataConfig = cfg;
        data->stats = bar.stats;
        data->featureNames = bar.featureNames;
        data->bars = std::make_shared<const BarSeries>(bar.bars);
        data->trainFirstBar = bar.trainFirstBar;
        data->trainLastBar = bar.trainLastBar;
        data->validationFirstBar = bar.validationFirstBar;
        data->validationLastBar = bar.validationLastBar;
    }
    const SampleSet& val = data->split.validation;
    if (int(val.size()) < samples)
        return fail("only " + std::to_string(val.size()) + " validation samples");
    res.samples = samples;

    // 2. One training epoch, so that the weights are not at their initial values.
    TrainingSession session(e, data);
    session.trainer().runEpoch();
    const TensorMap weights = readWeights(session.network());

    // 3. Export, then re-read the file: checker, strict shape inference, operators, opset.
    const std::string model = dir + "/" + tag + ".onnx";
    onnxexport::ExportSpec spec;
    try {
        // Price data goes through a model bundle file, as `nnwb-cli export --model` reads it.
        if (synthetic) {
            spec = onnxexport::specFromExperimentData(e, *data, weights, exportBatch, 1, tag);
        } else {
            const std::string bundle = dir + "/" + tag + ".safetensors";
            makeModelBundle(e, *data, weights, session.network().toJson(), 1).save(bundle);
            spec = onnxexport::specFromBundle(ModelBundle::load(bundle), exportBatch, tag);
        }
        onnxexport::exportModel(spec, model);
        onnx::ModelProto m = onnxexport::loadModel(model);
        const auto summary = onnxexport::checkModel(m);
        res.ops = summary.ops;
        if (summary.opset > 17) return fail("opset " + std::to_string(summary.opset));
        for (const auto& [op, n] : summary.ops)
            if (!onnxOperatorAllowed(op)) return fail("operator " + op + " is not on the list");
        const std::vector<int64_t> wantIn{exportBatch > 0 ? exportBatch : -1, val.inputShape.units,
                                          val.inputShape.window};
        if (summary.inputDims != wantIn) return fail("input dims differ");
        if (summary.outputDims != std::vector<int64_t>{wantIn[0], 3})
            return fail("output dims differ");
        if (m.graph().input(0).doc_string().empty() || m.graph().output(0).doc_string().empty() ||
            m.doc_string().empty())
            return fail("doc strings missing");
        std::set<std::string> keys;
        for (const auto& p : m.metadata_props()) keys.insert(p.key());
        std::vector<std::string> want{"nnwb.onnx", "nnwb.outputs", "nnwb.loss"};
        if (synthetic)
            want.push_back("nnwb.experiment");
        else  // the bundle's settings
            for (const char* k : {"nnwb.model", "nnwb.data", "nnwb.features", "nnwb.normalization",
                                  "nnwb.training", "nnwb.epoch", "nnwb.window"})
                want.push_back(k);
        for (const auto& k : want)
            if (!keys.count(k)) return fail("metadata_props lack " + k);
    } catch (const std::exception& ex) {
        return fail(ex.what());
    }
    res.fileBytes = size_t(std::filesystem::file_size(model));

    // 4. Raw inputs: the features before normalization and positional encoding, checked
    //    against the pipeline's samples once prepared the way the graph prepares them.
    const size_t per = val.inputShape.size();
    std::vector<float> raw(size_t(samples) * per);
    if (synthetic) {
        std::copy(val.x.begin(), val.x.begin() + std::ptrdiff_t(raw.size()), raw.begin());
    } else {
        const DataConfig cfg = DataConfig::fromJson(e.data);
        const FeatureMatrix m = computeFeatures(bar.bars, cfg.features);
        const int window = val.inputShape.units, nf = val.inputShape.window;
        const std::vector<double> scale = zScoreScale(bar.stats);
        for (int s = 0; s < samples; ++s) {
            const size_t last = bar.validationFirstBar + size_t(s);
            for (int u = 0; u < window; ++u)
                for (int f = 0; f < nf; ++f) {
                    const double x = m.at(last + 1 - size_t(window) + size_t(u), f);
                    raw[size_t(s) * per + size_t(u) * nf + size_t(f)] = float(x);
                    double prepared = x;
                    if (cfg.normalization == "zscore")
                        prepared = (x - bar.stats.mean[size_t(f)]) * scale[size_t(f)];
                    if (cfg.positionalEncoding) prepared += positionalEncoding(u, f, nf);
                    const double want = val.input(size_t(s))[size_t(u) * nf + size_t(f)];
                    if (std::fabs(prepared - want) > 1e-4 * std::max(1.0, std::fabs(want)))
                        return fail("raw window of sample " + std::to_string(s) +
                                    " does not match the pipeline");
                }
        }
    }
    const std::string input = dir + "/" + tag + ".input.f32";
    const std::string output = dir + "/" + tag + ".output.f32";
    writeFloats(input, raw);

    // 5. onnxruntime.
    const QString node = QStandardPaths::findExecutable("node");
    if (node.isEmpty()) return fail("node is not on PATH (scripts/nnwb.sh test installs it)");
    const std::string runtime = NNWB_ONNX_RUNTIME_DIR;
    if (!std::filesystem::exists(runtime + "/node_modules/onnxruntime-node/package.json"))
        return fail("onnxruntime-node is not installed in " + runtime +
                    " (scripts/nnwb.sh test installs it: npm ci --prefix " + runtime + ")");
    QProcess p;
    p.start(node, QStringList{NNWB_ONNX_RUNNER, QString::fromStdString(runtime),
                              QString::fromStdString(model), QString::fromStdString(input),
                              QString::number(samples), QString::number(val.inputShape.units),
                              QString::number(val.inputShape.window), QString::number(exportBatch),
                              QString::fromStdString(output)});
    if (!p.waitForFinished(120000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0)
        return fail("onnxruntime failed: " + p.readAllStandardError().toStdString());
    try {
        const auto j = nlohmann::json::parse(p.readAllStandardOutput().toStdString());
        res.runtimeVersion = j.at("onnxruntime").get<std::string>();
    } catch (const std::exception& ex) {
        return fail(std::string("runner output: ") + ex.what());
    }
    const std::vector<float> ort = readFloats(output);
    std::vector<float> ref = nnwbOutputs(session, val, samples);
    if (e.training.loss == LossKind::CrossEntropy)  // the export gives probabilities, as predict
        for (size_t s = 0; s < ref.size(); s += 3) {
            const double m = std::max({ref[s], ref[s + 1], ref[s + 2]});
            double z = 0.0, ex[3];
            for (int k = 0; k < 3; ++k) z += ex[k] = std::exp(double(ref[s + size_t(k)]) - m);
            for (int k = 0; k < 3; ++k) ref[s + size_t(k)] = float(ex[k] / z);
        }
    if (ort.size() != 2 * ref.size()) return fail("onnxruntime gave a wrong number of outputs");

    // 6. Compare: max |difference| below 1e-4 of the output range, the same argmax everywhere.
    const auto [lo, hi] = std::minmax_element(ref.begin(), ref.end());
    res.range = double(*hi) - double(*lo);
    for (int pass = 0; pass < 2; ++pass) {
        const float* o = ort.data() + size_t(pass) * ref.size();
        double& worst = pass == 0 ? res.maxDiffPlain : res.maxDiffOptimized;
        for (size_t i = 0; i < ref.size(); ++i)
            worst = std::max(worst, std::fabs(double(o[i]) - double(ref[i])));
        for (int s = 0; s < samples; ++s)
            if (argmax3(o + size_t(s) * 3) != argmax3(ref.data() + size_t(s) * 3))
                ++res.argmaxMismatches;
    }
    if (!(res.range > 0.0)) return fail("nnwb's outputs are constant: nothing to compare");
    const double worst = std::max(res.maxDiffPlain, res.maxDiffOptimized);
    if (!(worst < 1e-4 * res.range))
        return fail("max |onnxruntime - nnwb| " + std::to_string(worst) +
                    " is not below 1e-4 of "
                    "the output range " +
                    std::to_string(res.range));
    if (res.argmaxMismatches > 0)
        return fail(std::to_string(res.argmaxMismatches) + " samples with another argmax");
    return res;
}

}  // namespace nnwb::test
