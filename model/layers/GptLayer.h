// The GPT block (JSON type "gpt"): a causal multi-head stack (same blocks and parameter names
// as attention_stack with causal = true, element norm) that processes ONE new element per
// forward step, with per-layer key/value stacks of the last `units` elements so earlier
// elements are not recomputed; gradients flow only through the new element.
// Runs as a population (each model's blocks; the row path's products per model in one launch,
// its cache, softmax and norms over every model's samples). Thread: the backend's owner.
//
// Mapping onto the Network's sample interface: the input of a sample is the sequence
// {units, window} (oldest element first); the new element is its last row; the output is
// that element's output of the stack, shape {1, window}.
// - mode "sequence" (default; shuffled mini-batches work): each forward refills the key/value
//   stacks from the sample's own earlier elements (one causal pass of the stack over the
//   sample, forward only), then runs the new element through the layers against them. The
//   output equals the causal attention_stack's output at the last element (same weights).
// - mode "stream" (the MQL5 style: samples in time order, shuffle off; each batch slot is an
//   independent stream): only the last row of each sample is read; its keys and values are
//   pushed into a ring of `units` entries per layer and batch slot, and the earlier entries
//   are the ones computed at earlier steps, never recomputed. After resetStream() the first
//   `units` steps fed elements e0, e1, ... give exactly the causal stack's outputs at rows
//   0, 1, ... of the sequence e0, e1, ...
// In both modes backward treats the cached keys/values of the other elements as constants:
// the input gradient is zero except for the last row of each sample.
// Scores: per block "block.J", [heads][units][units]; in sequence mode the full causal matrix
// of the stack pass, in stream mode only the last row (the new element's scores over the
// cached elements, oldest at column units - n, newest at column units - 1), other rows zero.
#pragma once

#include "model/layers/AttentionStackBase.h"

namespace nnwb {

class GptLayer final : public AttentionStackBase {
public:
    enum class Mode { Sequence, Stream };
    GptLayer(const Settings& s, Mode mode);
    static LayerPtr fromJson(const nlohmann::json& j);

    std::string type() const override { return "gpt"; }
    nlohmann::json toJson() const override;
    Shape outputShape(const Shape& in) const override;
    void build(Backend& backend, const Shape& in, int maxBatch) override;
    void forward(BufRef x, int batch, bool training) override;
    BufRef output() const override;
    void backward(BufRef x, BufRef dy, BufRef dx, int batch) override;
    std::vector<AttentionScores> readScores(int sample) override;

    Mode mode() const { return mode_; }
    // Stream mode: forget the history (the next step sees only itself).
    void resetStream() { step_ = 0; }
    // Stream mode: the number of steps taken since the reset; setting it rewinds (the ring
    // rows of earlier steps are kept), e.g. to repeat a step in a gradient check.
    long long streamStep() const { return step_; }
    void setStreamStep(long long step) { step_ = step; }

private:
    Mode mode_;
    long long step_ = 0;
    int lastBatch_ = 0;
    Buffer xRow_, dxRow_, rowGradA_, rowGradB_;
    AttentionBlock::Scratch rowScratch_;
};

}  // namespace nnwb
