// A sweep spec (docs/sweeps.md): the base experiment, the parameters searched (paths into the
// experiment, with ranges or values, optionally conditional), the method, objective(s), early
// termination, run cap, time budget and seeds per configuration. Loading checks everything and
// names the place at fault ("FILE:LINE: ..." for JSON syntax, "FILE: parameters[2].max: ..."
// otherwise), including every parameter's extreme values and a set of combinations built into
// an experiment and a network. Plain value type; read from any thread once loaded.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/Experiment.h"
#include "model/Trainer.h"
#include "model/sweep/Pruner.h"
#include "model/sweep/Sampler.h"
#include "model/sweep/SearchSpace.h"
#include "model/sweep/TpeSampler.h"

namespace nnwb::sweep {

class SpecError : public std::runtime_error {
public:
    explicit SpecError(const std::string& what) : std::runtime_error(what) {}
};

// An objective: a figure of an epoch report (validation.loss, validation.accuracy,
// validation.missed, train.*), of the run (parameters, samplesPerSecond), or of the trial's
// result, known only when it ends (docs/sweeps.md "Objectives"): the trading figures of the
// traded part (trading.net, trading.netPct, trading.sharpe, trading.sharpeAnnual,
// trading.profitFactor, trading.maxDrawdown, trading.winRate, trading.trades) and, for a
// walk-forward experiment, the stitched out-of-sample figures (oos.loss, oos.accuracy,
// oos.missed); and its goal.
struct Objective {
    std::string metric = "validation.loss";
    bool minimize = true;
    // Whether `metric` is a figure of the trial's result line (trading.*, oos.*).
    bool atEnd() const { return isEndMetric(metric); }
    // Whether `metric` is a per-epoch figure (all but parameters and the end figures).
    bool perEpoch() const { return metric != "parameters" && !atEnd(); }
    // The figure in `report` (parameters: `parameters`); none when the report lacks it
    // (validation figures without a validation part) or for an end figure.
    std::optional<double> value(const EpochReport& report, bool hasValidation,
                                int64_t parameters) const;
    // An end figure from the trial's "result" line ({"trading": tradingReportJson or
    // {"error": ...}, "outOfSample": {"loss", "accuracy", "missed"}}); none when the
    // result lacks it. An infinite profit factor (no losing trade) is kInfiniteProfitFactor.
    // A cpcv trial's result (its trading JSON has "pathStatistics",
    // app/engine/CpcvTrialResult.h): the figure's statistic `paths` over the paths.
    std::optional<double> resultValue(const nlohmann::json& result) const;
    // The objective's "paths" key: mean (also when ""), median, q10, min or max; allowed only
    // for a trading.* or oos.* metric of a cpcv base experiment (docs/walkforward-cpcv.md).
    std::string paths;
    std::optional<double> pathsValue(const nlohmann::json& pathStatistics) const;
    // Lower is better: the value negated for a maximised objective.
    double oriented(double v) const { return minimize ? v : -v; }

    static bool isEndMetric(const std::string& metric);
    static constexpr double kInfiniteProfitFactor = 1e9;
};

struct SpecParam {
    ParamDef def;          // def.name is the path into the experiment (or "preset")
    std::string specPath;  // "parameters[2]"
    bool preset = false;   // the path is "preset": the model section of a named preset
};

struct SweepSpec {
    static constexpr int kMaxPopulation = 4096;  // as `train --population`
    // A spec file larger than this is refused on reading (docs/sweeps.md): 16 MiB.
    static constexpr size_t kMaxFileBytes = size_t(16) << 20;
    // A categorical parameter's values at most (each is built into an experiment on loading).
    static constexpr size_t kMaxCategoricalValues = 10000;
    std::string file;  // where it was read from (empty: not a file)
    std::string name;
    std::string experimentRef;      // as given: a file (relative to the spec) or preset name
    nlohmann::json baseExperiment;  // the base experiment as loaded (Experiment::toJson)
    std::string baseDir;            // the base experiment's folder (relative data paths)
    std::string method = "random";  // grid, random, sobol, tpe
    uint64_t seed = 1;
    std::vector<SpecParam> params;
    SearchSpace space;
    Objective objective;
    std::optional<Objective> second;
    std::string pruner = "none";  // none, asha, median
    AshaOptions asha;
    MedianOptions median;
    TpeOptions tpe;
    int runCap = 0;            // trials at most (0: grid size for grid, else required)
    double timeBudgetS = 0.0;  // 0: none
    int seedsPerConfig = 1;
    // Trials packed into one population process at most (1: each trial its own process);
    // only trials a population allows to differ are packed (docs/sweeps.md "Packed trials").
    int population = 1;
    // Members of every trial (docs/sweeps.md "Ensemble trials"): 1, a trial is one model;
    // K >= 2, a trial is an ensemble of K seeds of its configuration (the experiment's seed
    // and the K - 1 after it), its objective the ensemble's.
    int ensemble = 1;
    int epochs = 0;  // of every trial (the base experiment's unless given)
    std::map<std::string, nlohmann::json> presetModels;  // preset name -> its model section
    nlohmann::json source;                               // the spec as given

    // Throws SpecError naming the place ("FILE: key: problem"). `dir`: the folder relative
    // paths are taken from.
    static SweepSpec fromJson(const nlohmann::json& j, const std::string& file,
                              const std::string& dir);
    // fromJson's reading, whose nlohmann exceptions fromJson turns into SpecError.
    static SweepSpec readSpec(const nlohmann::json& j, const std::string& file,
                              const std::string& dir);
    // Reads and checks a spec file (a regular file of at most kMaxFileBytes, JSON nested at
    // most kMaxJsonDepth deep); a JSON syntax error or number overflow names FILE:LINE:COLUMN.
    static SweepSpec load(const std::string& path);

    // The experiment of a configuration for seed replicate `replicate` (0-based; replicate r
    // trains with the base seed + r). Throws SpecError naming the parameter at fault when the
    // configuration makes no valid experiment or builds no network.
    Experiment experimentFor(const nlohmann::json& config, int replicate = 0) const;
};

// Why every trial cannot be an ensemble of `ensemble` members ("" when it can): K outside
// 2..kMaxPopulation, with population > 1 or seedsPerConfig > 1, a walk-forward (or cpcv) base
// experiment, or one without a price file (`priceFile` false). The loader's message for the
// key "ensemble", which the Sweeps tab's form shows too.
std::string ensembleProblem(long long ensemble, int population, int seedsPerConfig,
                            bool walkForward, bool priceFile);

// The sampler of the spec's method (grid, sobol, tpe, else random) and seed.
std::unique_ptr<Sampler> makeSpecSampler(const SweepSpec& spec);

}  // namespace nnwb::sweep
