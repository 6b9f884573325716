#include "model/data/BarImporter.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <system_error>

#include "model/data/DateTime.h"
#include "model/data/TextDecoding.h"

namespace nnwb {

namespace {

constexpr uint64_t kMaxFileBytes = uint64_t(2) << 30;  // 2 GiB

std::string_view trim(std::string_view s) {
    size_t b = 0, e = s.size();
    while (b < e && (s[b] == ' ' || s[b] == '\t')) ++b;
    while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t')) --e;
    return s.substr(b, e - b);
}

// Splits one line at `delim`, honouring double quotes (a quoted field may contain the
// delimiter; the quotes are removed, a doubled quote inside is left as it is). Fields are
// trimmed of spaces (and of tabs unless tab is the delimiter).
void splitLine(std::string_view line, char delim, std::vector<std::string_view>& out) {
    out.clear();
    size_t i = 0;
    const size_t n = line.size();
    while (true) {
        while (i < n && line[i] == ' ') ++i;
        if (i < n && line[i] == '"') {
            const size_t start = ++i;
            while (i < n) {
                if (line[i] == '"') {
                    if (i + 1 < n && line[i + 1] == '"') {
                        i += 2;
                        continue;
                    }
                    break;
                }
                ++i;
            }
            const size_t end = i;
            if (i < n) ++i;                         // closing quote
            while (i < n && line[i] != delim) ++i;  // anything after the quote is dropped
            out.push_back(line.substr(start, end - start));
        } else {
            const size_t start = i;
            const void* p = i < n ? std::memchr(line.data() + i, delim, n - i) : nullptr;
            i = p ? static_cast<size_t>(static_cast<const char*>(p) - line.data()) : n;
            std::string_view f = line.substr(start, i - start);
            if (delim != '\t')
                f = trim(f);
            else
                while (!f.empty() && f.back() == ' ') f.remove_suffix(1);
            out.push_back(f);
        }
        if (i >= n) break;
        ++i;  // delimiter
        if (i == n) {
            out.push_back(std::string_view());
            break;
        }
    }
}

char detectDelimiter(std::string_view line) {
    size_t tabs = 0, semis = 0, commas = 0;
    bool quoted = false;
    for (char c : line) {
        if (c == '"') quoted = !quoted;
        if (quoted) continue;
        tabs += c == '\t';
        semis += c == ';';
        commas += c == ',';
    }
    if (tabs > 0 && tabs >= semis && tabs >= commas) return '\t';
    if (semis > 0 && semis >= commas) return ';';
    if (commas > 0) return ',';
    return '\t';
}

std::string normalizeName(std::string_view s) {
    std::string out;
    for (char c : s) {
        if (c == '<' || c == '>' || c == ' ' || c == '_' || c == '-' || c == '"' || c == '.')
            continue;
        out.push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c));
    }
    return out;
}

std::string quoteField(std::string_view s) {
    std::string out = "'";
    const size_t kMax = 40;
    for (size_t i = 0; i < s.size() && i < kMax; ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x20 || c == 0x7F) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02X", c);
            out += buf;
        } else {
            out.push_back(s[i]);
        }
    }
    if (s.size() > kMax) out += "...";
    return out + "'";
}

enum class NumResult { Ok, Empty, NotNumber, NotFinite };

// The decimals a price is written with: the digits after its '.' (or ','), up to an exponent.
int decimalsOf(std::string_view s) {
    size_t at = s.find_first_of(".,");
    if (at == std::string_view::npos) return 0;
    int n = 0;
    for (++at; at < s.size() && s[at] >= '0' && s[at] <= '9'; ++at) ++n;
    return n;
}

// The decimals a price needs: those up to its last non-zero one ("1343.830" -> 2).
int significantDecimalsOf(std::string_view s) {
    size_t at = s.find_first_of(".,");
    if (at == std::string_view::npos) return 0;
    int n = 0, last = 0;
    for (++at; at < s.size() && s[at] >= '0' && s[at] <= '9'; ++at)
        if (++n, s[at] != '0') last = n;
    return last;
}

