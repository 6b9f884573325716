// Calendar arithmetic for bar times (seconds since 1970-01-01 00:00 UTC, proleptic Gregorian)
// and the strict, allocation-free date/time parsers the bar importers use.
// Pure functions of their arguments; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace nnwb {

struct CalendarTime {
    int year = 1970, month = 1, day = 1;  // month 1..12, day 1..31
    int hour = 0, minute = 0, second = 0;
    int dayOfWeek = 4;  // 0 = Sunday .. 6 = Saturday (as MQL5's MqlDateTime::day_of_week)
};

// Days since 1970-01-01 of a civil date (any year, month 1..12, day 1..31).
int64_t daysFromCivil(int year, int month, int day);
CalendarTime toCalendar(int64_t secondsUtc);
int64_t fromCalendar(int year, int month, int day, int hour = 0, int minute = 0, int second = 0);

// "YYYY-MM-DD HH:MM", the format the CLI and GUI show bar times in.
std::string formatBarTime(int64_t secondsUtc);

// A date: YYYY.MM.DD, YYYY-MM-DD, YYYY/MM/DD, YYYYMMDD or DD.MM.YYYY. Checks month and day
// ranges (years 1900..2999).
bool parseDate(std::string_view s, int64_t& daysOut);
// A time of day: HH:MM or HH:MM:SS, optionally with fractional seconds (dropped).
bool parseTimeOfDay(std::string_view s, int& secondsOut);
// A date, optionally followed by ' ' or 'T' and a time of day, optionally followed by 'Z' or a
// UTC offset (+HH:MM, -HHMM) that is converted to UTC; or an integer Unix time (seconds,
// 9..10 digits, or milliseconds, 13 digits).
bool parseDateTime(std::string_view s, int64_t& secondsOut);

}  // namespace nnwb
