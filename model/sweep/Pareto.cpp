#include "model/sweep/Pareto.h"

#include <algorithm>
#include <numeric>

namespace nnwb::sweep {

std::vector<size_t> paretoFront(const std::vector<std::pair<double, double>>& p) {
    std::vector<size_t> order(p.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return p[a] < p[b]; });
    std::vector<size_t> front;
    for (size_t i : order) {
        // Sorted by first then second: i is dominated exactly when some earlier point has a
        // smaller second value, or an equal second with a smaller first.
        bool dominated = false;
        for (size_t j : front)
            if (p[j].second < p[i].second ||
                (p[j].second == p[i].second && p[j].first < p[i].first)) {
                dominated = true;
                break;
            }
        if (!dominated) front.push_back(i);
    }
    return front;
}

}  // namespace nnwb::sweep
