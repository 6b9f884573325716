// The few MQL5 built-ins the generated expert's feature code uses (between the
// "nnwb:features" markers of Mql5Expert.h), as C++, so that tst_mql5_features can compile that
// MQL5 text with the system's c++ and run it on real bars. Array parameters and local dynamic
// arrays (`double &x[]`, `double tp[];`) are rewritten to nnwb_mql::Array by the test; nothing
// else of the MQL5 text is changed. Written from MetaQuotes' documentation of each built-in;
// independent of nnwb's own code (calendar fields come from the C library's gmtime_r).
// Single-threaded harness programs only.
#pragma once

#include <cmath>
#include <cstddef>
#include <ctime>
#include <string>
#include <vector>

using datetime = long long;
using ulong = unsigned long;  // 64 bits here, as glibc's own typedef
using string = std::string;

struct MqlRates {
    datetime time = 0;
    double open = 0, high = 0, low = 0, close = 0;
    long long tick_volume = 0;
    int spread = 0;
    long long real_volume = 0;
};

struct MqlDateTime {
    int year, mon, day, hour, min, sec, day_of_week, day_of_year;
};

inline bool TimeToStruct(datetime t, MqlDateTime& dt) {
    const time_t tt = static_cast<time_t>(t);
    std::tm tm{};
    if (!gmtime_r(&tt, &tm)) return false;
    dt = {tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
          tm.tm_min,         tm.tm_sec,     tm.tm_wday, tm.tm_yday};
    return true;
}

namespace nnwb_mql {
// An MQL5 dynamic array: indexed from 0, sized by ArrayResize.
template <class T>
struct Array {
    std::vector<T> v;
    T& operator[](int i) { return v.at(static_cast<size_t>(i)); }
    const T& operator[](int i) const { return v.at(static_cast<size_t>(i)); }
};
}  // namespace nnwb_mql

template <class T>
int ArrayResize(nnwb_mql::Array<T>& a, int n) {
    a.v.resize(static_cast<size_t>(n));
    return n;
}
template <class T>
int ArraySize(const nnwb_mql::Array<T>& a) {
    return static_cast<int>(a.v.size());
}
template <class T, class V>
int ArrayInitialize(nnwb_mql::Array<T>& a, V value) {
    for (auto& x : a.v) x = static_cast<T>(value);
    return static_cast<int>(a.v.size());
}

inline double MathMax(double a, double b) {
    return a > b ? a : b;
}
inline double MathMin(double a, double b) {
    return a < b ? a : b;
}
inline double MathAbs(double a) {
    return std::fabs(a);
}

// matrixf / vectorf: float matrix (m[r][c]) and vector (v[i]).
struct matrixf {
    ulong rows = 0, cols = 0;
    std::vector<float> data;
    bool Resize(ulong r, ulong c) {
        rows = r;
        cols = c;
        data.assign(static_cast<size_t>(r * c), 0.0f);
        return true;
    }
    float* operator[](ulong r) { return data.data() + r * cols; }
};
struct vectorf {
    std::vector<float> data;
    explicit vectorf(ulong n = 0) : data(static_cast<size_t>(n), 0.0f) {}
    ulong Size() const { return data.size(); }
    float& operator[](ulong i) { return data.at(static_cast<size_t>(i)); }
    const float& operator[](ulong i) const { return data.at(static_cast<size_t>(i)); }
};
