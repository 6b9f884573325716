// The Sobol low-discrepancy sequence in up to kMaxDimensions dimensions, from Joe & Kuo's
// direction numbers (new-joe-kuo-6.21201, S. Joe and F. Y. Kuo, "Constructing Sobol sequences
// with better two-dimensional projections", SIAM J. Sci. Comput. 30, 2008), in Gray-code order
// (point 0 is the origin), 32 bits per coordinate, optionally XORed with a digital shift (which
// keeps the net property). Immutable after construction; read from any thread.
#pragma once

#include <cstdint>
#include <vector>

namespace nnwb::sweep {

class SobolSequence {
public:
    static constexpr int kMaxDimensions = 32;
    // Throws std::invalid_argument for dimensions outside 1..kMaxDimensions. `shiftSeed` 0 is
    // the plain sequence; any other value XORs each coordinate with 32 random bits from it.
    explicit SobolSequence(int dimensions, uint64_t shiftSeed = 0);
    int dimensions() const { return dims_; }
    // Point `index` (0-based; index < 2^32) in [0, 1)^dimensions.
    std::vector<double> point(uint64_t index) const;

private:
    int dims_;
    std::vector<uint32_t> v_;      // v_[d * 32 + (k - 1)]: direction number k of dimension d
    std::vector<uint32_t> shift_;  // per dimension
};

}  // namespace nnwb::sweep
