#include "model/layers/GptLayer.h"

#include <algorithm>
#include <stdexcept>

#include "model/layers/LayerRegistry.h"

namespace nnwb {

namespace {
AttentionStackBase::Settings gptSettings(AttentionStackBase::Settings s) {
    s.causal = true;
    s.norm = NormMode::Element;
    return s;
}
}  // namespace

GptLayer::GptLayer(const Settings& s, Mode mode)
    : AttentionStackBase(gptSettings(s), false, true), mode_(mode) {}

LayerPtr GptLayer::fromJson(const nlohmann::json& j) {
    const std::string m = jsonChoice(j, layerParam("gpt", "mode"));
    return std::make_unique<GptLayer>(settingsFromJson(j, "gpt"),
                                      m == "stream" ? Mode::Stream : Mode::Sequence);
}

nlohmann::json GptLayer::toJson() const {
    auto j = settingsToJson(type());
    j["mode"] = mode_ == Mode::Stream ? "stream" : "sequence";
    return j;
}

Shape GptLayer::outputShape(const Shape& in) const {
    checkInput(in);
    return Shape{1, in.window};
}

void GptLayer::build(Backend& be, const Shape& in, int maxBatch) {
    AttentionStackBase::build(be, in, maxBatch);
    const auto cfg = blockConfig(in);
    for (auto& b : blocks_) b.buildRow(maxBatch);
    rowScratch_.allocate(be, cfg, size_t(maxBatch), size_t(maxBatch) * cfg.heads * in.units);
    const size_t row = size_t(maxBatch) * in.window;
    xRow_ = be.alloc(row);
    dxRow_ = be.alloc(row);
    rowGradA_ = be.alloc(row);
    rowGradB_ = be.alloc(row);
    step_ = 0;
}

void GptLayer::forward(BufRef x, int batch, bool) {
    const int u = in_.units, w = in_.window;
    int slot = u - 1, n = u;
    if (mode_ == Mode::Sequence) {
        forwardBlocks(x, batch);  // fills every layer's key/value rows 0..units-1
    } else {
        slot = int(step_ % u);
        n = int(std::min<long long>(step_ + 1, u));
        ++step_;
    }
    lastBatch_ = batch;
    be_->copy2d({x + size_t(u - 1) * w, u * w, xRow_, w, batch, w});
    BufRef cur = xRow_;
    for (auto& b : blocks_) {
        b.forwardRow(cur, batch, slot, n, rowScratch_);
        cur = b.rowOutput();
    }
}

BufRef GptLayer::output() const {
    return blocks_.back().rowOutput();
}

void GptLayer::backward(BufRef, BufRef dy, BufRef dx, int batch) {
    const int u = in_.units, w = in_.window;
    BufRef grad = dy;
    for (size_t l = blocks_.size(); l-- > 0;) {
        const BufRef in = l == 0 ? BufRef(xRow_) : blocks_[l - 1].rowOutput();
        BufRef out;
        if (l > 0)
            out = (blocks_.size() - 1 - l) % 2 ? BufRef(rowGradB_) : BufRef(rowGradA_);
        else if (!dx.empty())
            out = dxRow_;
        blocks_[l].backwardRow(in, grad, out, batch, rowScratch_);
        grad = out;
    }
    if (dx.empty()) return;
    be_->fill({dx, size_t(batch) * in_.size(), 0.0f});
    be_->copy2d({dxRow_, w, dx + size_t(u - 1) * w, u * w, batch, w});
}

std::vector<AttentionScores> GptLayer::readScores(int sample) {
    if (mode_ == Mode::Sequence) return AttentionStackBase::readScores(sample);
    std::vector<AttentionScores> out;
    if (sample < 0 || sample >= lastBatch_) return out;
    const int u = in_.units;
    for (size_t l = 0; l < blocks_.size(); ++l) {
        const auto& b = blocks_[l];
        const int h = b.config().heads, n = b.rowCount(), slot = b.rowSlot();
        std::vector<float> row(size_t(h) * n);
        be_->download(b.rowScores() + size_t(sample) * h * n, row.data(), row.size());
        AttentionScores s;
        s.name = "block." + std::to_string(l);
        s.heads = h;
        s.units = u;
        s.values.assign(size_t(h) * u * u, 0.0f);
        // Ring entry (slot + 1 + k) % n is the k-th oldest once the ring is full; before
        // that entries 0..n-1 are in time order and slot == n - 1.
        for (int hh = 0; hh < h; ++hh)
            for (int k = 0; k < n; ++k) {
                const int entry = (slot + 1 + k) % n;
                s.values[(size_t(hh) * u + (u - 1)) * u + size_t(u - n + k)] =
                    row[size_t(hh) * n + entry];
            }
        out.push_back(std::move(s));
    }
    return out;
}

}  // namespace nnwb
