// What a run trains on, as every driver of the run engine describes it before the first epoch
// (nnwb-cli train's first line, the window's status bar): the experiment, its data, the
// device, the network's size and the parts' sample counts. Plain values; build it on the thread
// that owns the run's engine, read it anywhere. Qt-free.
#pragma once

#include <cstddef>
#include <string>

namespace nnwb {

class RunEngine;

struct RunSubject {
    std::string experiment;  // the experiment's name
    std::string data;        // ExperimentData::description, e.g. "EURUSD_H1.csv, 12 399 samples"
    std::string deviceId, deviceName;
    size_t parameters = 0;  // of one model
    size_t trainSamples = 0, validationSamples = 0;
    int models = 1;  // a population's members
};

// The subject of the engine's run (its compute must still be there).
RunSubject runSubject(RunEngine& run);
// "NAME: DATA on ID (DEVICE), N parameters, T training / V validation samples"; a population
// says "a population of P models of N parameters".
std::string runSubjectLine(const RunSubject& s);

}  // namespace nnwb
