// `nnwb --chart-bench FILE [--bars N] [--model M.safetensors] [--size WxH]`: measures how long
// the price chart takes to redraw a large bar series (whole range with and without merged
// candles, 2,000 and 200 visible bars, panning) and prints the figures. Not a test: a
// measurement command, like `nnwb-cli bench` for training. GUI thread only.
#pragma once

#include <QSize>
#include <QString>

namespace nnwb {

// Returns the process exit status (2 for an unreadable file or model).
int runChartBench(const QString& file, int bars, const QString& model, QSize size);

}  // namespace nnwb
