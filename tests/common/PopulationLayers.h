// Population layers under test (docs/decisions/population.md): one layer run as a population of
// P models, or P single layers, on a backend, with the same per-model seeds, inputs and output
// gradients, and a small network trained for a few steps either way; what each gives (outputs,
// input gradient, every parameter gradient) in the population's layout, so that the two can be
// compared. Header-only; test threads only.
#pragma once

#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <vector>

#include "common/TestUtil.h"
#include "model/Network.h"
#include "model/Optimizer.h"
#include "model/layers/Layer.h"

namespace nnwb::test {

struct LayerOutcome {
    std::vector<float> y, dx, params, grads;  // all models back to back
};

// `make` gives a fresh layer; `rows` per model; model m is initialized from Rng(seed + m) and
// draws dropout masks from seed 1000 + m at step 3. With `steps` > 1 the layer runs that many
// forward and backward passes on new inputs (a layer with state, as GPT's stream mode); y and
// dx hold every step's, parameter gradients the sum.
inline LayerOutcome runPopulationLayer(Backend& be, const std::function<LayerPtr()>& make,
                                       const Shape& in, int models, int rows, bool together,
                                       uint64_t seed = 40, int steps = 1) {
    const Shape out = make()->outputShape(in);
    const size_t inPer = size_t(rows) * in.size(), outPer = size_t(rows) * out.size();
    std::vector<std::vector<float>> xs, dys;
    for (int s = 0; s < steps; ++s) {
        xs.push_back(randomVector(models * inPer, uint32_t(7 + 100 * s), -2.0f, 2.0f));
        dys.push_back(randomVector(models * outPer, uint32_t(8 + 100 * s)));
    }
    std::vector<uint64_t> dropSeeds;
    for (int m = 0; m < models; ++m) dropSeeds.push_back(1000 + m);
    LayerOutcome o;
    auto append = [&](std::vector<float>& to, BufRef r, size_t n) {
        std::vector<float> v(n);
        be.download(r, v.data(), n);
        to.insert(to.end(), v.begin(), v.end());
    };
    // Biases start at 0 in every model: give model m's its own values (else a bias of the wrong
    // model would go unnoticed).
    auto ownBias = [&](Param* p, size_t i, int m, BufRef at) {
        if (p->name.size() < 4 || p->name.compare(p->name.size() - 4, 4, "bias") != 0) return;
        const std::vector<float> v = randomVector(p->count(), uint32_t(500 + 10 * i + m));
        be.upload(at, v.data(), v.size());
    };
    // Every buffer lives to the end of the run (fewer releases between the runs of layers:
    // docs/decisions/population.md, Remaining 6).
    std::deque<Buffer> keep;
    auto runOne = [&](Layer& l, int copies, size_t xo, size_t yo) {
        const int all = rows * copies;
        keep.push_back(be.alloc(size_t(all) * in.size()));
        keep.push_back(be.alloc(size_t(all) * out.size()));
        keep.push_back(be.alloc(size_t(all) * in.size()));
        Buffer &xb = keep[keep.size() - 3], &dyb = keep[keep.size() - 2], &dxb = keep.back();
        for (int s = 0; s < steps; ++s) {
            be.upload(xb, xs[s].data() + xo, xb.size());
            be.upload(dyb, dys[s].data() + yo, dyb.size());
            l.forward(xb, all, true);
            l.backward(xb, dyb, dxb, all);
            append(o.y, l.output(), dyb.size());
            append(o.dx, dxb, dxb.size());
        }
    };
    if (together) {
        LayerPtr l = make();
        l->setPopulation(models);
        l->build(be, in, models * rows);
        for (int m = 0; m < models; ++m) {
            Rng rng(seed + m);
            l->initWeightsOf(m, rng);
        }
        for (size_t i = 0; i < l->params().size(); ++i)
            for (int m = 0; m < models; ++m) {
                Param* p = l->params()[i];
                ownBias(p, i, m, p->value + m * p->modelStride);
            }
        l->setDropoutStreams(dropSeeds, 3);
        runOne(*l, models, 0, 0);
        // Step after step of all models -> model after model of all steps (the singles' order).
        auto byModel = [&](std::vector<float>& v, size_t per) {
            std::vector<float> r;
            for (int m = 0; m < models; ++m)
                for (int s = 0; s < steps; ++s) {
                    const auto at = v.begin() + (size_t(s) * models + m) * per;
                    r.insert(r.end(), at, at + per);
                }
            v = std::move(r);
        };
        byModel(o.y, outPer);
        byModel(o.dx, inPer);
        for (Param* p : l->params()) {  // parameter by parameter, all models
            append(o.params, p->value, p->count() * size_t(models));
            append(o.grads, p->grad, p->count() * size_t(models));
        }
        return o;
    }
    std::vector<LayerPtr> singles;
    for (int m = 0; m < models; ++m) {
        singles.push_back(make());
        Layer& l = *singles.back();
        l.build(be, in, rows);
        Rng rng(seed + m);
        l.initWeights(rng);
        for (size_t i = 0; i < l.params().size(); ++i)
            ownBias(l.params()[i], i, m, l.params()[i]->value);
        l.setDropoutStream(dropSeeds[m], 3);
        runOne(l, 1, m * inPer, m * outPer);
    }
    const size_t nParams = singles[0]->params().size();
    for (size_t i = 0; i < nParams; ++i)
        for (int m = 0; m < models; ++m) {
            Param* p = singles[m]->params()[i];
            append(o.params, p->value, p->count());
            append(o.grads, p->grad, p->count());
        }
    return o;
}

}  // namespace nnwb::test

