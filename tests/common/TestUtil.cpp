#include "common/TestUtil.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include <cmath>
#include <random>
#include <sstream>

#include "compute/BackendRegistry.h"

namespace nnwb::test {

std::vector<std::string> testDeviceIds() {
    std::vector<std::string> ids;
    for (const DeviceInfo& d : listDevices()) ids.push_back(d.id);
    return ids;
}

std::vector<std::string> openClDeviceIds() {
    std::vector<std::string> ids;
    for (const DeviceInfo& d : listDevices())
        if (d.id.rfind("opencl:", 0) == 0) ids.push_back(d.id);
    return ids;
}

size_t parityMaxValues() {
    const char* v = std::getenv("NNWB_PARITY_MAX_VALUES");
    return v && *v ? size_t(std::strtoull(v, nullptr, 10)) : size_t(-1);
}

ParitySlice paritySlice() {
    ParitySlice s;
    const char* v = std::getenv("NNWB_PARITY_SLICE");
    if (!v || !*v) return s;
    unsigned long long k = 0, n = 0;
    if (std::sscanf(v, "%llu/%llu", &k, &n) != 2 || n == 0 || k >= n) {
        std::fprintf(stderr, "NNWB_PARITY_SLICE=%s: expected k/n with 0 <= k < n\n", v);
        std::exit(2);
    }
    s.index = size_t(k);
    s.count = size_t(n);
    return s;
}

bool parityNextCaseInSlice() {
    static const ParitySlice slice = paritySlice();
    static size_t next = 0;
    return next++ % slice.count == slice.index;
}

void randomFill(std::vector<float>& v, uint32_t seed, float lo, float hi) {
    std::mt19937 rng(seed);
    // Built from raw 32-bit draws: std::uniform_real_distribution is not portable across
    // standard libraries.
    for (float& x : v) {
        const double u = double(rng()) / 4294967296.0;
        x = float(lo + (hi - lo) * u);
    }
}

std::vector<float> randomVector(size_t n, uint32_t seed, float lo, float hi) {
    std::vector<float> v(n);
    randomFill(v, seed, lo, hi);
    return v;
}

std::string compareNear(const float* got, const float* want, size_t n, Tolerance tol) {
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; ++i) {
        const double g = got[i], w = want[i];
        bool ok;
        if (std::isnan(w) || std::isnan(g))
            ok = std::isnan(w) && std::isnan(g);
        else if (std::isinf(w) || std::isinf(g))
            ok = g == w;
        else
            ok = std::fabs(g - w) <= tol.abs + tol.rel * std::fabs(w);
        if (!ok && bad++ == 0) first = i;
    }
    if (bad == 0) return {};
    std::ostringstream s;
    s.precision(9);
    s << bad << " of " << n << " values differ; first at index " << first << ": got " << got[first]
      << ", want " << want[first] << " (diff " << double(got[first]) - want[first] << ", tolerance "
      << tol.abs << " abs + " << tol.rel << " rel)";
    return s.str();
}

std::string compareNear(const std::vector<float>& got, const std::vector<float>& want,
                        Tolerance tol) {
    if (got.size() != want.size())
        return "size differs: got " + std::to_string(got.size()) + ", want " +
               std::to_string(want.size());
    return compareNear(got.data(), want.data(), got.size(), tol);
}

GuardedBuffer::GuardedBuffer(Backend& be, const std::vector<float>& data, size_t padBefore,
                             size_t padAfter)
    : be_(&be), padBefore_(padBefore), count_(data.size()), padAfter_(padAfter) {
    std::vector<float> all(padBefore + data.size() + padAfter, kSentinel);
    std::copy(data.begin(), data.end(), all.begin() + long(padBefore));
    buf_ = be.alloc(all.size());
    be.upload(buf_, all.data(), all.size());
}

std::vector<float> GuardedBuffer::read() const {
    std::vector<float> v(count_);
    be_->download(ref(), v.data(), count_);
    return v;
}

std::string GuardedBuffer::guardViolation(const std::string& name) const {
    std::vector<float> all(padBefore_ + count_ + padAfter_);
    be_->download(buf_, all.data(), all.size());
    for (size_t i = 0; i < all.size(); ++i) {
        if (i >= padBefore_ && i < padBefore_ + count_) continue;
        if (all[i] != kSentinel) {
            std::ostringstream s;
            s << name << ": guard value at " << (i < padBefore_ ? "-" : "+")
              << (i < padBefore_ ? padBefore_ - i : i - padBefore_ - count_ + 1)
              << (i < padBefore_ ? " before" : " past") << " the data overwritten with " << all[i];
            return s.str();
        }
    }
    return {};
}

std::string tempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/nnwb-test-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (!mkdtemp(buf.data())) throw std::runtime_error("cannot create a temporary directory");
    return std::string(buf.data());
}

ReadOnlyDir::ReadOnlyDir(const std::string& dir) : dir_(dir) {
    if (::chmod(dir.c_str(), 0555) != 0) return;
    if (::geteuid() == 0) droppedRoot_ = ::seteuid(65534) == 0;
    enforced_ = ::geteuid() != 0;
}

ReadOnlyDir::~ReadOnlyDir() {
    if (droppedRoot_ && ::seteuid(0) != 0) std::abort();  // the test cannot go on as nobody
    ::chmod(dir_.c_str(), 0755);
}

nlohmann::json syntheticData(int samples, int units, int window) {
    return {{"source", "synthetic"}, {"samples", samples}, {"units", units}, {"window", window}};
}

nlohmann::json tinyExperimentJson(int epochs, int batch) {
    nlohmann::json layers = nlohmann::json::array();
    layers.push_back(
        {{"type", "conv"}, {"window", 6}, {"step", 6}, {"filters", 8}, {"activation", "tanh"}});
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
