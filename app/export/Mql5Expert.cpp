#include "app/export/Mql5Expert.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "app/export/FeatureDocs.h"
#include "app/export/Mql5FeatureTable.h"
#include "app/export/Mql5Indicators.h"
#include "app/export/Mql5Trading.h"
#include "model/AtomicFile.h"
#include "model/data/DataSummary.h"

namespace nnwb::onnxexport {

namespace {

std::string num(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

std::string define(const std::string& name, const std::string& value) {
    return "#define " + name + " " + value + "\n";
}

std::string doubles(const std::vector<double>& v, size_t n) {
    std::string out;
    for (size_t i = 0; i < n; ++i) out += (i ? ", " : "") + num(i < v.size() ? v[i] : 0.0);
    return out;
}

// The feature code: constants, indicator helpers, NnwbFeatures, NnwbInput, NnwbSignal,
// NnwbOutlier (between the begin/end markers).
// The functions of the feature section after NnwbFeatures: the model's input window, the signal
// of its outputs and the outlier check (MQL5 text).
const char* mql5InputFunctions() {
    return R"MQL(// The model's input: the features of the last NNWB_WINDOW bars of x (n bars), oldest first.
void NnwbInput(const double &x[], int n, matrixf &xin)
  {
   xin.Resize(NNWB_WINDOW, NNWB_FEATURES);
   for(int r = 0; r < NNWB_WINDOW; r++)
      for(int c = 0; c < NNWB_FEATURES; c++)
         xin[r][c] = (float)x[(n - NNWB_WINDOW + r) * NNWB_FEATURES + c];
  }

// The signal of the model's outputs [none, buy, sell] as nnwb predict gives it: the largest,
// the first of equal ones. 0 none, 1 buy, 2 sell.
int NnwbSignal(const vectorf &y)
  {
   int best = 0;
   for(int k = 1; k < 3; k++)
      if(y[k] > y[best])
         best = k;
   return best;
  }

// The first feature of bar `row` of x more than NNWB_OUTLIER_SIGMAS training standard
// deviations from its training mean, or -1.
int NnwbOutlier(const double &x[], int row)
  {
   for(int c = 0; c < NNWB_FEATURES; c++)
     {
      if(NNWB_STDDEV[c] <= 0.0)
         continue;
      if(MathAbs(x[row * NNWB_FEATURES + c] - NNWB_MEAN[c]) > NNWB_OUTLIER_SIGMAS * NNWB_STDDEV[c])
         return c;
     }
   return -1;
  }
)MQL";
}

std::string featureSection(const ModelBundle& b) {
    const FeatureSpec& spec = b.data.features;
    const std::vector<Feature> active = spec.active();
    const size_t nf = active.size();
    std::vector<std::string> setup, helperNames, values;
    for (Feature f : active) {
        const Mql5FeatureCode c = mql5FeatureCode(f, spec);
        for (const auto& s : c.setup)
            if (std::find(setup.begin(), setup.end(), s) == setup.end()) setup.push_back(s);
        helperNames.insert(helperNames.end(), c.helpers.begin(), c.helpers.end());
        values.push_back(c.value);
    }
    const bool z = b.data.normalization == "zscore" && b.stats.mean.size() == nf &&
                   b.stats.stddev.size() == nf;
    std::string s = std::string(kMql5FeaturesBegin) + "\n";
    s += define("NNWB_WINDOW", std::to_string(b.data.window));
    s += define("NNWB_FEATURES", std::to_string(nf));
    s += "// The first bar (index into the copied rates) at which every feature has a value.\n";
    s += define("NNWB_WARMUP", std::to_string(spec.warmup()));
    s += define("NNWB_MIN_BARS", "(NNWB_WARMUP + NNWB_WINDOW)");
    s += define("NNWB_OUTLIER_SIGMAS", "20.0");
    s +=
        "// The training part's mean and standard deviation of each feature. The model normalizes\n"
        "// its input itself; these only let NnwbOutlier warn about values far from training\n"
        "// (another symbol, time frame or volume scale). Standard deviation 0: not checked.\n";
    s += "const double NNWB_MEAN[" + std::to_string(nf) + "] = {" +
         doubles(z ? b.stats.mean : std::vector<double>{}, nf) + "};\n";
    s += "const double NNWB_STDDEV[" + std::to_string(nf) + "] = {" +
         doubles(z ? b.stats.stddev : std::vector<double>{}, nf) + "};\n\n";
    s += mql5Helpers(helperNames);
    s += "// The features of every bar of rates[0..n-1] (oldest first), row-major: "
         "x[i*NNWB_FEATURES + k]\n"
         "// is feature k of bar i, in the model's input order. Rows before NNWB_WARMUP are not\n"
         "// defined.\n"
         "void NnwbFeatures(const MqlRates &rates[], int n, double &x[])\n  {\n"
         "   ArrayResize(x, n * NNWB_FEATURES);\n   ArrayInitialize(x, 0.0);\n";
    for (const auto& st : setup) s += "   " + st + "\n";
    s += "   for(int i = 0; i < n; i++)\n     {\n      MqlDateTime dt;\n"
         "      TimeToStruct(rates[i].time, dt);\n      int o = i * NNWB_FEATURES;\n";
    for (size_t k = 0; k < nf; ++k)
        s += "      x[o + " + std::to_string(k) + "] = " + values[k] + "; // " +
             featureKey(active[k]) + "\n";
    s += "     }\n  }\n\n";
    s += mql5InputFunctions();
    s += std::string(kMql5FeaturesEnd) + "\n";
    return s;
}

std::string liveDifferencesComment() {
    std::string s;
    for (const std::string& line : mql5LiveDifferences()) {
        std::string rest = line, out = "//  - ";
        while (rest.size() > 92) {  // wrapped at a space
            const size_t cut = rest.rfind(' ', 92);
            out += rest.substr(0, cut) + "\n//    ";
            rest = rest.substr(cut + 1);
        }
        s += out + rest + "\n";
    }
    return s;
}

std::string header(const ModelBundle& b, const std::string& onnxFile) {
    const DataConfig& cfg = b.data;
    const bool mt5 = cfg.features.definitions == IndicatorDefinitions::Mt5;
    std::string columns;
    const auto active = cfg.features.active();
    for (size_t k = 0; k < active.size(); ++k)
        columns += "//   " + std::to_string(k) + " " + featureDefinition(active[k], cfg) + "\n";
    const std::string name = b.experiment.empty() ? "nnwb" : b.experiment;
    std::string h =
        "//+------------------------------------------------------------------+\n"
        "//| " +
        std::string(kMql5ExpertFile) + ": generated by nnwb " + appVersion() +
        " (nnwb-cli export --mql5) for model '" + name +
        "'\n"
        "//+------------------------------------------------------------------+\n"
        "// Trained on " +
        (b.trainedOn.empty() ? cfg.file : b.trainedOn) +
        (b.epoch > 0 ? ", epoch " + std::to_string(b.epoch) : std::string()) +
        (b.timeframe > 0 ? ", " + timeframeName(b.timeframe) + " bars" : std::string()) +
        "; window " + std::to_string(cfg.window) +
        " bars; indicator definitions: " + indicatorVariant(cfg) +
        ".\n"
        "// Install: copy this file and " +
        onnxFile +
        " into one folder under MQL5\\Experts (e.g. MQL5\\Experts\\nnwb\\)\n"
        "// and compile it there: #resource reads " +
        onnxFile +
        " from this file's folder and embeds it in the .ex5,\n"
        "// so nothing is needed in MQL5\\Files.\n"
        "// On each new bar it copies InpHistoryBars closed bars (CopyRates from shift 1), "
        "computes the\n"
        "// features below exactly as nnwb does, runs the model on the last " +
        std::to_string(cfg.window) +
        " bars and prints\n"
        "// the signal for the newest closed bar (shift 1): the largest output, 0 none, 1 buy, 2 "
        "sell.\n"
        "// With InpTrade it trades that signal under nnwb's trading rules (docs/trading.md): "
        "NnwbTrade\n"
        "// below, one position per symbol and InpMagic, InpLots lots. What nnwb's simulation "
        "does not\n"
        "// see of a live account:\n" +
        liveDifferencesComment() + "// Features (the model's input columns):\n" + columns +
        "// MACD: " + macdSeeding(mt5) +
        ". The expert seeds at the first copied bar, so with\n"
        "// InpHistoryBars well above NNWB_MIN_BARS the seed's weight is negligible.\n"
        "// Time zone: hour, dayOfWeek and month come from MqlRates.time, the broker's server "
        "time; the\n"
        "// model learned them in the time zone of its training file. If they differ, retrain on "
        "bars\n"
        "// exported from this terminal or shift the times.\n"
        "// Not compiled or run in a MetaTrader 5 terminal by nnwb's tests: the feature code "
        "between\n"
        "// the markers is compiled as C++ and checked against nnwb's features on real bars, "
        "and the\n"
        "// trading section's orders against nnwb's simulated trades (tst_mql5_trading).\n"
        "#property description \"nnwb model '" +
        name +
        "': none/buy/sell signal per closed bar, traded as nnwb simulates\"\n"
        "#property version   \"1.00\"\n\n"
        "#include <Trade\\Trade.mqh>\n\n"
        "#resource \"" +
        onnxFile + "\" as uchar NnwbModel[]\n\n";
    return h;
}

// An ensemble's model (docs/ensembles.md) has a second output, the members' agreement, which
// NnwbTrade weighs against InpMinAgreement; one model's agreement is 1.
void readAgreement(std::string& s) {
    auto swap = [&s](const std::string& from, const std::string& to) {
        const size_t at = s.find(from);
        if (at == std::string::npos) throw std::logic_error("expert template: no " + from);
        s.replace(at, from.size(), to);
    };
    swap("!OnnxSetOutputShape(g_handle, 0, out_shape))",
         "!OnnxSetOutputShape(g_handle, 0, out_shape) ||\n      "
         "!OnnxSetOutputShape(g_handle, 1, agreement_shape))");
    swap("   const ulong out_shape[] = {1, 3};\n",
         "   const ulong out_shape[] = {1, 3};\n   const ulong agreement_shape[] = {1, 1}; // the "
         "ensemble's agreement\n");
    swap("   vectorf y(3);\n   if(!OnnxRun(g_handle, ONNX_NO_CONVERSION, xin, y))",
         "   vectorf y(3), agreement(1);\n   if(!OnnxRun(g_handle, ONNX_NO_CONVERSION, xin, y, "
         "agreement))");
    swap("NnwbTrade(rates, n, g_signal, y[g_signal], 1.0, g_trade);",
         "NnwbTrade(rates, n, g_signal, y[g_signal], agreement[0], g_trade);");
}

// The expert's globals and its OnInit (checks, the ONNX model and its shapes), OnTick (the
// features of the closed bars, the outlier warning, the model's signal, the trade) and OnDeinit
// (MQL5 text).
const char* mql5ExpertHandlers() {
    return R"MQL(long     g_handle = INVALID_HANDLE;
datetime g_last_bar = 0;
int      g_signal = 0; // the last signal: 0 none, 1 buy, 2 sell

int OnInit()
  {
   if(NNWB_TIMEFRAME_SECONDS > 0 && PeriodSeconds(_Period) != NNWB_TIMEFRAME_SECONDS)
     {
      PrintFormat("nnwb: the model was trained on bars %d s apart; this chart's are %d s apart",
                  NNWB_TIMEFRAME_SECONDS, PeriodSeconds(_Period));
      return INIT_PARAMETERS_INCORRECT;
     }
   if(InpHistoryBars < NNWB_MIN_BARS)
     {
      PrintFormat("nnwb: InpHistoryBars %d is below the %d bars one window needs", InpHistoryBars,
                  NNWB_MIN_BARS);
      return INIT_PARAMETERS_INCORRECT;
     }
   if(InpLots <= 0.0)
     {
      PrintFormat("nnwb: InpLots %g is not a volume", InpLots);
      return INIT_PARAMETERS_INCORRECT;
     }
   g_trade.SetExpertMagicNumber(InpMagic);
   g_trade.SetDeviationInPoints(InpSlippagePoints);
   g_handle = OnnxCreateFromBuffer(NnwbModel, ONNX_DEFAULT);
   if(g_handle == INVALID_HANDLE)
     {
      PrintFormat("nnwb: OnnxCreateFromBuffer failed, error %d", GetLastError());
      return INIT_FAILED;
     }
   const ulong in_shape[] = {1, NNWB_WINDOW, NNWB_FEATURES};
   const ulong out_shape[] = {1, 3};
   if(!OnnxSetInputShape(g_handle, 0, in_shape) || !OnnxSetOutputShape(g_handle, 0, out_shape))
     {
      PrintFormat("nnwb: setting the model's shapes failed, error %d", GetLastError());
      return INIT_FAILED;
     }
   return INIT_SUCCEEDED;
  }

void OnTick()
  {
   MqlRates rates[];
   int n = CopyRates(_Symbol, _Period, 1, InpHistoryBars, rates); // closed bars, oldest first
   if(n < NNWB_MIN_BARS || rates[n - 1].time == g_last_bar)
      return;
   g_last_bar = rates[n - 1].time;
   double x[];
   NnwbFeatures(rates, n, x);
   int outlier = NnwbOutlier(x, n - 1);
   if(outlier >= 0)
      PrintFormat("nnwb: %s = %g is more than %g training standard deviations from its mean",
                  NNWB_NAMES[outlier], x[(n - 1) * NNWB_FEATURES + outlier], NNWB_OUTLIER_SIGMAS);
   matrixf xin;
   NnwbInput(x, n, xin);
   vectorf y(3);
   if(!OnnxRun(g_handle, ONNX_NO_CONVERSION, xin, y))
     {
      PrintFormat("nnwb: OnnxRun failed, error %d", GetLastError());
      return;
     }
   g_signal = NnwbSignal(y);
   string text = StringFormat("nnwb %s: %s (none %.4f, buy %.4f, sell %.4f)",
                              TimeToString(rates[n - 1].time),
                              g_signal == 1 ? "buy" : g_signal == 2 ? "sell" : "none",
                              y[0], y[1], y[2]);
   Comment(text);
   Print(text);
   if(InpTrade)
      NnwbTrade(rates, n, g_signal, y[g_signal], 1.0, g_trade);
  }

void OnDeinit(const int reason)
  {
   Comment("");
   if(g_handle != INVALID_HANDLE)
      OnnxRelease(g_handle);
  }
)MQL";
}

std::string expertPart(const ModelBundle& b, bool ensemble) {
    std::string names;
    for (const auto& f : b.data.features.active())
        names += std::string(names.empty() ? "" : ", ") + "\"" + featureKey(f) + "\"";
    const size_t history =
        std::max<size_t>(1000, b.data.features.warmup() + size_t(b.data.window) + 500);
    std::string s;
    s += define("NNWB_TIMEFRAME_SECONDS", std::to_string(b.timeframe));
    s += "const string NNWB_NAMES[NNWB_FEATURES] = {" + names + "};\n";
    s += "input int InpHistoryBars = " + std::to_string(history) +
         "; // closed bars copied per new bar (at least NNWB_MIN_BARS)\n\n";
    s += mql5ExpertHandlers();
    if (ensemble) readAgreement(s);
    return s;
}

}  // namespace

