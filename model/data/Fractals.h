// Fractal labels of docs/ARCHITECTURE.md §4: bar c is a sell fractal if its high is strictly above
// the highs of its neighbours, a buy fractal if its low is strictly below their lows (both at once:
// an outside bar). 3-bar rule: one neighbour each side; 5-bar Williams rule: two each side.
// Pure functions; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nnwb {

enum class FractalRule { ThreeBar, FiveBar };

constexpr uint8_t kFractalBuy = 1;
constexpr uint8_t kFractalSell = 2;

// Neighbours needed on each side: 1 for ThreeBar, 2 for FiveBar.
int fractalReach(FractalRule rule);

// One flag byte per bar (kFractalBuy | kFractalSell). Bars within fractalReach() of either end
// have no label and get 0; callers must not use them as targets.
std::vector<uint8_t> fractalFlags(const std::vector<double>& high, const std::vector<double>& low,
                                  FractalRule rule);

// "3bar" / "5bar".
const char* fractalRuleName(FractalRule rule);
bool parseFractalRule(const std::string& name, FractalRule& out);

}  // namespace nnwb
