#include "model/sweep/SobolSequence.h"

#include <stdexcept>
#include <string>

#include "model/Rng.h"

namespace nnwb::sweep {

namespace {

// Dimensions 2..32 of new-joe-kuo-6.21201: degree s, coefficients a, initial m_1..m_s.
struct DirectionRow {
    unsigned s, a;
    unsigned m[8];
};
constexpr DirectionRow kRows[] = {
    {1, 0, {1}},
    {2, 1, {1, 3}},
    {3, 1, {1, 3, 1}},
    {3, 2, {1, 1, 1}},
    {4, 1, {1, 1, 3, 3}},
    {4, 4, {1, 3, 5, 13}},
    {5, 2, {1, 1, 5, 5, 17}},
    {5, 4, {1, 1, 5, 5, 5}},
    {5, 7, {1, 1, 7, 11, 19}},
    {5, 11, {1, 1, 5, 1, 1}},
    {5, 13, {1, 1, 1, 3, 11}},
    {5, 14, {1, 3, 5, 5, 31}},
    {6, 1, {1, 3, 3, 9, 7, 49}},
    {6, 13, {1, 1, 1, 15, 21, 21}},
    {6, 16, {1, 3, 1, 13, 27, 49}},
    {6, 19, {1, 1, 1, 15, 7, 5}},
    {6, 22, {1, 3, 1, 15, 13, 25}},
    {6, 25, {1, 1, 5, 5, 19, 61}},
    {7, 1, {1, 3, 7, 11, 23, 15, 103}},
    {7, 4, {1, 3, 7, 13, 13, 15, 69}},
    {7, 7, {1, 1, 3, 13, 7, 35, 63}},
    {7, 8, {1, 3, 5, 9, 1, 25, 53}},
    {7, 14, {1, 3, 1, 13, 9, 35, 107}},
    {7, 19, {1, 3, 1, 5, 27, 61, 31}},
    {7, 21, {1, 1, 5, 11, 19, 41, 61}},
    {7, 28, {1, 3, 5, 3, 3, 13, 69}},
    {7, 31, {1, 1, 7, 13, 1, 19, 1}},
    {7, 32, {1, 3, 7, 5, 13, 19, 59}},
    {7, 37, {1, 1, 3, 9, 25, 29, 41}},
    {7, 41, {1, 3, 5, 13, 23, 1, 55}},
    {7, 42, {1, 3, 7, 3, 13, 59, 17}},
};
static_assert(sizeof kRows / sizeof kRows[0] == SobolSequence::kMaxDimensions - 1);

}  // namespace

SobolSequence::SobolSequence(int dimensions, uint64_t shiftSeed) : dims_(dimensions) {
    if (dimensions < 1 || dimensions > kMaxDimensions)
        throw std::invalid_argument("a Sobol sequence has 1 to " + std::to_string(kMaxDimensions) +
                                    " dimensions, not " + std::to_string(dimensions));
    v_.assign(size_t(dims_) * 32, 0);
    for (unsigned k = 1; k <= 32; ++k) v_[k - 1] = 1u << (32 - k);  // dimension 1: all m = 1
    for (int d = 1; d < dims_; ++d) {
        const DirectionRow& r = kRows[d - 1];
        uint32_t* v = &v_[size_t(d) * 32] - 1;  // v[1..32]
        for (unsigned k = 1; k <= 32; ++k) {
            if (k <= r.s) {
                v[k] = r.m[k - 1] << (32 - k);
                continue;
            }
            v[k] = v[k - r.s] ^ (v[k - r.s] >> r.s);
            for (unsigned j = 1; j <= r.s - 1; ++j)
                if ((r.a >> (r.s - 1 - j)) & 1) v[k] ^= v[k - j];
        }
    }
    shift_.assign(size_t(dims_), 0);
    if (shiftSeed != 0) {
        Rng rng(shiftSeed);
        for (uint32_t& s : shift_) s = static_cast<uint32_t>(rng.next() >> 32);
    }
}

std::vector<double> SobolSequence::point(uint64_t index) const {
    if (index >> 32) throw std::invalid_argument("Sobol index beyond 2^32");
    const uint64_t gray = index ^ (index >> 1);
    std::vector<double> p(static_cast<size_t>(dims_));
    for (int d = 0; d < dims_; ++d) {
        uint32_t x = shift_[size_t(d)];
        for (int k = 0; k < 32; ++k)
            if ((gray >> k) & 1) x ^= v_[size_t(d) * 32 + size_t(k)];
        p[size_t(d)] = x * 0x1.0p-32;
    }
    return p;
}

}  // namespace nnwb::sweep
