#include "compute/MeasuringBackend.h"

#include <algorithm>
#include <limits>

namespace nnwb {

namespace {
// The handle of a measured buffer: its size, so release() can give the bytes back.
struct Measured {
    uint64_t bytes;
};
}  // namespace

MeasuringBackend::MeasuringBackend(DeviceInfo measuredFor, uint64_t bytesPerValue)
    : info_(std::move(measuredFor)), bytesPerValue_(bytesPerValue) {}

MeasuringBackend::~MeasuringBackend() = default;

Buffer MeasuringBackend::alloc(size_t count) {
    const uint64_t n = std::max<uint64_t>(count, 1);
    const uint64_t max = std::numeric_limits<uint64_t>::max();
    const uint64_t bytes = n > max / bytesPerValue_ ? max : n * bytesPerValue_;
    held_ = bytes > max - held_ ? max : held_ + bytes;
    peak_ = std::max(peak_, held_);
    largest_ = std::max(largest_, bytes);
    ++count_;
    return Buffer(this, new Measured{bytes}, count);
}

void MeasuringBackend::download(BufRef, float* dst, size_t count) {
    std::fill(dst, dst + count, 0.0f);
}

void MeasuringBackend::release(void* handle) noexcept {
    auto* m = static_cast<Measured*>(handle);
    held_ -= std::min(held_, m->bytes);
    delete m;
}

}  // namespace nnwb
