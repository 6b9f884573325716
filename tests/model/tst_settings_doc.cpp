// docs/settings.md is generated from the settings tables (model/SettingsDoc.h): this test
// fails while the committed page differs from what nnwb-settings-doc prints, as
// scripts/test-map.py --check does for tests/README.md.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "model/SettingsDoc.h"
#include "nnwb/TestPaths.h"

TEST(SettingsDoc, docsSettingsMdIsCurrent) {
    const std::string path = std::string(NNWB_RESOURCE_DIR) + "/../docs/settings.md";
    std::ifstream in(path, std::ios::binary);
    ASSERT_TRUE(in.good()) << path << " is missing";
    std::ostringstream text;
    text << in.rdbuf();
    EXPECT_TRUE(text.str() == nnwb::settingsReferenceMarkdown())
        << path << " is stale: run build/tools/settings_doc/nnwb-settings-doc > docs/settings.md";
}
