// The per-sample shape of a tensor flowing between layers: `units` elements (sequence length,
// bars) of `window` values each. A leading batch dimension is implied everywhere.
// Plain value type; any thread.
#pragma once

#include <cstddef>
#include <string>

namespace nnwb {

struct Shape {
    int units = 1;
    int window = 1;
    size_t size() const { return static_cast<size_t>(units) * static_cast<size_t>(window); }
    bool operator==(const Shape& o) const { return units == o.units && window == o.window; }
    bool operator!=(const Shape& o) const { return !(*this == o); }
    std::string str() const { return std::to_string(units) + "x" + std::to_string(window); }
};

}  // namespace nnwb
