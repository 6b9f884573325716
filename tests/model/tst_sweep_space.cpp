// The sweep's parameter space and its grid and random samplers against their definitions: unit
// coordinates map to int / float / log-float / categorical values as documented, conditional
// parameters appear exactly when their parent has one of the listed values, bad ranges are
// refused with the parameter's name, the grid enumerates every combination once and then ends,
// and random sampling is reproducible from the seed and uniform over an int range.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <stdexcept>

#include "model/sweep/Sampler.h"
#include "model/sweep/SearchSpace.h"

using namespace nnwb::sweep;
using nlohmann::json;

namespace {

ParamDef param(const std::string& name, ParamKind kind, double lo, double hi) {
    ParamDef p;
    p.name = name;
    p.kind = kind;
    p.low = lo;
    p.high = hi;
    return p;
}

ParamDef categorical(const std::string& name, std::vector<json> choices) {
    ParamDef p;
    p.name = name;
    p.kind = ParamKind::Categorical;
    p.choices = std::move(choices);
    return p;
}

// type in {dense, attention}; heads (2..8 step 2) only for attention; lr log 1e-4..1e-1.
SearchSpace conditionalSpace() {
    SearchSpace s;
    s.add(categorical("type", {"dense", "attention"}));
    ParamDef heads = param("heads", ParamKind::Int, 2, 8);
    heads.step = 2;
    heads.conditional = true;
    heads.condition = {"type", {"attention"}};
    s.add(heads);
    ParamDef lr = param("lr", ParamKind::LogFloat, 1e-4, 1e-1);
    lr.gridPoints = 4;
    s.add(lr);
    return s;
}

}  // namespace

TEST(SweepSpace, unitCoordinatesMapByDefinition) {
    const ParamDef i = param("i", ParamKind::Int, 3, 7);  // 5 values
    EXPECT_EQ(i.fromUnit(0.0), 3);
    EXPECT_EQ(i.fromUnit(0.199), 3);
    EXPECT_EQ(i.fromUnit(0.2), 4);
    EXPECT_EQ(i.fromUnit(0.999999), 7);
    ParamDef stepped = param("s", ParamKind::Int, 0, 10);
    stepped.step = 5;  // 0, 5, 10
    EXPECT_EQ(stepped.count(), 3);
    EXPECT_EQ(stepped.fromUnit(0.5), 5);
    const ParamDef f = param("f", ParamKind::Float, -1, 3);
    EXPECT_DOUBLE_EQ(f.fromUnit(0.25).get<double>(), 0.0);
    const ParamDef l = param("l", ParamKind::LogFloat, 1e-4, 1e-2);
    EXPECT_NEAR(l.fromUnit(0.5).get<double>(), 1e-3, 1e-15);
    const ParamDef c = categorical("c", {"a", 2, true});
    EXPECT_EQ(c.fromUnit(0.4), 2);
    EXPECT_EQ(c.fromUnit(0.9), true);
    EXPECT_TRUE(c.admits(2));
    EXPECT_FALSE(c.admits(3));
    EXPECT_FALSE(stepped.admits(4));
    EXPECT_FALSE(i.admits(3.5));
}

TEST(SweepSpace, gridValuesIncludeBothEnds) {
    ParamDef l = param("l", ParamKind::LogFloat, 1e-4, 1e-1);
    l.gridPoints = 4;
    const auto g = l.gridValues();
    ASSERT_EQ(g.size(), 4u);
    const double want[4] = {1e-4, 1e-3, 1e-2, 1e-1};
    for (int k = 0; k < 4; ++k) EXPECT_NEAR(g[k].get<double>(), want[k], want[k] * 1e-12);
    ParamDef f = param("f", ParamKind::Float, 0, 1);
    f.gridPoints = 3;
    EXPECT_EQ(f.gridValues(), (std::vector<json>{0.0, 0.5, 1.0}));
}

