#include "model/Optimizer.h"

#include <cmath>
#include <stdexcept>

namespace nnwb {

namespace {
double number(const nlohmann::json& j, const char* key, double def, double lo, double hi,
              bool openLo = false) {
    if (!j.contains(key)) return def;
    const auto& v = j[key];
    if (!v.is_number())
        throw std::invalid_argument(std::string("training.optimizer.") + key +
                                    ": must be a number, got " + v.dump());
    const double x = v.get<double>();
    if (!std::isfinite(x) || x < lo || x > hi || (openLo && x == lo))
        throw std::invalid_argument(std::string("training.optimizer.") + key + ": " + v.dump() +
                                    " is outside " + (openLo ? "(" : "[") + std::to_string(lo) +
                                    ", " + std::to_string(hi) + "]");
    return x;
}
}  // namespace

nlohmann::json OptimizerConfig::toJson() const {
    return {{"type", type},
            {"learningRate", learningRate},
            {"momentum", momentum},
            {"beta1", beta1},
            {"beta2", beta2},
            {"epsilon", epsilon},
            {"weightDecay", weightDecay}};
}

OptimizerConfig OptimizerConfig::fromJson(const nlohmann::json& j) {
    OptimizerConfig c;
    if (!j.is_object()) throw std::invalid_argument("training.optimizer: must be an object");
    if (j.contains("type")) {
        if (!j["type"].is_string())
            throw std::invalid_argument("training.optimizer.type: must be \"adam\" or \"sgd\"");
        c.type = j["type"].get<std::string>();
        if (c.type != "adam" && c.type != "sgd")
            throw std::invalid_argument("training.optimizer.type: '" + c.type +
                                        "' is not one of adam, sgd");
    }
    c.learningRate = number(j, "learningRate", c.learningRate, 0.0, 10.0, true);
    c.momentum = number(j, "momentum", c.momentum, 0.0, 0.9999);
    c.beta1 = number(j, "beta1", c.beta1, 0.0, 0.9999);
    c.beta2 = number(j, "beta2", c.beta2, 0.0, 0.999999);
    c.epsilon = number(j, "epsilon", c.epsilon, 0.0, 1.0, true);
    c.weightDecay = number(j, "weightDecay", c.weightDecay, 0.0, 1.0);
    return c;
}

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

}  // namespace nnwb
