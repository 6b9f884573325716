#include "model/DataSettings.h"

namespace nnwb {

namespace {

using K = SettingSpec::Kind;

SettingSpec entry(K kind, const char* group, const char* key, const char* name, const char* label,
                  nlohmann::json def, const char* help) {
    SettingSpec s;
    s.kind = kind;
    s.group = group;
    s.key = key;
    s.name = name;
    s.label = label;
    s.defaultValue = std::move(def);
    s.help = help;
    return s;
}

SettingSpec ranged(SettingSpec s, double lo, double hi, const char* unit = "") {
    s.min = lo;
    s.max = hi;
    s.unit = unit;
    return s;
}

SettingSpec choice(SettingSpec s, std::vector<std::string> values,
                   std::vector<std::string> labels) {
    s.choices = std::move(values);
    s.choiceLabels = std::move(labels);
    return s;
}

std::vector<SettingSpec> fileSettings() {
    const char* g = "Price file";
    SettingSpec share =
        ranged(entry(K::Real, g, "validationShare", "dataValidation", "Validation", 0.2,
                     "Share of the samples, the newest ones, kept for validation "
                     "(%); no window spans both parts"),
               0, 0.9, "%");
    share.formScale = 100;
    return {
        ranged(entry(K::Int, g, "window", "dataWindow", "Window", 20,
                     "Bars per sample (the sequence length, units): the target is the fractal "
                     "type of the last bar, known when the next bar closes"),
               2, 1000000, "bars"),
        share,
        choice(entry(K::Choice, g, "normalization", "dataNormalization", "Normalize", "zscore",
                     "z-score: each feature scaled by the mean and deviation of the training "
                     "part; none: raw values, as the MQL5 original"),
               {"zscore", "none"}, {"z-score (training part)", "none (as MQL5)"}),
        choice(entry(K::Choice, g, "fractal", "dataFractal", "Fractal rule", "3bar",
                     "3 bars: a high (low) above (below) both neighbours; 5 bars: Williams' "
                     "rule, two bars on each side"),
               {"3bar", "5bar"}, {"3 bars", "5 bars (Williams)"}),
        choice(entry(K::Choice, g, "indicators", "indicatorDefinitions", "Indicators", "mt5",
                     "MetaTrader 5: ATR = simple average of the true range, MACD signal = "
                     "simple average of MACD (as an Expert Advisor reads them); textbook: "
                     "Wilder's ATR, EMA signal line. A data section without the key (written "
                     "before it existed) keeps textbook"),
               {"mt5", "textbook"}, {"MetaTrader 5", "textbook"}),
        entry(K::Bool, g, "positionalEncoding", "dataPositional",
              "add sinusoidal positional encoding", false,
              "Adds sin/cos of the bar's position in the window to its features "
              "(dimensionless)"),
    };
}

std::vector<SettingSpec> syntheticSettings() {
    const char* g = "Synthetic task";
    SettingSpec share =
        ranged(entry(K::Real, g, "validationShare", "synthValidation", "Validation", 0.25,
                     "Share of the synthetic samples kept for validation (%)"),
               0, 0.9, "%");
    share.formScale = 100;
    return {
        ranged(entry(K::Int, g, "samples", "synthSamples", "Samples", 512,
                     "Number of synthetic samples (count)"),
               4, 10000000),
        ranged(entry(K::Int, g, "units", "synthUnits", "Units (sequence)", 4,
                     "Elements per synthetic sample (sequence length, count)"),
               1, 4096),
        ranged(entry(K::Int, g, "window", "synthWindow", "Window (values)", 3,
                     "Values per element of a synthetic sample (count)"),
               1, 4096),
        share,
    };
}

std::vector<SettingSpec> makeDataTable() {
    std::vector<SettingSpec> t{
        choice(entry(K::Choice, "Source", "source", "dataSource", "Source", "file",
                     "Where the samples come from: a price file (bars → features → fractal "
                     "labels) or a synthetic teacher task for quick tests of a stack"),
               {"file", "synthetic"}, {"Price file", "Synthetic task"})};
    for (auto& s : fileSettings()) t.push_back(s);
    for (auto& s : syntheticSettings()) t.push_back(s);
    return t;
}

}  // namespace

const std::vector<SettingSpec>& dataSettings() {
    static const std::vector<SettingSpec> kTable = makeDataTable();
    return kTable;
}

}  // namespace nnwb
