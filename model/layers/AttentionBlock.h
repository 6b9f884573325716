// One transformer encoder block written only in Backend ops, shared by the attention layers
// (single head, multi-head, stack, GPT): fused QKV projection, per-(sample, head) strided
// batched score/context gemms, W0, add & norm, feed-forward 4 x window, add & norm; plus the
// one-row path the GPT block uses. The sequence path runs as a population (products per model
// in one launch; core, softmax, norms and dropout over every model's rows). Not a Layer itself.
// Thread: the backend's owner.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compute/Backend.h"
#include "model/Rng.h"
#include "model/layers/Layer.h"

namespace nnwb {

// "element": layer norm over the `window` values of each element (default).
// "sequence": the MQL5 variant, one mean/variance over the whole units x window of a sample
// (this couples all elements, so with it a causal mask no longer makes the block causal).
enum class NormMode { Element, Sequence };
const std::vector<std::string>& normModeNames();  // {"element", "sequence"}
std::string normModeName(NormMode m);
NormMode normModeFromName(const std::string& name);  // throws std::invalid_argument

// The dropout of one block forward: active only in training; one mask key per site, or for a
// population (models > 1) per-model key bases per site on the device (4 floats per model, see
// DropoutForwardArgs::bases) with the stream's step.
struct BlockDropoutKeys {
    bool active = false;
    uint64_t score = 0, ff = 0;
    int models = 1;
    BufRef scoreBases{}, ffBases{};
    uint64_t step = 0;
};

// Per sample, with U = units, W = window, H = heads, D = key size, Dv = value size per head:
//   QKV = X Wqkv^T + bqkv                    [U][H*D | H*D | H*Dv]  (Q of all heads, K, V)
//   P_h = softmax_rows(Q_h K_h^T / sqrt(D))   [H][U][U]  (optional causal mask)
//   C   = [P_1 V_1 | ... | P_H V_H]           [U][H*Dv]  (heads concatenated)
//   A   = C W0^T + b0, or A = C when there is no W0 (then H*Dv must equal W)
//   X1  = norm(X + A)
//   F   = g(f(X1 W1^T + b1) W2^T + b2)       hidden width 4 W, f = hidden, g = ffOut
//   out = norm(X1 + F)
// In a training forward with dropout rates, P and F are replaced by P * maskP and F * maskF
// (Backend::dropoutForward; the Score read-back still shows P).
// Parameters (names after `prefix`): qkv.weight [H(2D+Dv)][W], qkv.bias, w0.weight [W][H*Dv],
// w0.bias, ff1.weight [4W][W], ff1.bias, ff2.weight [W][4W], ff2.bias.
class AttentionBlock {
public:
    struct Config {
        int units = 1, window = 1, heads = 1, keySize = 1, valueSize = 1;
        bool w0 = true;
        bool causal = false;
        NormMode norm = NormMode::Element;
        Activation hidden = Activation::LeakyRelu;
        Activation ffOut = Activation::None;
        float scoreDropout = 0.0f;  // training-only inverted dropout on P (after the softmax)
        float ffDropout = 0.0f;     // training-only inverted dropout on F (before add & norm)
        int qkvWidth() const { return heads * (2 * keySize + valueSize); }
        int ctxWidth() const { return heads * valueSize; }
        int ffWidth() const { return 4 * window; }
        size_t parameterCount() const;
    };
    // Activations kept from forward for backward, for `rows` rows (batch * units on the
    // sequence path, batch on the row path) and `scores` score values.
    struct Acts {
        Buffer qkv, p, ctx, x1, rstd1, z1, h1, z2, f, out, rstd2;
        Buffer pd, pmask, fd, fmask;  // dropped P and F and their masks (rates > 0 only)
        bool scoreMasked = false, ffMasked = false;  // the last forward applied them
    };
    using DropoutKeys = BlockDropoutKeys;
    // Temporaries of forward and backward, shared by all blocks of one layer.
    struct Scratch {
        Buffer s, dp, attn, r, dr2, dz2, dh1, dx1, dr1, dctx, dqkv;
        void allocate(Backend& be, const Config& c, size_t rows, size_t scores);
    };

