// Tooltips for the fields of the Data and Training panes: what each field does and its unit,
// found by the label of its form row (so the panes need not know about them). The Model pane's
// fields take theirs from the layer registry. GUI thread only.
#pragma once

class QWidget;

namespace nnwb {

// Sets the tooltip of every labelled form row and check box under `pane` that has a known
// help text and no tooltip yet; returns how many it set.
int applyFieldHelp(QWidget* pane);

}  // namespace nnwb
