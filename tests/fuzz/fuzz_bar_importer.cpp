// libFuzzer target: the price-file importer (TextDecoding + BarImporter) on arbitrary bytes.
// Bad input must give an error value, never a crash, and a successful load must satisfy the
// importer's promises: strictly increasing times, finite prices, high >= low, equal lengths,
// spreads finite and >= 0, a point size.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "FuzzCheck.h"
#include "model/data/BarImporter.h"
#include "model/data/TextDecoding.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string bytes(reinterpret_cast<const char*>(data), size);

    std::string text = bytes;
    nnwb::decodeToUtf8(text);

    const nnwb::LoadResult r = nnwb::parseBarText(bytes, "fuzz.csv");
    if (!r.ok) {
        NNWB_FUZZ_CHECK(!r.error.empty(), "a failed load names its problem");
        NNWB_FUZZ_CHECK(r.bars.empty(), "a failed load returns no bars");
        return 0;
    }
    const nnwb::BarSeries& b = r.bars;
    const size_t n = b.size();
    NNWB_FUZZ_CHECK(n > 0, "a successful load has bars");
    NNWB_FUZZ_CHECK(b.open.size() == n && b.high.size() == n && b.low.size() == n &&
                        b.close.size() == n && b.volume.size() == n,
                    "all columns have one value per bar");
    NNWB_FUZZ_CHECK(b.hasSpread ? b.spread.size() == n : b.spread.empty(),
                    "a spread per bar exactly when the file has the column");
    for (double s : b.spread)
        NNWB_FUZZ_CHECK(std::isfinite(s) && s >= 0, "spreads are finite and not negative");
    NNWB_FUZZ_CHECK(b.point > 0 && b.point == std::pow(10.0, -b.digits), "the point is 10^-digits");
    for (size_t i = 0; i < n; ++i) {
        NNWB_FUZZ_CHECK(std::isfinite(b.open[i]) && std::isfinite(b.high[i]) &&
                            std::isfinite(b.low[i]) && std::isfinite(b.close[i]) &&
                            std::isfinite(b.volume[i]),
                        "prices and volumes are finite");
        NNWB_FUZZ_CHECK(b.high[i] >= b.low[i], "high >= low");
        if (i > 0) NNWB_FUZZ_CHECK(b.time[i] > b.time[i - 1], "times strictly increase");
    }
    NNWB_FUZZ_CHECK(b.timeframe == nnwb::inferTimeframe(b.time), "timeframe is the inferred one");
    return 0;
}
