#include "model/trading/SvgChart.h"
#include "model/trading/Verdict.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace nnwb {

std::string htmlEscape(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '&')
            out += "&amp;";
        else if (c == '<')
            out += "&lt;";
        else if (c == '>')
            out += "&gt;";
        else if (c == '"')
            out += "&quot;";
        else
            out += c;
    }
    return out;
}

namespace {

constexpr int kSvgLeft = 70, kSvgRight = 16, kSvgTop = 28, kSvgBottom = 40;

std::string svgNum(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
}

std::string svgTick(double v) {
    if (std::fabs(v) >= 1000) return groupedNumber(v);  // -16,150, not -1.615e+04
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", v);
    return buf;
}

struct SvgFrame {
    int width, height;
    double lo, hi;
    double y(double v) const {
        const double h = height - kSvgTop - kSvgBottom;
        return kSvgTop + h * (hi - v) / (hi - lo);
    }
};

// The <svg> opening, title, y grid with labels and the zero line.
std::string svgOpen(const std::string& title, const SvgFrame& f) {
    std::string s = "<svg width=\"" + std::to_string(f.width) + "\" height=\"" +
                    std::to_string(f.height) + "\" viewBox=\"0 0 " + std::to_string(f.width) + " " +
                    std::to_string(f.height) + "\" font-family=\"sans-serif\" font-size=\"11\">";
    s += "<text x=\"" + std::to_string(kSvgLeft) +
         "\" y=\"16\" font-size=\"13\" font-weight=\"bold\">" + htmlEscape(title) + "</text>";
    for (int i = 0; i <= 4; ++i) {
        const double v = f.lo + (f.hi - f.lo) * i / 4;
        const std::string y = svgNum(f.y(v));
        s += "<line x1=\"" + std::to_string(kSvgLeft) + "\" x2=\"" +
             std::to_string(f.width - kSvgRight) + "\" y1=\"" + y + "\" y2=\"" + y +
             "\" stroke=\"#ddd\"/>";
        s += "<text x=\"" + std::to_string(kSvgLeft - 4) + "\" y=\"" + y +
             "\" text-anchor=\"end\" dominant-baseline=\"middle\">" + svgTick(v) + "</text>";
    }
    if (f.lo < 0 && f.hi > 0)
        s += "<line x1=\"" + std::to_string(kSvgLeft) + "\" x2=\"" +
             std::to_string(f.width - kSvgRight) + "\" y1=\"" + svgNum(f.y(0)) + "\" y2=\"" +
             svgNum(f.y(0)) + "\" stroke=\"#888\"/>";
    return s;
}

void svgRange(const std::vector<double>& v, double& lo, double& hi) {
    for (double x : v)
        if (std::isfinite(x)) lo = std::min(lo, x), hi = std::max(hi, x);
}

}  // namespace

std::string svgLineChart(const std::string& title, const std::vector<SvgSeries>& series,
                         const std::vector<std::string>& xLabels, int width, int height,
                         const std::vector<double>& markers) {
    double lo = 0, hi = 0;
    size_t n = 0;
    for (const SvgSeries& s : series) svgRange(s.y, lo, hi), n = std::max(n, s.y.size());
    if (hi == lo) hi = lo + 1;
    const SvgFrame f{width, height, lo, hi};
    std::string s = svgOpen(title, f);
    const double plotW = width - kSvgLeft - kSvgRight;
    auto x = [&](double i) { return kSvgLeft + (n > 1 ? plotW * i / double(n - 1) : 0.0); };
    for (double m : markers)
        s += "<line x1=\"" + svgNum(x(m)) + "\" x2=\"" + svgNum(x(m)) + "\" y1=\"" +
             std::to_string(kSvgTop) + "\" y2=\"" + std::to_string(height - kSvgBottom) +
             "\" stroke=\"#f48c00\" stroke-dasharray=\"4 3\"/>";
    for (size_t k = 0; k < series.size(); ++k) {
        const SvgSeries& ser = series[k];
        std::string path;
        bool pen = false;
        for (size_t i = 0; i < ser.y.size(); ++i) {
            if (!std::isfinite(ser.y[i])) {
                pen = false;
                continue;
            }
            path += (pen ? " L" : " M") + svgNum(x(i)) + " " + svgNum(f.y(ser.y[i]));
            pen = true;
        }
        // The area's fill has no outline (its closing edges along 0 are no data); the line is
        // drawn over it.
        if (ser.area && !path.empty())
            s += "<path d=\"" + path + " L" + svgNum(x(ser.y.size() - 1)) + " " + svgNum(f.y(0)) +
                 " L" + svgNum(x(0)) + " " + svgNum(f.y(0)) + " Z\" fill=\"" + ser.color +
                 "\" fill-opacity=\"0.35\" stroke=\"none\"/>";
        if (!path.empty())
            s += "<path d=\"" + path + "\" fill=\"none\" stroke=\"" + ser.color +
                 "\" stroke-width=\"1.2\"/>";
        s += "<text x=\"" + svgNum(kSvgLeft + 10 + 180.0 * k) + "\" y=\"" +
             std::to_string(height - 6) + "\" fill=\"" + ser.color + "\">&#9632; " +
             htmlEscape(ser.name) + "</text>";
    }
    for (int t = 0; t < 5 && !xLabels.empty() && n > 0; ++t) {
        const size_t i = std::min(n - 1, static_cast<size_t>((n - 1) * t / 4.0));
        if (i >= xLabels.size()) continue;
        s += "<text x=\"" + svgNum(x(i)) + "\" y=\"" + std::to_string(height - kSvgBottom + 14) +
             "\" text-anchor=\"" +
             (t == 0   ? "start"
              : t == 4 ? "end"
                       : "middle") +
             "\">" + htmlEscape(xLabels[i]) + "</text>";
    }
    return s + "</svg>";
}

std::string svgBarChart(const std::string& title, const std::vector<double>& values,
                        const std::vector<std::string>& labels, const std::string& color, int width,
                        int height) {
    double lo = 0, hi = 0;
    svgRange(values, lo, hi);
    if (hi == lo) hi = lo + 1;
    const SvgFrame f{width, height, lo, hi};
    std::string s = svgOpen(title, f);
    const double slot = values.empty() ? 0 : double(width - kSvgLeft - kSvgRight) / values.size();
    const size_t every =
        std::max<size_t>(1, static_cast<size_t>(std::ceil(40.0 / std::max(slot, 1.0))));
    for (size_t i = 0; i < values.size(); ++i) {
        const double v = std::isfinite(values[i]) ? values[i] : 0;
        const double top = f.y(std::max(v, 0.0)), bottom = f.y(std::min(v, 0.0));
        const std::string fill = !color.empty() ? color : v < 0 ? "#d62728" : "#2ca02c";
        s += "<rect x=\"" + svgNum(kSvgLeft + slot * i + slot * 0.1) + "\" y=\"" + svgNum(top) +
             "\" width=\"" + svgNum(slot * 0.8) + "\" height=\"" +
             svgNum(std::max(bottom - top, 0.5)) + "\" fill=\"" + fill + "\"/>";
        if (i < labels.size() && i % every == 0)
            s += "<text x=\"" + svgNum(kSvgLeft + slot * (i + 0.5)) + "\" y=\"" +
                 std::to_string(height - kSvgBottom + 14) + "\" text-anchor=\"middle\">" +
                 htmlEscape(labels[i]) + "</text>";
    }
    return s + "</svg>";
}

}  // namespace nnwb
