#include "app/cli/TrainingFlags.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

namespace nnwb::cli {

const char* const kTrainingFlagsUsage =
    "        [--monitor validation_loss|validation_accuracy|validation_missed|training_loss]\n"
    "        [--keep-best on|off] [--early-stopping on|off] [--patience N] [--min-delta X]\n"
    "        [--lr-schedule constant|step|cosine|plateau] [--lr-step-epochs N] [--lr-gamma X]\n"
    "        [--lr-warmup N] [--lr-floor X] [--lr-factor X] [--lr-patience N]\n";

namespace {

bool onOff(const std::string& flag, const std::string& v) {
    if (v == "on" || v == "true" || v == "1") return true;
    if (v == "off" || v == "false" || v == "0") return false;
    throw UsageError(flag + ": '" + v + "' is not on or off");
}

double number(const std::string& flag, const std::string& v) {
    char* end = nullptr;
    errno = 0;
    const double x = std::strtod(v.c_str(), &end);
    if (v.empty() || *end != '\0' || errno != 0 || !std::isfinite(x))
        throw UsageError(flag + ": '" + v + "' is not a number");
    return x;
}

long integer(const std::string& flag, const std::string& v) {
    char* end = nullptr;
    errno = 0;
    const long x = std::strtol(v.c_str(), &end, 10);
    if (v.empty() || *end != '\0' || errno != 0)
        throw UsageError(flag + ": '" + v + "' is not an integer");
    return x;
}

}  // namespace

bool readTrainingFlag(const Args& args, size_t& i, nlohmann::json& o) {
    const std::string a = args[i];
    struct Key {
        const char* flag;
        const char* section;  // "" for training itself
        const char* key;
        char kind;  // s string, b on/off, i integer, n number
    };
    static const Key keys[] = {
        {"--monitor", "", "monitor", 's'},
        {"--keep-best", "", "keepBest", 'b'},
        {"--early-stopping", "earlyStopping", "enabled", 'b'},
        {"--patience", "earlyStopping", "patience", 'i'},
        {"--min-delta", "earlyStopping", "minDelta", 'n'},
        {"--lr-schedule", "lrSchedule", "type", 's'},
        {"--lr-step-epochs", "lrSchedule", "stepEpochs", 'i'},
        {"--lr-gamma", "lrSchedule", "gamma", 'n'},
        {"--lr-warmup", "lrSchedule", "warmupEpochs", 'i'},
        {"--lr-floor", "lrSchedule", "floor", 'n'},
        {"--lr-factor", "lrSchedule", "factor", 'n'},
        {"--lr-patience", "lrSchedule", "patience", 'i'},
    };
    for (const Key& k : keys) {
        if (a != k.flag) continue;
        const std::string v = flagValue(args, i);
        nlohmann::json value;
        switch (k.kind) {
            case 'b':
                value = onOff(a, v);
                break;
            case 'i':
                value = integer(a, v);
                break;
            case 'n':
                value = number(a, v);
                break;
            default:
                value = v;
        }
        if (*k.section)
            o[k.section][k.key] = value;
        else
            o[k.key] = value;
        o["__flags"][std::string(k.section) + "." + k.key] = a;
        return true;
    }
    return false;
}

TrainingConfig applyTrainingFlags(const TrainingConfig& config, const nlohmann::json& overrides) {
    if (overrides.empty()) return config;
    nlohmann::json j = config.toJson();
    for (auto it = overrides.begin(); it != overrides.end(); ++it) {
        if (it.key() == "__flags") continue;
        if (it->is_object())
            for (auto in = it->begin(); in != it->end(); ++in) j[it.key()][in.key()] = in.value();
        else
            j[it.key()] = it.value();
    }
    try {
        return TrainingConfig::fromJson(j, kExperimentFormatVersion);
    } catch (const std::invalid_argument& e) {
        // Name the flag as well as the key ("--patience: training.earlyStopping.patience: …").
        const std::string what = e.what();
        const nlohmann::json& flags = overrides.at("__flags");
        for (auto f = flags.begin(); f != flags.end(); ++f) {
            const std::string key = f.key().front() == '.' ? f.key().substr(1) : f.key();
            if (what.find("training." + key + ":") == 0)
                throw UsageError(f.value().get<std::string>() + ": " + what);
        }
        throw UsageError(what);
    }
}

}  // namespace nnwb::cli
