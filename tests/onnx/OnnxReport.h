// Shared bits of the onnx test suites: a slice of the bundled bars and the one-line report
// of a case (printed with qInfo, so `ctest -V -L onnx` shows every measured difference).
// Test main thread only.
#pragma once

#include <QtGlobal>

#include <string>

#include "onnx/OnnxCase.h"

namespace nnwb::test {

// The newest `count` bars of `bars`.
inline BarSeries newestBars(const BarSeries& bars, size_t count) {
    BarSeries out = bars;
    const size_t n = bars.size(), first = n > count ? n - count : 0;
    auto cut = [first](auto& v) { v.erase(v.begin(), v.begin() + std::ptrdiff_t(first)); };
    cut(out.time);
    cut(out.open);
    cut(out.high);
    cut(out.low);
    cut(out.close);
    cut(out.volume);
    return out;
}

inline void reportCase(const std::string& tag, const OnnxCaseResult& r) {
    std::string ops;
    for (const auto& [op, n] : r.ops) ops += (ops.empty() ? "" : " ") + op;
    qInfo(
        "ONNX %s: max|ort-nnwb| %.3g (optimized %.3g), output range %.4g, %d samples, "
        "argmax mismatches %d, %zu bytes, onnxruntime %s, ops: %s",
        tag.c_str(), r.maxDiffPlain, r.maxDiffOptimized, r.range, r.samples, r.argmaxMismatches,
        r.fileBytes, r.runtimeVersion.c_str(), ops.c_str());
}

}  // namespace nnwb::test
