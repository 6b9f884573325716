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
// Throws SafetensorsError saying what is wrong (truncated, bad header, bad offsets, tensors
// that overlap, dtype...). Values are not checked (a checkpoint may hold any).
TensorMap decodeSafetensors(const std::string& bytes,
                            std::map<std::string, std::string>* metadata = nullptr);

// Throws SafetensorsError naming the first tensor with a NaN or infinite value and its index.
void checkFiniteTensors(const TensorMap& tensors);

void saveSafetensors(const std::string& path, const TensorMap& tensors,
                     const std::map<std::string, std::string>& metadata = {});
// decodeSafetensors of the file, then checkFiniteTensors: weights to use (a model, weights to
// start training from, an export) are finite. Errors read "PATH: problem".
TensorMap loadSafetensors(const std::string& path,
                          std::map<std::string, std::string>* metadata = nullptr);

}  // namespace nnwb
