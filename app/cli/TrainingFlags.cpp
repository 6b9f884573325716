#include "app/cli/TrainingFlags.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "app/cli/Commands.h"

namespace nnwb::cli {

namespace {

enum class Kind { Word, OnOff, Integer, Number, ClassWeights };

// One flag: its name, the key it sets (the path in the training section), how its value is
// read, how the help names the value, and the help. The value's range and choices are the
// experiment file's: each value is checked by TrainingConfig::fromJson.
struct TrainingFlag {
    const char* flag;
    const char* key;
    Kind kind;
    const char* value;
    const char* help;
};

const TrainingFlag kTrainingFlags[] = {
    {"--monitor", "monitor", Kind::Word,
     "validation_loss|validation_accuracy|validation_missed|training_loss",
     "the metric behind the best epoch, early stopping and the plateau schedule"},
    {"--keep-best", "keepBest", Kind::OnOff, "on|off",
     "the best epoch's weights are the run's result (off: the last epoch's)"},
    {"--early-stopping", "earlyStopping.enabled", Kind::OnOff, "on|off",
     "stop when the monitored metric has not improved for --patience epochs"},
    {"--patience", "earlyStopping.patience", Kind::Integer, "N",
     "early stopping: epochs without an improvement before the run stops"},
    {"--min-delta", "earlyStopping.minDelta", Kind::Number, "X",
     "early stopping: the change of the monitored metric that counts as an improvement"},
    {"--lr-schedule", "lrSchedule.type", Kind::Word, "constant|step|cosine|plateau",
     "the learning-rate schedule"},
    {"--lr-step-epochs", "lrSchedule.stepEpochs", Kind::Integer, "N",
     "step: epochs between two steps of the rate"},
    {"--lr-gamma", "lrSchedule.gamma", Kind::Number, "X", "step: the rate's factor at each step"},
    {"--lr-warmup", "lrSchedule.warmupEpochs", Kind::Integer, "N",
     "cosine: epochs of linear warm-up"},
    {"--lr-floor", "lrSchedule.floor", Kind::Number, "X",
     "cosine and plateau: the lowest learning rate"},
    {"--lr-factor", "lrSchedule.factor", Kind::Number, "X",
     "plateau: the rate's factor after --lr-patience epochs without an improvement"},
    {"--lr-patience", "lrSchedule.patience", Kind::Integer, "N",
     "plateau: epochs without an improvement before the rate drops"},
    {"--clip-norm", "clipNorm", Kind::Number, "X",
     "clip the gradients' global L2 norm to X (0: off)"},
    {"--class-weights", "classWeights", Kind::ClassWeights, "none|balanced|W0,W1,...",
     "the loss weight of each class: none, balanced (from the training part's class counts) or "
     "one weight per output"},
};

const char* const kGroup = "Training (each overrides the experiment's training section)";

bool number(const std::string& v, double& x) {
    char* end = nullptr;
    errno = 0;
    x = std::strtod(v.c_str(), &end);
    return !v.empty() && *end == '\0' && errno == 0 && std::isfinite(x);
}

// The value as the experiment file holds it; `error` says why there is none.
nlohmann::json readValue(Kind kind, const std::string& v, std::string& error) {
    switch (kind) {
        case Kind::OnOff:
            if (v == "on" || v == "true" || v == "1") return true;
            if (v == "off" || v == "false" || v == "0") return false;
            error = "'" + v + "' is not on or off";
            return {};
        case Kind::Integer: {
            char* end = nullptr;
            errno = 0;
            const long x = std::strtol(v.c_str(), &end, 10);
            if (v.empty() || *end != '\0' || errno != 0) error = "'" + v + "' is not an integer";
            return x;
        }
        case Kind::Number: {
            double x = 0;
            if (!number(v, x)) error = "'" + v + "' is not a number";
            return x;
        }
        case Kind::ClassWeights: {
            if (v == "none" || v == "balanced") return {{"mode", v}};
            nlohmann::json weights = nlohmann::json::array();
            for (size_t start = 0; start <= v.size();) {
                const size_t comma = std::min(v.find(',', start), v.size());
                const std::string w = v.substr(start, comma - start);
                double x = 0;
                if (!number(w, x)) {
                    error = "'" + w + "' is not a number";
                    return {};
                }
                weights.push_back(x);
                start = comma + 1;
            }
            return {{"mode", "given"}, {"weights", weights}};
        }
        case Kind::Word:
            break;
    }
    return v;
}

nlohmann::json::json_pointer pointer(std::string key) {
    std::replace(key.begin(), key.end(), '.', '/');
    return nlohmann::json::json_pointer("/" + key);
}

// Empty when the experiment file would take `v` for the flag's key, else why not.
std::string check(const TrainingFlag& f, const std::string& v) {
    std::string error;
    const nlohmann::json value = readValue(f.kind, v, error);
    if (!error.empty()) return error;
    nlohmann::json training = TrainingConfig().toJson();
    training[pointer(f.key)] = value;
    try {
        TrainingConfig::fromJson(training, kExperimentFormatVersion);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return {};
}

}  // namespace

void addTrainingFlags(CLI::App& cmd, nlohmann::json& overrides) {
    for (const TrainingFlag& f : kTrainingFlags) {
        auto store = [&overrides, &f](const std::string& v) {
            std::string error;
            overrides[f.key] = readValue(f.kind, v, error);
        };
        cmd.add_option_function<std::string>(f.flag, store, f.help)
            ->type_name(f.value)
            ->check(CLI::Validator([&f](std::string& v) { return check(f, v); }, std::string()))
            ->group(kGroup);
    }
}

TrainingConfig applyTrainingFlags(const TrainingConfig& config, const nlohmann::json& overrides) {
    if (overrides.empty()) return config;
    nlohmann::json j = config.toJson();
    for (auto it = overrides.begin(); it != overrides.end(); ++it) j[pointer(it.key())] = *it;
    try {
        return TrainingConfig::fromJson(j, kExperimentFormatVersion);
    } catch (const std::invalid_argument& e) {
        // Name the flag as well as the key ("--patience: training.earlyStopping.patience: …").
        const std::string what = e.what();
        for (const TrainingFlag& f : kTrainingFlags)
            if (overrides.contains(f.key) &&
                what.rfind("training." + std::string(f.key) + ":", 0) == 0)
                throw UsageError(std::string(f.flag) + ": " + what);
        throw UsageError(what);
    }
}

}  // namespace nnwb::cli
