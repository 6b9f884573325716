// A main() for the fuzz targets in builds without libFuzzer (gcc, the normal and ASan test
// builds): runs LLVMFuzzerTestOneInput once on every file of the directories (or files) given,
// so the seed corpus and every past crash input are regression tests. Single-threaded.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

int runFile(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) {
        std::fprintf(stderr, "cannot read %s\n", p.c_str());
        return 1;
    }
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                  std::istreambuf_iterator<char>());
    std::fprintf(stderr, "replaying %s (%zu bytes)\n", p.c_str(), bytes.size());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    int files = 0, failures = 0;
    for (int i = 1; i < argc; ++i) {
        const std::filesystem::path arg(argv[i]);
        if (std::filesystem::is_directory(arg)) {
            for (const auto& e : std::filesystem::directory_iterator(arg))
                if (e.is_regular_file()) {
                    failures += runFile(e.path());
                    ++files;
                }
        } else {
            failures += runFile(arg);
            ++files;
        }
    }
    std::fprintf(stderr, "%d inputs replayed\n", files);
    // No input at all means a wrong path: fail rather than pass vacuously.
    return files == 0 || failures > 0 ? 1 : 0;
}
