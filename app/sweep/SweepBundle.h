// A sweep bundle (docs/slurm.md): a folder that runs a sweep's trials on a Slurm cluster as
// one job array and brings them home. It holds the frozen spec (spec.json, experiment.json),
// the data files with their SHA-256 (data/), one experiment per trial (trials/trial-I.json),
// bundle.json (format, bundle id, trial ids, parameters, data fingerprints, resources) and a
// generated submit.sbatch; each task writes results/I/ and never opens the run store. Plain
// functions and values, Qt-free; any thread (each call works on its own files).
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/sweep/SweepSpec.h"

namespace nnwb {

inline constexpr int kBundleFormat = 1;

// Bad input of a bundle (a missing or damaged bundle.json, bad resources); says file and why.
class BundleError : public std::runtime_error {
public:
    explicit BundleError(const std::string& what) : std::runtime_error(what) {}
};

// Per-task resources and the array's throttle, as the sbatch lines say them.
struct BundleResources {
    int concurrent = 2;              // K: at most K tasks at a time (--array=0-(N-1)%K)
    int cpusPerTask = 1;             // --cpus-per-task
    bool gpu = false;                // --gres=gpu:1
    std::string time = "1:00:00";    // --time
    std::string mem = "2G";          // --mem
    std::string partition;           // --partition (empty: the cluster's default)
    std::string device = "cpu";      // cpu, or opencl:P (the device D comes from Slurm)
    std::vector<std::string> setup;  // shell lines before the task (module load ...)
    std::string cli = "nnwb-cli";    // the nnwb-cli the tasks run
};

struct BundleTrial {
    int index = 0;  // the array task (and trial number)
    int config = 0, replicate = 0;
    std::string id;  // SHA-256 of bundle id, parameters and seed
    nlohmann::json params;
    uint64_t seed = 0;
    std::string experiment;  // relative to the bundle
};

struct BundleDataFile {
    std::string file;  // relative to the bundle (data/NAME)
    std::string sha256;
    uint64_t size = 0;
};

struct Bundle {
    std::string dir;  // absolute
    std::string id, name, created;
    nlohmann::json spec;  // the frozen spec (spec.json)
    std::vector<BundleTrial> trials;
    std::vector<BundleDataFile> data;
    BundleResources resources;
    nlohmann::json toJson() const;
};

// Samples the spec's runCap trials (its method and seed; no history: every trial of a bundle
// is one generation), copies its data, writes the trial experiments, bundle.json and
// submit.sbatch into `dir` (made; it must be empty or missing). Throws BundleError or
// sweep::SpecError.
Bundle writeBundle(const sweep::SweepSpec& spec, const std::string& dir,
                   const BundleResources& resources);

// Reads DIR/bundle.json. Throws BundleError naming the file and what is wrong.
Bundle readBundle(const std::string& dir);

// The trial id: SHA-256 of the bundle id, the parameters and the seed.
std::string bundleTrialId(const std::string& bundleId, const nlohmann::json& params, uint64_t seed);

// The data files whose SHA-256 differs from the bundle's (each "data/F: SHA-256 X, the bundle
// says Y", or "data/F: missing"); empty when all match.
std::vector<std::string> bundleDataProblems(const Bundle& b);

// The text of submit.sbatch for `b`.
std::string submitScript(const Bundle& b);

}  // namespace nnwb
