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

namespace {

// What placing the folds reads: the settings, the label horizon, the axis and the usable
// samples' bars (first..last) and positions [start, end), the purge and embargo in bars.
struct PlanInput {
    const ValidationConfig& c;
    const BarNeeds& needs;
    const Axis& axis;
    size_t first, last, purge, gap;
    int64_t start, end, testLen, trainLen;
};

// The settings that cannot make a plan whatever the file: an error message, else empty.
std::string settingsError(const ValidationConfig& c, const BarNeeds& needs, const Axis& axis,
                          size_t purge) {
    if (purge < needs.reach)
        return "validation.purge: " + str(c.purge) + " bars is less than the label horizon (" +
               str(needs.reach) + " bars after a sample that its fractal label reads)";
    if (c.folds <= 0 && c.testLength == 0)
        return "validation.testLength: 0 divides the file among the folds, but "
               "validation.folds is 0; give a test length or a fold count";
    if (c.folds <= 0 && c.step > 0 && c.step < c.testLength)
        return "validation.step: " + str(c.step) + " " + axis.unitName() +
               " is shorter than validation.testLength (" + str(c.testLength) +
               "): the test windows would overlap and could not be stitched";
    if (c.unit == "bars" && c.testLength > 0 && c.testLength < static_cast<long long>(needs.reach))
        return "validation.testLength: " + str(c.testLength) +
               " bars is shorter than the label horizon (" + str(needs.reach) + " bars)";
    return {};
}

// The newest `folds` test windows, back to back, the last ending with the newest sample.
std::string newestWindows(const PlanInput& x, std::vector<Window>& windows) {
    const int64_t folds = x.c.folds;
    if (x.end - folds * x.testLen <= x.start)
        return "validation.folds: " + str(x.c.folds) + " test windows of " + str(x.c.testLength) +
               " " + x.axis.unitName() + " do not fit the file's samples (bars " + str(x.first) +
               ".." + str(x.last) + "); fewer folds or a shorter validation.testLength";
    for (int64_t k = 0; k < folds; ++k)
        windows.push_back({x.end - (folds - k) * x.testLen, x.end - (folds - k - 1) * x.testLen});
    return {};
}

// A first training part from the first sample (trainLen, set here when the file is divided
// among the folds), then the test windows after its gap: the folds dividing the rest, or
// windows of testLength every step (contiguous when the step is the test length).
std::string windowsAfterFirstPart(PlanInput& x, std::vector<Window>& windows, bool& contiguous) {
    const ValidationConfig& c = x.c;
    if (c.trainLength == 0 && c.testLength == 0) x.trainLen = (x.end - x.start) / (c.folds + 1);
    if (x.trainLen <= 0)
        return "validation.folds: " + str(c.folds) +
               " folds leave no training part in the file's samples";
    const size_t firstEnd = x.axis.lowerBound(x.start + x.trainLen);  // one past the part
    if (firstEnd == 0 || firstEnd - 1 + x.gap + 1 > x.last)
        return "validation.trainLength: the first training part (" +
               str(x.trainLen / x.axis.length(1)) + " " + x.axis.unitName() +
               ") and the purge and embargo (" + str(x.gap) +
               " bars) leave no samples to test (the file's samples are bars " + str(x.first) +
               ".." + str(x.last) + ")";
    const int64_t testStart = x.axis.pos(firstEnd + x.gap);
    if (c.folds > 0) {
        const int64_t span = x.end - testStart;
        for (int64_t k = 0; k < c.folds; ++k)
            windows.push_back(
                {testStart + k * span / c.folds, testStart + (k + 1) * span / c.folds});
        return {};
    }
    const int64_t step = x.axis.length(c.step > 0 ? c.step : c.testLength);
    contiguous = step == x.testLen;
    for (int64_t from = testStart; from + x.testLen <= x.end; from += step) {
        if (windows.size() == kMaxFolds)
            return "validation.step: more than " + str(kMaxFolds) +
                   " test windows fit the file; a longer step or test length";
        windows.push_back({from, from + x.testLen});
    }
    if (windows.empty())
        return "validation.testLength: no test window of " + str(c.testLength) + " " +
               x.axis.unitName() +
               " fits after the first training part (the file's samples are bars " + str(x.first) +
               ".." + str(x.last) + ")";
    return {};
}

// Fold k of nFolds on test window w: its test bars, its training part before the gap
// (anchored at anchoredFirst, which the first anchored fold with a trainLength sets, or
// rolling trainLen back) and its early-stopping validation at the part's end.
std::string placeFold(const PlanInput& x, size_t k, size_t nFolds, const Window& w,
                      bool firstPartFromStart, size_t& anchoredFirst, Fold& f) {
    const ValidationConfig& c = x.c;
    const std::string fold = "fold " + str((k + 1)) + "/" + str((nFolds));
    f.testFirst = std::max(x.axis.lowerBound(w.from), x.first);
    f.testLast = std::min(x.axis.lowerBound(w.to), x.last + 1) - 1;
    if (f.testLast + 1 < f.testFirst + std::max<size_t>(x.needs.reach, 1))
        return "validation.testLength: " + fold + "'s test window holds " +
               str((f.testLast + 1 - f.testFirst)) + " samples, fewer than the label horizon (" +
               str(x.needs.reach) + " bars); fewer folds or a longer test length";
    if (f.testFirst < x.first + x.gap + 1)
        return "validation.folds: " + fold + "'s test window starts at bar " + str(f.testFirst) +
               ", which leaves no training samples before it and its purge and embargo (" +
               str(x.gap) + " bars)";
    const size_t partLast = f.testFirst - 1 - x.gap;
    size_t partFirst = anchoredFirst;
    if (c.scheme == "rolling" && !(k == 0 && firstPartFromStart)) {
        partFirst = x.axis.lowerBound(x.axis.pos(partLast) - x.trainLen + 1);
        if (partFirst < x.first)
            return "validation.trainLength: " + fold +
                   "'s rolling training part would start before the first sample (bar " +
                   str(x.first) + "); a shorter training length or fewer folds";
    }
    if (k == 0 && !firstPartFromStart && x.axis.pos(partLast + 1) - x.start < x.trainLen)
        return "validation.trainLength: the first fold's training part holds " +
               str((partLast + 1 - partFirst)) + " samples, less than validation.trainLength (" +
               str(c.trainLength > 0 ? c.trainLength : c.testLength) + " " + x.axis.unitName() +
               "); fewer folds or a shorter test length";
    if (k == 0 && !firstPartFromStart && c.scheme == "anchored" && c.trainLength > 0) {
        // The first fold's part is trainLength long; later folds keep its start and grow.
        partFirst = std::max(x.first, x.axis.lowerBound(x.axis.pos(partLast) - x.trainLen + 1));
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
        if (validation + x.purge >= count)
            return "validation.earlyStoppingShare: " + fold + "'s training part (" + str((count)) +
                   " samples) leaves none to fit after its early-stopping validation (" +
                   str((validation)) + ") and the purge (" + str(x.purge) + " bars)";
        f.validationFirst = partLast - validation + 1;
        f.validationLast = partLast;
        f.trainLast = f.validationFirst - 1 - x.purge;
    }
    return {};
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
    p.purge = c.purge == 0 ? needs.reach : static_cast<size_t>(c.purge);
    p.embargo = static_cast<size_t>(c.embargo);
    std::string error = settingsError(c, needs, axis, p.purge);
    if (!error.empty()) return failed(p, error);
    PlanInput x{c,
                needs,
                axis,
                p.firstSample,
                p.lastSample,
                p.purge,
                p.purge + p.embargo,
                axis.pos(p.firstSample),
                axis.pos(p.lastSample + 1),  // the usable samples' positions end here
                axis.length(c.testLength),
                axis.length(c.trainLength > 0 ? c.trainLength : c.testLength)};
    std::vector<Window> windows;
    // With a fold count and a test length, the newest windows; else the first fold's training
    // part is [first, ...) and the windows follow it.
    const bool firstPartFromStart = !(c.folds > 0 && c.testLength > 0);
    error = firstPartFromStart ? windowsAfterFirstPart(x, windows, p.contiguous)
                               : newestWindows(x, windows);
    if (!error.empty()) return failed(p, error);
    size_t anchoredFirst = p.firstSample;  // where every anchored training part starts
    for (size_t k = 0; k < windows.size(); ++k) {
        Fold f;
        error = placeFold(x, k, windows.size(), windows[k], firstPartFromStart, anchoredFirst, f);
        if (!error.empty()) return failed(p, error);
        p.folds.push_back(f);
    }
    return p;
}

}  // namespace nnwb
