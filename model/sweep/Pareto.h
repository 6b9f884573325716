// The Pareto front of two objectives: the points no other point beats in one objective without
// losing in the other. Both coordinates oriented lower-is-better (negate a maximised one).
// Pure function; any thread.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace nnwb::sweep {

// Indices of the non-dominated points, ordered by the first objective (ties: the second). A
// point is dominated when another is <= in both and < in one; equal points both stay.
std::vector<std::size_t> paretoFront(const std::vector<std::pair<double, double>>& points);

}  // namespace nnwb::sweep