// The point's decimals (docs/data.md): the number of decimals most price fields are written
// with, or more where a field's non-zero decimals need them. Fields written with more decimals
// than that (one "1343.830" among "1343.83"-style prices) do not make the point finer; they
// are counted for a warning.
class PointDigits {
public:
    void add(std::string_view s, size_t line) {
        const int w = std::min(decimalsOf(s), kMax);
        ++count_[w];
        needed_ = std::max(needed_, significantDecimalsOf(s));
        if (first_[w].line == 0) first_[w] = {line, std::string(s)};
    }
    int digits() const {
        int mode = 0;
        for (int k = 1; k <= kMax; ++k)
            if (count_[k] >= count_[mode]) mode = k;
        return std::max(mode, needed_);
    }
    // "NAME:LINE: ..." when fields are written with more decimals than digits(); else empty.
    std::string warning(const std::string& name) const {
        const int d = digits();
        size_t more = 0;
        const First* first = nullptr;
        for (int k = d + 1; k <= kMax; ++k) {
            more += count_[k];
            if (count_[k] && (!first || first_[k].line < first->line)) first = &first_[k];
        }
        if (!first) return {};
        char point[32];
        std::snprintf(point, sizeof point, "%g", std::pow(10.0, -d));
        return name + ":" + std::to_string(first->line) + ": " + std::to_string(more) +
               " price field(s) written with more decimals than the file's other prices (first "
               "here: '" +
               first->text + "'); the point is " + point + ", from the " + std::to_string(d) +
               " decimals most prices are written with (set trading.pointSize if the symbol's "
               "point differs)";
    }

private:
    static constexpr int kMax = 15;
    struct First {
        size_t line = 0;
        std::string text;
    };
    size_t count_[kMax + 1] = {};
    First first_[kMax + 1];
    int needed_ = 0;
};

// Locale-independent; accepts a leading '+'; with `commaDecimal` a ',' is the decimal point.
NumResult parseNumber(std::string_view s, bool commaDecimal, double& out) {
    if (s.empty()) return NumResult::Empty;
    if (s.front() == '+') s.remove_prefix(1);
    char buf[64];
    if (commaDecimal && s.find(',') != std::string_view::npos) {
        if (s.size() >= sizeof buf) return NumResult::NotNumber;
        for (size_t i = 0; i < s.size(); ++i) buf[i] = s[i] == ',' ? '.' : s[i];
        s = std::string_view(buf, s.size());
    }
    double v = 0.0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (r.ec == std::errc::result_out_of_range) return NumResult::NotFinite;
    if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return NumResult::NotNumber;
    if (!std::isfinite(v)) return NumResult::NotFinite;
    out = v;
    return NumResult::Ok;
}

struct Layout {
    char delim = ',';
    bool header = false;
    bool commaDecimal = false;
    size_t fields = 0;
    int dateTime = -1, date = -1, time = -1;
    int open = -1, high = -1, low = -1, close = -1, volume = -1, spread = -1;
    std::string format;
};

struct Parser {
    std::string name;  // base name for messages
    std::string text;
    LoadResult result;

    bool fail(size_t line, const std::string& problem) {
        result = LoadResult();
        result.ok = false;
        result.error = name + ":" + std::to_string(line) + ": " + problem;
        return false;
    }

    // Lines are [begin, end) without the line break; `last` tells whether this line is the
    // final one and has no line break after it.
    struct Line {
        std::string_view text;
        size_t number = 0;
        bool unterminated = false;
    };

    size_t pos = 0, lineNo = 0;
    bool next(Line& l) {
        while (pos < text.size()) {
            const size_t start = pos;
            const void* p = std::memchr(text.data() + pos, '\n', text.size() - pos);
            size_t end =
                p ? static_cast<size_t>(static_cast<const char*>(p) - text.data()) : text.size();
            pos = p ? end + 1 : text.size();
            ++lineNo;
            l.unterminated = p == nullptr;
            size_t e = end;
            while (e > start && text[e - 1] == '\r') --e;
            l.text = std::string_view(text.data() + start, e - start);
            l.number = lineNo;
            if (!trim(l.text).empty()) return true;
        }
        return false;
    }

