// Why a training run could not start or go on, classified and worded once for every front end
// (the GUI's training pane, the comparison runner, the CLI): "data: …", "model: …",
// "device: …", or the error's own message (a training error such as a non-finite loss names
// itself); `sentence` capitalizes the prefix where the text starts a message box ("Model: …").
// Any thread.
#pragma once

#include <exception>
#include <string>

namespace nnwb {

std::string describeRunFailure(const std::exception& e, bool sentence = false);

}  // namespace nnwb
