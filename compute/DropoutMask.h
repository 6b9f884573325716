// The counter-based generator of dropout masks, shared by the CPU reference and (as the same
// integer arithmetic) kernels/dropout.cl: element i of a mask for (seed, step) is kept when the
// top 24 bits of a splitmix64 hash of (key(seed, step), i) are >= dropoutThreshold(rate).
// Pure functions; any thread.
#pragma once

#include <cstddef>
#include <cstdint>

namespace nnwb {

// splitmix64's finalizer: a bijective 64-bit mix (Steele, Lea, Flood 2014).
inline uint64_t dropoutMix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// The key of one mask: one (seed, step) pair, e.g. (training seed + layer, training batch).
inline uint64_t dropoutKey(uint64_t seed, uint64_t step) {
    return dropoutMix(dropoutMix(seed + 0x9E3779B97F4A7C15ull) ^
                      (step * 0xD1B54A32D192ED03ull + 0x8CB92BA72F3D8DD7ull));
}

// 24 uniform bits (0 .. 2^24 - 1) of element i of the mask with `key`.
inline uint32_t dropoutBits(uint64_t key, uint64_t i) {
    return static_cast<uint32_t>(dropoutMix(key + (i + 1) * 0x9E3779B97F4A7C15ull) >> 40);
}

// Elements with dropoutBits < threshold are dropped: threshold = floor(rate * 2^24), so the
// probability of a drop is rate to within 2^-24.
inline uint32_t dropoutThreshold(float rate) {
    if (!(rate > 0.0f)) return 0;
    const double t = static_cast<double>(rate) * 16777216.0;
    return t >= 16777216.0 ? 16777216u : static_cast<uint32_t>(t);
}

// The factor of a kept element (inverted dropout): 1 / (1 - rate), as a float on every device.
inline float dropoutScale(float rate) {
    return rate > 0.0f ? static_cast<float>(1.0 / (1.0 - static_cast<double>(rate))) : 1.0f;
}

}  // namespace nnwb
