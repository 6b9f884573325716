// A small SVG writer for the HTML report (HtmlReport.h): line charts of one or more series over
// a shared x axis, filled areas (underwater drawdown) and bar charts, with axis labels, as one
// self-contained <svg> element (no scripts, no external references). Pure functions; any
// thread.
#pragma once

#include <string>
#include <vector>

namespace nnwb {

struct SvgSeries {
    std::string name, color;  // color: a CSS color ("#1f77b4")
    std::vector<double> y;    // one value per x; NaN leaves a gap
    bool area = false;        // filled down to 0 (the underwater chart)
};

// Lines over x = 0..n-1; `xLabels` (same length as the longest series, may be empty) name a few
// evenly spaced ticks. A legend names the series.
// `markers` (x positions, fractional allowed) are drawn as dashed vertical lines (fold starts).
std::string svgLineChart(const std::string& title, const std::vector<SvgSeries>& series,
                         const std::vector<std::string>& xLabels, int width = 960, int height = 280,
                         const std::vector<double>& markers = {});
// One bar per value, labelled below; negative bars red, positive green unless `color` is set.
std::string svgBarChart(const std::string& title, const std::vector<double>& values,
                        const std::vector<std::string>& labels, const std::string& color = "",
                        int width = 960, int height = 240);
// &, <, >, " escaped for HTML and SVG text.
std::string htmlEscape(const std::string& s);

}  // namespace nnwb
