#include "model/data/FoldPlan.h"

#include <algorithm>
#include <cmath>

namespace nnwb {

namespace {

constexpr size_t kMaxFolds = 1000;

template <class T>
std::string str(T x) {
    return std::to_string(x);
}

// Positions on the axis the lengths are measured on: the bar index for bars, the open time
// (seconds) for days and weeks. A window [from, to) of positions holds the samples whose
// position lies in it.
class Axis {
public:
    Axis(const ValidationConfig& c, const std::vector<int64_t>& time) : time_(time) {
        bars_ = c.unit == "bars";
        unit_ = bars_ ? 1 : c.unit == "weeks" ? 7 * 86400 : 86400;
    }
    int64_t length(long long settingValue) const { return settingValue * unit_; }
    int64_t pos(size_t t) const { return bars_ ? static_cast<int64_t>(t) : time_[t]; }
    // The first bar whose position is at least p (the bar count when none).
    size_t lowerBound(int64_t p) const {
        if (bars_) return p <= 0 ? 0 : std::min(static_cast<size_t>(p), time_.size());
        return static_cast<size_t>(std::lower_bound(time_.begin(), time_.end(), p) - time_.begin());
    }
    const char* unitName() const { return bars_ ? "bars" : unit_ == 86400 ? "days" : "weeks"; }

private:
    const std::vector<int64_t>& time_;
    bool bars_ = true;
    int64_t unit_ = 1;
};

struct Window {
    int64_t from, to;  // positions, [from, to)
};

FoldPlan failed(FoldPlan p, std::string message) {
    p.error = std::move(message);
    p.folds.clear();
    return p;
}

}  // namespace

FoldPlan planFolds(const ValidationConfig& c, const std::vector<int64_t>& time,
                   const BarNeeds& needs, const std::string& name) {
    FoldPlan p;
    const size_t n = time.size();
    if (n < needs.minimum) return failed(p, tooFewBarsMessage(name, n, needs));
    const Axis axis(c, time);
    p.reach = needs.reach;
    p.firstSample = needs.firstBar;
    p.lastSample = n - 1 - needs.reach;
    const size_t first = p.firstSample, last = p.lastSample;
    p.purge = c.purge == 0 ? needs.reach : static_cast<size_t>(c.purge);
    p.embargo = static_cast<size_t>(c.embargo);
    if (p.purge < needs.reach)
        return failed(p, "validation.purge: " + str(c.purge) +
                             " bars is less than the label horizon (" + str(needs.reach) +
                             " bars after a sample that its fractal label reads)");
    const size_t gap = p.purge + p.embargo;
    const bool byFolds = c.folds > 0;
    if (!byFolds && c.testLength == 0)
        return failed(p,
                      "validation.testLength: 0 divides the file among the folds, but "
                      "validation.folds is 0; give a test length or a fold count");
    if (!byFolds && c.step > 0 && c.step < c.testLength)
        return failed(p, "validation.step: " + str(c.step) + " " + axis.unitName() +
                             " is shorter than validation.testLength (" + str(c.testLength) +
                             "): the test windows would overlap and could not be stitched");
    if (c.unit == "bars" && c.testLength > 0 && c.testLength < static_cast<long long>(needs.reach))
        return failed(p, "validation.testLength: " + str(c.testLength) +
                             " bars is shorter than the label horizon (" + str(needs.reach) +
                             " bars)");
    const int64_t testLen = axis.length(c.testLength);
    const int64_t end = axis.pos(last + 1);  // the usable samples' positions end here
    const int64_t start = axis.pos(first);
    int64_t trainLen = axis.length(c.trainLength > 0 ? c.trainLength : c.testLength);
    std::vector<Window> windows;
    bool firstPartFromStart = false;  // the first fold's training part is [first, ...)
    if (byFolds && c.testLength > 0) {
        // The newest `folds` windows, back to back, the last ending with the newest sample.
        const int64_t folds = c.folds;
        if (end - folds * testLen <= start)
            return failed(p, "validation.folds: " + str(c.folds) + " test windows of " +
                                 str(c.testLength) + " " + axis.unitName() +
                                 " do not fit the file's samples (bars " + str(first) + ".." +
                                 str(last) + "); fewer folds or a shorter validation.testLength");
        for (int64_t k = 0; k < folds; ++k)
            windows.push_back({end - (folds - k) * testLen, end - (folds - k - 1) * testLen});
    } else {
        // A first training part from the first sample, then the test windows after its gap.
        if (c.trainLength == 0 && c.testLength == 0) trainLen = (end - start) / (c.folds + 1);
        if (trainLen <= 0)
            return failed(p, "validation.folds: " + str(c.folds) +
                                 " folds leave no training part in the file's samples");
        const size_t firstEnd = axis.lowerBound(start + trainLen);  // one past the part
        if (firstEnd == 0 || firstEnd - 1 + gap + 1 > last)
            return failed(p, "validation.trainLength: the first training part (" +
                                 str(trainLen / axis.length(1)) + " " + axis.unitName() +
                                 ") and the purge and embargo (" + str(gap) +
                                 " bars) leave no samples to test (the file's samples are bars " +
                                 str(first) + ".." + str(last) + ")");
        firstPartFromStart = true;
        const int64_t testStart = axis.pos(firstEnd + gap);
        if (byFolds) {
            const int64_t span = end - testStart;
            for (int64_t k = 0; k < c.folds; ++k)
                windows.push_back(
                    {testStart + k * span / c.folds, testStart + (k + 1) * span / c.folds});
        } else {
            const int64_t step = axis.length(c.step > 0 ? c.step : c.testLength);
            p.contiguous = step == testLen;
            for (int64_t from = testStart; from + testLen <= end; from += step) {
                if (windows.size() == kMaxFolds)
                    return failed(p, "validation.step: more than " + str(kMaxFolds) +
                                         " test windows fit the file; a longer step or test "
                                         "length");
                windows.push_back({from, from + testLen});
            }
            if (windows.empty())
                return failed(p, "validation.testLength: no test window of " + str(c.testLength) +
                                     " " + axis.unitName() +
                                     " fits after the first training part (the file's samples "
                                     "are bars " +
                                     str(first) + ".." + str(last) + ")");
        }
    }
    const size_t nFolds = windows.size();
    size_t anchoredFirst = first;  // where every anchored training part starts
    for (size_t k = 0; k < nFolds; ++k) {
        const std::string fold = "fold " + str((k + 1)) + "/" + str((nFolds));
        Fold f;
        f.testFirst = std::max(axis.lowerBound(windows[k].from), first);
        f.testLast = std::min(axis.lowerBound(windows[k].to), last + 1) - 1;
        if (f.testLast + 1 < f.testFirst + std::max<size_t>(needs.reach, 1))
            return failed(p, "validation.testLength: " + fold + "'s test window holds " +
                                 str((f.testLast + 1 - f.testFirst)) +
                                 " samples, fewer than the label horizon (" + str(needs.reach) +
                                 " bars); fewer folds or a longer test length");
        if (f.testFirst < first + gap + 1)
            return failed(p, "validation.folds: " + fold + "'s test window starts at bar " +
                                 str(f.testFirst) +
                                 ", which leaves no training samples before "
                                 "it and its purge and embargo (" +
                                 str(gap) + " bars)");
        const size_t partLast = f.testFirst - 1 - gap;
        size_t partFirst = anchoredFirst;
        if (c.scheme == "rolling" && !(k == 0 && firstPartFromStart)) {
            partFirst = axis.lowerBound(axis.pos(partLast) - trainLen + 1);
            if (partFirst < first)
                return failed(p, "validation.trainLength: " + fold +
                                     "'s rolling training part would start before the first "
                                     "sample (bar " +
                                     str(first) + "); a shorter training length or fewer folds");
        }
        if (k == 0 && !firstPartFromStart && axis.pos(partLast + 1) - start < trainLen)
            return failed(p, "validation.trainLength: the first fold's training part holds " +
                                 str((partLast + 1 - partFirst)) +
                                 " samples, less than validation.trainLength (" +
                                 str(c.trainLength > 0 ? c.trainLength : c.testLength) + " " +
                                 axis.unitName() + "); fewer folds or a shorter test length");
        if (k == 0 && !firstPartFromStart && c.scheme == "anchored" && c.trainLength > 0) {
            // The first fold's part is trainLength long; later folds keep its start and grow.
            partFirst = std::max(first, axis.lowerBound(axis.pos(partLast) - trainLen + 1));
            anchoredFirst = partFirst;
        }
        const size_t count = partLast - partFirst + 1;
        size_t validation = 0;
        if (c.earlyStoppingShare > 0)
            validation = std::max<size_t>(
                1, static_cast<size_t>(std::llround(c.earlyStoppingShare * double(count))));
        f.trainFirst = partFirst;
        f.trainLast = partLast;
        if (validation > 0) {
            if (validation + p.purge >= count)
                return failed(p, "validation.earlyStoppingShare: " + fold + "'s training part (" +
                                     str((count)) +
                                     " samples) leaves none to fit after its early-stopping "
                                     "validation (" +
                                     str((validation)) + ") and the purge (" + str(p.purge) +
                                     " bars)");
            f.validationFirst = partLast - validation + 1;
            f.validationLast = partLast;
            f.trainLast = f.validationFirst - 1 - p.purge;
        }
        p.folds.push_back(f);
    }
    return p;
}

}  // namespace nnwb
