// Central finite-difference gradient checks with dropout active and its mask held fixed (the
// layer's dropout stream stays at one (seed, step) for every forward of the check): the
// dropout layer and the attention layers with score_dropout and ff_dropout, on the
// double-precision CPU backend. Each case first shows that the mask is active (training
// output differs from evaluation) so that the check cannot pass vacuously.
#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "common/GradCheck.h"
#include "common/LayerRun.h"
#include "common/ParamName.h"

using namespace nnwb;
using namespace nnwb::test;

namespace {

void check(const nlohmann::json& j, const Shape& in, int batch = 2) {
    auto run =
        LayerRun::fromJson(std::make_unique<CpuBackend>(Precision::Double, 1), j, in, batch, 5);
    run->layer->setDropoutStream(31, 4);
    run->setInput(randomDoubles(run->inCount(), 3));
    ASSERT_TRUE(run->forward(true) != run->forward(false)) << "dropout was not active";
    size_t checked = 0;
    const std::string err = gradCheck(*run, GradCheckSettings{}, &checked);
    ASSERT_TRUE(err.empty()) << j.dump() << ": " << err;
    ASSERT_GT(checked, size_t(0));
}

struct AttentionRow {
    std::string name, type, norm;
    bool causal;
    double score, ff;
};
void PrintTo(const AttentionRow& r, std::ostream* os) {
    *os << r.name;
}
std::vector<AttentionRow> attentionRows() {
    std::vector<AttentionRow> rows;
    for (const std::string type : {"attention", "multihead_attention", "attention_stack"}) {
        rows.push_back({type + " both", type, "element", false, 0.3, 0.25});
        rows.push_back({type + " score causal", type, "element", true, 0.4, 0.0});
        rows.push_back({type + " ff sequence", type, "sequence", false, 0.0, 0.5});
    }
    return rows;
}

}  // namespace

class GradcheckDropoutAttention : public ::testing::TestWithParam<AttentionRow> {};

TEST(GradcheckDropout, dropoutLayer) {
    for (double rate : {0.2, 0.5, 0.9}) check({{"type", "dropout"}, {"rate", rate}}, {5, 7});
}

TEST_P(GradcheckDropoutAttention, attention) {
    const AttentionRow& r = GetParam();
    nlohmann::json j{{"type", r.type},           {"key_size", 3},
                     {"causal", r.causal},       {"norm", r.norm},
                     {"score_dropout", r.score}, {"ff_dropout", r.ff}};
    if (r.type != "attention") j["heads"] = 2;
    if (r.type == "attention_stack") j["layers"] = 2;
    check(j, Shape{5, 6});
}

INSTANTIATE_TEST_SUITE_P(, GradcheckDropoutAttention, ::testing::ValuesIn(attentionRows()),
                         RowName());
