// docs/settings.md, generated: the training settings table (model/TrainingSettings.h), the Data
// pane's settings (model/DataSettings.h) and the features (model/data/Features.h) as Markdown.
// The program nnwb-settings-doc (tools/settings_doc) prints it; tests/model/tst_settings_doc
// fails when docs/settings.md differs. Pure function; any thread.
#pragma once

#include <string>

namespace nnwb {

std::string settingsReferenceMarkdown();

}  // namespace nnwb
