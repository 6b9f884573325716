// Bar importers: every supported layout and encoding from a small fixture, and every kind of
// bad input with its exact "FILE:LINE: problem" message.
#include <gtest/gtest.h>

#include <string>

#include "common/FuzzyCompare.h"
#include "model/data/BarImporter.h"
#include "model/data/DateTime.h"
#include "model/data/TextDecoding.h"
#include "nnwb/TestPaths.h"

using namespace nnwb;

namespace {

std::string fixture(const char* name) {
    return std::string(NNWB_TEST_FIXTURES) + "/" + name;
}

// The six bars every format fixture holds (2020-03-02 10:00 .. 15:00).
const double kOpen[6] = {1.10000, 1.10050, 1.10150, 1.10250, 1.10120, 1.09900};
const double kHigh[6] = {1.10100, 1.10200, 1.10300, 1.10280, 1.10150, 1.10050};
const double kLow[6] = {1.09900, 1.09950, 1.10000, 1.10100, 1.09800, 1.09850};
const double kClose[6] = {1.10050, 1.10150, 1.10250, 1.10120, 1.09900, 1.10000};
const double kVolume[6] = {100, 120, 90, 80, 150, 70};

// A minimal valid MT5 file with one data line per entry of `rows` (header on line 1).
const char* kMt5Header =
    "<DATE>\t<TIME>\t<OPEN>\t<HIGH>\t<LOW>\t<CLOSE>\t<TICKVOL>\t<VOL>\t<SPREAD>\n";

void checkSixBars(const LoadResult& r, const char* format, bool hasVolume) {
    ASSERT_TRUE(r.ok) << r.error.c_str();
    ASSERT_TRUE(r.error.empty());
    ASSERT_EQ(r.bars.format, std::string(format));
    ASSERT_EQ(r.bars.size(), size_t(6));
    ASSERT_EQ(r.bars.timeframe, int64_t(3600));
    for (size_t i = 0; i < 6; ++i) {
        ASSERT_EQ(r.bars.time[i], fromCalendar(2020, 3, 2, 10 + int(i), 0, 0));
        ASSERT_FUZZY_EQ(r.bars.open[i], kOpen[i]);
        ASSERT_FUZZY_EQ(r.bars.high[i], kHigh[i]);
        ASSERT_FUZZY_EQ(r.bars.low[i], kLow[i]);
        ASSERT_FUZZY_EQ(r.bars.close[i], kClose[i]);
        ASSERT_FUZZY_EQ(r.bars.volume[i], hasVolume ? kVolume[i] : 0.0);
    }
}

void expectError(const std::string& text, const std::string& message) {
    const LoadResult r = parseBarText(text, "/some/dir/EURUSD.csv");
    ASSERT_TRUE(!r.ok) << "bad input was accepted";
    ASSERT_EQ(r.error, message);
    ASSERT_TRUE(r.bars.empty());  // never half-loaded
    ASSERT_TRUE(r.bars.open.empty() && r.bars.close.empty());
}

}  // namespace

