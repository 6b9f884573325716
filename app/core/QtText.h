// std::string to QString at the boundary between the Qt-free layers and the Qt ones (app/core
// presenters, ui widgets). One inline function; any thread.
#pragma once

#include <string>

#include <QString>

namespace nnwb {

inline QString q(const std::string& s) {
    return QString::fromStdString(s);
}

}  // namespace nnwb
