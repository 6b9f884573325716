#include "model/layers/AttentionStackBase.h"

#include <stdexcept>

#include "model/layers/ActivationNames.h"
#include "model/layers/LayerRegistry.h"

namespace nnwb {

AttentionStackBase::AttentionStackBase(const Settings& s, bool singleHead, bool prefixed)
    : s_(s), singleHead_(singleHead), prefixed_(prefixed) {
    if (singleHead_) s_.heads = 1;
}

void AttentionStackBase::checkInput(const Shape& in) const {
    if (s_.window != 0 && in.window != s_.window)
        throw std::invalid_argument("window " + std::to_string(s_.window) +
                                    " does not match the input's " + std::to_string(in.window) +
                                    " values per element");
    if (s_.units != 0 && in.units != s_.units)
        throw std::invalid_argument("units " + std::to_string(s_.units) +
                                    " does not match the input's " + std::to_string(in.units) +
                                    " elements");
}

Shape AttentionStackBase::outputShape(const Shape& in) const {
    checkInput(in);
    return in;
}

AttentionBlock::Config AttentionStackBase::blockConfig(const Shape& in) const {
    AttentionBlock::Config c;
    c.units = in.units;
    c.window = in.window;
    c.heads = singleHead_ ? 1 : s_.heads;
    c.keySize = s_.keySize;
    c.valueSize = singleHead_ ? in.window : s_.keySize;
    c.w0 = !singleHead_;
    c.causal = s_.causal;
    c.norm = s_.norm;
    c.hidden = s_.hidden;
    c.ffOut = s_.ffOut;
    c.scoreDropout = float(s_.scoreDropout);
    c.ffDropout = float(s_.ffDropout);
    return c;
}

size_t AttentionStackBase::parameterCount(const Shape& in) const {
    return size_t(s_.layers) * blockConfig(in).parameterCount();
}

void AttentionStackBase::build(Backend& be, const Shape& in, int maxBatch) {
    checkInput(in);
    if (maxBatch % models() != 0)
        throw std::invalid_argument("batch " + std::to_string(maxBatch) +
                                    " is not a multiple of the population's " +
                                    std::to_string(models()) + " models");
    be_ = &be;
    in_ = in;
    const auto cfg = blockConfig(in);
    blocks_.clear();
    blocks_.reserve(size_t(s_.layers));
    for (int l = 0; l < s_.layers; ++l) {
        blocks_.emplace_back(cfg, prefixed_ ? "block." + std::to_string(l) + "." : "");
        blocks_.back().build(be, maxBatch, arena(), models());
    }
    const size_t u = size_t(in.units);
    scratch_.allocate(be, cfg, size_t(maxBatch) * u, size_t(maxBatch) * cfg.heads * u * u);
    if (s_.layers > 1) {
        gradA_ = be.alloc(size_t(maxBatch) * in.size());
        gradB_ = be.alloc(size_t(maxBatch) * in.size());
    }
    // A population's dropout key bases: sites 2l (scores) and 2l + 1 (feed-forward) of block l.
    dropBases_ = Buffer();
    dropBasesHost_.clear();
    if (models() > 1 && (s_.scoreDropout > 0.0 || s_.ffDropout > 0.0))
        dropBases_ = be.alloc(size_t(2 * s_.layers) * 4 * size_t(models()));
}

void AttentionStackBase::initWeights(Rng& rng) {
    for (auto& b : blocks_) b.initWeights(rng);
}

void AttentionStackBase::forwardBlocks(BufRef x, int batch, bool training) {
    BufRef cur = x;
    const bool population = models() > 1 && !dropBases_.empty();
    const size_t per = 4 * size_t(models());  // one site's bases
    if (training && population) {
        std::vector<float> bases;
        for (size_t site = 0; site < 2 * blocks_.size(); ++site) {
            const std::vector<float> b = dropoutBasesOf(site);
            bases.insert(bases.end(), b.begin(), b.end());
        }
        if (bases != dropBasesHost_) {  // the seeds stay for a run: one upload
            be_->upload(dropBases_, bases.data(), bases.size());
            dropBasesHost_ = std::move(bases);
        }
    }
    for (size_t l = 0; l < blocks_.size(); ++l) {
        AttentionBlock::DropoutKeys keys;
        keys.active = training;
        if (population) {
            keys.models = models();
            keys.scoreBases = BufRef(dropBases_) + 2 * l * per;
            keys.ffBases = BufRef(dropBases_) + (2 * l + 1) * per;
            keys.step = dropoutStep();
        } else {
            keys.score = dropoutKeyOf(2 * l);
            keys.ff = dropoutKeyOf(2 * l + 1);
        }
        blocks_[l].forward(cur, batch, scratch_, keys);
        cur = blocks_[l].output();
    }
}

void AttentionStackBase::forward(BufRef x, int batch, bool training) {
    forwardBlocks(x, batch, training);
}

BufRef AttentionStackBase::output() const {
    return blocks_.back().output();
}

void AttentionStackBase::backward(BufRef x, BufRef dy, BufRef dx, int batch) {
    BufRef grad = dy;
    for (size_t l = blocks_.size(); l-- > 0;) {
        const BufRef in = l == 0 ? x : blocks_[l - 1].output();
        const BufRef out = l == 0 ? dx : BufRef((blocks_.size() - 1 - l) % 2 ? gradB_ : gradA_);
        blocks_[l].backward(in, grad, out, batch, scratch_);
        grad = out;
    }
}

std::vector<Param*> AttentionStackBase::params() {
    std::vector<Param*> out;
    for (auto& b : blocks_)
        for (Param* p : b.params()) out.push_back(p);
    return out;
}

std::vector<AttentionScores> AttentionStackBase::readScores(int sample) {
    std::vector<AttentionScores> out;
    for (size_t l = 0; l < blocks_.size(); ++l) {
        AttentionScores s;
        s.name = prefixed_ ? "block." + std::to_string(l) : "";
        s.heads = blocks_[l].config().heads;
        s.units = blocks_[l].config().units;
        s.values = blocks_[l].readScores(sample);
        if (!s.values.empty()) out.push_back(std::move(s));
    }
    return out;
}

AttentionStackBase::Settings AttentionStackBase::settingsFromJson(const nlohmann::json& j,
                                                                  const std::string& type) {
    const auto* info = findLayerType(type);
    if (!info) throw std::invalid_argument("unknown layer type '" + type + "'");
    Settings s;
    for (const auto& p : info->params) {
        if (p.key == "units")
            s.units = jsonInt(j, p);
        else if (p.key == "window")
            s.window = jsonInt(j, p);
        else if (p.key == "key_size")
            s.keySize = jsonInt(j, p);
        else if (p.key == "heads")
            s.heads = jsonInt(j, p);
        else if (p.key == "layers")
            s.layers = jsonInt(j, p);
        else if (p.key == "causal")
            s.causal = jsonBool(j, p);
        else if (p.key == "norm")
            s.norm = normModeFromName(jsonChoice(j, p));
        else if (p.key == "activation")
            s.hidden = activationFromName(jsonChoice(j, p));
        else if (p.key == "ff_activation")
            s.ffOut = activationFromName(jsonChoice(j, p));
        else if (p.key == "score_dropout")
            s.scoreDropout = jsonReal(j, p);
        else if (p.key == "ff_dropout")
            s.ffDropout = jsonReal(j, p);
    }
    return s;
}

nlohmann::json AttentionStackBase::settingsToJson(const std::string& type) const {
    nlohmann::json j{{"type", type}};
    for (const auto& p : findLayerType(type)->params) {
        if (p.key == "units")
            j[p.key] = s_.units;
        else if (p.key == "window")
            j[p.key] = s_.window;
        else if (p.key == "key_size")
            j[p.key] = s_.keySize;
        else if (p.key == "heads")
            j[p.key] = s_.heads;
        else if (p.key == "layers")
            j[p.key] = s_.layers;
        else if (p.key == "causal")
            j[p.key] = s_.causal;
        else if (p.key == "norm")
            j[p.key] = normModeName(s_.norm);
        else if (p.key == "activation")
            j[p.key] = activationName(s_.hidden);
        else if (p.key == "ff_activation")
            j[p.key] = activationName(s_.ffOut);
        else if (p.key == "score_dropout")
            j[p.key] = s_.scoreDropout;
        else if (p.key == "ff_dropout")
            j[p.key] = s_.ffDropout;
    }
    return j;
}

}  // namespace nnwb