namespace nnwb::test {

// A network for trainPopulationNetwork: its layers, input shape and output width.
struct PopulationNet {
    nlohmann::json model;
    Shape in;
    int outs = 3;
    float adamEps = 1e-8f;
};

// Dense tanh, dropout, dense.
inline PopulationNet smallDenseNet() {
    return {{{"layers",
              {{{"type", "dense"}, {"neurons", 16}, {"activation", "tanh"}},
               {{"type", "dropout"}, {"rate", 0.3}},
               {{"type", "dense"}, {"neurons", 3}, {"activation", "none"}}}}},
            Shape{4, 5},
            3};
}

// The stack of the default experiment (resources/presets/mql5-fractal-5x8.json: conv, a
// causal attention_stack with sequence norm, dense x 3), smaller (8 filters, 2 heads, 2
// blocks, 5 elements of 4 values), with dropout on the scores and the feed-forward outputs
// so that the blocks' dropout sites draw per-model masks. Adam's epsilon is 1e-3: the key
// biases' gradients are zero but for rounding (a shift of every key moves no softmax), and
// with epsilon 1e-8 Adam turns that rounding into steps of the learning rate whose signs
// differ between the CPU and a device (trained one by one as much as together), beyond any
// parity tolerance.
inline PopulationNet fractalStackNet() {
    return {{{"layers",
              {{{"type", "conv"},
                {"window", 0},
                {"step", 0},
                {"filters", 8},
                {"activation", "sigmoid"}},
               {{"type", "attention_stack"},
                {"key_size", 4},
                {"heads", 2},
                {"layers", 2},
                {"causal", true},
                {"norm", "sequence"},
                {"activation", "leaky_relu"},
                {"ff_activation", "sigmoid"},
                {"score_dropout", 0.1},
                {"ff_dropout", 0.1}},
               {{"type", "dense"}, {"neurons", 16}, {"activation", "tanh"}},
               {{"type", "dense"}, {"neurons", 16}, {"activation", "tanh"}},
               {{"type", "dense"}, {"neurons", 3}, {"activation", "sigmoid"}}}}},
            Shape{5, 4},
            3,
            1e-3f};
}

// Three training steps of a network (smallDenseNet() unless given) as a population of 3
// models with their own seeds, learning rates and betas (Adam with the per-model hyper table,
// per-model clipping, MSE loss over every model's rows), or as 3 single networks trained one
// by one with the same settings. Returns every model's parameters after the steps and the
// outputs of the last forward pass, model after model.
// With `viaOptimizer`, the steps go through model/Optimizer (a population's or a single's).
inline std::vector<float> trainPopulationNetwork(Backend& be, bool together,
                                                 bool viaOptimizer = false,
                                                 const PopulationNet& pn = smallDenseNet()) {
    const int P = 3, batch = 4, outs = pn.outs;
    const Shape in = pn.in;
    const nlohmann::json& model = pn.model;
    const std::vector<uint64_t> seeds = {11, 22, 33};
    const float lr[] = {1e-2f, 3e-2f, 5e-3f}, b1[] = {0.9f, 0.8f, 0.9f},
                b2[] = {0.999f, 0.99f, 0.9f};
    const size_t xPer = size_t(batch) * in.size(), tPer = size_t(batch) * outs;
    std::vector<std::vector<float>> xs, ts;
    for (int t = 0; t < 3; ++t) {
        xs.push_back(randomVector(P * xPer, 200 + t, -2.0f, 2.0f));
        ts.push_back(randomVector(P * tPer, 300 + t));
    }
    auto upload = [&](const std::vector<float>& v, size_t off, size_t n) {
        Buffer b = be.alloc(n);
        be.upload(b, v.data() + off, n);
        return b;
    };
    auto download = [&](BufRef r, size_t n, std::vector<float>& to) {
        std::vector<float> v(n);
        be.download(r, v.data(), n);
        to.insert(to.end(), v.begin(), v.end());
    };
    // Trains `nets` models of one network (P together, or one) on rows [first, first + nets).
    auto train = [&](int nets, int first, std::vector<float>& params, std::vector<float>& ys) {
        Network net(Network::layersFromJson(model), in);
        if (nets > 1) net.setPopulation(nets);
        net.build(be, batch);
        if (nets > 1) {
            net.initWeights(seeds);
            net.setDropoutSeeds(seeds);
        } else {
            net.initWeights(seeds[first]);
            net.setDropoutSeed(seeds[first]);
        }
        const size_t per = net.paramArena().capacity(), all = per * size_t(nets);
        Buffer m = be.alloc(all), v = be.alloc(all), norm = be.alloc(nets),
               dy = be.alloc(nets * tPer), loss = be.alloc(nets * batch);
        be.fill({m, all, 0.0f});
        be.fill({v, all, 0.0f});
        std::unique_ptr<Optimizer> opt;
        if (viaOptimizer) {
            std::vector<OptimizerConfig> cfgs;
            for (int k = first; k < first + nets; ++k) {
                OptimizerConfig c;
                c.learningRate = lr[k];
                c.beta1 = b1[k];
                c.beta2 = b2[k];
                c.weightDecay = 1e-2;
                c.epsilon = pn.adamEps;
                cfgs.push_back(c);
            }
            if (nets > 1)
                opt = std::make_unique<Optimizer>(be, cfgs, net.paramArena());
            else
                opt = std::make_unique<Optimizer>(be, cfgs[0], net.params());
        }
        BufRef y;
        for (int t = 1; t <= 3; ++t) {
            Buffer x = upload(xs[t - 1], first * xPer, nets * xPer);
            Buffer target = upload(ts[t - 1], first * tPer, nets * tPer);
            net.zeroGrad();
            y = net.forward(x, batch, true);
            be.mseLoss({nets * batch, outs, y, target, dy, loss, 1.0f / batch});
            net.backward(x, dy, batch);
            ClipByGlobalNormArgs clip{all, net.paramArena().grads(), 0.5f, norm};
            clip.models = nets;
            be.clipByGlobalNorm(clip);
            if (opt) {
                opt->step();
                continue;
            }
            std::vector<float> hyper;
            for (int k = first; k < first + nets; ++k)
                hyper.insert(hyper.end(),
                             {lr[k], b1[k], b2[k], pn.adamEps, 1e-2f,
                              1.0f - std::pow(b1[k], float(t)), 1.0f - std::pow(b2[k], float(t))});
            AdamStepArgs a;
            a.n = all;
            a.w = net.paramArena().values();
            a.g = net.paramArena().grads();
            a.m = m;
            a.v = v;
            if (nets > 1) {
                Buffer h = upload(hyper, 0, hyper.size());
                a.models = nets;
                a.hyper = h;
                be.adamStep(a);
            } else {
                a.lr = hyper[0];
                a.beta1 = hyper[1];
                a.beta2 = hyper[2];
                a.eps = hyper[3];
                a.weightDecay = hyper[4];
                a.bc1 = hyper[5];
                a.bc2 = hyper[6];
                be.adamStep(a);
            }
        }
        download(net.paramArena().values(), all, params);
        download(y, nets * tPer, ys);
    };
    std::vector<float> params, ys;
    if (together)
        train(P, 0, params, ys);
    else
        for (int k = 0; k < P; ++k) train(1, k, params, ys);
    params.insert(params.end(), ys.begin(), ys.end());
    return params;
}

}  // namespace nnwb::test
