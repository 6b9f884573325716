// main() of a Qt Test batch program: runs the registered test file named by the program's own
// name (build/tests/tst_cli is a link to the batch program) or by its first argument.
#include "common/TestBatch.h"
#include "common/TestBatchName.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

namespace {

std::map<std::string, nnwb::testbatch::Main>& registry() {
    static std::map<std::string, nnwb::testbatch::Main> mains;
    return mains;
}

}  // namespace

bool nnwb::testbatch::add(const char* file, Main main) {
    const std::string name = fileStem(file);
    if (!registry().emplace(name, main).second) {
        std::fprintf(stderr, "%s: two test classes registered for one file\n", file);
        std::abort();
    }
    return true;
}

int main(int argc, char* argv[]) {
    const auto& mains = registry();
    if (argc > 0) {
        if (const auto it = mains.find(nnwb::testbatch::fileStem(argv[0])); it != mains.end())
            return it->second(argc, argv);
    }
    if (argc > 1) {
        if (const auto it = mains.find(argv[1]); it != mains.end())
            return it->second(argc - 1, argv + 1);
    }
    std::fprintf(
        stderr,
        "%s: run it as one of its tests (a link of that name, or the name as first argument):",
        argc > 0 ? argv[0] : "test batch");
    for (const auto& [name, main] : mains) std::fprintf(stderr, " %s", name.c_str());
    std::fprintf(stderr, "\n");
    return 2;
}
