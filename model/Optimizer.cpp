#include "model/Optimizer.h"

#include <cmath>
#include <stdexcept>

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

void Optimizer::step(BufRef skip) {
    ++t_;
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
