#include "compute/OpenClDevices.h"

#include <cctype>

namespace nnwb {

std::string ClDeviceRef::id() const {
    return "opencl:" + std::to_string(platformIndex) + ":" + std::to_string(deviceIndex);
}

std::vector<ClDeviceRef> clAllDevices() noexcept {
    std::vector<ClDeviceRef> out;
    try {
        cl_uint np = 0;
        if (clGetPlatformIDs(0, nullptr, &np) != CL_SUCCESS || np == 0) return out;
        std::vector<cl_platform_id> plats(np);
        if (clGetPlatformIDs(np, plats.data(), nullptr) != CL_SUCCESS) return out;
        for (cl_uint p = 0; p < np; ++p) {
            cl_uint nd = 0;
            if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS ||
                nd == 0)
                continue;
            std::vector<cl_device_id> devs(nd);
            if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, nd, devs.data(), nullptr) !=
                CL_SUCCESS)
                continue;
            for (cl_uint d = 0; d < nd; ++d)
                out.push_back(ClDeviceRef{int(p), int(d), plats[p], devs[d]});
        }
    } catch (...) {
        // Enumeration never throws; whatever was found so far is returned.
    }
    return out;
}

std::string clDeviceString(cl_device_id dev, cl_device_info what) {
    size_t n = 0;
    if (clGetDeviceInfo(dev, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
    std::string s(n, '\0');
    if (clGetDeviceInfo(dev, what, n, s.data(), nullptr) != CL_SUCCESS) return {};
    while (!s.empty() && (s.back() == '\0' || std::isspace(static_cast<unsigned char>(s.back()))))
        s.pop_back();
    return s;
}

std::string clPlatformString(cl_platform_id plat, cl_platform_info what) {
    size_t n = 0;
    if (clGetPlatformInfo(plat, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
    std::string s(n, '\0');
    if (clGetPlatformInfo(plat, what, n, s.data(), nullptr) != CL_SUCCESS) return {};
    while (!s.empty() && (s.back() == '\0' || std::isspace(static_cast<unsigned char>(s.back()))))
        s.pop_back();
    return s;
}

namespace {
template <typename T>
T deviceValue(cl_device_id dev, cl_device_info what) {
    T v{};
    if (clGetDeviceInfo(dev, what, sizeof v, &v, nullptr) != CL_SUCCESS) return T{};
    return v;
}
}  // namespace

DeviceInfo clDeviceInfo(const ClDeviceRef& ref) {
    DeviceInfo d;
    d.id = ref.id();
    d.name = clDeviceString(ref.device, CL_DEVICE_NAME);
    d.vendor = clDeviceString(ref.device, CL_DEVICE_VENDOR);
    d.platform = clPlatformString(ref.platform, CL_PLATFORM_NAME);
    d.version = clDeviceString(ref.device, CL_DEVICE_VERSION);
    const auto type = deviceValue<cl_device_type>(ref.device, CL_DEVICE_TYPE);
    if (type & CL_DEVICE_TYPE_GPU)
        d.type = "GPU";
    else if (type & CL_DEVICE_TYPE_CPU)
        d.type = "CPU";
    else if (type & CL_DEVICE_TYPE_ACCELERATOR)
        d.type = "accelerator";
    else
        d.type = "other";
    d.computeUnits = int(deviceValue<cl_uint>(ref.device, CL_DEVICE_MAX_COMPUTE_UNITS));
    d.globalMemory = deviceValue<cl_ulong>(ref.device, CL_DEVICE_GLOBAL_MEM_SIZE);
    d.localMemory = deviceValue<cl_ulong>(ref.device, CL_DEVICE_LOCAL_MEM_SIZE);
    d.maxAlloc = deviceValue<cl_ulong>(ref.device, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    return d;
}

bool parseClDeviceId(const std::string& id, int& platformIndex, int& deviceIndex) {
    const std::string prefix = "opencl:";
    if (id.compare(0, prefix.size(), prefix) != 0) return false;
    const std::string rest = id.substr(prefix.size());
    const size_t colon = rest.find(':');
    if (colon == std::string::npos) return false;
    auto num = [](const std::string& s, int& out) {
        if (s.empty() || s.size() > 6) return false;
        for (char c : s)
            if (!std::isdigit(static_cast<unsigned char>(c))) return false;
        out = std::stoi(s);
        return true;
    };
    return num(rest.substr(0, colon), platformIndex) && num(rest.substr(colon + 1), deviceIndex);
}

}  // namespace nnwb
