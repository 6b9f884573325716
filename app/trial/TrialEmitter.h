// The child side of the trial protocol (docs/sweeps.md "Trial protocol"): the one writer of a
// trial's stdout lines and the one reader of its answers on stdin, for a trial alone (a
// population of one: no "member", no "answer" line, one word read) and a packed trial (every
// line with its member, an "answer" line before each read). The trial's thread only.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "app/trial/TrialLines.h"

namespace nnwb::trial {

class TrialEmitter {
public:
    // `packed`: a population of several trials (its lines carry "member").
    explicit TrialEmitter(bool packed, std::FILE* out = stdout, std::FILE* in = stdin)
        : packed_(packed), out_(out), in_(in) {}
    bool packed() const { return packed_; }
    // Writes `line` (with `member` when packed, but for an "answer" line) and flushes.
    void write(Line line, int member = 0);
    // After an epoch: asks for the answers of `open` (the members still training; a packed
    // trial prints the "answer" line for epoch `epoch`) and reads one line. Returns the answer
    // of each of `open`, none at the end of input (the coordinator is gone: all stop).
    std::optional<std::vector<Answer>> ask(int epoch, const std::vector<int>& open);

private:
    bool packed_;
    std::FILE* out_;
    std::FILE* in_;
};

// One line of `in` however long, without its end of line; false at the end of input.
bool readLine(std::FILE* in, std::string& line);

}  // namespace nnwb::trial
