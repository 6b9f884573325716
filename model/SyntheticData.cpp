#include "model/SyntheticData.h"

#include <stdexcept>
#include <vector>

#include "model/Rng.h"

namespace nnwb {

SyntheticConfig SyntheticConfig::fromJson(const nlohmann::json& j) {
    SyntheticConfig c;
    auto intKey = [&](const char* k, int& out, int lo, int hi) {
        if (!j.contains(k)) return;
        if (!j[k].is_number_integer() || j[k].get<long long>() < lo || j[k].get<long long>() > hi)
            throw std::invalid_argument(std::string("data.") + k + ": must be an integer in " +
                                        std::to_string(lo) + ".." + std::to_string(hi));
        out = j[k].get<int>();
    };
    intKey("samples", c.samples, 4, 10000000);
    intKey("units", c.units, 1, 4096);
    intKey("window", c.window, 1, 4096);
    intKey("classes", c.classes, 2, 1000);
    if (j.contains("validationShare")) {
        if (!j["validationShare"].is_number() || j["validationShare"].get<double>() < 0 ||
            j["validationShare"].get<double>() > 0.9)
            throw std::invalid_argument("data.validationShare: must be a number in 0..0.9");
        c.validationShare = j["validationShare"].get<double>();
    }
    if (j.contains("seed")) {
        if (!j["seed"].is_number_integer() || j["seed"].get<long long>() < 0)
            throw std::invalid_argument("data.seed: must be a non-negative integer");
        c.seed = j["seed"].get<uint64_t>();
    }
    return c;
}

DataSplit makeSyntheticSplit(const SyntheticConfig& c) {
    Rng rng(c.seed);
    const Shape shape{c.units, c.window};
    const size_t in = shape.size();
    std::vector<double> teacher(static_cast<size_t>(c.classes) * in);
    for (auto& w : teacher) w = rng.normal();
    SampleSet all;
    all.inputShape = shape;
    all.outputs = c.classes;
    all.x.resize(static_cast<size_t>(c.samples) * in);
    all.y.assign(static_cast<size_t>(c.samples) * c.classes, 0.0f);
    for (int s = 0; s < c.samples; ++s) {
        float* x = all.x.data() + static_cast<size_t>(s) * in;
        for (size_t i = 0; i < in; ++i) x[i] = static_cast<float>(rng.normal());
        int best = 0;
        double bestScore = -1e300;
        for (int k = 0; k < c.classes; ++k) {
            double score = 0;
            for (size_t i = 0; i < in; ++i) score += teacher[k * in + i] * x[i];
            if (score > bestScore) {
                bestScore = score;
                best = k;
            }
        }
        all.y[static_cast<size_t>(s) * c.classes + best] = 1.0f;
    }
    const size_t nVal = static_cast<size_t>(c.samples * c.validationShare);
    const size_t nTrain = static_cast<size_t>(c.samples) - nVal;
    DataSplit split;
    split.classNames.clear();
    for (int k = 0; k < c.classes; ++k) split.classNames.push_back("class " + std::to_string(k));
    if (c.classes == 3) split.classNames = {"none", "buy", "sell"};
    for (SampleSet* part : {&split.train, &split.validation}) {
        part->inputShape = shape;
        part->outputs = c.classes;
    }
    split.train.x.assign(all.x.begin(), all.x.begin() + static_cast<long>(nTrain * in));
    split.train.y.assign(all.y.begin(), all.y.begin() + static_cast<long>(nTrain * c.classes));
    split.validation.x.assign(all.x.begin() + static_cast<long>(nTrain * in), all.x.end());
    split.validation.y.assign(all.y.begin() + static_cast<long>(nTrain * c.classes), all.y.end());
    return split;
}

}  // namespace nnwb
