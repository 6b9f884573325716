// The trial protocol's lines (docs/sweeps.md "Trial protocol" and "Packed trials"): the one
// codec of what `nnwb-cli train --trial` prints and reads, used by both sides (the child's
// TrialEmitter; the sweep coordinator and a bundle task decoding). A trial alone is a
// population of one: its lines carry no "member" and it is answered with one word. Figures use
// one key per metric (EpochReportJson's). A slot's kept worker (`nnwb-cli sweep worker`, docs/
// sweeps.md "Kept workers") is asked for each trial with a "trial" line on its stdin and says
// "ready" when it has ended one and waits for the next. Pure functions; any thread. Qt-free.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/Trainer.h"

namespace nnwb::trial {

enum class LineKind { Started, Epoch, Fold, Result, Answer, End, Trial, Ready };
// The "event" word of a line kind: started, epoch, fold, result, answer, end, trial, ready.
const char* lineKindName(LineKind kind);

// A walk-forward fold that ended (walk-forward trials print these instead of epoch lines).
struct Fold {
    int fold = 0, folds = 0;  // 1-based
    std::string status;       // completed, stopped, failed (foldEndWord's)
    int epochs = 0, bestEpoch = 0;
    EpochMetrics test;
    std::string error;  // empty: none
};

// How a run ended: completed, stopped_early, pruned, stopped, failed (trialEndWord's).
struct End {
    std::string status, error;
    int modelEpoch = 0;  // the epoch of the weights it saved (0: none)
};

// One line, decoded. Only the fields of its kind are set.
struct Line {
    LineKind kind = LineKind::End;
    std::optional<int> member;   // a packed trial's member (none: a trial alone)
    nlohmann::json started;      // Started: the documented fields (no "event", "member")
    EpochReport epoch;           // Epoch
    bool hasValidation = false;  // Epoch: it has a "validation" part
    // Epoch of an ensemble trial (docs/sweeps.md "Ensemble trials"): `epoch` is the
    // ensemble's own, these are its members' reports of that epoch ("members"; report.model is
    // the member's 0-based index, "model" in the line). Empty for any other trial.
    std::vector<EpochReport> members;
    Fold fold;               // Fold
    nlohmann::json trading;  // Result: the trading figures (null: nothing to trade)
    std::optional<EpochMetrics> outOfSample;  // Result: a walk-forward's stitched figures
    int answerEpoch = 0;                      // Answer: the epoch just done
    std::vector<int> answerMembers;           // Answer: the members to answer
    End end;                                  // End
    // Trial (coordinator -> kept worker): the arguments of the `nnwb-cli train ... --trial`
    // it runs, "train" first ("argv").
    std::vector<std::string> argv;
    // Ready (kept worker -> coordinator): the trial ended; the exit status a trial process of
    // its own would have ended with ("status": 0, 2, 3 or 4); the worker waits for the next.
    int readyStatus = 0;
};

// A protocol line with a missing or ill-typed field; what() names the line kind and the key
// ("trial protocol: epoch line: train.loss: missing").
class LineError : public std::runtime_error {
public:
    LineError(LineKind kind, std::optional<int> member, const std::string& what);
    LineKind kind() const { return kind_; }
    const std::optional<int>& member() const { return member_; }

private:
    LineKind kind_;
    std::optional<int> member_;
};

// The line as one JSON object (no newline).
std::string encodeLine(const Line& line);
// One stdout line of a trial. Not a JSON object with a known "event": none (stray text, which
// the protocol ignores). Throws LineError for a known kind with a field missing or wrong.
std::optional<Line> decodeLine(const std::string& text);

// The answers to a trial after an epoch.
enum class Answer { Continue, Prune, Stop };
const char* answerWord(Answer a);
// One answer line: the word of answers.front() when `single` (a trial alone), else the answers
// by member as {"m":"word",...}.
std::string encodeAnswers(const std::vector<std::pair<int, Answer>>& answers, bool single);
// The answer of each of `open` (the members asked) from one answer line: one word for all, or
// an object by member (a member not named continues); an unknown word or value stops.
std::vector<Answer> decodeAnswers(const std::string& line, const std::vector<int>& open);

}  // namespace nnwb::trial
