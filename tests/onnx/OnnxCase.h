// One ONNX export check for the onnx test suites: train an experiment for one epoch (on a short
// slice of real bars, or its synthetic data), export it, re-read the file and run
// onnx::checker plus strict shape inference, run it in onnxruntime 1.14 (node + the npm package
// onnxruntime-node) on raw validation features, and compare with nnwb's CPU forward pass on
// the same samples. Test main thread only.
#pragma once

#include <map>
#include <string>

#include "model/Experiment.h"
#include "model/data/BarSeries.h"

namespace nnwb::test {

struct OnnxCaseResult {
    std::string error;              // empty when every check passed
    double maxDiffPlain = 0.0;      // max |onnxruntime - nnwb|, graph optimizations disabled
    double maxDiffOptimized = 0.0;  // ... all optimizations on
    double range = 0.0;             // max - min of nnwb's outputs over the samples
    int samples = 0;
    int argmaxMismatches = 0;
    size_t fileBytes = 0;
    std::map<std::string, int> ops;
    std::string runtimeVersion;
};

// `bars`: the real bars to slice from (ignored for synthetic data). `exportBatch`: 0 =
// dynamic. `samples`: validation samples to compare. The files go to `dir`.
OnnxCaseResult runOnnxCase(const Experiment& e, const BarSeries& bars, int exportBatch,
                           const std::string& dir, const std::string& tag, int samples = 64);

// The operators the exporter may emit; each is in onnxruntime 1.14's CPU kernel list for
// float32 at opset <= 17.
bool onnxOperatorAllowed(const std::string& op);

// The bundled EURUSD H1 bars (loaded once).
const BarSeries& bundledBars();

}  // namespace nnwb::test
