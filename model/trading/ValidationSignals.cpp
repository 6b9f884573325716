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
    SignalSeries out;
    const SampleSet& v = data.split.validation;
    if (!data.priceData || v.size() == 0 || v.outputs != 3 ||
        data.validationFirstBar > data.validationLastBar)
        return out;
    if (data.validationLastBar - data.validationFirstBar + 1 != v.size())
        throw std::logic_error("validation part: " + std::to_string(v.size()) +
                               " samples for bars " + std::to_string(data.validationFirstBar) +
                               ".." + std::to_string(data.validationLastBar));
    std::vector<float> outputs;
    trainer.evaluate(v, nullptr, &outputs);
    for (size_t k = 0; k < v.size(); ++k) {
        const std::array<float, 3> o{outputs[3 * k], outputs[3 * k + 1], outputs[3 * k + 2]};
        out.add(data.validationFirstBar + k, o, signalOfOutputs(o));
    }
    return out;
}

}  // namespace nnwb