    AttentionBlock(const Config& config, std::string prefix);
    const Config& config() const { return cfg_; }

    // Allocates parameters and the sequence-path activations for maxBatch samples (with a
    // population of `models` models: every model's parameters, maxBatch rows over all models,
    // model m's the m-th block; docs/decisions/population.md).
    void build(Backend& be, int maxBatch, ParamArena* arena, int models = 1);
    // Fills the parameters from rng (every model's, one model after the other).
    void initWeights(Rng& rng);
    std::vector<Param*> params();

    // ---- sequence path: x and output are [batch][units][window] ----
    void forward(BufRef x, int batch, Scratch& scratch, const DropoutKeys& dropout = {});
    BufRef output() const { return acts_.out; }
    // ADDS parameter gradients; WRITES dx unless it is empty. dy and dx must not alias.
    void backward(BufRef x, BufRef dy, BufRef dx, int batch, Scratch& scratch);
    // Score matrices [heads][units][units] of one sample of the last sequence forward.
    std::vector<float> readScores(int sample);

    // ---- row path (GPT): one new element per sample, x and output [batch][window] ----
    // The key/value cache is the sequence path's QKV buffer: rows 0..n-1 of each sample hold
    // the cached elements; forwardRow writes the new element's QKV into row `slot` (< n) and
    // attends over rows 0..n-1 (all of them are the past or the element itself).
    void buildRow(int maxBatch);
    void forwardRow(BufRef x, int batch, int slot, int n, Scratch& rowScratch);
    BufRef rowOutput() const { return row_.out; }
    // Gradients flow only through the new element (its Q, and its K and V in row `slot`);
    // the cached keys and values of the other rows are constants.
    void backwardRow(BufRef x, BufRef dy, BufRef dx, int batch, Scratch& rowScratch);
    // Probabilities of the last forwardRow: [batch][heads][n].
    BufRef rowScores() const { return row_.p; }
    int rowCount() const { return rowN_; }
    int rowSlot() const { return rowSlot_; }

private:
    void allocActs(Acts& a, size_t rows, size_t scores);
    void project(BufRef x, int rows, Acts& a, Scratch& s);
    void tailForward(BufRef x, int rows, int normRows, Acts& a, Scratch& s,
                     const DropoutKeys& dropout = {});
    // Leaves the gradient w.r.t. the context C in the returned ref and dR1 (the residual
    // branch's part of the input gradient) in dx when dx is given, else in s.dr1.
    BufRef tailBackward(BufRef dy, BufRef dx, int rows, int normRows, Acts& a, Scratch& s);
    // dWqkv, dbqkv and, when dx is given, dx += dQKV Wqkv (dx holds dR1 from tailBackward).
    void projectBackward(BufRef x, BufRef dx, int rows, Scratch& s);
    SoftmaxShape scoreShape(int rows, int cols) const;
    // The fused block op's shape, parameters (values or gradients) and activations.
    AttentionBlockShape blockShape(int batch) const;
    BlockParams blockParams(bool grads) const;
    BlockActs blockActs() const;
    AttentionShape coreShape(int batch) const;
    // Per (sample, head) views of `batch` samples for the composed core: Q_h, K_h and V_h (column
    // blocks of QKV rows like acts_.qkv), the U x U score blocks (like acts_.p), the context's
    // column blocks (like acts_.ctx).
    struct QkvHeads {
        TensorView q, k, v;
    };
    QkvHeads qkvHeads(BufRef qkv, int batch) const;
    TensorView scoreHeads(BufRef scores, int batch) const;
    TensorView ctxHeads(BufRef ctx, int batch) const;

    Config cfg_;
    std::string prefix_;
    Backend* be_ = nullptr;
    int maxBatch_ = 0;
    Param wqkv_, bqkv_, w0_, b0_, w1_, b1_, w2_, b2_;
    Acts acts_, row_;
    int lastBatch_ = 0;
    int rowSlot_ = 0, rowN_ = 0;
};

}  // namespace nnwb
