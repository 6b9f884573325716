// libFuzzer target: the experiment JSON loader (Experiment::fromJson with its data and
// training sections, Network::layersFromJson, Network::inferShapes) on arbitrary bytes.
// Loading may only fail with the documented exceptions (ExperimentError, std::invalid_argument
// incl. ShapeError); a loaded model must survive a toJson/fromJson round trip unchanged.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "FuzzCheck.h"
#include "model/Experiment.h"
#include "model/Network.h"
#include "model/data/DataConfig.h"

namespace {

void checkShapes(const nnwb::Experiment& e, const nnwb::Shape& input) {
    std::vector<nnwb::LayerPtr> layers;
    try {
        layers = nnwb::Network::layersFromJson(e.model);
    } catch (const nnwb::ShapeError&) {
        NNWB_FUZZ_CHECK(false, "a loaded experiment's model builds its layers");
    }
    try {
        nnwb::Network net(std::move(layers), input);
        (void)net.parameterCount();
        // The saved form of the stack builds the same stack.
        nnwb::Network again(nnwb::Network::layersFromJson(net.toJson()), input);
        NNWB_FUZZ_CHECK(again.shapes() == net.shapes(), "toJson round trip keeps the shapes");
        NNWB_FUZZ_CHECK(again.parameterCount() == net.parameterCount(),
                        "toJson round trip keeps the parameter count");
    } catch (const nnwb::ShapeError&) {
        // the stack does not fit this input: a documented outcome
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const nlohmann::json j = nlohmann::json::parse(data, data + size, nullptr, false);
    if (j.is_discarded()) return 0;
    nnwb::Experiment e;
    try {
        e = nnwb::Experiment::fromJson(j, "/nonexistent");
    } catch (const nnwb::ExperimentError&) {
        return 0;
    }
    const nnwb::Experiment back = nnwb::Experiment::fromJson(e.toJson(), "/nonexistent");
    NNWB_FUZZ_CHECK(back.toJson() == e.toJson(), "experiment toJson/fromJson round trip");

    try {
        const nnwb::DataConfig c = nnwb::DataConfig::fromJson(e.data);
        NNWB_FUZZ_CHECK(c.validate().empty(), "a parsed data section validates");
        NNWB_FUZZ_CHECK(nnwb::DataConfig::fromJson(c.toJson()).toJson() == c.toJson(),
                        "data section round trip");
    } catch (const std::invalid_argument&) {
        // documented: data.<key>: problem
    }

    for (const nnwb::Shape in : {nnwb::Shape{20, 12}, nnwb::Shape{7, 3}, nnwb::Shape{1, 1}})
        checkShapes(e, in);
    return 0;
}
