#include "model/trading/MonthlyReturns.h"

#include <limits>
#include <stdexcept>
#include <string>

#include "model/data/DateTime.h"

namespace nnwb {

MonthlyReturns monthlyReturns(const std::vector<int64_t>& time, const std::vector<double>& equity) {
    if (time.size() != equity.size())
        throw std::invalid_argument("monthly returns: " + std::to_string(time.size()) +
                                    " bar times for " + std::to_string(equity.size()) +
                                    " equity values");
    MonthlyReturns m;
    const double none = std::numeric_limits<double>::quiet_NaN();
    double before = 0;  // the equity at the previous month's last bar
    for (size_t i = 0; i < time.size(); ++i) {
        const CalendarTime c = toCalendar(time[i]);
        if (m.years.empty() || m.years.back() != c.year) {
            m.years.push_back(c.year);
            m.months.emplace_back();
            m.months.back().fill(none);
            m.yearTotal.push_back(0);
        }
        const bool lastOfMonth = i + 1 == time.size() || [&] {
            const CalendarTime n = toCalendar(time[i + 1]);
            return n.year != c.year || n.month != c.month;
        }();
        if (!lastOfMonth) continue;
        const double change = equity[i] - before;
        m.months.back()[size_t(c.month - 1)] = change;
        m.yearTotal.back() += change;
        before = equity[i];
    }
    return m;
}

}  // namespace nnwb
