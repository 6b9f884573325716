// GoogleTest parameter names from the readable row labels of the table-driven test suites:
// every run of characters other than ASCII letters and digits becomes one underscore
// ("opencl:0:0 attention u1 k1" -> "opencl_0_0_attention_u1_k1"). RowName names a row struct by
// its `name` member. Header-only, for GoogleTest suites; any thread.
#pragma once

#include <gtest/gtest.h>

#include <string>

namespace nnwb::test {

inline std::string paramName(const std::string& label) {
    std::string out;
    bool gap = false;
    for (char c : label) {
        const bool word =
            (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (!word) {
            gap = !out.empty();
            continue;
        }
        if (gap) out += '_';
        gap = false;
        out += c;
    }
    return out.empty() ? "_" : out;
}

// The name generator of INSTANTIATE_TEST_SUITE_P for rows with a std::string or const char*
// `name`.
struct RowName {
    template <class Row>
    std::string operator()(const ::testing::TestParamInfo<Row>& info) const {
        return paramName(info.param.name);
    }
};

}  // namespace nnwb::test
