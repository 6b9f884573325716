// ASSERT_FUZZY_EQ(actual, expected): Qt Test's QCOMPARE for float and double in the GoogleTest
// suites converted from Qt Test, so that a converted comparison accepts exactly what it did
// before (qFuzzyCompare: relative 1e-12 for double, 1e-5 for float; an expected value within
// 1e-12 (1e-5) of zero needs |actual| that small; NaN matches NaN, inf the same inf). A float
// compared with a double is compared as doubles, as QCOMPARE does. Test main thread only.
#pragma once

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <type_traits>

#include <gtest/gtest.h>

namespace nnwb::test {

template <typename T>
bool qtFuzzyEqual(T actual, T expected) {
    constexpr bool isFloat = std::is_same_v<T, float>;
    const T nullEps = isFloat ? T(1e-5f) : T(1e-12);
    const T scale = isFloat ? T(100000.f) : T(1e12);
    if (std::isnan(expected)) return std::isnan(actual);
    if (std::isinf(expected)) return std::isinf(actual) && (expected < 0) == (actual < 0);
    if (std::fabs(expected) > nullEps)  // !qFuzzyIsNull(expected): qFuzzyCompare
        return std::fabs(actual - expected) * scale <=
               std::min(std::fabs(actual), std::fabs(expected));
    return std::fabs(actual) <= nullEps;  // qFuzzyIsNull(actual)
}

// The predicate-format of ASSERT_FUZZY_EQ: both values with all their digits on failure.
template <typename A, typename E>
::testing::AssertionResult fuzzyEqualFormat(const char* actualExpr, const char* expectedExpr,
                                            A actual, E expected) {
    static_assert(std::is_floating_point_v<A> && std::is_floating_point_v<E>,
                  "ASSERT_FUZZY_EQ compares float or double values");
    using T =
        std::conditional_t<std::is_same_v<A, float> && std::is_same_v<E, float>, float, double>;
    if (qtFuzzyEqual(T(actual), T(expected))) return ::testing::AssertionSuccess();
    std::ostringstream s;
    s << std::setprecision(std::is_same_v<T, float> ? 9 : 17) << actualExpr << " is " << T(actual)
      << ", expected " << expectedExpr << " = " << T(expected) << " (Qt's fuzzy comparison)";
    return ::testing::AssertionFailure() << s.str();
}

}  // namespace nnwb::test

#define ASSERT_FUZZY_EQ(actual, expected) \
    ASSERT_PRED_FORMAT2(::nnwb::test::fuzzyEqualFormat, actual, expected)
