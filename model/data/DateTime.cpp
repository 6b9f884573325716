#include "model/data/DateTime.h"

#include <cstdio>

namespace nnwb {

namespace {

bool isDigit(char c) {
    return c >= '0' && c <= '9';
}

// Reads exactly n digits at s[pos..]; advances pos.
bool readDigits(std::string_view s, size_t& pos, int n, int& out) {
    if (pos + static_cast<size_t>(n) > s.size()) return false;
    int v = 0;
    for (int i = 0; i < n; ++i) {
        const char c = s[pos + static_cast<size_t>(i)];
        if (!isDigit(c)) return false;
        v = v * 10 + (c - '0');
    }
    pos += static_cast<size_t>(n);
    out = v;
    return true;
}

bool isLeap(int y) {
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int daysInMonth(int y, int m) {
    static const int kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && isLeap(y) ? 29 : kDays[m - 1];
}

// Parses a date at the start of s; pos is set past it.
bool parseDatePrefix(std::string_view s, size_t& pos, int64_t& days) {
    pos = 0;
    int y = 0, m = 0, d = 0;
    if (s.size() >= 10 && s[2] == '.' && s[5] == '.') {  // DD.MM.YYYY
        if (!readDigits(s, pos, 2, d) || s[pos++] != '.' || !readDigits(s, pos, 2, m) ||
            s[pos++] != '.' || !readDigits(s, pos, 4, y))
            return false;
    } else if (!readDigits(s, pos, 4, y)) {
        return false;
    } else if (pos < s.size() && (s[pos] == '.' || s[pos] == '-' || s[pos] == '/')) {
        const char sep = s[pos++];
        if (!readDigits(s, pos, 2, m)) return false;
        if (pos >= s.size() || s[pos] != sep) return false;
        ++pos;
        if (!readDigits(s, pos, 2, d)) return false;
    } else {
        if (!readDigits(s, pos, 2, m) || !readDigits(s, pos, 2, d)) return false;
    }
    if (y < 1900 || y > 2999 || m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m)) return false;
    days = daysFromCivil(y, m, d);
    return true;
}

bool parseTimePrefix(std::string_view s, size_t& pos, int& secs) {
    int h = 0, mi = 0, se = 0;
    if (!readDigits(s, pos, 2, h)) return false;
    if (pos >= s.size() || s[pos] != ':') return false;
    ++pos;
    if (!readDigits(s, pos, 2, mi)) return false;
    if (pos < s.size() && s[pos] == ':') {
        ++pos;
        if (!readDigits(s, pos, 2, se)) return false;
        if (pos < s.size() && (s[pos] == '.' || s[pos] == ',')) {
            ++pos;
            const size_t start = pos;
            while (pos < s.size() && isDigit(s[pos])) ++pos;
            if (pos == start) return false;
        }
    }
    if (h > 23 || mi > 59 || se > 59) return false;
    secs = h * 3600 + mi * 60 + se;
    return true;
}

}  // namespace

int64_t daysFromCivil(int year, int month, int day) {
    // Howard Hinnant's days_from_civil.
    const int64_t y = static_cast<int64_t>(year) - (month <= 2 ? 1 : 0);
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const int64_t yoe = y - era * 400;
    const int64_t mp = (month + 9) % 12;
    const int64_t doy = (153 * mp + 2) / 5 + day - 1;
    const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

CalendarTime toCalendar(int64_t t) {
    int64_t days = t >= 0 ? t / 86400 : -((-t + 86399) / 86400);
    int64_t rem = t - days * 86400;
    CalendarTime c;
    c.hour = static_cast<int>(rem / 3600);
    c.minute = static_cast<int>(rem % 3600 / 60);
    c.second = static_cast<int>(rem % 60);
    c.dayOfWeek = static_cast<int>(((days % 7) + 11) % 7);  // 1970-01-01 was a Thursday (4)
    // Howard Hinnant's civil_from_days.
    const int64_t z = days + 719468;
    const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    const int64_t doe = z - era * 146097;
    const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const int64_t mp = (5 * doy + 2) / 153;
    c.day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
    c.month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
    c.year = static_cast<int>(yoe + era * 400 + (c.month <= 2 ? 1 : 0));
    return c;
}

int64_t fromCalendar(int year, int month, int day, int hour, int minute, int second) {
    return daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second;
}

std::string formatBarTime(int64_t t) {
    const CalendarTime c = toCalendar(t);
    char buf[40];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02d %02d:%02d", c.year, c.month, c.day, c.hour,
                  c.minute);
    return buf;
}

bool parseDate(std::string_view s, int64_t& daysOut) {
    size_t pos = 0;
    int64_t days = 0;
    if (!parseDatePrefix(s, pos, days) || pos != s.size()) return false;
    daysOut = days;
    return true;
}

bool parseTimeOfDay(std::string_view s, int& secondsOut) {
    size_t pos = 0;
    int secs = 0;
    if (!parseTimePrefix(s, pos, secs) || pos != s.size()) return false;
    secondsOut = secs;
    return true;
}

bool parseDateTime(std::string_view s, int64_t& secondsOut) {
    // Unix time: only digits, 9..10 (seconds) or 13 (milliseconds) of them.
    bool allDigits = !s.empty();
    for (char c : s) allDigits = allDigits && isDigit(c);
    if (allDigits && s.size() != 8) {
        if (s.size() < 9 || s.size() > 13 || s.size() == 11 || s.size() == 12) return false;
        int64_t v = 0;
        for (char c : s) v = v * 10 + (c - '0');
        secondsOut = s.size() == 13 ? v / 1000 : v;
        return true;
    }
    size_t pos = 0;
    int64_t days = 0;
    if (!parseDatePrefix(s, pos, days)) return false;
    int secs = 0;
    if (pos < s.size()) {
        if (s[pos] != ' ' && s[pos] != 'T') return false;
        while (pos < s.size() && s[pos] == ' ') ++pos;
        if (pos < s.size() && s[pos] == 'T') ++pos;
        if (!parseTimePrefix(s, pos, secs)) return false;
    }
    int64_t offset = 0;
    if (pos < s.size() && s[pos] == ' ') ++pos;
    if (pos < s.size()) {
        if (s[pos] == 'Z' && pos + 1 == s.size()) {
            ++pos;
        } else if (s[pos] == '+' || s[pos] == '-') {
            const int sign = s[pos] == '-' ? -1 : 1;
            ++pos;
            int oh = 0, om = 0;
            if (!readDigits(s, pos, 2, oh)) return false;
            if (pos < s.size() && s[pos] == ':') ++pos;
            if (pos < s.size() && !readDigits(s, pos, 2, om)) return false;
            if (oh > 23 || om > 59) return false;
            offset = sign * (oh * 3600 + om * 60);
        }
    }
    if (pos != s.size()) return false;
    secondsOut = days * 86400 + secs - offset;
    return true;
}

}  // namespace nnwb
