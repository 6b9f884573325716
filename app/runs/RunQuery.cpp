#include "app/runs/RunQuery.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <optional>
#include <sstream>

namespace nnwb {

namespace {

const char* kFilterKeys[] = {"name",   "tag",  "status", "device",    "data",
                             "source", "note", "id",     "comparison"};
const char* kSortKeys[] = {"id",     "name",   "date", "status",   "device", "data",
                           "params", "epochs", "loss", "accuracy", "missed"};

std::string lower(std::string s) {
    for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}
bool contains(const std::string& hay, const std::string& needle) {
    return lower(hay).find(needle) != std::string::npos;
}
template <size_t N>
std::string keyList(const char* const (&keys)[N]) {
    std::string out;
    for (const char* k : keys) out += (out.empty() ? "" : ", ") + std::string(k);
    return out;
}
std::string baseName(const std::string& path) {
    const auto slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

RunFilter::RunFilter(const std::string& text) {
    std::istringstream words(text);
    std::string w;
    while (words >> w) {
        Term t;
        const auto colon = w.find(':');
        if (colon != std::string::npos && colon > 0) {
            t.key = lower(w.substr(0, colon));
            t.value = lower(w.substr(colon + 1));
            if (t.key == "tags") t.key = "tag";
            if (std::find(std::begin(kFilterKeys), std::end(kFilterKeys), t.key) ==
                std::end(kFilterKeys))
                throw std::invalid_argument("unknown filter key '" + t.key +
                                            "' (keys: " + keyList(kFilterKeys) + ")");
            if (t.key == "status" && t.value == "stopped early") t.value = "stopped_early";
        } else {
            t.value = lower(w);
        }
        terms_.push_back(std::move(t));
    }
}

bool RunFilter::matches(const StoredRun& r) const {
    for (const Term& t : terms_) {
        const std::string& v = t.value;
        bool ok = false;
        if (t.key.empty())
            ok = contains(r.name, v) || contains(r.tags, v) || contains(r.note, v) ||
                 contains(baseName(r.dataFile), v) || contains(r.dataDescription, v) ||
                 contains(r.deviceId, v) || contains(r.deviceName, v) || contains(r.status, v);
        else if (t.key == "name")
            ok = contains(r.name, v);
        else if (t.key == "tag") {
            std::istringstream tags(r.tags);
            std::string tag;
            while (!ok && std::getline(tags, tag, ',')) ok = contains(tag, v);
        } else if (t.key == "status")
            ok = lower(r.status) == v || lower(runStatusLabel(r.status)) == v;
        else if (t.key == "device")
            ok = contains(r.deviceId, v) || contains(r.deviceName, v);
        else if (t.key == "data")
            ok = contains(r.dataFile, v) || contains(r.dataDescription, v);
        else if (t.key == "source")
            ok = contains(r.source, v);
        else if (t.key == "note")
            ok = contains(r.note, v);
        else if (t.key == "id")
            ok = std::to_string(r.id) == v;
        else if (t.key == "comparison")
            ok = contains(r.comparison, v);
        if (!ok) return false;
    }
    return true;
}

void sortRuns(std::vector<StoredRun>& runs, const std::string& keyArg) {
    const bool desc = !keyArg.empty() && keyArg[0] == '-';
    const std::string key = lower(desc ? keyArg.substr(1) : keyArg);
    using Num = std::function<std::optional<double>(const StoredRun&)>;
    using Text = std::function<std::string(const StoredRun&)>;
    Num num;
    Text txt;
    if (key == "id" || key == "date")  // ids grow with the start time
        num = [](const StoredRun& r) { return std::optional<double>(double(r.id)); };
    else if (key == "params")
        num = [](const StoredRun& r) { return std::optional<double>(double(r.parameters)); };
    else if (key == "epochs")
        num = [](const StoredRun& r) { return std::optional<double>(r.epochsDone); };
    else if (key == "loss")
        num = [](const StoredRun& r) { return r.bestValLoss; };
    else if (key == "accuracy")
        num = [](const StoredRun& r) { return r.bestValAccuracy; };
    else if (key == "missed")
        num = [](const StoredRun& r) { return r.bestValMissed; };
    else if (key == "name")
        txt = [](const StoredRun& r) { return lower(r.name); };
    else if (key == "status")
        txt = [](const StoredRun& r) { return r.status; };
    else if (key == "device")
        txt = [](const StoredRun& r) { return r.deviceId; };
    else if (key == "data")
        txt = [](const StoredRun& r) { return lower(baseName(r.dataFile)); };
    else
        throw std::invalid_argument("unknown sort key '" + key + "' (keys: " + keyList(kSortKeys) +
                                    "; a leading - sorts descending)");
    std::stable_sort(runs.begin(), runs.end(), [&](const StoredRun& a, const StoredRun& b) {
        if (num) {
            const auto x = num(a), y = num(b);
            if (x.has_value() != y.has_value()) return x.has_value();  // missing values last
            if (!x || *x == *y) return a.id > b.id;
            return desc ? *x > *y : *x < *y;
        }
        const std::string x = txt(a), y = txt(b);
        if (x == y) return a.id > b.id;
        return desc ? x > y : x < y;
    });
}

}  // namespace nnwb
