// CLI11 validators of nnwb-cli's flag values, in nnwb-cli's words ("'0' is not an integer in
// 1..65536"; CLI11 puts the flag before it). Their description is the range the help shows.
// CLI main thread; Qt-free.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace nnwb::cli {

// An integer in lo..hi.
CLI::Validator integerIn(long lo, long hi);
// An integer in lo..hi, or the word `word` ("dynamic").
CLI::Validator integerInOr(long lo, long hi, const std::string& word);
// A bar time as predict takes it: 2018-06-01 or "2018-06-01 13:00".
CLI::Validator barTime();
// A run id of the run store: a positive integer.
CLI::Validator runId();

}  // namespace nnwb::cli
