#include "app/trial/TrialEmitter.h"

namespace nnwb::trial {

void TrialEmitter::write(Line line, int member) {
    line.member.reset();
    if (packed_ && line.kind != LineKind::Answer)
        line.member = member;  // a round's, not a member's
    std::fprintf(out_, "%s\n", encodeLine(line).c_str());
    std::fflush(out_);
}

std::optional<std::vector<Answer>> TrialEmitter::ask(int epoch, const std::vector<int>& open) {
    if (packed_) {
        Line l;
        l.kind = LineKind::Answer;
        l.answerEpoch = epoch;
        l.answerMembers = open;
        write(l);
    }
    std::string text;
    if (!readLine(in_, text)) return std::nullopt;
    return decodeAnswers(text, open);
}

bool readLine(std::FILE* in, std::string& line) {
    line.clear();
    char buf[256];
    bool any = false;
    while (std::fgets(buf, sizeof buf, in)) {
        any = true;
        line += buf;
        if (!line.empty() && line.back() == '\n') break;
    }
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r' || line.back() == ' '))
        line.pop_back();
    return any;
}

}  // namespace nnwb::trial
