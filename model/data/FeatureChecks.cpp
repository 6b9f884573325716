#include "model/data/FeatureChecks.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace nnwb {

namespace {

std::string number(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

}  // namespace

std::vector<ConstantFeature> constantFeatures(const FeatureMatrix& m, const FeatureSpec& spec,
                                              size_t first, size_t last) {
    std::vector<ConstantFeature> out;
    const std::vector<Feature> act = spec.active();
    if (m.bars == 0 || first > last) return out;
    last = std::min(last, m.bars - 1);
    for (size_t k = 0; k < act.size() && k < size_t(m.features); ++k) {
        size_t count = 0;
        double lo = 0.0, hi = 0.0;
        for (size_t i = first; i <= last; ++i) {
            const double v = m.at(i, int(k));
            if (!std::isfinite(v)) continue;
            lo = count ? std::min(lo, v) : v;
            hi = count ? std::max(hi, v) : v;
            ++count;
        }
        const double scale = std::max({std::fabs(lo), std::fabs(hi), 1.0});
        if (count >= 2 && hi - lo <= 1e-12 * scale) out.push_back({act[k], lo});
    }
    return out;
}

std::vector<ConstantFeature> constantFeaturesOfFile(const BarSeries& bars,
                                                    const FeatureSpec& periods) {
    FeatureSpec all = periods;
    all.enabled.fill(true);
    const FeatureMatrix m = computeFeatures(bars, all);
    return bars.empty() ? std::vector<ConstantFeature>{}
                        : constantFeatures(m, all, 0, bars.size() - 1);
}

std::string constantFeatureWarning(const std::string& fileName, const ConstantFeature& c,
                                   bool used) {
    const std::string key = featureKey(c.feature);
    std::string s = fileName + ": feature " + key + " is " + number(c.value) +
                    " on every bar: it carries no information";
    if (c.feature == Feature::TickVolume && c.value == 0.0) s += " (the file has no tick volume)";
    if (used)
        s += "; this experiment uses it: with z-score it enters the model as 0 on every bar "
             "(switch it off: data.features." +
             key + " = false)";
    else
        s += "; new experiments for this file leave it off";
    return s;
}

std::string constantTrainingFeatureWarning(const std::string& fileName, const ConstantFeature& c) {
    const std::string key = featureKey(c.feature);
    return fileName + ": feature " + key + " is " + number(c.value) +
           " on every bar of the training part (the other parts have other values): the model "
           "learns nothing from it; with z-score it enters the model as 0 on every bar, the "
           "validation part's too (switch it off: data.features." +
           key + " = false)";
}

FeatureSpec withoutConstantFeatures(FeatureSpec spec,
                                    const std::vector<ConstantFeature>& constant) {
    for (const ConstantFeature& c : constant) {
        if (spec.count() <= 1) break;
        spec.setEnabled(c.feature, false);
    }
    return spec;
}

std::vector<OutOfRangeFeature> outOfRangeFeatures(const FeatureMatrix& m, const ZScoreStats& s,
                                                  size_t first, size_t last) {
    std::vector<OutOfRangeFeature> out;
    if (m.bars == 0 || first > last) return out;
    last = std::min(last, m.bars - 1);
    const std::vector<double> scale = zScoreScale(s);
    for (size_t k = 0; k < size_t(m.features) && k < s.mean.size(); ++k) {
        OutOfRangeFeature f;
        f.feature = k < m.names.size() ? m.names[k] : std::to_string(k);
        f.constantInTraining = isConstantStat(s, k);
        f.trainingMean = s.mean[k];
        double worst = -1.0;
        for (size_t i = first; i <= last; ++i) {
            const double v = m.at(i, int(k));
            if (!std::isfinite(v)) continue;
            ++f.rows;
            const double d = std::fabs(v - s.mean[k]);
            double badness;
            bool outside;
            if (f.constantInTraining) {
                badness = d;
                outside = d > 1e-9 * std::max(std::fabs(s.mean[k]), 1.0);
            } else {
                badness = d * scale[k];
                outside = badness > kOutOfRangeZ;
            }
            f.outside += outside ? 1 : 0;
            if (badness > worst) {
                worst = badness;
                f.worstValue = v;
                f.worstZ = f.constantInTraining ? 0.0 : badness;
            }
        }
        f.share = f.rows ? double(f.outside) / double(f.rows) : 0.0;
        if (f.share > kOutOfRangeShare) out.push_back(f);
    }
    return out;
}

std::string outOfRangeText(const OutOfRangeFeature& f) {
    char pct[32];
    std::snprintf(pct, sizeof pct, "%.1f%%", 100.0 * f.share);
    if (f.constantInTraining)
        return f.feature + ": was constant (" + number(f.trainingMean) +
               ") in training and enters the model as 0, but differs from it on " + pct +
               " of the rows (e.g. " + number(f.worstValue) + ")";
    return f.feature + ": " + pct + " of the rows are more than " + number(kOutOfRangeZ) +
           " standard deviations from the training mean (worst z = " + number(f.worstZ) +
           ", value " + number(f.worstValue) + ")";
}

}  // namespace nnwb
