// Parity of the population ops (docs/decisions/population.md) on every OpenCL device: each
// scenario of tests/common/PopulationScenarios.h (3 models in one call) against the CPU
// reference, and against the same device running the models one by one.
#include <gtest/gtest.h>

#include <functional>
#include <tuple>
#include <utility>

#include "common/PopulationLayers.h"
#include "common/PopulationScenarios.h"
#include "model/layers/ConvLayer.h"
#include "model/layers/DenseLayer.h"
#include "model/layers/DropoutLayer.h"
#include "model/layers/LayerRegistry.h"
#include "model/layers/LightConvLayer.h"
#include "parity/ParityHarness.h"

using namespace nnwb;
using namespace nnwb::test;

namespace {

class ParityPopulation : public ParitySuite {};

// Kernels: bias_activation, bias_softmax_rows, bias_gradient (one chunk and several, fused with
// the activation), gemm + the per-model bias, sgd_step_models, adam_step_models, clip_* (one
// work-group and partial sums per model), dropout_forward with key bases, record_outcomes,
// lightconv_* with per-model taps.
TEST_F(ParityPopulation, opsMatchTheCpuAndOneByOne) {
    const Tolerance tol{};
    for (const PopulationScenario& s : populationScenarios()) {
        if (!parityNextCaseInSlice()) continue;  // NNWB_PARITY_SLICE (oclgrind)
        CpuBackend cpu;
        const std::vector<float> want = s.run(cpu, true);
        if (want.size() > parityMaxValues()) {  // NNWB_PARITY_MAX_VALUES (oclgrind)
            ++paritySkipped();
            continue;
        }
        for (auto& [id, dev] : parityDevices().cl) {
            const std::vector<float> got = s.run(*dev, true), apart = s.run(*dev, false);
            const std::string m = compareNear(got, want, tol);
            EXPECT_TRUE(m.empty()) << s.name << " [" << id << "] vs cpu: " << m;
            const std::string a = compareNear(got, apart, tol);
            EXPECT_TRUE(a.empty()) << s.name << " [" << id << "] vs one by one: " << a;
        }
    }
}

// Dense, dropout, conv and attention layers as populations of 3 (forward, backward, parameter
// gradients) against the CPU reference.
TEST_F(ParityPopulation, layersMatchTheCpu) {
    const std::pair<const char*, std::function<LayerPtr()>> layers[] = {
        {"dense tanh", [] { return std::make_unique<DenseLayer>(7, Activation::Tanh); }},
        {"dense softmax", [] { return std::make_unique<DenseLayer>(5, Activation::Softmax); }},
        {"dropout", [] { return std::make_unique<DropoutLayer>(0.3); }},
        {"conv", [] { return std::make_unique<ConvLayer>(0, 0, 6, Activation::Sigmoid); }},
        {"conv unfold", [] { return std::make_unique<ConvLayer>(3, 2, 4, Activation::Tanh); }},
        {"attention_stack",
         [] {
             return makeLayer({{"type", "attention_stack"},
                               {"key_size", 3},
                               {"heads", 2},
                               {"layers", 2},
                               {"causal", true},
                               {"norm", "sequence"},
                               {"ff_activation", "sigmoid"},
                               {"score_dropout", 0.2},
                               {"ff_dropout", 0.2}});
         }},
        {"multihead_attention",
         [] {
             return makeLayer({{"type", "multihead_attention"}, {"key_size", 2}, {"heads", 2}});
         }},
        {"attention",
         [] {
             return makeLayer({{"type", "attention"}, {"key_size", 3}});
         }},
        {"gpt",
         [] {
             return makeLayer({{"type", "gpt"}, {"key_size", 2}, {"heads", 2}, {"layers", 2}});
         }},
        {"lightconv", [] {
             return std::make_unique<LightConvLayer>(0, 0, 5, 3, LightConvLayer::Padding::Causal,
                                                     true);
         }}};
    for (const auto& [name, make] : layers)
        for (int rows : {1, 40}) {
            // A capped run (oclgrind interprets every work-item): one sample per model.
            if (rows > 1 && parityCheckingDevice()) continue;
            if (!parityNextCaseInSlice()) continue;
            CpuBackend cpu;
            const LayerOutcome want = runPopulationLayer(cpu, make, Shape{4, 5}, 3, rows, true);
            for (auto& [id, dev] : parityDevices().cl) {
                const LayerOutcome got = runPopulationLayer(*dev, make, Shape{4, 5}, 3, rows, true);
                for (const auto& [part, a, b] :
                     {std::tuple{"y", &got.y, &want.y}, std::tuple{"dx", &got.dx, &want.dx},
                      std::tuple{"grads", &got.grads, &want.grads}}) {
                    const std::string m = compareNear(*a, *b, Tolerance{});
                    EXPECT_TRUE(m.empty())
                        << name << " rows " << rows << " [" << id << "] " << part << ": " << m;
                }
            }
        }
}

// The networks of trainPopulationNetwork (small dense, the default experiment's stack)
// trained together on each device vs the CPU.
TEST_F(ParityPopulation, networkTrainingMatchesTheCpu) {
    for (const auto& [name, net] :
         {std::pair{"dense", smallDenseNet()}, std::pair{"fractal stack", fractalStackNet()}}) {
        if (!parityNextCaseInSlice()) continue;  // NNWB_PARITY_SLICE (oclgrind)
        CpuBackend cpu;
        const std::vector<float> want = trainPopulationNetwork(cpu, true, false, net);
        for (auto& [id, dev] : parityDevices().cl) {
            const std::string m =
                compareNear(trainPopulationNetwork(*dev, true, false, net), want, Tolerance{});
            EXPECT_TRUE(m.empty()) << name << " [" << id << "] " << m;
        }
    }
}

}  // namespace