std::string mql5ExpertSource(const ModelBundle& b, const std::string& onnxFile,
                             const TradingSettings& trading, bool ensemble) {
    return header(b, onnxFile) + featureSection(b) + "\n" + mql5TradingGlue() +
           mql5TradingSection(trading) + "\n" + expertPart(b, ensemble);
}

Mql5Export writeMql5Export(const ExportSpec& spec, const ModelBundle& bundle,
                           const std::string& dir, const TradingSettings& trading) {
    if (spec.batch != 1 && spec.batch != 0)
        throw std::invalid_argument(
            "the expert runs one window per call: export with batch 1 "
            "or dynamic, not " +
            std::to_string(spec.batch));
    const std::string source =
        mql5ExpertSource(bundle, kMql5ModelFile, trading, !spec.members.empty());
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec || !fs::is_directory(dir))
        throw std::runtime_error("cannot create folder " + dir + ": " +
                                 (ec ? ec.message() : std::string("not a folder")));
    Mql5Export out;
    out.onnxPath = (fs::path(dir) / kMql5ModelFile).string();
    out.expertPath = (fs::path(dir) / kMql5ExpertFile).string();
    out.summary = exportModel(spec, out.onnxPath);
    writeFileAtomic(out.expertPath, source);
    return out;
}

}  // namespace nnwb::onnxexport
