// Reading JSON that came from outside (specs, experiments, bundle results, model metadata,
// stores): nesting bounded while parsing (nlohmann's parser callback), errors that name the
// file and line without nlohmann's "[json.exception...]" prefix, and bounded excerpts of
// values for messages (never a whole untrusted value, whose dump recurses). Any thread.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace nnwb {

// Deeper than this and a document is refused: no file of nnwb nests beyond ~10 levels, and
// nlohmann's dump, comparison and copy recurse once per level.
constexpr int kMaxJsonDepth = 64;

// What parseJson throws; what() is the whole message ("FILE:LINE:COL: not valid JSON (...)").
class JsonReadError : public std::runtime_error {
public:
    explicit JsonReadError(const std::string& what) : std::runtime_error(what) {}
};

// Parses `text` read from `file` (named in messages; may be empty). Throws JsonReadError
// "FILE:LINE:COL: not valid JSON (syntax error ...)", "FILE:LINE:COL: nested deeper than 64
// levels" or "FILE:LINE:COL: number overflow (1e999 is beyond a double)". Never anything else
// from nlohmann.
nlohmann::json parseJson(const std::string& text, const std::string& file,
                         int maxDepth = kMaxJsonDepth);
// The same into an ordered_json (files whose key order is kept for the user).
nlohmann::ordered_json parseOrderedJson(const std::string& text, const std::string& file,
                                        int maxDepth = kMaxJsonDepth);

// Reads `path` with readFile (a regular file of at most `maxBytes`) and parses it; throws
// JsonReadError for both.
nlohmann::json loadJsonFile(const std::string& path, size_t maxBytes, int maxDepth = kMaxJsonDepth);

// "FILE:LINE:COL" of byte `byte` of `text` ("LINE:COL" when file is empty).
std::string jsonTextPosition(const std::string& file, const std::string& text, size_t byte);

// A value for a message: its dump cut to at most `maxChars` characters ("..." marks a cut).
// Safe on any value this module parsed (bounded depth).
std::string jsonExcerpt(const nlohmann::json& v, size_t maxChars = 80);

// nlohmann's exception text without its "[json.exception.type_error.302] " prefix.
std::string jsonErrorText(const std::exception& e);

}  // namespace nnwb
