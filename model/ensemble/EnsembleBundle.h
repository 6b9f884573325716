// An ensemble model bundle (docs/ensembles.md, docs/file-formats.md): the kept weights of the
// N members of one population (tensors "members.<m>.<name>"), each member's seed, epoch and
// validation figures, the combining rule ("mean" of the members' outputs) and everything a
// ModelBundle holds to apply it to bars, in one safetensors file. Loading checks the member
// count against the weights and that every member has member 1's architecture. Plain value
// type; any thread.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/ModelBundle.h"

namespace nnwb {

// One member: what it trained with and how its kept epoch did on the validation part.
struct EnsembleMember {
    std::string name;  // the member's run name ("dense-pop seed=43")
    uint64_t seed = 0;
    int epoch = 0;  // 1-based epoch its weights come from
    bool hasValidation = false;
    double validationLoss = 0, validationAccuracy = 0, validationMissed = 0;
};

struct EnsembleBundle {
    static constexpr int kEnsembleVersion = 1;
    // Data settings, statistics, model JSON and training facts, shared by the members; its
    // tensors are empty and its epoch is the largest member epoch.
    ModelBundle common;
    std::vector<TensorMap> weights;       // one per member, names as a single network's
    std::vector<EnsembleMember> members;  // same order
    std::string combine = "mean";

    size_t size() const { return weights.size(); }
    // Member m as a ModelBundle of its own (its weights and epoch): predicts exactly as the
    // member would alone.
    ModelBundle member(size_t m) const;
    // Throws ModelBundleError when there are fewer than 2 members, `members` and `weights`
    // disagree in count, or a member's tensor names or shapes differ from member 1's.
    void check() const;
    // The __metadata__ map: the ModelBundle keys plus "ensemble" (JSON).
    std::map<std::string, std::string> metadata() const;
    TensorMap tensors() const;  // every member's, prefixed "members.<m>."
    // Throws ModelBundleError naming the key or tensor at fault.
    static EnsembleBundle fromFile(const TensorMap& tensors,
                                   const std::map<std::string, std::string>& metadata);
    void save(const std::string& path) const;  // check() first, then atomic
    // Throws ModelBundleError("PATH: problem").
    static EnsembleBundle load(const std::string& path);
};

// Whether a bundle's __metadata__ is an ensemble's (has the "ensemble" key).
bool isEnsembleMetadata(const std::map<std::string, std::string>& metadata);

// Reads a model bundle or an ensemble bundle (one read of the file): `ensemble` holds the
// ensemble and `single` its common part, or `single` the model and `ensemble` has no members.
// Throws ModelBundleError("PATH: problem").
void loadAnyBundle(const std::string& path, ModelBundle& single, EnsembleBundle& ensemble);

}  // namespace nnwb