    bool checkBinary() {
        size_t line = 1;
        for (size_t i = 0; i < text.size(); ++i) {
            const auto c = static_cast<unsigned char>(text[i]);
            if (c == '\n')
                ++line;
            else if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7F)
                return fail(line, "binary data (byte 0x" +
                                      std::string(1, "0123456789ABCDEF"[c >> 4]) +
                                      std::string(1, "0123456789ABCDEF"[c & 15]) +
                                      "), not a text file of price bars");
        }
        return true;
    }

    bool detectLayout(const Line& first, Layout& lay) {
        lay.delim = detectDelimiter(first.text);
        lay.commaDecimal = lay.delim != ',';
        std::vector<std::string_view> f;
        splitLine(first.text, lay.delim, f);
        const std::string_view f0 = f.empty() ? std::string_view() : f[0];
        lay.header = f0.empty() || !(f0[0] >= '0' && f0[0] <= '9');
        lay.fields = f.size();
        if (!lay.header) {
            int secs = 0;
            if (f.size() >= 2 && parseTimeOfDay(f[1], secs)) {
                if (f.size() != 6 && f.size() != 7)
                    return fail(first.number,
                                "no header and " + std::to_string(f.size()) +
                                    " fields; expected DATE,TIME,OPEN,HIGH,LOW,CLOSE[,VOLUME] "
                                    "(MetaTrader 4) or a header row");
                lay.format = "mt4";
                lay.date = 0;
                lay.time = 1;
                lay.open = 2, lay.high = 3, lay.low = 4, lay.close = 5;
                lay.volume = f.size() == 7 ? 6 : -1;
            } else {
                if (f.size() != 5 && f.size() != 6)
                    return fail(first.number,
                                "no header and " + std::to_string(f.size()) +
                                    " fields; expected DATETIME,OPEN,HIGH,LOW,CLOSE[,VOLUME] or "
                                    "a header row");
                lay.format = "csv";
                lay.dateTime = 0;
                lay.open = 1, lay.high = 2, lay.low = 3, lay.close = 4;
                lay.volume = f.size() == 6 ? 5 : -1;
            }
            return true;
        }
        bool brackets = false;
        int tickVol = -1, vol = -1;
        std::string list;
        for (size_t i = 0; i < f.size(); ++i) {
            const int c = static_cast<int>(i);
            if (f[i].find('<') != std::string_view::npos) brackets = true;
            list += (i ? ", " : "") + std::string(f[i]);
            const std::string n = normalizeName(f[i]);
            auto set = [&](int& col) {
                if (col < 0) col = c;
            };
            if (n == "date" || n == "day")
                set(lay.date);
            else if (n == "time")
                set(lay.time);
            else if (n == "datetime" || n == "timestamp" || n == "gmttime" || n == "localtime" ||
                     n == "opentime" || n == "timeutc" || n == "datetimeutc")
                set(lay.dateTime);
            else if (n == "open" || n == "o")
                set(lay.open);
            else if (n == "high" || n == "h")
                set(lay.high);
            else if (n == "low" || n == "l")
                set(lay.low);
            else if (n == "close" || n == "c")
                set(lay.close);
            else if (n == "tickvol" || n == "tickvolume" || n == "ticks")
                set(tickVol);
            else if (n == "volume" || n == "vol" || n == "v" || n == "realvolume")
                set(vol);
            else if (n == "spread")
                set(lay.spread);
        }
        lay.format = brackets ? "mt5" : "csv";
        if (lay.dateTime < 0) {
            if (lay.date >= 0 && lay.time >= 0) {
                // date + time columns
            } else if (lay.date >= 0) {
                lay.dateTime = lay.date, lay.date = -1;
            } else if (lay.time >= 0) {
                lay.dateTime = lay.time, lay.time = -1;
            } else {
                return fail(first.number,
                            "missing column 'date' (or 'datetime'); header has: " + list);
            }
        } else {
            lay.date = lay.time = -1;
        }
        const std::pair<const char*, int> need[] = {
            {"open", lay.open}, {"high", lay.high}, {"low", lay.low}, {"close", lay.close}};
        for (const auto& [what, col] : need)
            if (col < 0)
                return fail(first.number,
                            std::string("missing column '") + what + "'; header has: " + list);
        lay.volume = tickVol >= 0 ? tickVol : vol;
        return true;
    }

    bool run() {
        if (text.empty()) return fail(1, "file is empty");
        decodeToUtf8(text);
        while (!text.empty() && text.back() == '\x1A') text.pop_back();  // DOS end-of-file mark
        if (text.find('\n') == std::string::npos)  // classic Mac OS line breaks (CR only)
            for (char& c : text)
                if (c == '\r') c = '\n';
        if (!checkBinary()) return false;
        Line line;
        if (!next(line)) return fail(1, "file is empty (no data rows)");
        Layout lay;
        if (!detectLayout(line, lay)) return false;
        const size_t headerLine = line.number;
        bool haveRow = false;
        if (!lay.header)
            haveRow = true;
        else
            haveRow = next(line);
        if (!haveRow) return fail(headerLine, "header only, no data rows");

        BarSeries& b = result.bars;
        const size_t estimate = text.size() / std::max<size_t>(line.text.size() + 1, 16) + 16;
        for (auto* v : {&b.open, &b.high, &b.low, &b.close, &b.volume}) v->reserve(estimate);
        if (lay.spread >= 0) b.spread.reserve(estimate);
        PointDigits digits;
        b.time.reserve(estimate);

        std::vector<std::string_view> f;
        f.reserve(16);
        size_t prevLine = 0;
        size_t outsideCount = 0, outsideFirstLine = 0;
        const char* priceNames[4] = {"open", "high", "low", "close"};
        const int priceCols[4] = {lay.open, lay.high, lay.low, lay.close};
        do {
            splitLine(line.text, lay.delim, f);
            if (f.size() == lay.fields + 1 && f.back().empty()) f.pop_back();
            if (f.size() != lay.fields) {
                const std::string counts = "expected " + std::to_string(lay.fields) +
                                           " fields, found " + std::to_string(f.size());
                if (line.unterminated && f.size() < lay.fields)
                    return fail(line.number, "truncated last line: " + counts);
                return fail(line.number, "wrong field count: " + counts);
            }
            int64_t t = 0;
            if (lay.dateTime >= 0) {
                if (!parseDateTime(f[lay.dateTime], t))
                    return fail(line.number, "bad date/time " + quoteField(f[lay.dateTime]));
            } else {
                int64_t days = 0;
                int secs = 0;
                if (!parseDate(f[lay.date], days))
                    return fail(line.number, "bad date " + quoteField(f[lay.date]));
                if (!parseTimeOfDay(f[lay.time], secs))
                    return fail(line.number, "bad time " + quoteField(f[lay.time]));
                t = days * 86400 + secs;
            }
            double p[4];
            for (int k = 0; k < 4; ++k) {
                const std::string_view s = f[priceCols[k]];
                switch (parseNumber(s, lay.commaDecimal, p[k])) {
                    case NumResult::Ok:
                        break;
                    case NumResult::Empty:
                        return fail(line.number, std::string(priceNames[k]) + " price is empty");
                    case NumResult::NotNumber:
                        return fail(line.number, std::string(priceNames[k]) + " price " +
                                                     quoteField(s) + " is not a number");
                    case NumResult::NotFinite:
                        return fail(line.number, std::string(priceNames[k]) + " price " +
                                                     quoteField(s) + " is not finite");
                }
                digits.add(s, line.number);
            }
            double vol = 0.0;
            if (lay.volume >= 0) {
                const std::string_view s = f[lay.volume];
                const NumResult r = parseNumber(s, lay.commaDecimal, vol);
                if (r == NumResult::Empty) return fail(line.number, "volume is empty");
                if (r != NumResult::Ok)
                    return fail(line.number, "volume " + quoteField(s) +
                                                 (r == NumResult::NotFinite ? " is not finite"
                                                                            : " is not a number"));
                if (vol < 0) return fail(line.number, "volume " + std::string(s) + " is negative");
            }
            double spread = 0.0;
            if (lay.spread >= 0) {
                const std::string_view s = f[lay.spread];
                const NumResult r = parseNumber(s, lay.commaDecimal, spread);
                if (r == NumResult::Empty) return fail(line.number, "spread is empty");
                if (r != NumResult::Ok)
                    return fail(line.number,
                                "spread " + quoteField(s) +
                                    (r == NumResult::NotFinite
                                         ? " is not finite"
                                         : " is not a number (the spread column holds points)"));
                if (spread < 0)
                    return fail(line.number, "spread " + std::string(s) + " is negative");
            }
            if (p[1] < p[2])
                return fail(line.number, "high " + std::string(f[lay.high]) + " is below low " +
                                             std::string(f[lay.low]));
            if (p[0] > p[1] || p[0] < p[2] || p[3] > p[1] || p[3] < p[2]) {
                if (outsideCount++ == 0) outsideFirstLine = line.number;
            }
            if (!b.time.empty()) {
                const int64_t prev = b.time.back();
                if (t == prev)
                    return fail(line.number, "duplicate time " + formatBarTime(t) +
                                                 " (same as line " + std::to_string(prevLine) +
                                                 ")");
                if (t < prev)
                    return fail(line.number,
                                "time " + formatBarTime(t) + " is before the previous bar's " +
                                    formatBarTime(prev) + " (line " + std::to_string(prevLine) +
                                    "); bars must be "
                                    "in time order, oldest first");
            }
            prevLine = line.number;
            b.time.push_back(t);
            b.open.push_back(p[0]);
            b.high.push_back(p[1]);
            b.low.push_back(p[2]);
            b.close.push_back(p[3]);
            b.volume.push_back(vol);
            if (lay.spread >= 0) b.spread.push_back(spread);
        } while (next(line));

        if (outsideCount)
            result.warnings.push_back(name + ":" + std::to_string(outsideFirstLine) + ": " +
                                      std::to_string(outsideCount) +
                                      " bar(s) have open or close outside [low, high] (first "
                                      "here)");
        b.format = lay.format;
        b.hasVolume = lay.volume >= 0;
        b.hasSpread = lay.spread >= 0;
        b.digits = digits.digits();
        b.point = std::pow(10.0, -b.digits);
        if (const std::string w = digits.warning(name); !w.empty()) result.warnings.push_back(w);
        b.timeframe = inferTimeframe(b.time);
        result.ok = true;
        return true;
    }
};

}  // namespace

