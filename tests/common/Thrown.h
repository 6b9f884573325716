// The message of the std::invalid_argument that a call throws, for the settings tests that check
// what an error says. One copy here instead of one per test file. Qt-free; any thread.
#pragma once

#include <stdexcept>
#include <string>

namespace nnwb::test {

// What f() throws as std::invalid_argument ("" when it throws nothing).
template <class F>
std::string thrown(F f) {
    try {
        f();
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

}  // namespace nnwb::test
