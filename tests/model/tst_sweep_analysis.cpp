// A sweep's analysis against its definitions: parameter importance (omega squared of each
// main effect of an additive model over binned parameters) finds the parameter that decides the
// objective and gives about 0 to one that does not, numeric and categorical alike; the Pareto front
// keeps exactly the non-dominated points.
#include <gtest/gtest.h>

#include "model/Rng.h"
#include "model/sweep/Importance.h"
#include "model/sweep/Pareto.h"

using namespace nnwb;
using namespace nnwb::sweep;

namespace {

SearchSpace space() {
    SearchSpace s;
    ParamDef a;
    a.name = "matters";
    a.kind = ParamKind::Float;
    a.low = 0;
    a.high = 1;
    s.add(a);
    ParamDef b = a;
    b.name = "noise";
    s.add(b);
    ParamDef c;
    c.name = "choice";
    c.kind = ParamKind::Categorical;
    c.choices = {"x", "y", "z"};
    s.add(c);
    return s;
}

History trials(uint64_t seed, int n, double weightOfChoice) {
    Rng rng(seed);
    History h;
    for (int i = 0; i < n; ++i) {
        TrialRecord t;
        t.number = i;
        t.state = TrialState::Complete;
        const double a = rng.uniform(), b = rng.uniform();
        const int c = int(rng.below(3));
        t.params = {{"matters", a}, {"noise", b}, {"choice", std::string(1, char('x' + c))}};
        t.value = 10 * a * a + weightOfChoice * c + 0.1 * rng.normal();
        h.push_back(t);
    }
    return h;
}

double indexOf(const std::vector<ParamImportance>& v, const std::string& name) {
    for (const auto& p : v)
        if (p.name == name) return p.index;
    return -1;
}

}  // namespace

TEST(SweepAnalysis, importanceFindsTheParameterThatMatters) {
    for (uint64_t seed = 1; seed <= 5; ++seed) {
        const auto imp = parameterImportance(space(), trials(seed, 60, 0.0));
        ASSERT_EQ(imp.size(), 3u);
        EXPECT_EQ(imp[0].name, "matters");
        EXPECT_GT(indexOf(imp, "matters"), 0.9) << seed;
        EXPECT_LT(indexOf(imp, "noise"), 0.05) << seed;
        EXPECT_LT(indexOf(imp, "choice"), 0.05) << seed;
    }
    // A categorical parameter that matters as much.
    for (uint64_t seed = 1; seed <= 12; ++seed) {
        const auto both = parameterImportance(space(), trials(seed, 90, 4.0));
        EXPECT_GT(indexOf(both, "choice"), 0.3) << seed;
        EXPECT_GT(indexOf(both, "matters"), 0.3) << seed;
        EXPECT_LT(indexOf(both, "noise"), 0.05) << seed;
    }
    EXPECT_TRUE(parameterImportance(space(), trials(1, 3, 0.0)).empty());
}

TEST(SweepAnalysis, paretoFrontKeepsTheNonDominatedPoints) {
    const std::vector<std::pair<double, double>> p = {{1, 5}, {2, 3}, {3, 4},   {4, 1},
                                                      {2, 3}, {5, 1}, {0.5, 9}, {3, 2}};
    // {3,4} is dominated by {2,3}; {5,1} by {4,1}; the duplicate {2,3} stays.
    EXPECT_EQ(paretoFront(p), (std::vector<size_t>{6, 0, 1, 4, 7, 3}));
    EXPECT_TRUE(paretoFront({}).empty());
}
