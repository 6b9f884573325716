#include "app/engine/RunSubject.h"

#include <cstdio>

#include "app/engine/RunEngine.h"

namespace nnwb {

RunSubject runSubject(RunEngine& run) {
    const DeviceInfo device = run.session().backend().info();
    RunSubject s;
    s.experiment = run.experiment().name;
    s.data = run.data().description;
    s.deviceId = device.id;
    s.deviceName = device.name;
    s.parameters = run.network().parameterCount();
    s.trainSamples = run.data().split.train.size();
    s.validationSamples = run.data().split.validation.size();
    s.models = run.models();
    return s;
}

std::string runSubjectLine(const RunSubject& s) {
    char size[96];
    if (s.models > 1)
        std::snprintf(size, sizeof size, "a population of %d models of %zu parameters", s.models,
                      s.parameters);
    else
        std::snprintf(size, sizeof size, "%zu parameters", s.parameters);
    return s.experiment + ": " + s.data + " on " + s.deviceId + " (" + s.deviceName + "), " + size +
           ", " + std::to_string(s.trainSamples) + " training / " +
           std::to_string(s.validationSamples) + " validation samples";
}

}  // namespace nnwb
