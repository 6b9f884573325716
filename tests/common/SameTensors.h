// Whether two tensor maps are the same bit for bit (names, shapes and every value's bytes, NaN
// payloads too), for the tests and fuzz targets that check weights round-trip exactly. One copy
// here instead of one per file. Qt-free; any thread.
#pragma once

#include <cstring>

#include "model/Safetensors.h"

namespace nnwb::test {

inline bool sameTensorBytes(const TensorMap& a, const TensorMap& b) {
    if (a.size() != b.size()) return false;
    for (const auto& [name, t] : a) {
        const auto it = b.find(name);
        if (it == b.end() || it->second.shape != t.shape ||
            it->second.values.size() != t.values.size())
            return false;
        // Bitwise: NaN payloads must survive too.
        if (!t.values.empty() && std::memcmp(t.values.data(), it->second.values.data(),
                                             t.values.size() * sizeof(float)) != 0)
            return false;
    }
    return true;
}

}  // namespace nnwb::test