TEST(DataImport, mt5Tab) {
    const LoadResult r = loadBarFile(fixture("mt5_tab.csv"));
    checkSixBars(r, "mt5", true);
    ASSERT_EQ(r.bars.source, fixture("mt5_tab.csv"));
    ASSERT_TRUE(r.warnings.empty());
}
TEST(DataImport, mt5Utf16LeCrlf) {
    checkSixBars(loadBarFile(fixture("mt5_utf16le.csv")), "mt5", true);
}
TEST(DataImport, mt4) {
    checkSixBars(loadBarFile(fixture("mt4.csv")), "mt4", true);
}
TEST(DataImport, genericComma) {
    checkSixBars(loadBarFile(fixture("generic_comma.csv")), "csv", true);
}
TEST(DataImport, genericCrlfBom) {
    checkSixBars(loadBarFile(fixture("generic_crlf_bom.csv")), "csv", true);
}
TEST(DataImport, genericSemicolonDateTimeColumns) {
    // Date and Time in separate columns, comma as decimal point, no volume column.
    checkSixBars(loadBarFile(fixture("generic_semicolon.csv")), "csv", false);
}
TEST(DataImport, genericTabReordered) {
    // Lower-case names in any order, tick volume preferred over volume, ISO "T...Z" times.
    checkSixBars(loadBarFile(fixture("generic_tab.csv")), "csv", true);
}
TEST(DataImport, mt4WithoutVolumeAndQuotedCsv) {
    LoadResult r =
        parseBarText("2020.03.02,10:00,1,2,0.5,1.5\n2020.03.02,10:05,1,2,0.5,1.5\n", "m5.csv");
    ASSERT_TRUE(r.ok) << r.error.c_str();
    ASSERT_EQ(r.bars.format, std::string("mt4"));
    ASSERT_EQ(r.bars.timeframe, int64_t(300));
    ASSERT_FUZZY_EQ(r.bars.volume[1], 0.0);
    r = parseBarText(
        "\"Date\",\"Open\",\"High\",\"Low\",\"Close\"\n"
        "\"2020-01-06\",\"1.5\",\"2\",\"1\",\"1.5\"\n"
        "\"2020-01-07\",\"1.5\",\"2\",\"1\",\"1.5\"\n",
        "d1.csv");
    ASSERT_TRUE(r.ok) << r.error.c_str();
    ASSERT_EQ(r.bars.format, std::string("csv"));
    ASSERT_EQ(r.bars.timeframe, int64_t(86400));
    ASSERT_EQ(r.bars.time[0], fromCalendar(2020, 1, 6));
}
TEST(DataImport, blankLinesAndMissingFinalNewline) {
    const std::string text = std::string(kMt5Header) +
                             "2020.03.02\t10:00:00\t1\t2\t0.5\t1.5\t0\t0\t0\n\n"
                             "2020.03.02\t11:00:00\t1\t2\t0.5\t1.5\t0\t0\t0";
    const LoadResult r = parseBarText(text, "x.csv");
    ASSERT_TRUE(r.ok) << r.error.c_str();
    ASSERT_EQ(r.bars.size(), size_t(2));
}
TEST(DataImport, crOnlyLineBreaks) {
    const LoadResult r = parseBarText(
        "Date,Time,Open,High,Low,Close\r02.03.2020,10:00,1,2,0.5,1.5\r"
        "02.03.2020,11:00,1,2,0.5,1.5\r02.03.2020,12:00,1,2,0.5,x\r",
        "mac.csv");
    ASSERT_EQ(r.error, std::string("mac.csv:4: close price 'x' is not a number"));
}
TEST(DataImport, timeframeIsMostCommonSpacing) {
    ASSERT_EQ(inferTimeframe({}), int64_t(0));
    ASSERT_EQ(inferTimeframe({5}), int64_t(0));
    ASSERT_EQ(inferTimeframe({0, 3600, 7200, 7200 + 3 * 86400, 7200 + 3 * 86400 + 3600}),
              int64_t(3600));
    ASSERT_EQ(inferTimeframe({0, 60, 120, 240, 360}), int64_t(60));  // tie: the smaller
}
TEST(DataImport, openOutsideRangeIsOnlyAWarning) {
    const std::string text = std::string(kMt5Header) +
                             "2020.03.02\t10:00:00\t1\t2\t0.5\t1.5\t0\t0\t0\n"
                             "2020.03.02\t11:00:00\t2.5\t2\t0.5\t1.5\t0\t0\t0\n";
    const LoadResult r = parseBarText(text, "x.csv");
    ASSERT_TRUE(r.ok) << r.error.c_str();
    ASSERT_EQ(r.warnings.size(), size_t(1));
    ASSERT_EQ(r.warnings[0],
              std::string("x.csv:3: 1 bar(s) have open or close outside [low, high] (first "
                          "here)"));
}
TEST(DataImport, calendar) {
    ASSERT_EQ(formatBarTime(0), std::string("1970-01-01 00:00"));
    ASSERT_EQ(formatBarTime(fromCalendar(2016, 2, 29, 23, 59, 59)),
              std::string("2016-02-29 23:59"));
    ASSERT_EQ(toCalendar(fromCalendar(2020, 3, 2)).dayOfWeek, 1);  // a Monday
    ASSERT_EQ(toCalendar(fromCalendar(1969, 12, 31, 12)).dayOfWeek, 3);
    int64_t t = 0;
    ASSERT_TRUE(parseDateTime("2020-03-02T10:00:00+02:00", t));
    ASSERT_EQ(t, fromCalendar(2020, 3, 2, 8));
    ASSERT_TRUE(parseDateTime("1583143200", t));
    ASSERT_EQ(t, fromCalendar(2020, 3, 2, 10));
    ASSERT_TRUE(!parseDateTime("2019.02.29 10:00", t));
    ASSERT_TRUE(!parseDateTime("2019.02.28 24:00", t));
    ASSERT_TRUE(parseDateTime("02.03.2020 10:00", t));  // DD.MM.YYYY
    ASSERT_EQ(t, fromCalendar(2020, 3, 2, 10));
    ASSERT_TRUE(parseDateTime("20200302", t));
    ASSERT_EQ(t, fromCalendar(2020, 3, 2));
    ASSERT_TRUE(!parseDateTime("2020-03-02 10:00 extra", t));
    int s = 0;
    ASSERT_TRUE(parseTimeOfDay("23:59:59.500", s));
    ASSERT_EQ(s, 86399);
}
TEST(DataImport, utf16WithoutBom) {
    std::string bytes;
    for (char c : std::string("2020.03.02,10:00,1,2,0.5,1.5,3\r\n")) {
        bytes.push_back(c);
        bytes.push_back('\0');
    }
    ASSERT_EQ(int(decodeToUtf8(bytes)), int(TextEncoding::Utf16Le));
    ASSERT_EQ(bytes, std::string("2020.03.02,10:00,1,2,0.5,1.5,3\r\n"));
}

