// libFuzzer target: the safetensors loader (decodeSafetensors) and NetworkWeights on arbitrary
// bytes. Decoding may only throw SafetensorsError; decoded tensors hold exactly the values
// their shape says and re-encode to the same tensors; writeWeights into a small built network
// either applies every tensor or throws std::invalid_argument and changes nothing.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "FuzzCheck.h"
#include "common/SameTensors.h"
#include "compute/CpuBackend.h"
#include "model/Network.h"
#include "model/NetworkWeights.h"
#include "model/Safetensors.h"

namespace {

// conv(6 -> 8) + dense(3) on 4 x 6 inputs: the network of the seed files
// (tests/fuzz/corpus/safetensors/tiny.safetensors).
struct Target {
    nnwb::CpuBackend backend{nnwb::Precision::Float, 1};
    std::unique_ptr<nnwb::Network> net;
    nnwb::TensorMap initial;
    Target() {
        const nlohmann::json model = {
            {"layers",
             {{{"type", "conv"},
               {"window", 6},
               {"step", 6},
               {"filters", 8},
               {"activation", "tanh"}},
              {{"type", "dense"}, {"neurons", 3}, {"activation", "sigmoid"}}}}};
        net = std::make_unique<nnwb::Network>(nnwb::Network::layersFromJson(model),
                                              nnwb::Shape{4, 6});
        net->build(backend, 1);
        net->initWeights(1);
        initial = nnwb::readWeights(*net);
    }
};

using nnwb::test::sameTensorBytes;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static Target target;
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    nnwb::TensorMap tensors;
    std::map<std::string, std::string> meta;
    try {
        tensors = nnwb::decodeSafetensors(bytes, &meta);
    } catch (const nnwb::SafetensorsError&) {
        return 0;
    }
    for (const auto& [name, t] : tensors) {
        size_t count = 1;
        for (int64_t d : t.shape) {
            NNWB_FUZZ_CHECK(d >= 0, "dimensions are not negative");
            NNWB_FUZZ_CHECK(d == 0 || count <= SIZE_MAX / static_cast<size_t>(d),
                            "the element count does not overflow");
            count *= static_cast<size_t>(d);
        }
        NNWB_FUZZ_CHECK(count == t.values.size(), "a tensor holds the values its shape says");
    }
    NNWB_FUZZ_CHECK(
        sameTensorBytes(nnwb::decodeSafetensors(nnwb::encodeSafetensors(tensors, meta)), tensors),
        "encode/decode round trip");

    try {
        nnwb::writeWeights(*target.net, tensors);
        NNWB_FUZZ_CHECK(sameTensorBytes(nnwb::readWeights(*target.net), tensors),
                        "writeWeights applies every tensor");
        nnwb::writeWeights(*target.net, target.initial);
    } catch (const std::invalid_argument&) {
        NNWB_FUZZ_CHECK(sameTensorBytes(nnwb::readWeights(*target.net), target.initial),
                        "a rejected weight file changes nothing");
    }
    return 0;
}
