// Small text helpers the test files share (Qt-free): a file's whole text, writing one, counting
// its lines, and a substring check for error messages. One copy here instead of one per test
// file (a unity batch of test files would see two). Any thread.
#pragma once

#include <algorithm>
#include <fstream>
#include <iterator>
#include <string>

namespace nnwb::test {

// The whole file ("" when it cannot be read).
inline std::string readText(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

// Writes `text` as the whole file, byte for byte.
inline void writeText(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

// The number of '\n' in the file.
inline int lineCount(const std::string& path) {
    const std::string t = readText(path);
    return int(std::count(t.begin(), t.end(), '\n'));
}

inline bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

}  // namespace nnwb::test
