#include "ui/ParallelCoordinates.h"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

#include "app/sweep/SweepReadModel.h"

namespace nnwb {

namespace {

constexpr int kMarginX = 60, kTop = 34, kBottom = 26, kGrab = 14;

QString axisValue(const nlohmann::json& v) {
    return QString::fromStdString(v.is_string() ? v.get<std::string>() : v.dump());
}

// "learningRate", "layers[0].filters": enough to tell the axes apart under a narrow title.
QString shortPath(const std::string& path) {
    const QString p = QString::fromStdString(path);
    const int dot = p.lastIndexOf('.');
    if (dot < 0) return p;
    const QString last = p.mid(dot + 1);
    const int before = p.lastIndexOf('.', dot - 1);
    const QString parent = p.mid(before + 1, dot - before - 1);
    return parent.startsWith("layers[") ? parent + "." + last : last;
}

// A drag that starts or ends within 2 % of an axis' end means that end.
double snapped(double u) {
    return u < 0.02 ? 0.0 : u > 0.98 ? 1.0 : u;
}

// Blue (best) through violet to red (worst).
QColor qualityColour(double q) {
    return QColor::fromRgbF(0.15 + 0.8 * q, 0.25 * (1.0 - q) + 0.1, 0.9 - 0.75 * q);
}

}  // namespace

ParallelCoordinates::ParallelCoordinates(QWidget* parent) : QWidget(parent) {
    setMinimumHeight(120);
    setMouseTracking(false);
    setToolTip(
        tr("Drag along an axis to keep only the trials in that range; click an axis to "
           "clear its range."));
}

void ParallelCoordinates::setSnapshot(const SweepSnapshot& s) {
    const size_t before = axes_.size();
    buildAxes(s);
    if (axes_.size() != before || s.sweep.id != sweepId_) brush_.clear();
    sweepId_ = s.sweep.id;
    buildLines(s);
    update();
    Q_EMIT filterChanged();
}

void ParallelCoordinates::buildAxes(const SweepSnapshot& s) {
    axes_.clear();
    for (size_t i = 0; i < s.parameters.size(); ++i) {
        Axis a;
        a.title = shortPath(s.parameters[i]);
        std::vector<double> nums;
        std::set<QString> cats;
        for (const TrialRow& t : s.trials) {
            if (!t.params.contains(s.parameters[i])) continue;
            const nlohmann::json& v = t.params[s.parameters[i]];
            if (v.is_number())
                nums.push_back(v.get<double>());
            else
                cats.insert(axisValue(v));
        }
        if (!cats.empty() || nums.empty()) {
            for (double n : nums) cats.insert(axisValue(n));
            a.labels.assign(cats.begin(), cats.end());
        } else {
            a.low = *std::min_element(nums.begin(), nums.end());
            a.high = *std::max_element(nums.begin(), nums.end());
            a.log = a.low > 0 && a.high / a.low > 50.0;
        }
        axes_.push_back(a);
    }
    Axis obj;
    obj.title = QString::fromStdString(s.objective);
    bool any = false;
    for (const TrialRow& t : s.trials)
        if (t.value) {
            obj.low = any ? std::min(obj.low, *t.value) : *t.value;
            obj.high = any ? std::max(obj.high, *t.value) : *t.value;
            any = true;
        }
    axes_.push_back(obj);
}

double ParallelCoordinates::unitOf(int axis, const nlohmann::json& v) const {
    const Axis& a = axes_[size_t(axis)];
    if (!a.labels.empty()) {
        const auto it = std::find(a.labels.begin(), a.labels.end(), axisValue(v));
        const double n = double(a.labels.size());
        return n < 2 ? 0.5 : double(it - a.labels.begin()) / (n - 1.0);
    }
    const double x = v.get<double>();
    if (a.high <= a.low) return 0.5;
    if (a.log) return (std::log(x) - std::log(a.low)) / (std::log(a.high) - std::log(a.low));
    return (x - a.low) / (a.high - a.low);
}

void ParallelCoordinates::buildLines(const SweepSnapshot& s) {
    lines_.clear();
    // Colour by rank, so that one very bad trial does not make all the others look alike; the
    // ranks oriented by the objective's goal come from the read model.
    const std::vector<std::optional<double>> ranks = sweepValueRanks(s.trials, s.minimize);
    const int objAxis = int(axes_.size()) - 1;
    for (size_t k = 0; k < s.trials.size(); ++k) {
        const TrialRow& t = s.trials[k];
        Line l;
        l.number = t.number;
        l.pruned = t.state == sweep::TrialState::Pruned;
        for (int i = 0; i < objAxis; ++i) {
            const std::string& p = s.parameters[size_t(i)];
            l.at.push_back(t.params.contains(p) ? std::optional(unitOf(i, t.params[p]))
                                                : std::nullopt);
        }
        if (t.value) {
            l.at.push_back(unitOf(objAxis, *t.value));
            l.quality = ranks[k];
        } else {
            l.at.push_back(std::nullopt);
        }
        lines_.push_back(l);
    }
}

int ParallelCoordinates::axisX(int axis) const {
    const int n = int(axes_.size());
    if (n < 2) return width() / 2;
    return kMarginX + axis * (width() - 2 * kMarginX) / (n - 1);
}

int ParallelCoordinates::plotTop() const {
    return kTop;
}

int ParallelCoordinates::plotBottom() const {
    return height() - kBottom;
}

double ParallelCoordinates::yOf(double unit) const {
    return plotBottom() - unit * (plotBottom() - plotTop());
}

double ParallelCoordinates::unitAt(int y) const {
    const double u = double(plotBottom() - y) / std::max(1, plotBottom() - plotTop());
    return std::clamp(u, 0.0, 1.0);
}

int ParallelCoordinates::axisNear(int x) const {
    for (int i = 0; i < int(axes_.size()); ++i)
        if (std::abs(x - axisX(i)) <= kGrab) return i;
    return -1;
}

std::optional<double> ParallelCoordinates::position(int number, int axis) const {
    for (const Line& l : lines_)
        if (l.number == number && axis >= 0 && axis < int(l.at.size())) return l.at[size_t(axis)];
    return std::nullopt;
}

std::set<int> ParallelCoordinates::visibleTrials() const {
    std::set<int> out;
    for (const Line& l : lines_) {
        bool in = true;
        for (const auto& [axis, range] : brush_) {
            const auto& v = l.at[size_t(axis)];
            in = in && v && *v >= range.first - 1e-9 && *v <= range.second + 1e-9;
        }
        if (in) out.insert(l.number);
    }
    return out;
}

void ParallelCoordinates::setBrush(int axis, double lo, double hi) {
    if (axis < 0 || axis >= int(axes_.size())) return;
    brush_[axis] = {std::min(lo, hi), std::max(lo, hi)};
    update();
    Q_EMIT filterChanged();
}

void ParallelCoordinates::clearBrush(int axis) {
    if (brush_.erase(axis) == 0) return;
    update();
    Q_EMIT filterChanged();
}

void ParallelCoordinates::mousePressEvent(QMouseEvent* e) {
    dragAxis_ = axisNear(int(e->position().x()));
    dragFrom_ = snapped(unitAt(int(e->position().y())));
    dragMoved_ = false;
}

void ParallelCoordinates::mouseMoveEvent(QMouseEvent* e) {
    if (dragAxis_ < 0) return;
    const double to = snapped(unitAt(int(e->position().y())));
    if (std::abs(to - dragFrom_) < 0.01 && !dragMoved_) return;
    dragMoved_ = true;
    setBrush(dragAxis_, dragFrom_, to);
}

void ParallelCoordinates::mouseReleaseEvent(QMouseEvent*) {
    if (dragAxis_ >= 0 && !dragMoved_) clearBrush(dragAxis_);
    dragAxis_ = -1;
}

void ParallelCoordinates::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    if (axes_.size() < 2 || lines_.empty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("No trials yet"));
        return;
    }
    p.setRenderHint(QPainter::Antialiasing);
    paintLines(p);
    paintAxes(p);
}

