#include "common/TestUtil.h"

#include "compute/Backend.h"

namespace nnwb::test {

std::vector<std::string> deviceIds() {
    std::vector<std::string> ids;
    for (const auto& d : listDevices()) ids.push_back(d.id);
    return ids;
}

std::vector<std::string> openclDeviceIds() {
    std::vector<std::string> ids;
    for (const auto& d : listDevices())
        if (d.id != "cpu") ids.push_back(d.id);
    return ids;
}

}  // namespace nnwb::test
