// A comparison set: two or more experiments, each with its own device, trained on the same
// data and split, with their run histories; saved and reopened as one JSON file
// ("format": "nnwb-comparison", formatVersion 1) that lists the experiment files (or embeds
// an experiment that has no file). Plain value type; the GUI thread or the CLI. Qt-free.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/compare/RunRecord.h"
#include "model/Experiment.h"

namespace nnwb {

class ComparisonError : public std::runtime_error {
public:
    explicit ComparisonError(const std::string& what) : std::runtime_error(what) {}
};

// The experiment's data section with a relative price file made absolute (against the
// experiment's folder), so that it reads the same file from any other experiment.
nlohmann::json resolvedDataSection(const Experiment& experiment);

// Empty when `experiment` trains as one model; else why a comparison refuses it, beginning
// "training.ensemble N: ": a comparison run trains one network (ComparisonRunner), so an
// ensemble would be compared as one of its seeds. nnwb-cli compare and the window's Comparison
// tab both refuse with these words (each puts the file or run at fault in front).
std::string comparisonEnsembleRefusal(const Experiment& experiment);

struct ComparisonRun {
    std::string experimentFile;  // absolute path; empty when the experiment has no file
    Experiment experiment;       // training.device is this run's device
    RunRecord record;            // label, device and history
};

struct ComparisonSet {
    static constexpr int kFormatVersion = 1;
    static constexpr const char* kFormat = "nnwb-comparison";
    std::string name = "comparison";
    int epochs = 0;  // epochs each run trains; 0: each experiment's training.epochs
    std::vector<ComparisonRun> runs;

    // Appends a run, labelled from the file's base name (else the experiment's name) and made
    // unique within the set; `device` empty keeps the experiment's. Returns its index.
    size_t addRun(const Experiment& experiment, const std::string& file,
                  const std::string& device = {});
    void setDevice(size_t run, const std::string& device);

    // What each run trains: a copy of its experiment carrying the first run's data section
    // (the same data and split for all; a relative price file resolved against the first
    // experiment's folder) and `epochs` when set.
    std::vector<Experiment> trainingExperiments() const;
    std::vector<RunRecord> records() const;

    // Experiment paths are written relative to `dir` (the set file's folder) where possible.
    nlohmann::json toJson(const std::string& dir) const;
    // Loads the listed experiment files relative to `dir`; throws ComparisonError naming the
    // key ("runs[1].experiment: ...").
    static ComparisonSet fromJson(const nlohmann::json& j, const std::string& dir);
    // Throws ComparisonError("PATH: problem").
    static ComparisonSet load(const std::string& path);
    // Atomic (temporary file, flush, rename); throws ComparisonError("cannot save PATH: why")
    // and leaves an existing file as it was.
    void save(const std::string& path) const;
};

}  // namespace nnwb
