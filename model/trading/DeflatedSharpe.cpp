#include "model/trading/DeflatedSharpe.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace nnwb {

namespace {
constexpr double kDsrEulerGamma = 0.57721566490153286061;
constexpr double kDsrE = 2.71828182845904523536;
constexpr double kDsrPi = 3.14159265358979323846;
}  // namespace

double normalCdf(double x) {
    return 0.5 * std::erfc(-x / std::sqrt(2.0));
}

double normalQuantile(double p) {
    if (!(p > 0.0 && p < 1.0)) {
        if (p == 0.0) return -std::numeric_limits<double>::infinity();
        if (p == 1.0) return std::numeric_limits<double>::infinity();
        return std::numeric_limits<double>::quiet_NaN();
    }
    // Acklam's coefficients.
    static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                               -2.759285104469687e+02, 1.383577518672690e+02,
                               -3.066479806614716e+01, 2.506628277459239e+00};
    static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                               -1.556989798598866e+02, 6.680131188771972e+01,
                               -1.328068155288572e+01};
    static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                               -2.400758277161838e+00, -2.549732539343734e+00,
                               4.374664141464968e+00,  2.938163982698783e+00};
    static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                               3.754408661907416e+00};
    const double low = 0.02425;
    double x;
    if (p < low) {
        const double q = std::sqrt(-2 * std::log(p));
        x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    } else if (p <= 1 - low) {
        const double q = p - 0.5, r = q * q;
        x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
            (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
    } else {
        const double q = std::sqrt(-2 * std::log(1 - p));
        x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    }
    // One Halley step on Φ(x) − p.
    const double e = normalCdf(x) - p;
    const double u = e * std::sqrt(2 * kDsrPi) * std::exp(x * x / 2);
    return x - u / (1 + x * u / 2);
}

double expectedMaxSharpe(size_t trials, double variance) {
    if (trials <= 1 || !(variance > 0)) return 0.0;
    const double n = double(trials);
    return std::sqrt(variance) * ((1 - kDsrEulerGamma) * normalQuantile(1 - 1 / n) +
                                  kDsrEulerGamma * normalQuantile(1 - 1 / (n * kDsrE)));
}

double probabilisticSharpe(double sharpe, double benchmark, double returns, double skewness,
                           double kurtosis) {
    const double den = 1 - skewness * sharpe + (kurtosis - 1) / 4 * sharpe * sharpe;
    if (!(returns >= 2) || !(den > 0)) return std::numeric_limits<double>::quiet_NaN();
    return normalCdf((sharpe - benchmark) * std::sqrt(returns - 1) / std::sqrt(den));
}

DeflatedSharpe deflatedSharpe(const std::vector<double>& sharpes, double returns, double skewness,
                              double kurtosis) {
    DeflatedSharpe d;
    d.trials = sharpes.size();
    if (sharpes.empty()) {
        d.probability = std::numeric_limits<double>::quiet_NaN();
        return d;
    }
    d.sharpe = *std::max_element(sharpes.begin(), sharpes.end());
    if (sharpes.size() >= 2) {
        double mean = 0;
        for (double s : sharpes) mean += s;
        mean /= double(sharpes.size());
        double sq = 0;
        for (double s : sharpes) sq += (s - mean) * (s - mean);
        d.variance = sq / double(sharpes.size() - 1);
    }
    d.expectedMax = expectedMaxSharpe(d.trials, d.variance);
    d.probability = probabilisticSharpe(d.sharpe, d.expectedMax, returns, skewness, kurtosis);
    return d;
}

}  // namespace nnwb
