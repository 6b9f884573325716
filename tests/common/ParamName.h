// paramName(text): a GoogleTest parameter name from a readable label ("k3 causal softmax",
// a device id "opencl:0:1") by turning every character other than a letter or digit into '_'
// (the only characters gtest allows). Used by the INSTANTIATE_TEST_SUITE_P name generators of
// the GoogleTest suites, on the test's main thread.
#pragma once

#include <cctype>
#include <string>

namespace nnwb::test {

inline std::string paramName(std::string text) {
    for (char& c : text)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return text.empty() ? std::string("_") : text;
}

}  // namespace nnwb::test
