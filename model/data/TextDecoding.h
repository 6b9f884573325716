// Turns the raw bytes of a text file into UTF-8: strips a UTF-8 byte-order mark and converts
// UTF-16 (little- or big-endian, with a byte-order mark, or little-endian ASCII-range text
// without one, as some MetaTrader builds write it). Pure functions; any thread.
#pragma once

#include <string>

namespace nnwb {

enum class TextEncoding { Utf8, Utf8Bom, Utf16Le, Utf16Be };

// Decodes `bytes` in place into UTF-8 and returns the encoding it found. An odd trailing
// byte of UTF-16 and unpaired surrogates become U+FFFD.
TextEncoding decodeToUtf8(std::string& bytes);

const char* encodingName(TextEncoding e);

}  // namespace nnwb