std::string baseName(const std::string& path) {
    const size_t p = path.find_last_of("/\\");
    return p == std::string::npos ? path : path.substr(p + 1);
}

int64_t inferTimeframe(const std::vector<int64_t>& time) {
    if (time.size() < 2) return 0;
    std::vector<int64_t> d(time.size() - 1);
    for (size_t i = 1; i < time.size(); ++i) d[i - 1] = time[i] - time[i - 1];
    std::sort(d.begin(), d.end());
    int64_t best = d[0];
    size_t bestRun = 0;
    for (size_t i = 0; i < d.size();) {
        size_t j = i;
        while (j < d.size() && d[j] == d[i]) ++j;
        if (j - i > bestRun) bestRun = j - i, best = d[i];
        i = j;
    }
    return best;
}

LoadResult parseBarText(std::string bytes, const std::string& fileName) {
    Parser p;
    p.name = baseName(fileName);
    p.text = std::move(bytes);
    p.run();
    if (p.result.ok) p.result.bars.source = fileName;
    return std::move(p.result);
}

LoadResult loadBarFile(const std::string& path) {
    const std::string name = baseName(path);
    auto fail = [&](const std::string& problem) {
        LoadResult r;
        r.error = name + ":0: " + problem;
        return r;
    };
    std::error_code ec;
    // Problems with the file itself name it as resolved, since a relative name was resolved
    // against a folder the user may not have had in mind.
    std::string resolved = std::filesystem::absolute(path, ec).lexically_normal().string();
    if (ec) resolved = path;
    const auto status = std::filesystem::status(path, ec);  // a symlink's target
    if (std::filesystem::is_directory(status))
        return fail(resolved + " is a directory, not a file");
    // A device, FIFO or socket never ends (/dev/zero) or blocks: only regular files are read.
    if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status))
        return fail(resolved + " is not a regular file (a device, FIFO or socket)");
    const auto size = std::filesystem::file_size(path, ec);
    if (!ec && size > kMaxFileBytes) return fail("file is larger than 2 GiB");
    errno = 0;
    FILE* fp = std::fopen(path.c_str(), "rb");
    if (!fp) return fail("cannot open " + resolved + ": " + std::strerror(errno));
    std::string bytes;
    if (!ec) bytes.reserve(static_cast<size_t>(size));
    char buf[1 << 16];
    size_t n = 0;
    while ((n = std::fread(buf, 1, sizeof buf, fp)) > 0) {
        if (bytes.size() + n > kMaxFileBytes) {
            std::fclose(fp);
            return fail("file is larger than 2 GiB");
        }
        bytes.append(buf, n);
    }
    const bool readError = std::ferror(fp) != 0;
    const int err = errno;
    std::fclose(fp);
    if (readError) return fail(std::string("read error: ") + std::strerror(err));
    return parseBarText(std::move(bytes), path);
}

}  // namespace nnwb
