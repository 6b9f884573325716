// The name a batch test program runs a file under: a path's last component without its
// extension (tests/app/tst_cli.cpp and build/tests/tst_cli both give tst_cli). Used by the
// batch mains (QtTestBatchMain.cpp, GTestBatchMain.cpp); any thread.
#pragma once

#include <string>

namespace nnwb::testbatch {

inline std::string fileStem(const std::string& path) {
    const auto slash = path.find_last_of('/');
    std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    const auto dot = name.find('.');
    return dot == std::string::npos ? name : name.substr(0, dot);
}

}  // namespace nnwb::testbatch
