#include "model/TrainCheckpoint.h"

#include <nlohmann/json.hpp>

#include "model/AtomicFile.h"
#include "model/NetworkWeights.h"
#include "model/Safetensors.h"

namespace nnwb {

namespace {
constexpr int kCheckpointFormat = 1;
}  // namespace

void saveCheckpoint(const std::string& path, const std::string& fingerprint, Trainer& trainer,
                    const EpochKeeper& keeper) {
    TensorMap tensors;
    for (auto& [name, t] : readWeights(trainer.network())) tensors["net." + name] = std::move(t);
    const nlohmann::json state = {{"format", kCheckpointFormat},
                                  {"fingerprint", fingerprint},
                                  {"trainer", trainer.saveState(tensors)},
                                  {"keeper", keeper.saveState(tensors)}};
    writeFileAtomic(
        path, encodeSafetensors(tensors, {{"format", "nnwb-checkpoint"}, {"state", state.dump()}}));
}

namespace {
// The file's tensors and its state (the metadata's JSON); CheckpointError when unreadable.
nlohmann::json readCheckpoint(const std::string& path, TensorMap& tensors) {
    try {
        std::map<std::string, std::string> meta;
        tensors = decodeSafetensors(readFile(path), &meta);
        if (meta["format"] != "nnwb-checkpoint")
            throw std::runtime_error("not an nnwb checkpoint (format '" + meta["format"] + "')");
        nlohmann::json state = nlohmann::json::parse(meta["state"]);
        if (state.value("format", 0) != kCheckpointFormat)
            throw std::runtime_error(
                "checkpoint format " + state.value("format", nlohmann::json()).dump() +
                " (this nnwb reads " + std::to_string(kCheckpointFormat) + ")");
        return state;
    } catch (const std::exception& e) {
        throw CheckpointError("checkpoint " + path + ": " + e.what());
    }
}
}  // namespace

int checkpointEpoch(const std::string& path) {
    TensorMap tensors;
    const nlohmann::json state = readCheckpoint(path, tensors);
    const auto trainer = state.find("trainer");
    if (trainer == state.end() || !trainer->is_object() || !trainer->contains("epoch") ||
        !trainer->at("epoch").is_number_integer())
        throw CheckpointError("checkpoint " + path + ": no trainer epoch in its state");
    return trainer->at("epoch").get<int>();
}

int loadCheckpoint(const std::string& path, const std::string& fingerprint, Trainer& trainer,
                   EpochKeeper& keeper) {
    TensorMap tensors;
    const nlohmann::json state = readCheckpoint(path, tensors);
    if (state.value("fingerprint", "") != fingerprint)
        throw CheckpointError("checkpoint " + path +
                              ": it is of another experiment (its fingerprint " +
                              state.value("fingerprint", "") + ", this run's " + fingerprint + ")");
    try {
        TensorMap weights;
        for (const auto& [name, t] : tensors)
            if (name.rfind("net.", 0) == 0) weights[name.substr(4)] = t;
        writeWeights(trainer.network(), weights);
        trainer.loadState(state.at("trainer"), tensors);
        keeper.loadState(state.at("keeper"), tensors);
    } catch (const std::exception& e) {
        throw CheckpointError("checkpoint " + path + ": " + e.what());
    }
    return trainer.epochsDone();
}

}  // namespace nnwb