// ---- bad input: exact messages ----
TEST(DataImport, missingFile) {
    const LoadResult r = loadBarFile("/nonexistent/dir/EURUSD.csv");
    ASSERT_TRUE(!r.ok);
    ASSERT_EQ(r.error, std::string("EURUSD.csv:0: cannot open /nonexistent/dir/EURUSD.csv: "
                                   "No such file or directory"));
}
TEST(DataImport, directory) {
    const LoadResult r = loadBarFile(NNWB_TEST_FIXTURES);
    ASSERT_TRUE(!r.ok);
    ASSERT_EQ(r.error,
              std::string("fixtures:0: ") + NNWB_TEST_FIXTURES + " is a directory, not a file");
}
TEST(DataImport, emptyFile) {
    const LoadResult r = loadBarFile(fixture("empty.csv"));
    ASSERT_EQ(r.error, std::string("empty.csv:1: file is empty"));
    expectError("\n  \r\n\n", "EURUSD.csv:1: file is empty (no data rows)");
}
TEST(DataImport, binaryFile) {
    const LoadResult r = loadBarFile(fixture("binary.csv"));
    ASSERT_TRUE(!r.ok);
    ASSERT_EQ(r.error, std::string("binary.csv:2: binary data (byte 0x1A), not a text file "
                                   "of price bars"));
}
TEST(DataImport, headerOnly) {
    const LoadResult r = loadBarFile(fixture("header_only.csv"));
    ASSERT_EQ(r.error, std::string("header_only.csv:1: header only, no data rows"));
}
TEST(DataImport, truncatedLastLine) {
    const LoadResult r = loadBarFile(fixture("truncated.csv"));
    ASSERT_EQ(r.error,
              std::string("truncated.csv:6: truncated last line: expected 9 fields, found 4"));
}
TEST(DataImport, highBelowLow) {
    const LoadResult r = loadBarFile(fixture("bad_high_low.csv"));
    ASSERT_EQ(r.error, std::string("bad_high_low.csv:3: high 1.0712 is below low 1.0720"));
}
TEST(DataImport, missingColumn) {
    expectError("Datetime,Open,Low,Close\n2020-01-01 10:00,1,1,1\n",
                "EURUSD.csv:1: missing column 'high'; header has: Datetime, Open, Low, Close");
    expectError("Open,High,Low,Close\n1,1,1,1\n",
                "EURUSD.csv:1: missing column 'date' (or 'datetime'); header has: Open, "
                "High, Low, Close");
}
TEST(DataImport, wrongFieldCount) {
    expectError(std::string(kMt5Header) + "2020.03.02\t10:00:00\t1\t2\t0.5\t1.5\t0\t0\t0\n" +
                    "2020.03.02\t11:00:00\t1\t2\t0.5\t1.5\t0\t0\n" +
                    "2020.03.02\t12:00:00\t1\t2\t0.5\t1.5\t0\t0\t0\n",
                "EURUSD.csv:3: wrong field count: expected 9 fields, found 8");
    expectError("2020.03.02,10:00,1,2,0.5\n",
                "EURUSD.csv:1: no header and 5 fields; expected DATE,TIME,OPEN,HIGH,LOW,"
                "CLOSE[,VOLUME] (MetaTrader 4) or a header row");
}
TEST(DataImport, nonNumericAndNonFinitePrice) {
    const std::string h = "Datetime,Open,High,Low,Close\n2020-01-01 10:00,1,2,0.5,1.5\n";
    expectError(h + "2020-01-01 11:00,1,2,abc,1.5\n",
                "EURUSD.csv:3: low price 'abc' is not a number");
    expectError(h + "2020-01-01 11:00,1,2,0.5,1.5x\n",
                "EURUSD.csv:3: close price '1.5x' is not a number");
    expectError(h + "2020-01-01 11:00,nan,2,0.5,1.5\n",
                "EURUSD.csv:3: open price 'nan' is not finite");
    expectError(h + "2020-01-01 11:00,1,inf,0.5,1.5\n",
                "EURUSD.csv:3: high price 'inf' is not finite");
    expectError(h + "2020-01-01 11:00,1,1e999,0.5,1.5\n",
                "EURUSD.csv:3: high price '1e999' is not finite");
    expectError(h + "2020-01-01 11:00,1,,0.5,1.5\n", "EURUSD.csv:3: high price is empty");
    expectError("Datetime,Open,High,Low,Close,Volume\n2020-01-01 11:00,1,2,0.5,1.5,-3\n",
                "EURUSD.csv:2: volume -3 is negative");
}
TEST(DataImport, badDateTime) {
    expectError(std::string(kMt5Header) + "2017.13.01\t10:00:00\t1\t2\t0.5\t1.5\t0\t0\t0\n",
                "EURUSD.csv:2: bad date '2017.13.01'");
    expectError(std::string(kMt5Header) + "2017.01.01\t25:00:00\t1\t2\t0.5\t1.5\t0\t0\t0\n",
                "EURUSD.csv:2: bad time '25:00:00'");
    expectError(
        "Datetime,Open,High,Low,Close\n2020-01-01 10:00,1,2,0.5,1.5\n"
        "yesterday,1,2,0.5,1.5\n",
        "EURUSD.csv:3: bad date/time 'yesterday'");
}
TEST(DataImport, outOfOrderAndDuplicate) {
    const std::string h =
        "Datetime,Open,High,Low,Close\n2020-01-01 10:00,1,2,0.5,1.5\n"
        "2020-01-01 11:00,1,2,0.5,1.5\n";
    expectError(h + "2020-01-01 11:00,1,2,0.5,1.5\n",
                "EURUSD.csv:4: duplicate time 2020-01-01 11:00 (same as line 3)");
    expectError(h + "2020-01-01 10:30,1,2,0.5,1.5\n",
                "EURUSD.csv:4: time 2020-01-01 10:30 is before the previous bar's "
                "2020-01-01 11:00 (line 3); bars must be in time order, oldest first");
}
TEST(DataImport, highBelowLowInline) {
    expectError("2020.03.02,10:00,1.0715,1.0712,1.0720,1.0716,5\n",
                "EURUSD.csv:1: high 1.0712 is below low 1.0720");
}
TEST(DataImport, garbageNeverCrashes) {
    // Deterministic pseudo-random byte soup and mutations of a valid file: must return an
    // error or a valid series, never crash or throw.
    std::string valid = std::string(kMt5Header);
    for (int i = 0; i < 20; ++i)
        valid += "2020.03.02\t10:" + std::string(i < 10 ? "0" : "") + std::to_string(i) +
                 ":00\t1\t2\t0.5\t1.5\t0\t0\t0\n";
    ASSERT_TRUE(parseBarText(valid, "fuzz.csv").ok);
    uint32_t seed = 12345;
    auto rnd = [&]() { return seed = seed * 1664525u + 1013904223u; };
    for (int iter = 0; iter < 2000; ++iter) {
        std::string t = valid;
        const int edits = 1 + int(rnd() % 4);
        for (int e = 0; e < edits; ++e) {
            const size_t pos = rnd() % t.size();
            switch (rnd() % 3) {
                case 0:
                    t[pos] = char(rnd() % 256);
                    break;
                case 1:
                    t.erase(pos, 1 + rnd() % 8);
                    break;
                default:
                    t.insert(pos, 1, "\t\n,;.:-0\"\r"[rnd() % 10]);
                    break;
            }
            if (t.empty()) t = "x";
        }
        const LoadResult r = parseBarText(t, "fuzz.csv");
        if (r.ok) {
            ASSERT_TRUE(!r.bars.empty());
            ASSERT_EQ(r.bars.open.size(), r.bars.time.size());
        } else {
            ASSERT_TRUE(r.error.rfind("fuzz.csv:", 0) == 0);
            ASSERT_TRUE(r.bars.empty());
        }
    }
}

