#include "model/data/TextDecoding.h"

#include <cstdint>

namespace nnwb {

namespace {

void appendUtf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
        out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
}

std::string utf16ToUtf8(const std::string& in, size_t start, bool bigEndian) {
    std::string out;
    out.reserve((in.size() - start) / 2 + 4);
    const auto unit = [&](size_t i) -> uint32_t {
        const auto b0 = static_cast<unsigned char>(in[i]);
        const auto b1 = static_cast<unsigned char>(in[i + 1]);
        return bigEndian ? (b0 << 8 | b1) : (b1 << 8 | b0);
    };
    size_t i = start;
    for (; i + 1 < in.size(); i += 2) {
        uint32_t u = unit(i);
        if (u >= 0xD800 && u <= 0xDBFF) {
            if (i + 3 < in.size()) {
                const uint32_t lo = unit(i + 2);
                if (lo >= 0xDC00 && lo <= 0xDFFF) {
                    appendUtf8(out, 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00));
                    i += 2;
                    continue;
                }
            }
            u = 0xFFFD;
        } else if (u >= 0xDC00 && u <= 0xDFFF) {
            u = 0xFFFD;
        }
        appendUtf8(out, u);
    }
    if (i < in.size()) appendUtf8(out, 0xFFFD);
    return out;
}

// UTF-16LE without a byte-order mark: the first bytes alternate printable ASCII and zero.
bool looksLikeBomlessUtf16Le(const std::string& b) {
    const size_t n = b.size() < 64 ? b.size() & ~size_t(1) : 64;
    if (n < 4) return false;
    for (size_t i = 0; i < n; i += 2) {
        const auto c = static_cast<unsigned char>(b[i]);
        if (b[i + 1] != '\0' || c == 0 || c >= 0x80) return false;
        if (c < 0x20 && c != '\t' && c != '\r' && c != '\n') return false;
    }
    return true;
}

}  // namespace

TextEncoding decodeToUtf8(std::string& bytes) {
    const auto at = [&](size_t i) { return static_cast<unsigned char>(bytes[i]); };
    if (bytes.size() >= 3 && at(0) == 0xEF && at(1) == 0xBB && at(2) == 0xBF) {
        bytes.erase(0, 3);
        return TextEncoding::Utf8Bom;
    }
    if (bytes.size() >= 2 && at(0) == 0xFF && at(1) == 0xFE) {
        bytes = utf16ToUtf8(bytes, 2, false);
        return TextEncoding::Utf16Le;
    }
    if (bytes.size() >= 2 && at(0) == 0xFE && at(1) == 0xFF) {
        bytes = utf16ToUtf8(bytes, 2, true);
        return TextEncoding::Utf16Be;
    }
    if (looksLikeBomlessUtf16Le(bytes)) {
        bytes = utf16ToUtf8(bytes, 0, false);
        return TextEncoding::Utf16Le;
    }
    return TextEncoding::Utf8;
}

const char* encodingName(TextEncoding e) {
    switch (e) {
        case TextEncoding::Utf8:
            return "UTF-8";
        case TextEncoding::Utf8Bom:
            return "UTF-8 (BOM)";
        case TextEncoding::Utf16Le:
            return "UTF-16LE";
        case TextEncoding::Utf16Be:
            return "UTF-16BE";
    }
    return "?";
}

}  // namespace nnwb
