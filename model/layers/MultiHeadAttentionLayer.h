// The multi-head self-attention block (JSON type "multihead_attention"): `heads` heads of key
// size dk from one fused QKV projection ([units][3 heads dk]), scores and contexts as strided
// batched gemms over (sample, head), heads concatenated ([units][heads dk]) and projected back
// to `window` by W0, then add & norm, feed-forward 4 x window, add & norm (AttentionBlock.h).
// Params qkv.*, w0.*, ff1.*, ff2.*. Shape preserving. Thread: the backend's owner.
#pragma once

#include "model/layers/AttentionStackBase.h"

namespace nnwb {

class MultiHeadAttentionLayer final : public AttentionStackBase {
public:
    explicit MultiHeadAttentionLayer(const Settings& s) : AttentionStackBase(s, false, false) {}
    static LayerPtr fromJson(const nlohmann::json& j) {
        return std::make_unique<MultiHeadAttentionLayer>(
            settingsFromJson(j, "multihead_attention"));
    }
    std::string type() const override { return "multihead_attention"; }
    nlohmann::json toJson() const override { return settingsToJson(type()); }
};

}  // namespace nnwb
