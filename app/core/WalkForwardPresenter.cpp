#include "app/core/WalkForwardPresenter.h"

#include <algorithm>

#include "app/core/QtText.h"
#include "app/core/TradingPresenter.h"
#include "model/FigureText.h"
#include "model/data/DateTime.h"

namespace nnwb {

namespace {

QString period(int64_t from, int64_t to) {
    return q(formatBarTime(from)) + QStringLiteral(" .. ") + q(formatBarTime(to));
}

QString loss(const EpochMetrics& m) {
    return m.samples ? QString::number(m.loss, 'f', 5) : QStringLiteral("-");
}

QString pct(const EpochMetrics& m, double v) {
    return m.samples ? QString::number(v, 'f', 2) : QStringLiteral("-");
}

QString accuracy(const EpochMetrics& m) {
    return m.samples ? q(accuracyCell(m.accuracyPct, m.signalCount)) : QStringLiteral("-");
}

}  // namespace

WalkForwardPresenter::WalkForwardPresenter(TradingPresenter* trading, QObject* parent)
    : QObject(parent), trading_(trading) {}

QStringList WalkForwardPresenter::columnTitles() {
    return {tr("Fold"),      tr("Training"),   tr("Test period"),  tr("Epochs"),
            tr("Best"),      tr("Val loss"),   tr("Val acc %"),    tr("Val missed %"),
            tr("Test loss"), tr("Test acc %"), tr("Test missed %")};
}

QStringList WalkForwardPresenter::row(size_t k) const {
    static const int kColumns = static_cast<int>(columnTitles().size());
    const Fold& f = plan_.plan.folds[k];
    const std::vector<int64_t>& t = plan_.bars->time;
    QStringList cells{QStringLiteral("%1/%2").arg(k + 1).arg(plan_.plan.folds.size()),
                      period(t[f.trainFirst], t[f.partLast()]),
                      period(t[f.testFirst], t[f.testLast])};
    if (plan_.isCpcv()) {  // a split trains on blocks around its test groups
        const CpcvSplit& s = plan_.cpcv.splits[k];
        QStringList groups;
        for (size_t g : s.testGroups) groups << QString::number(g + 1);
        cells[1] = tr("%1 samples in %2 blocks").arg(s.trainSamples()).arg(s.train.size());
        cells[2] = tr("groups %1").arg(groups.join(QStringLiteral(", ")));
    }
    if (k >= folds_.size() || !foldEnded_[k]) {
        const bool going = k < folds_.size();
        cells << (going ? tr("training…") : QString());
        while (cells.size() < kColumns) cells << QString();
        return cells;
    }
    const FoldRecord& r = folds_[k];
    if (r.end != RunEnd::Completed) {
        cells << QString::number(r.epochs)
              << (r.end == RunEnd::Failed ? tr("failed") : tr("stopped"));
        while (cells.size() < kColumns) cells << QString();
        return cells;
    }
    const EpochMetrics& v = r.validation;
    const bool hv = r.hasValidation;
    cells << QString::number(r.epochs) + (r.stoppedEarly ? tr(" (early)") : QString())
          << QString::number(r.bestEpoch) << (hv ? loss(v) : QStringLiteral("-"))
          << (hv ? accuracy(v) : QStringLiteral("-"))
          << (hv ? pct(v, v.missedPct) : QStringLiteral("-")) << loss(r.test) << accuracy(r.test)
          << pct(r.test, r.test.missedPct);
    return cells;
}

std::vector<QStringList> WalkForwardPresenter::rows() const {
    std::vector<QStringList> out;
    if (!active()) return out;
    for (size_t k = 0; k < plan_.plan.folds.size(); ++k) out.push_back(row(k));
    return out;
}

QString WalkForwardPresenter::caption() const {
    if (!active())
        return tr(
            "Walk-forward: set Validation to \"Walk-forward (folds)\" in the Training pane "
            "and train; each fold's figures and the stitched out-of-sample series show "
            "here.");
    const FoldPlan& p = plan_.plan;
    if (plan_.isCpcv()) return cpcvCaption();
    QString text = tr("Walk-forward on %1: %2 %3 folds, purge %4, embargo %5 bars. ")
                       .arg(plan_.fileName)
                       .arg(p.folds.size())
                       .arg(plan_.scheme)
                       .arg(p.purge)
                       .arg(p.embargo);
    if (running_) return text + tr("Fold %1/%2 training…").arg(folds_.size()).arg(p.folds.size());
    if (!ended_) return text;
    if (outcome_.end == RunEnd::Failed) return text + tr("Failed: %1").arg(outcome_.error);
    if (outcome_.end == RunEnd::Stopped)
        return text +
               tr("Stopped after %1 of %2 folds.").arg(outcome_.folds.size()).arg(p.folds.size());
    return text + tr("All %1 folds done.").arg(outcome_.folds.size());
}

QString WalkForwardPresenter::cpcvCaption() const {
    const CpcvPlan& c = plan_.cpcv;
    const size_t n = c.splits.size();
    const QString text =
        tr("Combinatorial purged cross-validation on %1: %2 groups, %3 test groups: %4 splits, "
           "%5 paths; purge %6, embargo %7 bars. ")
            .arg(plan_.fileName)
            .arg(c.groups)
            .arg(c.testGroups)
            .arg(n)
            .arg(c.paths.size())
            .arg(c.purge)
            .arg(c.embargo);
    if (running_) return text + tr("Split %1/%2 training…").arg(folds_.size()).arg(n);
    if (!ended_) return text;
    if (outcome_.end == RunEnd::Failed) return text + tr("Failed: %1").arg(outcome_.error);
    if (outcome_.end == RunEnd::Stopped)
        return text +
               tr("Stopped after %1 of %2 splits: no paths.").arg(outcome_.folds.size()).arg(n);
    return text + tr("All %1 splits done.").arg(outcome_.folds.size());
}

QString WalkForwardPresenter::stitchedText() const {
    if (!ended_ || !outcome_.outOfSample || outcome_.outOfSample->empty()) return QString();
    const EpochMetrics& m = outcome_.stitched;
    const SignalSeries& s = *outcome_.outOfSample;
    const std::vector<int64_t>& t = plan_.bars->time;
    size_t completed = 0;
    for (const FoldRecord& r : outcome_.folds) completed += r.end == RunEnd::Completed;
    return tr("Out of sample, stitched from %1 (%2, %3 samples): loss %4, accuracy %5, "
              "missed %6 %, signals %7 of %8 patterns")
        .arg(completed == 1 ? tr("1 fold") : tr("%1 folds").arg(completed))
        .arg(period(t[s.bar.front()], t[s.bar.back()]))
        .arg(q(groupedCount(static_cast<int64_t>(m.samples))))
        .arg(m.loss, 0, 'f', 5)
        .arg(q(accuracyText(m.accuracyPct, m.signalCount)))
        .arg(m.missedPct, 0, 'f', 2)
        .arg(q(groupedCount(static_cast<int64_t>(m.signalCount))))
        .arg(q(groupedCount(static_cast<int64_t>(m.patterns))));
}

void WalkForwardPresenter::planned(const WalkForwardPlan& plan) {
    plan_ = plan;
    folds_.clear();
    foldEnded_.clear();
    outcome_ = WalkForwardOutcome();
    running_ = true;
    ended_ = false;
    if (trading_) trading_->clear();
    Q_EMIT planChanged();
    Q_EMIT changed();
}

void WalkForwardPresenter::foldStarted(const FoldRecord& record) {
    if (!active() || record.index > folds_.size()) return;
    if (record.index == folds_.size()) {
        folds_.push_back(record);
        foldEnded_.push_back(false);
    }
    Q_EMIT changed();
}

void WalkForwardPresenter::foldEnded(const FoldRecord& record) {
    if (!active() || record.index >= folds_.size()) return;
    folds_[record.index] = record;
    foldEnded_[record.index] = true;
    Q_EMIT changed();
}

void WalkForwardPresenter::finished(const WalkForwardOutcome& outcome) {
    if (!active()) return;
    outcome_ = outcome;
    running_ = false;
    ended_ = true;
    if (trading_ && outcome.outOfSample && !outcome.outOfSample->empty())
        trading_->setSeries(
            plan_.bars, outcome.outOfSample,
            tr("the stitched out-of-sample series of %1 folds").arg(outcome.folds.size()));
    Q_EMIT changed();
}

void WalkForwardPresenter::runEnded() {
    if (!running_) return;
    running_ = false;  // failed before the outcome (cannot happen after planning) or not planned
    Q_EMIT changed();
}

void WalkForwardPresenter::clear() {
    if (!active() && !running_) return;
    plan_ = WalkForwardPlan();
    folds_.clear();
    foldEnded_.clear();
    outcome_ = WalkForwardOutcome();
    running_ = ended_ = false;
    Q_EMIT planChanged();
    Q_EMIT changed();
}

}  // namespace nnwb
