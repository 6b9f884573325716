#include "model/Optimizer.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace nnwb {

Optimizer::Optimizer(Backend& be, const OptimizerConfig& cfg, std::vector<NamedParam> params)
    : be_(be), cfg_(cfg), params_(std::move(params)) {
    for (auto& np : params_) {
        const Param& p = *np.param;
        const size_t n = p.count();
        if (!runs_.empty()) {
            Run& r = runs_.back();
            if (r.value.buf == p.value.buf && r.grad.buf == p.grad.buf &&
                r.value.offset + r.count == p.value.offset &&
                r.grad.offset + r.count == p.grad.offset) {
                r.count += n;
                continue;
            }
        }
        runs_.push_back({p.value, p.grad, n, Buffer(), Buffer()});
    }
    for (auto& r : runs_) {
        r.m = be.alloc(r.count);
        be.fill({r.m, r.count, 0.0f});
        if (cfg_.type == "adam") {
            r.v = be.alloc(r.count);
            be.fill({r.v, r.count, 0.0f});
        }
    }
}

Optimizer::Optimizer(Backend& be, std::vector<OptimizerConfig> configs, const ParamArena& arena)
    : be_(be), models_(std::move(configs)) {
    if (models_.size() != size_t(arena.models()))
        throw std::invalid_argument(std::to_string(models_.size()) +
                                    " optimizer settings for a population of " +
                                    std::to_string(arena.models()) + " models");
    for (const OptimizerConfig& c : models_)
        if (c.type != models_[0].type)
            throw std::invalid_argument("a population's models use one optimizer type (got " +
                                        models_[0].type + " and " + c.type + ")");
    cfg_ = models_[0];
    // Every model's whole arena slice: one run of capacity x models values.
    const size_t n = arena.capacity() * size_t(arena.models());
    runs_.push_back({arena.values(), arena.grads(), n, be.alloc(n), Buffer()});
    be.fill({runs_[0].m, n, 0.0f});
    if (cfg_.type == "adam") {
        runs_[0].v = be.alloc(n);
        be.fill({runs_[0].v, n, 0.0f});
    }
    hyper_ = be.alloc(models_.size() * size_t(cfg_.type == "adam" ? kAdamHyper : kSgdHyper));
}

void Optimizer::stepPopulation(BufRef skip) {
    // Each value as the single-model step() converts it.
    std::vector<float> h;
    for (const OptimizerConfig& c : models_) {
        const float lr = static_cast<float>(c.learningRate);
        const float wd = static_cast<float>(c.weightDecay);
        if (cfg_.type == "adam")
            h.insert(h.end(), {lr, static_cast<float>(c.beta1), static_cast<float>(c.beta2),
                               static_cast<float>(c.epsilon), wd,
                               static_cast<float>(1.0 - std::pow(c.beta1, double(t_))),
                               static_cast<float>(1.0 - std::pow(c.beta2, double(t_)))});
        else
            h.insert(h.end(), {lr, static_cast<float>(c.momentum), wd});
    }
    be_.upload(hyper_, h.data(), h.size());
    const Run& r = runs_[0];
    const int models = static_cast<int>(models_.size());
    if (cfg_.type == "adam") {
        AdamStepArgs a;
        a.n = r.count;
        a.w = r.value;
        a.g = r.grad;
        a.m = r.m;
        a.v = r.v;
        a.skip = skip;
        a.models = models;
        a.hyper = hyper_;
        be_.adamStep(a);
    } else {
        SgdStepArgs a;
        a.n = r.count;
        a.w = r.value;
        a.g = r.grad;
        a.velocity = r.m;
        a.skip = skip;
        a.models = models;
        a.hyper = hyper_;
        be_.sgdStep(a);
    }
}

void Optimizer::step(BufRef skip) {
    ++t_;
    if (!models_.empty()) {
        stepPopulation(skip);
        return;
    }
    const float lr = static_cast<float>(cfg_.learningRate);
    const float wd = static_cast<float>(cfg_.weightDecay);
    if (cfg_.type == "adam") {
        const float bc1 = static_cast<float>(1.0 - std::pow(cfg_.beta1, double(t_)));
        const float bc2 = static_cast<float>(1.0 - std::pow(cfg_.beta2, double(t_)));
        for (auto& r : runs_)
            be_.adamStep({r.count, r.value, r.grad, r.m, r.v, lr, static_cast<float>(cfg_.beta1),
                          static_cast<float>(cfg_.beta2), static_cast<float>(cfg_.epsilon), wd, bc1,
                          bc2, skip});
    } else {
        for (auto& r : runs_)
            be_.sgdStep(
                {r.count, r.value, r.grad, r.m, lr, static_cast<float>(cfg_.momentum), wd, skip});
    }
}

void Optimizer::saveState(TensorMap& out, const std::string& prefix) {
    for (size_t i = 0; i < runs_.size(); ++i) {
        const Run& r = runs_[i];
        for (const auto& [name, buf] : {std::pair{"m", &r.m}, std::pair{"v", &r.v}}) {
            if (buf->empty()) continue;
            HostTensor t;
            t.shape = {int64_t(r.count)};
            t.values.resize(r.count);
            be_.download(*buf, t.values.data(), r.count);
            out[prefix + "." + std::to_string(i) + "." + name] = std::move(t);
        }
    }
}

void Optimizer::loadState(const TensorMap& in, const std::string& prefix, long long steps) {
    for (size_t i = 0; i < runs_.size(); ++i) {
        Run& r = runs_[i];
        for (const auto& [name, buf] : {std::pair{"m", &r.m}, std::pair{"v", &r.v}}) {
            if (buf->empty()) continue;
            const std::string key = prefix + "." + std::to_string(i) + "." + name;
            const auto it = in.find(key);
            if (it == in.end() || it->second.values.size() != r.count)
                throw std::runtime_error("the optimizer state " + key +
                                         (it == in.end() ? " is missing" : " has another size"));
            be_.upload(*buf, it->second.values.data(), r.count);
        }
    }
    t_ = steps;
}

}  // namespace nnwb
