#include "app/trial/TrialLines.h"

#include "app/trial/EpochReportJson.h"

namespace nnwb::trial {

namespace {

using json = nlohmann::json;

constexpr LineKind kKinds[] = {LineKind::Started, LineKind::Epoch,  LineKind::Fold,
                               LineKind::Result,  LineKind::Answer, LineKind::End,
                               LineKind::Trial,   LineKind::Ready};

std::optional<LineKind> kindOf(const std::string& word) {
    for (LineKind k : kKinds)
        if (word == lineKindName(k)) return k;
    return std::nullopt;
}

// The started line's documented fields and their kinds (docs/sweeps.md).
bool startedFieldOk(const std::string& key, const json& v) {
    static const char* const counts[] = {
        "parameters", "trainSamples", "validationSamples", "epochs", "firstEpoch", "seed", "folds"};
    static const char* const texts[] = {"deviceId", "deviceName", "data"};
    for (const char* k : counts)
        if (key == k) return v.is_number_integer();
    for (const char* k : texts)
        if (key == k) return v.is_string();
    if (key == "provenance" || key == "startup") return v.is_object();
    if (key == "ensemble") {  // an ensemble trial's member seeds
        if (!v.is_array() || v.size() < 2) return false;
        for (const json& s : v)
            if (!s.is_number_unsigned()) return false;
        return true;
    }
    return true;  // an addition a newer child prints: kept as it is
}

template <typename T>
T field(const json& j, const char* key, const std::string& where = "") {
    const auto it = j.find(key);
    if (it == j.end()) throw std::invalid_argument(where + key + ": missing");
    try {
        return it->get<T>();
    } catch (const json::exception&) {
        throw std::invalid_argument(where + key + ": wrong type");
    }
}

// An ensemble trial's members' epoch reports ("members": [{..., "model": m}, ...]).
std::vector<EpochReport> ensembleMembersFromJson(const json& v) {
    if (!v.is_array()) throw std::invalid_argument("members: wrong type");
    std::vector<EpochReport> out;
    for (size_t i = 0; i < v.size(); ++i) {
        const std::string where = "members[" + std::to_string(i) + "].";
        if (!v[i].is_object())
            throw std::invalid_argument("members[" + std::to_string(i) + "]: wrong type");
        try {
            out.push_back(epochReportFromJson(v[i]));
        } catch (const std::invalid_argument& e) {
            throw std::invalid_argument(where + e.what());
        }
        out.back().model = field<int>(v[i], "model", where);
        if (out.back().model < 0) throw std::invalid_argument(where + "model: negative");
    }
    return out;
}

void decodeFields(const json& j, Line& l) {
    switch (l.kind) {
        case LineKind::Started:
            for (const char* k : {"parameters", "epochs"}) field<int64_t>(j, k);
            for (const auto& [key, v] : j.items()) {
                if (key == "event" || key == "member") continue;
                if (!startedFieldOk(key, v)) throw std::invalid_argument(key + ": wrong type");
                l.started[key] = v;
            }
            break;
        case LineKind::Epoch:
            l.epoch = epochReportFromJson(j);
            l.hasValidation = j.contains("validation");
            if (j.contains("members")) l.members = ensembleMembersFromJson(j["members"]);
            break;
        case LineKind::Fold:
            l.fold.fold = field<int>(j, "fold");
            l.fold.folds = field<int>(j, "folds");
            l.fold.status = field<std::string>(j, "status");
            l.fold.epochs = field<int>(j, "epochs");
            l.fold.bestEpoch = field<int>(j, "bestEpoch");
            l.fold.test = metricsFromJson(field<json>(j, "test"), "test");
            if (j.contains("error")) l.fold.error = field<std::string>(j, "error");
            break;
        case LineKind::Result:
            l.trading = field<json>(j, "trading");
            if (!l.trading.is_null() && !l.trading.is_object())
                throw std::invalid_argument("trading: wrong type");
            if (j.contains("outOfSample") && !j["outOfSample"].is_null())
                l.outOfSample = metricsFromJson(j["outOfSample"], "outOfSample");
            break;
        case LineKind::Answer:
            l.answerEpoch = field<int>(j, "epoch");
            l.answerMembers = field<std::vector<int>>(j, "members");
            break;
        case LineKind::End:
            l.end.status = field<std::string>(j, "status");
            if (j.contains("error")) l.end.error = field<std::string>(j, "error");
            if (j.contains("modelEpoch")) l.end.modelEpoch = field<int>(j, "modelEpoch");
            break;
        case LineKind::Trial:
            l.argv = field<std::vector<std::string>>(j, "argv");
            if (l.argv.empty() || l.argv.front() != "train")
                throw std::invalid_argument("argv: not a train command");
            break;
        case LineKind::Ready:
            l.readyStatus = field<int>(j, "status");
            break;
    }
}

json encodeFields(const Line& l) {
    switch (l.kind) {
        case LineKind::Started:
            return l.started;
        case LineKind::Epoch: {
            json j = epochReportToJson(l.epoch, l.hasValidation);
            if (l.members.empty()) return j;
            j["members"] = json::array();
            for (const EpochReport& m : l.members) {
                json mj = epochReportToJson(m, l.hasValidation);
                mj["model"] = m.model;
                j["members"].push_back(std::move(mj));
            }
            return j;
        }
        case LineKind::Fold: {
            json j = {{"fold", l.fold.fold},           {"folds", l.fold.folds},
                      {"status", l.fold.status},       {"epochs", l.fold.epochs},
                      {"bestEpoch", l.fold.bestEpoch}, {"test", metricsToJson(l.fold.test, true)}};
            if (!l.fold.error.empty()) j["error"] = l.fold.error;
            return j;
        }
        case LineKind::Result: {
            json j = {{"trading", l.trading}};
            if (l.outOfSample) j["outOfSample"] = metricsToJson(*l.outOfSample, true);
            return j;
        }
        case LineKind::Answer:
            return {{"epoch", l.answerEpoch}, {"members", l.answerMembers}};
        case LineKind::End: {
            json j = {{"status", l.end.status}};
            if (!l.end.error.empty()) j["error"] = l.end.error;
            if (l.end.modelEpoch > 0) j["modelEpoch"] = l.end.modelEpoch;
            return j;
        }
        case LineKind::Trial:
            return {{"argv", l.argv}};
        case LineKind::Ready:
            return {{"status", l.readyStatus}};
    }
    return json::object();
}

}  // namespace

const char* lineKindName(LineKind kind) {
    switch (kind) {
        case LineKind::Started:
            return "started";
        case LineKind::Epoch:
            return "epoch";
        case LineKind::Fold:
            return "fold";
        case LineKind::Result:
            return "result";
        case LineKind::Answer:
            return "answer";
        case LineKind::End:
            return "end";
        case LineKind::Trial:
            return "trial";
        case LineKind::Ready:
            return "ready";
    }
    return "?";
}

LineError::LineError(LineKind kind, std::optional<int> member, const std::string& what)
    : std::runtime_error("trial protocol: " + std::string(lineKindName(kind)) + " line" +
                         (member ? " of member " + std::to_string(*member) : std::string()) + ": " +
                         what),
      kind_(kind),
      member_(member) {}

std::string encodeLine(const Line& line) {
    json j = {{"event", lineKindName(line.kind)}};
    if (line.member) j["member"] = *line.member;
    j.update(encodeFields(line));
    return j.dump();
}

std::optional<Line> decodeLine(const std::string& text) {
    json j;
    try {
        j = json::parse(text);
    } catch (const std::exception&) {
        return std::nullopt;  // not a protocol line (the protocol owns stdout; stray text)
    }
    if (!j.is_object() || !j.contains("event") || !j["event"].is_string()) return std::nullopt;
    const auto kind = kindOf(j["event"].get<std::string>());
    if (!kind) return std::nullopt;
    Line l;
    l.kind = *kind;
    if (j.contains("member")) {
        if (!j["member"].is_number_integer() || j["member"].get<int64_t>() < 0)
            throw LineError(l.kind, std::nullopt, "member: not a member index");
        l.member = j["member"].get<int>();
    }
    try {
        decodeFields(j, l);
    } catch (const std::invalid_argument& e) {
        throw LineError(l.kind, l.member, e.what());
    }
    return l;
}

const char* answerWord(Answer a) {
    return a == Answer::Continue ? "continue" : a == Answer::Prune ? "prune" : "stop";
}

namespace {
Answer answerOfWord(const std::string& w) {
    return w == "continue" ? Answer::Continue : w == "prune" ? Answer::Prune : Answer::Stop;
}
}  // namespace

std::string encodeAnswers(const std::vector<std::pair<int, Answer>>& answers, bool single) {
    if (single) return answers.empty() ? "stop" : answerWord(answers.front().second);
    json j = json::object();
    for (const auto& [m, a] : answers) j[std::to_string(m)] = answerWord(a);
    return j.dump();
}

std::vector<Answer> decodeAnswers(const std::string& line, const std::vector<int>& open) {
    json j;
    try {
        j = json::parse(line);
    } catch (const std::exception&) {
        j = line;  // one word for every member
    }
    std::vector<Answer> out;
    for (int m : open) {
        Answer a = Answer::Stop;
        if (j.is_string()) {
            a = answerOfWord(j.get<std::string>());
        } else if (j.is_object()) {
            const auto it = j.find(std::to_string(m));
            a = it == j.end()     ? Answer::Continue
                : it->is_string() ? answerOfWord(it->get<std::string>())
                                  : Answer::Stop;
        }
        out.push_back(a);
    }
    return out;
}

}  // namespace nnwb::trial
