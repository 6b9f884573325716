#include "model/ResourceDirs.h"
#include "nnwb/SourcePaths.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace nnwb {

std::vector<std::string> resourceSearchDirs() {
    namespace fs = std::filesystem;
    std::vector<fs::path> candidates;
    if (const char* env = std::getenv("NNWB_RESOURCE_DIR"); env && *env)
        candidates.emplace_back(env);
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        const fs::path bin = exe.parent_path();
        candidates.push_back(bin / "resources");
        candidates.push_back(bin / ".." / "share" / "nnwb");
        candidates.push_back(bin / ".." / "share" / "nnwb" / "resources");
    }
#ifdef NNWB_RESOURCE_DIR
    candidates.emplace_back(NNWB_RESOURCE_DIR);
#endif
    std::vector<std::string> out;
    for (const fs::path& c : candidates) {
        fs::path p = fs::absolute(c, ec).lexically_normal();
        if (!ec && p.has_parent_path() && p.filename().empty()) p = p.parent_path();  // "dir/"
        const std::string abs = p.string();
        if (ec || !fs::is_directory(abs, ec)) continue;
        if (std::find(out.begin(), out.end(), abs) == out.end()) out.push_back(abs);
    }
    return out;
}

}  // namespace nnwb
