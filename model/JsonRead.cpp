#include "model/JsonRead.h"

#include "model/AtomicFile.h"

namespace nnwb {

namespace {

struct TooDeep {};

std::string where(const std::string& file, const std::string& text, size_t byte) {
    return jsonTextPosition(file, text, byte);
}

// Calls visit(i) for each byte i of text outside JSON strings, in order, until it returns
// true; returns that i, or 0 when it never does.
template <class Visit>
size_t firstOutsideStrings(const std::string& text, Visit visit) {
    bool inString = false, escaped = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (visit(i)) {
            return i;
        }
    }
    return 0;
}

// Byte offset of the first '{' or '[' (outside strings) that opens level maxDepth + 1.
size_t tooDeepAt(const std::string& text, int maxDepth) {
    int depth = 0;
    return firstOutsideStrings(text, [&](size_t i) {
        const char c = text[i];
        if (c == '{' || c == '[') return ++depth > maxDepth;
        if (c == '}' || c == ']') --depth;
        return false;
    });
}

// Byte offset of the number token `token` (outside strings), or 0.
size_t numberAt(const std::string& text, const std::string& token) {
    auto numberChar = [](char c) {
        return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
    };
    return firstOutsideStrings(text, [&](size_t i) {
        return numberChar(text[i]) && (i == 0 || !numberChar(text[i - 1])) &&
               text.compare(i, token.size(), token) == 0 &&
               (i + token.size() == text.size() || !numberChar(text[i + token.size()]));
    });
}

template <class Json>
Json parseWith(const std::string& text, const std::string& file, int maxDepth) {
    using Event = typename Json::parse_event_t;
    const auto limit = [maxDepth](int depth, Event ev, Json&) {
        if ((ev == Event::object_start || ev == Event::array_start) && depth >= maxDepth)
            throw TooDeep{};
        return true;
    };
    try {
        return Json::parse(text, limit);
    } catch (const TooDeep&) {
        throw JsonReadError(where(file, text, tooDeepAt(text, maxDepth)) + ": nested deeper than " +
                            std::to_string(maxDepth) + " levels");
    } catch (const nlohmann::json::parse_error& e) {
        // nlohmann's byte is one past the character at fault.
        throw JsonReadError(where(file, text, e.byte ? e.byte - 1 : 0) + ": not valid JSON (" +
                            jsonErrorText(e) + ")");
    } catch (const nlohmann::json::out_of_range& e) {
        // 406 "number overflow parsing '1e999'": no position of its own, so the token's.
        const std::string what = e.what();
        const auto open = what.find('\''), close = what.rfind('\'');
        const std::string token = open != std::string::npos && close > open
                                      ? what.substr(open + 1, close - open - 1)
                                      : std::string();
        throw JsonReadError(where(file, text, token.empty() ? 0 : numberAt(text, token)) +
                            ": number overflow (" + token + " is beyond a double)");
    } catch (const nlohmann::json::exception& e) {
        throw JsonReadError(where(file, text, 0) + ": not valid JSON (" + jsonErrorText(e) + ")");
    }
}

}  // namespace

std::string jsonTextPosition(const std::string& file, const std::string& text, size_t byte) {
    size_t line = 1, col = 1;
    for (size_t i = 0; i < std::min(byte, text.size()); ++i) {
        if (text[i] == '\n') {
            ++line;
            col = 1;
        } else {
            ++col;
        }
    }
    return (file.empty() ? "" : file + ":") + std::to_string(line) + ":" + std::to_string(col);
}

nlohmann::json parseJson(const std::string& text, const std::string& file, int maxDepth) {
    return parseWith<nlohmann::json>(text, file, maxDepth);
}

nlohmann::ordered_json parseOrderedJson(const std::string& text, const std::string& file,
                                        int maxDepth) {
    return parseWith<nlohmann::ordered_json>(text, file, maxDepth);
}

nlohmann::json loadJsonFile(const std::string& path, size_t maxBytes, int maxDepth) {
    std::string text;
    try {
        text = readFile(path, maxBytes);
    } catch (const std::runtime_error& e) {
        throw JsonReadError(e.what());
    }
    return parseJson(text, path, maxDepth);
}

std::string jsonExcerpt(const nlohmann::json& v, size_t maxChars) {
    std::string s = v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (s.size() > maxChars) s = s.substr(0, maxChars > 3 ? maxChars - 3 : 0) + "...";
    return s;
}

std::string jsonErrorText(const std::exception& e) {
    std::string what = e.what();
    const auto bracket = what.find("] ");
    if (what.rfind("[json.exception", 0) == 0 && bracket != std::string::npos)
        what = what.substr(bracket + 2);
    return what;
}

}  // namespace nnwb
