// The safetensors weight format: an 8-byte little-endian header length, a JSON header of
// tensor names, dtypes, shapes and data offsets, then raw little-endian data. Float32 only.
// Plain functions on host data; any thread.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace nnwb {

struct HostTensor {
    std::vector<int64_t> shape;
    std::vector<float> values;
};

using TensorMap = std::map<std::string, HostTensor>;

class SafetensorsError : public std::runtime_error {
public:
    explicit SafetensorsError(const std::string& what) : std::runtime_error(what) {}
};

std::string encodeSafetensors(const TensorMap& tensors,
                              const std::map<std::string, std::string>& metadata = {});
// Throws SafetensorsError saying what is wrong (truncated, bad header, bad offsets, dtype...).
TensorMap decodeSafetensors(const std::string& bytes,
                            std::map<std::string, std::string>* metadata = nullptr);

void saveSafetensors(const std::string& path, const TensorMap& tensors,
                     const std::map<std::string, std::string>& metadata = {});
TensorMap loadSafetensors(const std::string& path,
                          std::map<std::string, std::string>* metadata = nullptr);

}  // namespace nnwb
