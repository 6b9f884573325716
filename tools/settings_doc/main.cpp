// nnwb-settings-doc: prints docs/settings.md, the settings and features reference generated
// from the tables in model/ (model/SettingsDoc.h). Usage: nnwb-settings-doc > docs/settings.md
#include <cstdio>

#include "model/SettingsDoc.h"

int main() {
    const std::string text = nnwb::settingsReferenceMarkdown();
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
}
