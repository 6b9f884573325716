// Draws the report's inline SVG charts (model/trading/SvgChart.h, SweepHtml.h) with QPainter, for
// the PDF of File > Export Report: QTextDocument draws no SVG and Qt Svg is not a dependency.
// Reads exactly what those writers emit: <svg width height> holding <line>, <path> (M, L, Z),
// <rect> and <text> with their stroke, fill, opacity, dash, font and anchor attributes; any other
// element is an error, so a writer that grows one is caught by the report tests. GUI thread (or
// any thread with a QGuiApplication: it paints on a QImage).
#pragma once

#include <QImage>
#include <QString>

namespace nnwb {

// The <svg>…</svg> element `svg` drawn at `scale` times its width and height on white; a null
// image with `error` set ("line 1: unexpected element circle") when it cannot be read.
QImage renderReportSvg(const QString& svg, qreal scale, QString* error);

}  // namespace nnwb
