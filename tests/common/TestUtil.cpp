#include "common/TestUtil.h"

#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "compute/Backend.h"
#include "model/Rng.h"

namespace nnwb::test {

std::vector<std::string> deviceIds() {
    std::vector<std::string> ids;
    for (const auto& d : listDevices()) ids.push_back(d.id);
    return ids;
}

std::vector<std::string> openclDeviceIds() {
    std::vector<std::string> ids;
    for (const auto& d : listDevices())
        if (d.id != "cpu") ids.push_back(d.id);
    return ids;
}

std::vector<float> randomVector(size_t n, uint64_t seed, float lo, float hi) {
    Rng rng(seed);
    std::vector<float> v(n);
    for (auto& x : v) x = static_cast<float>(rng.uniform(lo, hi));
    return v;
}

std::string compareVectors(const std::vector<float>& a, const std::vector<float>& b, double abs,
                           double rel) {
    if (a.size() != b.size())
        return "sizes differ: " + std::to_string(a.size()) + " vs " + std::to_string(b.size());
    for (size_t i = 0; i < a.size(); ++i) {
        const double d = std::fabs(double(a[i]) - double(b[i]));
        if (!(d <= abs + rel * std::fabs(double(b[i]))))
            return "index " + std::to_string(i) + ": " + std::to_string(a[i]) + " vs " +
                   std::to_string(b[i]);
    }
    return {};
}

std::string tempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/nnwb-test-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (!mkdtemp(buf.data())) throw std::runtime_error("mkdtemp failed");
    return std::string(buf.data());
}

nlohmann::json syntheticData(int samples, int units, int window) {
    return {{"source", "synthetic"}, {"samples", samples}, {"units", units}, {"window", window}};
}

nlohmann::json tinyExperimentJson(int epochs, int batch) {
    nlohmann::json layers = nlohmann::json::array();
    layers.push_back({{"type", "conv"}, {"window", 6}, {"step", 6}, {"filters", 8},
                      {"activation", "tanh"}});
    layers.push_back({{"type", "dense"}, {"neurons", 3}, {"activation", "sigmoid"}});
    return {{"formatVersion", 1},
            {"name", "tiny"},
            {"data", syntheticData()},
            {"model", {{"layers", layers}}},
            {"training",
             {{"optimizer", {{"type", "adam"}, {"learningRate", 0.01}}},
              {"loss", "mse"},
              {"batchSize", batch},
              {"epochs", epochs},
              {"seed", 1},
              {"device", "cpu"}}}};
}

}  // namespace nnwb::test
