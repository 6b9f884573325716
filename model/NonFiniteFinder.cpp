#include "model/NonFiniteFinder.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace nnwb {

namespace {
std::string layerName(Network& net, size_t i) {
    return "layer " + std::to_string(i + 1) + " (" + net.layer(i).type() + ")";
}
}  // namespace

std::string firstNonFiniteValue(const std::vector<float>& values) {
    for (size_t i = 0; i < values.size(); ++i) {
        const float v = values[i];
        if (std::isfinite(v)) continue;
        return "[" + std::to_string(i) + "] is " +
               (std::isnan(v) ? "NaN" : (v > 0 ? "+Inf" : "-Inf"));
    }
    return {};
}

std::string firstNonFinite(Network& net, BufRef x, int batch) {
    Backend& be = net.backend();
    // Parameters, in layer order (params() lists them so).
    for (size_t i = 0; i < net.layerCount(); ++i) {
        const std::string prefix = "layers." + std::to_string(i) + ".";
        for (Param* p : net.layer(i).params()) {
            std::vector<float> v(p->count());
            be.download(p->value, v.data(), v.size());
            const std::string bad = firstNonFiniteValue(v);
            if (!bad.empty()) return layerName(net, i) + ": tensor " + prefix + p->name + bad;
        }
    }
    // Activations of the batch, layer by layer; the largest magnitude is the suspect when
    // all are finite (the loss squares or exponentiates it).
    net.forward(x, batch, false);
    float largest = 0.0f;
    std::string largestAt;
    for (size_t i = 0; i < net.layerCount(); ++i) {
        const BufRef out = net.layer(i).output();
        if (out.empty()) continue;
        const size_t n = std::min(out.buf->size() - out.offset,
                                  static_cast<size_t>(std::max(batch, 0)) * net.shapes()[i].size());
        std::vector<float> v(n);
        be.download(out, v.data(), n);
        const std::string bad = firstNonFiniteValue(v);
        if (!bad.empty()) return layerName(net, i) + ": output" + bad;
        for (size_t k = 0; k < n; ++k)
            if (std::fabs(v[k]) > largest) {
                largest = std::fabs(v[k]);
                largestAt = layerName(net, i) + ": output[" + std::to_string(k) + "] = ";
            }
    }
    if (largestAt.empty()) return {};
    char num[32];
    std::snprintf(num, sizeof num, "%g", double(largest));
    return largestAt + num + " (all layers finite: the largest output overflowed the loss)";
}

}  // namespace nnwb
