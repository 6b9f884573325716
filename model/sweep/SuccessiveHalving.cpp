#include "model/sweep/SuccessiveHalving.h"

#include <algorithm>

namespace nnwb::sweep {

std::vector<int> halvingStages(const AshaOptions* asha, int epochs) {
    std::vector<int> stages = asha ? ashaRungs(*asha, epochs) : std::vector<int>{};
    stages.push_back(epochs);
    return stages;
}

std::vector<int> promoteFromRung(const std::vector<RungEntry>& entries, int eta) {
    std::vector<const RungEntry*> reached;
    for (const RungEntry& e : entries)
        if (e.value && !e.finished) reached.push_back(&e);
    if (reached.empty()) return {};
    std::sort(reached.begin(), reached.end(), [](const RungEntry* a, const RungEntry* b) {
        return *a->value != *b->value ? *a->value < *b->value : a->task < b->task;
    });
    const size_t keep = std::max<size_t>(1, reached.size() / size_t(std::max(eta, 1)));
    std::vector<int> out;
    for (size_t i = 0; i < keep; ++i) out.push_back(reached[i]->task);
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace nnwb::sweep
