// The monthly returns table of an equity curve (the Trading tab's heatmap, the HTML report):
// per calendar month (UTC, of the bars' open times) the change of the equity over the month,
// that is the equity at the month's last bar minus the equity at the previous month's last
// bar (0 before the first bar, where every equity starts), and per year the sum of its months.
// Nothing is compounded: on the % equity a month's figure is the sum of its bars' returns.
// Pure function; any thread.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace nnwb {

struct MonthlyReturns {
    std::vector<int> years;                      // ascending, each year with a bar
    std::vector<std::array<double, 12>> months;  // per year, January first; NaN: no bar
    std::vector<double> yearTotal;               // per year, the sum of its months
};

// `time` (seconds, UTC, ascending) and `equity` have one value per bar. Throws
// std::invalid_argument when their lengths differ.
MonthlyReturns monthlyReturns(const std::vector<int64_t>& time, const std::vector<double>& equity);

}  // namespace nnwb
