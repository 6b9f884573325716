#include "model/trading/ValidationSignals.h"

#include <stdexcept>
#include <vector>

namespace nnwb {

int signalOfOutputs(const std::array<float, 3>& outputs) {
    int s = 0;
    for (int o = 1; o < 3; ++o)
        if (outputs[size_t(o)] > outputs[size_t(s)]) s = o;
    return s;
}

SignalSeries validationSignals(Trainer& trainer, const ExperimentData& data) {
    return validationSignalsAll(trainer, data).front();
}

std::vector<SignalSeries> validationSignalsAll(Trainer& trainer, const ExperimentData& data) {
    std::vector<SignalSeries> all(static_cast<size_t>(trainer.models()));
    const SampleSet& v = data.split.validation;
    std::vector<BarRange> blocks = data.validationBlocks;  // the bars its samples end on
    if (blocks.empty() && data.validationFirstBar <= data.validationLastBar)
        blocks = {{data.validationFirstBar, data.validationLastBar}};
    if (!data.priceData || v.size() == 0 || v.outputs != 3 || blocks.empty()) return all;
    size_t bars = 0;
    for (const BarRange& b : blocks) bars += b.size();
    if (bars != v.size())
        throw std::logic_error("validation part: " + std::to_string(v.size()) + " samples for " +
                               std::to_string(bars) + " bars from " +
                               std::to_string(blocks.front().first) + " to " +
                               std::to_string(blocks.back().last));
    std::vector<float> outputs;  // model-major
    trainer.evaluateAll(v, nullptr, &outputs);
    for (size_t m = 0; m < all.size(); ++m) {
        const float* y = outputs.data() + m * 3 * v.size();
        size_t k = 0;
        for (const BarRange& b : blocks)
            for (size_t bar = b.first; bar <= b.last; ++bar, ++k) {
                const std::array<float, 3> o{y[3 * k], y[3 * k + 1], y[3 * k + 2]};
                all[m].add(bar, o, signalOfOutputs(o));
            }
    }
    return all;
}

}  // namespace nnwb
