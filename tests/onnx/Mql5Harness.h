// What the MQL5 twin tests (tst_mql5_features, tst_mql5_trading) share to compile a section of a
// generated Expert Advisor as C++: the folder of the MQL5 built-in shims (tests/onnx/mql5/), a
// section of the source between its markers, and the system's c++ run on a harness. One copy
// here instead of one per test file. Test thread only.
#pragma once

#include <QProcess>
#include <QStandardPaths>
#include <QString>

#include <string>

#include "nnwb/TestPaths.h"

namespace nnwb::test {

// tests/onnx/mql5/, with the slash.
inline std::string mql5ShimDir() {
    const std::string runner = NNWB_ONNX_RUNNER;  // tests/onnx/run_onnx.js
    return runner.substr(0, runner.rfind('/')) + "/mql5/";
}

// The text of `mq5` from the marker `begin` up to the marker `end` ("" without both in order).
inline std::string mql5Section(const std::string& mq5, const std::string& begin,
                               const std::string& end) {
    const size_t b = mq5.find(begin);
    const size_t e = mq5.find(end);
    if (b == std::string::npos || e == std::string::npos || e < b) return {};
    return mq5.substr(b, e - b);
}

// Compiles `cpp` into the program `exe` with the system's c++ (C++17, -O1 -Wall): "" or what
// went wrong (no compiler, or its errors).
inline std::string compileHarness(const std::string& cpp, const std::string& exe) {
    const QString cxx = QStandardPaths::findExecutable(QStringLiteral("c++"));
    if (cxx.isEmpty()) return "no c++ compiler on PATH";
    QProcess cc;
    cc.start(cxx, {"-std=c++17", "-O1", "-Wall", "-o", QString::fromStdString(exe),
                   QString::fromStdString(cpp)});
    if (!cc.waitForFinished(120000) || cc.exitCode() != 0)
        return "c++ failed on " + cpp + ":\n" +
               QString::fromUtf8(cc.readAllStandardError()).toStdString();
    return "";
}

}  // namespace nnwb::test
