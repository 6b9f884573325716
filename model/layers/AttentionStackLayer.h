// The multi-layer multi-head attention stack, a transformer encoder (JSON type
// "attention_stack"): `layers` identical multi-head blocks (AttentionBlock.h) with optional
// causal mask; params "block.J.qkv.weight" etc.; Score read-back gives one AttentionScores
// per block named "block.J". Shape preserving {units, window}. Thread: the backend's owner.
#pragma once

#include "model/layers/AttentionStackBase.h"

namespace nnwb {

class AttentionStackLayer final : public AttentionStackBase {
public:
    explicit AttentionStackLayer(const Settings& s) : AttentionStackBase(s, false, true) {}
    static LayerPtr fromJson(const nlohmann::json& j) {
        return std::make_unique<AttentionStackLayer>(settingsFromJson(j, "attention_stack"));
    }
    std::string type() const override { return "attention_stack"; }
    nlohmann::json toJson() const override { return settingsToJson(type()); }
};

}  // namespace nnwb
