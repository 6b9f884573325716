// The underwater (drawdown) series of an equity curve, for the Trading tab and the HTML report:
// at each point the equity minus its running peak, the peak starting at 0 as the figures'
// maximum drawdown does (docs/trading.md), so 0 at a new high and below 0 under one; its lowest
// value is minus the maximum drawdown. Pure function; any thread.
#pragma once

#include <vector>

namespace nnwb {

std::vector<double> underwaterOf(const std::vector<double>& equity);

}  // namespace nnwb