// The spread column and the point size (model/data/BarSeries.h): MT5's <SPREAD> in points, a
// generic CSV's `spread` column, none in MT4; the point from the decimals the prices carry.
TEST(DataImport, spreadColumnAndPointSize) {
    LoadResult r = loadBarFile(fixture("mt5_tab.csv"));
    ASSERT_TRUE(r.ok) << r.error.c_str();
    ASSERT_TRUE(r.bars.hasSpread);
    ASSERT_EQ(r.bars.spread.size(), size_t(6));
    ASSERT_EQ(r.bars.spread[0], 12.0);
    ASSERT_EQ(r.bars.digits, 5);
    ASSERT_EQ(r.bars.point, 1e-5);

    r = loadBarFile(fixture("mt4.csv"));
    ASSERT_TRUE(r.ok) << r.error.c_str();
    ASSERT_FALSE(r.bars.hasSpread);
    ASSERT_TRUE(r.bars.spread.empty());
    ASSERT_EQ(r.bars.point, 1e-5);

    // A generic CSV's spread column (any case, any place); a file that drops trailing zeros:
    // most prices carry one decimal, 554.75 needs two: the point is 0.01.
    r = parseBarText(
        "time,Spread,open,high,low,close\n"
        "2020-01-06 10:00,25,552.8,554.75,552.4,554.2\n"
        "2020-01-06 11:00,31.5,554.2,554.8,554.2,554.6\n",
        "gold.csv");
    EXPECT_TRUE(r.warnings.empty());
    ASSERT_TRUE(r.ok) << r.error.c_str();
    ASSERT_TRUE(r.bars.hasSpread);
    ASSERT_EQ(r.bars.spread[0], 25.0);
    ASSERT_EQ(r.bars.spread[1], 31.5);
    ASSERT_EQ(r.bars.digits, 2);
    ASSERT_EQ(r.bars.point, 0.01);
    // Whole-number prices: a point of 1; a comma decimal point counts as well.
    r = parseBarText("Date;Open;High;Low;Close\n2020-01-06;1300;1310;1290;1305\n", "w.csv");
    ASSERT_TRUE(r.ok) << r.error.c_str();
    ASSERT_EQ(r.bars.point, 1.0);
    r = parseBarText("Date;Open;High;Low;Close\n2020-01-06;1,5;2,125;1;1,5\n", "c.csv");
    ASSERT_TRUE(r.ok) << r.error.c_str();
    ASSERT_EQ(r.bars.digits, 3);
}

