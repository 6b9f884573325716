// Text forms of a prediction run (Predictor): the CSV of one row per bar, the JSON report and
// the names of signals and labels, shared by `nnwb-cli predict` and the window's Run > Predict.
// Pure functions; any thread.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "model/ModelBundle.h"
#include "model/Predictor.h"

namespace nnwb {

// "none", "buy", "sell" for a signal (argmax index).
const char* signalName(int signal);
// The true label of a labelled row: "none", "buy", "sell" or "both" (an outside bar); "" when
// the bar after it does not exist yet.
std::string labelName(const PredictionRow& row);

// Header `time,close,none,buy,sell,signal,label` (an ensemble's: then `agreement,spread`,
// EnsemblePrediction.h), then one line per row; numbers in their
// shortest form that reads back bit-equal (float outputs, double close), times
// "YYYY-MM-DD HH:MM".
std::string predictionCsv(const PredictionResult& r);
// {"model": {...the bundle's facts}, "data": {file, bars, rows, labelled}, "warnings":
//  {"outOfRange": [{feature, share, rows, outside, worstZ, worstValue, constantInTraining,
//  trainingMean}]}, "rows": [{"time", "close", "none", "buy", "sell", "signal", "label"}]
//  (an ensemble's rows also "agreement", "spread"),
//  "metrics": {samples, loss, accuracy, missed, signals, patterns, confusion}}.
nlohmann::ordered_json predictionToJson(const PredictionResult& r, const ModelBundle& b,
                                        const std::string& dataFile, size_t bars);
// {samples, loss, accuracy, missed, signals, patterns, confusion[actual][predicted]}.
nlohmann::ordered_json predictionMetricsJson(const EpochMetrics& m);
// "" when no input is out of range, else a paragraph: the model was not trained for these
// inputs, then one line per feature (outOfRangeText).
std::string outOfRangeWarningText(const std::vector<OutOfRangeFeature>& features);
// A few lines: loss, accuracy, missed, signal and pattern counts and the confusion matrix.
std::string predictionMetricsText(const EpochMetrics& m);

}  // namespace nnwb
