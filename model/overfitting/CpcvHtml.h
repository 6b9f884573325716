// The tear sheet of a combinatorial purged cross-validation (`nnwb-cli report --walkforward FILE
// --html OUT` on what `nnwb-cli walkforward --scheme cpcv --json` printed,
// docs/walkforward-cpcv.md): the plan, the verdict line, the path table, a histogram of the
// paths' Sharpe ratio per bar, the distribution of every figure over the paths and the split
// table, as one self-contained HTML page (model/trading/HtmlReport.h's head and style, inline
// SVG). Pure functions; any thread.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nnwb {

struct CpcvOutput {
    std::vector<nlohmann::json> splits;  // the split records, in order
    std::vector<nlohmann::json> paths;   // the path records, in order
    nlohmann::json summary;              // the "cpcv" object
};

// Whether `text` holds a {"cpcv": ...} line (the JSON lines of a cpcv walk-forward).
bool isCpcvOutput(const std::string& text);
// Reads those lines (`text` read from `file`, named in errors with its line): split objects (key
// split), path objects (key path) and one {"cpcv": ...}. Throws ReportInputError.
CpcvOutput parseCpcvOutput(const std::string& text, const std::string& file);

// The HTML page; `source` names the file it came from.
std::string cpcvHtml(const CpcvOutput& c, const std::string& source);

}  // namespace nnwb
