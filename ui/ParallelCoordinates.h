// A parallel-coordinates plot of a sweep: one vertical axis per parameter and one for the
// objective, one polyline per trial coloured by its objective (blue best, red worst, grey
// without a value). Dragging along an axis brushes a range of it; the trials whose lines pass
// every brush are the visible ones (filterChanged), a click on an axis without dragging clears
// its brush. Painted with QPainter (QCustomPlot has no parallel axes). GUI thread only.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <vector>

#include <QWidget>

#include "app/core/SweepPresenter.h"

namespace nnwb {

class ParallelCoordinates : public QWidget {
    Q_OBJECT
public:
    explicit ParallelCoordinates(QWidget* parent = nullptr);

    void setSnapshot(const SweepSnapshot& s);
    int axisCount() const { return int(axes_.size()); }
    // Brushes axis `axis` to [lo, hi] in its unit coordinates (0 bottom, 1 top), as a drag
    // would; clearBrush removes it.
    void setBrush(int axis, double lo, double hi);
    void clearBrush(int axis);
    bool brushed() const { return !brush_.empty(); }
    // The trial numbers whose lines pass every brush (all drawn trials without brushes).
    std::set<int> visibleTrials() const;
    // The unit coordinate of trial `number` on `axis` (none when it has no value there).
    std::optional<double> position(int number, int axis) const;
    // The x of an axis in widget coordinates (tests drag there).
    int axisX(int axis) const;
    int plotTop() const;
    int plotBottom() const;

Q_SIGNALS:
    void filterChanged();

protected:
    void paintEvent(QPaintEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;

private:
    struct Axis {
        QString title;
        std::vector<QString> labels;  // categorical ticks (bottom to top), empty for numbers
        double low = 0.0, high = 1.0;
        bool log = false;
    };
    struct Line {
        int number = 0;
        std::vector<std::optional<double>> at;  // unit coordinate per axis
        std::optional<double> quality;          // 0 best .. 1 worst
        bool pruned = false;
    };
    void buildAxes(const SweepSnapshot& s);
    void buildLines(const SweepSnapshot& s);
    double unitOf(int axis, const nlohmann::json& v) const;
    double yOf(double unit) const;
    double unitAt(int y) const;
    int axisNear(int x) const;
    void paintAxes(QPainter& p);
    void paintLines(QPainter& p);

    std::vector<Axis> axes_;
    std::vector<Line> lines_;
    std::map<int, std::pair<double, double>> brush_;  // axis -> [lo, hi]
    int64_t sweepId_ = 0;  // brushes belong to the sweep they were drawn on
    int dragAxis_ = -1;
    double dragFrom_ = 0.0;
    bool dragMoved_ = false;
};

}  // namespace nnwb