void ParallelCoordinates::paintLines(QPainter& p) {
    const std::set<int> shown = visibleTrials();
    for (int pass = 0; pass < 2; ++pass)  // filtered-out lines first, faint, under the rest
        for (const Line& l : lines_) {
            const bool in = shown.count(l.number) > 0;
            if (in != (pass == 1)) continue;
            QColor c = l.quality ? qualityColour(*l.quality) : QColor(150, 150, 150);
            c.setAlphaF(!in ? 0.12 : l.pruned ? 0.45 : 0.9);
            p.setPen(QPen(c, in ? 1.6 : 1.0, l.pruned ? Qt::DashLine : Qt::SolidLine));
            QPainterPath path;
            bool open = false;
            for (size_t i = 0; i < l.at.size(); ++i) {
                if (!l.at[i]) {
                    open = false;
                    continue;
                }
                const QPointF pt(axisX(int(i)), yOf(*l.at[i]));
                open ? path.lineTo(pt) : path.moveTo(pt);
                open = true;
            }
            p.drawPath(path);
        }
}

void ParallelCoordinates::paintAxes(QPainter& p) {
    const QColor text = palette().color(QPalette::Text);
    for (int i = 0; i < int(axes_.size()); ++i) {
        const Axis& a = axes_[size_t(i)];
        const int x = axisX(i);
        if (brush_.count(i)) {
            const auto [lo, hi] = brush_.at(i);
            p.fillRect(QRectF(x - 6, yOf(hi), 12, yOf(lo) - yOf(hi)), QColor(255, 200, 0, 110));
        }
        p.setPen(QPen(text, 1.5));
        p.drawLine(x, plotTop(), x, plotBottom());
        const QRect titleBox(std::clamp(x - 70, 0, std::max(0, width() - 140)), 2, 140, kTop - 16);
        p.drawText(titleBox, Qt::AlignHCenter | Qt::AlignBottom, a.title);
        QString top, bottom;
        if (!a.labels.empty()) {
            for (size_t k = 0; k < a.labels.size(); ++k)
                p.drawText(
                    QPointF(x + 4,
                            yOf(a.labels.size() < 2 ? 0.5 : double(k) / (a.labels.size() - 1)) + 4),
                    a.labels[k].left(10));
            continue;
        }
        top = QString::number(a.high, 'g', 4);
        bottom = QString::number(a.low, 'g', 4);
        p.drawText(QRect(x - 60, plotTop() - 16, 120, 14), Qt::AlignCenter, top);
        p.drawText(QRect(x - 60, plotBottom() + 4, 120, 14), Qt::AlignCenter, bottom);
    }
}

}  // namespace nnwb
