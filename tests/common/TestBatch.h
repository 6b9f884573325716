// Test programs built in batches (tests/CMakeLists.txt): several test files compiled as one
// unity program, each file still run alone under its own name. A Qt Test file registers its
// main here (QtTestBatch.h turns QTEST_MAIN into a registration keyed by the file's name);
// QtTestBatchMain.cpp's main runs the one the program was started as. Static initialisation
// and main only (one thread).
#pragma once

namespace nnwb::testbatch {

using Main = int (*)(int argc, char* argv[]);

// Registers the main of the test file at `file` (its __FILE__) under the file's name without
// folder and extension (tests/app/tst_cli.cpp -> tst_cli). Returns true (for a static).
bool add(const char* file, Main main);

}  // namespace nnwb::testbatch
