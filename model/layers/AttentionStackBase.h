// Common Layer implementation of the attention layers: a chain of identical AttentionBlocks
// over input {units, window} with shape checks, one shared scratch, forward/backward through
// the chain and Score read-back. AttentionLayer, MultiHeadAttentionLayer, AttentionStackLayer
// and GptLayer derive from it. The sequence path runs as a population (docs/decisions/
// population.md): every block's parameters per model, the dropout sites with per-model key
// bases. Thread: the backend's owner.
#pragma once

#include <string>
#include <vector>

#include "model/layers/AttentionBlock.h"
#include "model/layers/Layer.h"

namespace nnwb {

class AttentionStackBase : public Layer {
public:
    // The JSON-level settings of every attention layer (some fixed by the subclass).
    struct Settings {
        int units = 0;   // 0 = take from the input
        int window = 0;  // 0 = take from the input; otherwise must equal it
        int keySize = 4;
        int heads = 1;
        int layers = 1;
        bool causal = false;
        NormMode norm = NormMode::Element;
        Activation hidden = Activation::LeakyRelu;
        Activation ffOut = Activation::None;
        double scoreDropout = 0.0;  // training-only dropout on the Score matrix (0 = off)
        double ffDropout = 0.0;     // training-only dropout on the feed-forward output
    };

    const Settings& settings() const { return s_; }
    Shape outputShape(const Shape& in) const override;
    size_t parameterCount(const Shape& in) const override;
    void build(Backend& backend, const Shape& in, int maxBatch) override;
    void initWeights(Rng& rng) override;
    void forward(BufRef x, int batch, bool training) override;
    BufRef output() const override;
    void backward(BufRef x, BufRef dy, BufRef dx, int batch) override;
    std::vector<Param*> params() override;
    std::vector<AttentionScores> readScores(int sample) override;
    bool supportsPopulation() const override { return true; }

protected:
    // singleHead: V has `window` values and there is no W0 (the single-head block);
    // prefixed: parameter and score names carry "block.J." (stacks).
    AttentionStackBase(const Settings& s, bool singleHead, bool prefixed);
    // Checks the input shape; throws std::invalid_argument with the reason.
    void checkInput(const Shape& in) const;
    AttentionBlock::Config blockConfig(const Shape& in) const;
    // Reads the keys of `type`'s registry spec that exist (units, window, key_size, heads,
    // layers, causal, norm, activation, ff_activation, score_dropout, ff_dropout); throws
    // std::invalid_argument.
    static Settings settingsFromJson(const nlohmann::json& j, const std::string& type);
    // Writes the same keys (those of `type`'s spec) with "type".
    nlohmann::json settingsToJson(const std::string& type) const;
    // training: apply the blocks' dropout (each block draws its masks from the layer's stream).
    void forwardBlocks(BufRef x, int batch, bool training = false);

    Settings s_;
    bool singleHead_, prefixed_;
    Backend* be_ = nullptr;
    Shape in_;
    std::vector<AttentionBlock> blocks_;
    AttentionBlock::Scratch scratch_;
    Buffer gradA_, gradB_;              // gradients between blocks
    Buffer dropBases_;                  // a population's dropout key bases, site after site
    std::vector<float> dropBasesHost_;  // what dropBases_ holds (uploaded when it changes)
};

}  // namespace nnwb
