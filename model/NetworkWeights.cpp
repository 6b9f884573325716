#include "model/NetworkWeights.h"

#include <stdexcept>

namespace nnwb {

namespace {
std::string shapeStr(const std::vector<int64_t>& s) {
    std::string o = "[";
    for (size_t i = 0; i < s.size(); ++i) o += (i ? "," : "") + std::to_string(s[i]);
    return o + "]";
}
}  // namespace

TensorMap readWeights(Network& net, int model) {
    TensorMap out;
    for (auto& np : net.params()) {
        HostTensor t;
        for (int d : np.param->shape) t.shape.push_back(d);
        t.values.resize(np.param->count());
        net.backend().download(np.param->value + size_t(model) * np.param->modelStride,
                               t.values.data(), t.values.size());
        out.emplace(np.name, std::move(t));
    }
    return out;
}

void writeWeights(Network& net, const TensorMap& tensors, int model) {
    auto params = net.params();
    for (auto& np : params) {
        auto it = tensors.find(np.name);
        if (it == tensors.end()) throw std::invalid_argument("weights have no tensor " + np.name);
        std::vector<int64_t> want(np.param->shape.begin(), np.param->shape.end());
        if (it->second.shape != want)
            throw std::invalid_argument("tensor " + np.name + " has shape " +
                                        shapeStr(it->second.shape) + ", the network needs " +
                                        shapeStr(want));
    }
    if (tensors.size() != params.size()) {
        for (const auto& kv : tensors) {
            bool found = false;
            for (auto& np : params) found = found || np.name == kv.first;
            if (!found)
                throw std::invalid_argument("weights hold tensor " + kv.first +
                                            " that the network does not have");
        }
    }
    for (auto& np : params) {
        const auto& t = tensors.at(np.name);
        net.backend().upload(np.param->value + size_t(model) * np.param->modelStride,
                             t.values.data(), t.values.size());
    }
}

void saveWeightsFile(Network& net, const std::string& path) {
    saveSafetensors(path, readWeights(net), {{"format", "nnwb"}, {"model", net.toJson().dump()}});
}

void loadWeightsFile(Network& net, const std::string& path) {
    const TensorMap t = loadSafetensors(path);
    try {
        writeWeights(net, t);
    } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(path + ": " + e.what());
    }
}

}  // namespace nnwb
