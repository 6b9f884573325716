#include "ui/ChartBench.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <vector>

#include <QApplication>
#include <QElapsedTimer>

#include "model/ModelBundle.h"
#include "model/Predictor.h"
#include "model/data/BarImporter.h"
#include "ui/Plot.h"
#include "ui/PriceChart.h"

namespace nnwb {

namespace {

// The file's bars, repeated end to end (times shifted past the last bar, prices continued
// from the last close) until there are `want` of them.
BarSeries tiled(const BarSeries& b, size_t want) {
    BarSeries out = b;
    if (b.size() < 2) return out;
    const int64_t step = b.timeframe > 0 ? b.timeframe : 3600;
    while (out.size() < want) {
        const int64_t shift = out.time.back() + step - b.time.front();
        const double scale = out.close.back() / b.open.front();
        for (size_t i = 0; i < b.size() && out.size() < want; ++i) {
            out.time.push_back(b.time[i] + shift);
            out.open.push_back(b.open[i] * scale);
            out.high.push_back(b.high[i] * scale);
            out.low.push_back(b.low[i] * scale);
            out.close.push_back(b.close[i] * scale);
            out.volume.push_back(b.volume[i]);
        }
    }
    if (out.size() > want) {
        for (auto* v : {&out.open, &out.high, &out.low, &out.close, &out.volume}) v->resize(want);
        out.time.resize(want);
    }
    return out;
}

struct Timing {
    double plotMs = 0, wallMs = 0;
};

// Replots `n` times; QCustomPlot's own replot time of the main chart and the wall time of the
// whole redraw (main chart and overview), both averaged.
Timing measure(PriceChart& chart, int n) {
    Timing t;
    for (int i = 0; i < n; ++i) {
        QElapsedTimer w;
        w.start();
        chart.replotNow();
        t.wallMs += w.nsecsElapsed() / 1e6;
        t.plotMs += chart.lastReplotMs();
    }
    t.plotMs /= n;
    t.wallMs /= n;
    return t;
}

// The model's signals over the validation part (false when the model cannot be used).
bool addModelSignals(PriceChart& chart, const BarSeries& series, size_t valFirst,
                     const QString& model, size_t* signalCount) {
    try {
        const ModelBundle bundle = ModelBundle::load(model.toStdString());
        Predictor p(bundle, "cpu");
        const PredictionResult r = p.predict(series, series.time[valFirst]);
        std::vector<float> outs;
        for (const PredictionRow& row : r.rows) {
            outs.insert(outs.end(), row.outputs.begin(), row.outputs.end());
            *signalCount += row.signal != 0;
        }
        chart.setSignals(r.rows.front().bar, std::move(outs), QStringLiteral("bench"));
        return true;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "nnwb --chart-bench: %s\n", e.what());
        return false;
    }
}

// Panning a 2,000-bar view and zooming out step by step: the time per step.
void measurePanAndZoom(PriceChart& chart, size_t n) {
    // Panning: 50 steps of 2 % of a 2,000-bar view, each a range change and a redraw.
    QElapsedTimer pan;
    pan.start();
    double from = double(n) / 2;
    for (int i = 0; i < 50; ++i) {
        from += 40;
        chart.showRange(from, from + 2000);
        chart.replotNow();
    }
    std::printf("%-44s %14zu %10s %12.2f\n", "pan a 2,000-bar view (per step)",
                chart.barsPerCandle(), "-", pan.nsecsElapsed() / 1e6 / 50);
    chart.showAll();
    pan.restart();
    for (int i = 0; i < 20; ++i) {
        chart.showRange(double(n) * (0.5 - 0.02 * i), double(n) * (0.5 + 0.02 * i) + 100);
        chart.replotNow();
    }
    std::printf("%-44s %14s %10s %12.2f\n", "zoom out step by step to 80 % (per step)", "-", "-",
                pan.nsecsElapsed() / 1e6 / 20);
}

}  // namespace

int runChartBench(const QString& file, int bars, const QString& model, QSize size) {
    LoadResult loaded = loadBarFile(file.toStdString());
    if (!loaded.ok) {
        std::fprintf(stderr, "nnwb --chart-bench: %s\n", loaded.error.c_str());
        return 2;
    }
    auto series = std::make_shared<const BarSeries>(
        bars > 0 ? tiled(loaded.bars, static_cast<size_t>(bars)) : loaded.bars);
    PriceChart chart;
    chart.resize(size.isValid() ? size : QSize(1600, 800));
    chart.show();
    QApplication::processEvents();
    chart.setBars(series);
    const size_t n = series->size();
    const size_t valFirst = n - n / 5;
    chart.setSplit(40, valFirst - 20, valFirst, n - 2);
    size_t signalCount = 0;
    if (!model.isEmpty() && !addModelSignals(chart, *series, valFirst, model, &signalCount))
        return 2;
    QApplication::processEvents();
    std::printf(
        "price chart redraw, %zu bars (%s%s), %d x %d px, %zu model signals in the "
        "validation part\n",
        n, qPrintable(file.section(QLatin1Char('/'), -1)),
        n > loaded.bars.size() ? ", repeated end to end" : "", chart.width(), chart.height(),
        signalCount);
    std::printf("%-44s %14s %10s %12s\n", "view", "bars/candle", "plot ms", "redraw ms");
    auto row = [&](const char* what, int reps) {
        QApplication::processEvents();
        const Timing t = measure(chart, reps);
        std::printf("%-44s %14zu %10.2f %12.2f\n", what, chart.barsPerCandle(), t.plotMs, t.wallMs);
    };
    chart.showAll();
    row("whole range, merged candles", 20);
    chart.setDecimation(false);
    row("whole range, every bar drawn (no merging)", 5);
    chart.setDecimation(true);
    chart.showRange(double(n) - 2000, double(n));
    row("2,000 bars (validation part)", 20);
    chart.showRange(double(n) - 200, double(n));
    row("200 bars (validation part)", 20);
    measurePanAndZoom(chart, n);
    return 0;
}

}  // namespace nnwb