// One field written with a decimal more than the rest (issue 40: an XAUUSD open "1343.830"
// among two-decimal prices) does not make the point ten times finer (and every spread ten
// times cheaper): the point comes from the decimals most prices are written with, and the
// importer warns, naming the line and the field. Trailing zeros that every price carries
// (SPY's 97.3100) still count.
TEST(DataImport, pointSizeFromTheDecimalsMostPricesHave) {
    const std::string rows = std::string(kMt5Header) +
                             "2018.05.02\t10:00:00\t1303.41\t1305.12\t1302.66\t1304.90\t1\t0\t25\n"
                             "2018.05.02\t11:00:00\t1304.90\t1306.00\t1304.35\t1305.71\t1\t0\t25\n"
                             "2018.05.02\t12:00:00\t1343.830\t1344.02\t1343.10\t1343.55\t1\t0\t30\n"
                             "2018.05.02\t13:00:00\t1343.55\t1343.95\t1342.80\t1343.20\t1\t0\t25\n";
    LoadResult r = parseBarText(rows, "/data/XAUUSD_H1.csv");
    ASSERT_TRUE(r.ok) << r.error.c_str();
    EXPECT_EQ(r.bars.digits, 2);
    EXPECT_EQ(r.bars.point, 0.01);
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_EQ(r.warnings[0],
              "XAUUSD_H1.csv:4: 1 price field(s) written with more decimals than the file's "
              "other prices (first here: '1343.830'); the point is 0.01, from the 2 decimals "
              "most prices are written with (set trading.pointSize if the symbol's point "
              "differs)");
    // A third decimal that is not zero is a real price step: the point follows it.
    std::string fine = rows;
    fine.replace(fine.find("1343.830"), 8, "1343.835");
    r = parseBarText(fine, "XAUUSD_H1.csv");
    ASSERT_TRUE(r.ok) << r.error.c_str();
    EXPECT_EQ(r.bars.digits, 3);
    EXPECT_TRUE(r.warnings.empty());
    // Every price with the symbol's trailing zeros: those digits.
    r = parseBarText("time,open,high,low,close\n2020-01-06 10:00,97.3100,97.5000,97.2000,97.4100\n",
                     "SPY.csv");
    ASSERT_TRUE(r.ok) << r.error.c_str();
    EXPECT_EQ(r.bars.digits, 4);
    EXPECT_TRUE(r.warnings.empty());
}
TEST(DataImport, badSpreadIsAnErrorWithItsLine) {
    expectError(std::string(kMt5Header) + "2020.03.02\t10:00:00\t1\t2\t0.5\t1.5\t0\t0\t12\n" +
                    "2020.03.02\t11:00:00\t1\t2\t0.5\t1.5\t0\t0\tabc\n",
                "EURUSD.csv:3: spread 'abc' is not a number (the spread column holds points)");
    expectError(std::string(kMt5Header) + "2020.03.02\t10:00:00\t1\t2\t0.5\t1.5\t0\t0\t\n",
                "EURUSD.csv:2: spread is empty");
    expectError(std::string(kMt5Header) + "2020.03.02\t10:00:00\t1\t2\t0.5\t1.5\t0\t0\t-3\n",
                "EURUSD.csv:2: spread -3 is negative");
}
