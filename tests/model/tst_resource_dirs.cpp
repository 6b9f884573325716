// Where the programs look for their bundled files (model/ResourceDirs): $NNWB_RESOURCE_DIR
// first, folders that do not exist left out, each folder once and absolute, the source tree's
// resources/ last. (The installed tree beside the program: ctest's install_tree.)
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "common/TestUtil.h"
#include "model/ResourceDirs.h"
#include "nnwb/TestPaths.h"

using namespace nnwb;

namespace {
// Sets NNWB_RESOURCE_DIR for one test and restores it afterwards.
class ResourceEnv {
public:
    explicit ResourceEnv(const char* value) {
        if (const char* old = std::getenv("NNWB_RESOURCE_DIR")) old_ = old, had_ = true;
        if (value)
            setenv("NNWB_RESOURCE_DIR", value, 1);
        else
            unsetenv("NNWB_RESOURCE_DIR");
    }
    ~ResourceEnv() {
        if (had_)
            setenv("NNWB_RESOURCE_DIR", old_.c_str(), 1);
        else
            unsetenv("NNWB_RESOURCE_DIR");
    }

private:
    std::string old_;
    bool had_ = false;
};

std::string sourceResources() {
    return std::filesystem::path(NNWB_RESOURCES_DIR).lexically_normal().string();
}
}  // namespace

TEST(ResourceDirs, sourceTreeLastWithoutEnvironment) {
    ResourceEnv env(nullptr);
    const std::vector<std::string> dirs = resourceSearchDirs();
    ASSERT_FALSE(dirs.empty());
    EXPECT_EQ(dirs.back(), sourceResources());
}

TEST(ResourceDirs, environmentFirstAndNormalized) {
    const std::string dir = test::tempDir();
    const std::string withSlash = dir + "/./";
    ResourceEnv env(withSlash.c_str());
    const std::vector<std::string> dirs = resourceSearchDirs();
    ASSERT_GE(dirs.size(), 2u);
    EXPECT_EQ(dirs.front(), std::filesystem::path(dir).lexically_normal().string());
    EXPECT_EQ(dirs.back(), sourceResources());
}

TEST(ResourceDirs, missingFolderLeftOutAndNoFolderTwice) {
    {
        ResourceEnv env("/nonexistent/nnwb-resources");
        for (const std::string& d : resourceSearchDirs())
            EXPECT_EQ(d.find("nonexistent"), std::string::npos) << d;
    }
    ResourceEnv env((std::string(NNWB_RESOURCES_DIR) + "/").c_str());  // the source tree twice
    const std::vector<std::string> dirs = resourceSearchDirs();
    ASSERT_FALSE(dirs.empty());
    EXPECT_EQ(dirs.front(), sourceResources());
    for (size_t i = 0; i < dirs.size(); ++i)
        for (size_t j = i + 1; j < dirs.size(); ++j) EXPECT_NE(dirs[i], dirs[j]);
}