TEST(SweepSpace, conditionalParametersFollowTheirParent) {
    const SearchSpace s = conditionalSpace();
    const json dense = s.toConfig({0.1, 0.9, 0.5});
    EXPECT_EQ(dense["type"], "dense");
    EXPECT_FALSE(dense.contains("heads"));
    const json att = s.toConfig({0.9, 0.9, 0.5});
    EXPECT_EQ(att["type"], "attention");
    EXPECT_EQ(att["heads"], 8);
    EXPECT_TRUE(s.valid(att));
    EXPECT_TRUE(s.valid(dense));
    json extra = dense;
    extra["heads"] = 4;  // not active for dense
    EXPECT_FALSE(s.valid(extra));
    json missing = att;
    missing.erase("heads");
    EXPECT_FALSE(s.valid(missing));
}

TEST(SweepSpace, badDefinitionsNameTheParameter) {
    SearchSpace s;
    auto message = [&](ParamDef p) {
        try {
            s.add(std::move(p));
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    EXPECT_NE(message(param("a.b", ParamKind::Float, 2, 1)).find("parameter a.b:"),
              std::string::npos);
    EXPECT_NE(message(param("lr", ParamKind::LogFloat, 0, 1)).find("0 < min"), std::string::npos);
    EXPECT_NE(message(param("n", ParamKind::Int, 1.5, 4)).find("integer"), std::string::npos);
    EXPECT_NE(message(categorical("c", {})).find("no values"), std::string::npos);
    ParamDef orphan = param("x", ParamKind::Float, 0, 1);
    orphan.conditional = true;
    orphan.condition = {"later", {1}};
    EXPECT_NE(message(orphan).find("not a parameter declared before it"), std::string::npos);
    s.add(param("ok", ParamKind::Float, 0, 1));
    EXPECT_NE(message(param("ok", ParamKind::Float, 0, 1)).find("twice"), std::string::npos);
}

TEST(SweepSpace, gridEnumeratesEveryCombinationOnceThenEnds) {
    const SearchSpace s = conditionalSpace();
    auto grid = makeGridSampler(s);
    History h;
    std::set<std::string> seen;
    for (int n = 0;; ++n) {
        auto c = grid->ask(h, n);
        if (!c) break;
        EXPECT_TRUE(s.valid(*c)) << c->dump();
        EXPECT_TRUE(seen.insert(c->dump()).second) << "twice: " << c->dump();
        TrialRecord t;
        t.number = n;
        t.params = *c;
        h.push_back(t);
        ASSERT_LT(n, 100);
    }
    // dense x 4 rates + attention x 4 heads x 4 rates
    EXPECT_EQ(seen.size(), 4u + 16u);
    // A trial that is gone from the history is proposed again (a failed trial retried).
    h.erase(h.begin() + 3);
    auto again = grid->ask(h, 99);
    ASSERT_TRUE(again);
    EXPECT_EQ(seen.count(again->dump()), 1u);
}

TEST(SweepSpace, randomIsReproducibleAndUniform) {
    SearchSpace s;
    s.add(param("i", ParamKind::Int, 0, 9));
    auto a = makeRandomSampler(s, 7), b = makeRandomSampler(s, 7), c = makeRandomSampler(s, 8);
    int same = 0;
    std::vector<int> counts(10, 0);
    const int n = 5000;
    for (int k = 0; k < n; ++k) {
        const json x = *a->ask({}, k);
        EXPECT_EQ(x, *b->ask({}, k));
        same += x == *c->ask({}, k);
        ++counts[size_t(x["i"].get<int>())];
    }
    EXPECT_LT(same, n / 5);  // another seed: another sequence (10 % agree by chance)
    double chi2 = 0.0;
    for (int v : counts) chi2 += (v - n / 10.0) * (v - n / 10.0) / (n / 10.0);
    EXPECT_LT(chi2, 27.88);  // 9 degrees of freedom, p = 0.001
}
