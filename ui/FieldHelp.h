// Tooltips for the settings fields of the Data and Training panes, from the help of their
// entries in the settings tables (model/TrainingSettings.h, model/DataSettings.h), found by the
// field's object name (the entry's `name`), not by the visible label text. SettingsFields sets
// them when it builds a field; this covers a field built otherwise. GUI thread only.
#pragma once

class QWidget;

namespace nnwb {

// Sets the tooltip of every widget under `pane` named as a settings entry that has no tooltip
// yet; returns how many it set.
int applyFieldHelp(QWidget* pane);

}  // namespace nnwb
