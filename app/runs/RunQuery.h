// Filtering and sorting of stored runs, shared by `nnwb-cli runs list --filter/--sort` and the
// Runs view. A filter is words, all of which must match: `key:value` (name, tag, status,
// device, data, source, note, id, comparison) matches that field (substring, case-insensitive;
// `id` and `status` exactly), a bare word matches any of name, tags, note, data file, device
// and status. Sort keys: id, name, date, status, device, data, params, epochs, loss, accuracy,
// missed; a leading `-` sorts descending. Pure functions; any thread. Qt-free.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "app/runs/StoredRun.h"

namespace nnwb {

class RunFilter {
public:
    // Throws std::invalid_argument("unknown filter key 'x' (keys: ...)").
    explicit RunFilter(const std::string& text = {});
    bool matches(const StoredRun& run) const;
    bool empty() const { return terms_.empty(); }

private:
    struct Term {
        std::string key, value;  // key empty: any field
    };
    std::vector<Term> terms_;
};

// Throws std::invalid_argument("unknown sort key 'x' (keys: ...)"). Runs without a value for
// the key (no validation loss yet) sort last either way; ties keep newest first.
void sortRuns(std::vector<StoredRun>& runs, const std::string& key);

}  // namespace nnwb
