// How figures are written for people (issue 24, part 4): counts grouped by commas whatever the
// locale; an accuracy always with its signal count and "n/a" below the minimum of signals, in
// the metrics CSV (empty cell, signals beside it) and in predict's text (not "0.00%" for no
// signal, not "100.00 %" from one).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "model/FigureText.h"
#include "model/MetricsCsv.h"
#include "model/PredictionReport.h"

using namespace nnwb;

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out(1);
    for (char c : s) {
        if (c == sep)
            out.emplace_back();
        else
            out.back() += c;
    }
    return out;
}

int column(const std::vector<std::string>& header, const std::string& name) {
    for (size_t i = 0; i < header.size(); ++i)
        if (header[i] == name) return int(i);
    return -1;
}

}  // namespace

TEST(FigureText, CountsAreGroupedByCommas) {
    EXPECT_EQ(groupedCount(0), "0");
    EXPECT_EQ(groupedCount(999), "999");
    EXPECT_EQ(groupedCount(4115), "4,115");
    EXPECT_EQ(groupedCount(1234567), "1,234,567");
    EXPECT_EQ(groupedCount(-1234567), "-1,234,567");
    EXPECT_EQ(groupedCount(-999), "-999");
}

TEST(FigureText, FixedFiguresGroupTheirWholePart) {
    EXPECT_EQ(groupedFixed(-17796.0, 1), "-17,796.0");
    EXPECT_EQ(groupedFixed(1234567.25, 2), "1,234,567.25");
    EXPECT_EQ(groupedFixed(999.94, 1), "999.9");
    EXPECT_EQ(groupedFixed(999.96, 1), "1,000.0");  // grouped after the rounding
    EXPECT_EQ(groupedFixed(-12.5, 1), "-12.5");
    EXPECT_EQ(groupedFixed(1983, 0), "1,983");
    EXPECT_EQ(groupedFixed(std::nan(""), 1), "n/a");
    EXPECT_EQ(groupedFixed(-INFINITY, 1), "-inf");
}

TEST(FigureText, AccuracyComesWithItsSignals) {
    EXPECT_EQ(accuracyCell(55.0, 40), "55.00 (40)");
    EXPECT_EQ(accuracyCell(50.0, 2000), "50.00 (2,000)");
    EXPECT_EQ(accuracyCell(100.0, 1), "n/a (1)");
    EXPECT_EQ(accuracyCell(0.0, 0), "n/a (0)");
    EXPECT_EQ(accuracyCell(60.0, kMinSignalsForAccuracy - 1),
              "n/a (" + std::to_string(kMinSignalsForAccuracy - 1) + ")");
    EXPECT_EQ(accuracyCell(60.0, kMinSignalsForAccuracy),
              "60.00 (" + std::to_string(kMinSignalsForAccuracy) + ")");
    EXPECT_EQ(accuracyText(55.0, 40), "55.00 % (40 signals)");
    EXPECT_EQ(accuracyText(100.0, 1), "n/a (1 signal, fewer than 20)");
}

TEST(FigureText, MetricsCsvLeavesTooFewSignalsEmpty) {
    MetricsCsvRow a, b;
    a.report.epoch = 1;
    a.report.taskMetrics = true;
    a.report.train.accuracyPct = 100;  // one signal that hit
    a.report.train.signalCount = 1;
    a.report.validation.accuracyPct = 0;  // no signal
    a.report.validation.signalCount = 0;
    b.report = a.report;
    b.report.epoch = 2;
    b.report.train.accuracyPct = 55;
    b.report.train.signalCount = 40;
    const std::vector<std::string> lines = split(metricsCsv({a, b}, {}), '\n');
    ASSERT_GE(lines.size(), 3u);
    const auto header = split(lines[0], ',');
    const int trainAcc = column(header, "train_accuracy_pct");
    const int trainSignals = column(header, "train_signals");
    const int valAcc = column(header, "validation_accuracy_pct");
    const int valSignals = column(header, "validation_signals");
    ASSERT_TRUE(trainAcc >= 0 && trainSignals == trainAcc + 1 && valAcc >= 0 &&
                valSignals == valAcc + 1)
        << lines[0];
    const auto first = split(lines[1], ','), second = split(lines[2], ',');
    ASSERT_EQ(first.size(), header.size());
    EXPECT_EQ(first[size_t(trainAcc)], "");
    EXPECT_EQ(first[size_t(trainSignals)], "1");
    EXPECT_EQ(first[size_t(valAcc)], "");
    EXPECT_EQ(first[size_t(valSignals)], "0");
    EXPECT_EQ(second[size_t(trainAcc)], "55");
    EXPECT_EQ(second[size_t(trainSignals)], "40");
}

TEST(FigureText, PredictTextSaysNotAvailableWithoutSignals) {
    EpochMetrics m;
    m.samples = 100;
    m.missedPct = 100;
    m.patterns = 12;
    const std::string none = predictionMetricsText(m);
    EXPECT_EQ(none.find("accuracy 0.00"), std::string::npos) << none;
    EXPECT_NE(none.find("accuracy n/a (0 signals"), std::string::npos) << none;
    m.signalCount = 30;
    m.accuracyPct = 40;
    const std::string some = predictionMetricsText(m);
    EXPECT_NE(some.find("accuracy 40.00 % (30 signals)"), std::string::npos) << some;
}
