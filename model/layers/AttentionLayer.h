// The single-head self-attention block (JSON type "attention"): Q, K = X Wq, X Wk with key_size
// values, V = X Wv with `window` values (so Z = Score V already has the window width and there
// is no W0), X1 = norm(X + Z), out = norm(X1 + g(W2 f(W1 X1))). Q, K, V come from one fused
// projection (params qkv.weight [2 key_size + window][window], qkv.bias; ff1.*, ff2.*).
// Shape preserving {units, window}. Thread: the backend's owner.
#pragma once

#include "model/layers/AttentionStackBase.h"

namespace nnwb {

class AttentionLayer final : public AttentionStackBase {
public:
    explicit AttentionLayer(const Settings& s) : AttentionStackBase(s, true, false) {}
    static LayerPtr fromJson(const nlohmann::json& j) {
        return std::make_unique<AttentionLayer>(settingsFromJson(j, "attention"));
    }
    std::string type() const override { return "attention"; }
    nlohmann::json toJson() const override { return settingsToJson(type()); }
};

}  // namespace nnwb
