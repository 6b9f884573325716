#include "model/Safetensors.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <tuple>

#include <nlohmann/json.hpp>

#include "model/AtomicFile.h"
#include "model/JsonRead.h"

namespace nnwb {

namespace {
bool littleEndian() {
    const uint16_t one = 1;
    unsigned char b;
    std::memcpy(&b, &one, 1);
    return b == 1;
}
}  // namespace

std::string encodeSafetensors(const TensorMap& tensors,
                              const std::map<std::string, std::string>& metadata) {
    if (!littleEndian()) throw SafetensorsError("big-endian hosts are not supported");
    nlohmann::ordered_json header = nlohmann::ordered_json::object();
    if (!metadata.empty()) header["__metadata__"] = metadata;
    size_t offset = 0;
    for (const auto& [name, t] : tensors) {
        size_t count = 1;
        for (auto d : t.shape) count *= static_cast<size_t>(d);
        if (count != t.values.size())
            throw SafetensorsError("tensor " + name + ": shape does not match its values");
        const size_t bytes = count * sizeof(float);
        header[name] = {
            {"dtype", "F32"}, {"shape", t.shape}, {"data_offsets", {offset, offset + bytes}}};
        offset += bytes;
    }
    std::string h = header.dump();
    while (h.size() % 8 != 0) h.push_back(' ');  // keep data 8-byte aligned
    std::string out;
    out.reserve(8 + h.size() + offset);
    uint64_t len = h.size();
    out.append(reinterpret_cast<const char*>(&len), 8);
    out += h;
    for (const auto& kv : tensors)
        out.append(reinterpret_cast<const char*>(kv.second.values.data()),
                   kv.second.values.size() * sizeof(float));
    return out;
}

namespace {

// A tensor's shape into `shape`; returns its value count. Throws SafetensorsError for a shape
// that is not an array of counts or whose product exceeds 2^40.
size_t readTensorShape(const std::string& name, const nlohmann::json& jshape,
                       std::vector<int64_t>& shape) {
    size_t count = 1;
    if (!jshape.is_array()) throw SafetensorsError("tensor " + name + ": bad shape");
    constexpr uint64_t kMaxCount = 1ull << 40;
    for (const auto& d : jshape) {
        if (!d.is_number_unsigned() || d.get<uint64_t>() > kMaxCount)
            throw SafetensorsError("tensor " + name + ": bad shape " + jshape.dump());
        const uint64_t dim = d.get<uint64_t>();
        shape.push_back(static_cast<int64_t>(dim));
        // Checked before multiplying: [2^40, 2^24] must not wrap around to 0 values.
        if (dim != 0 && count > kMaxCount / dim)
            throw SafetensorsError("tensor " + name + ": shape " + jshape.dump() + " is too large");
        count *= dim;
    }
    return count;
}

}  // namespace

TensorMap decodeSafetensors(const std::string& bytes, std::map<std::string, std::string>* meta) {
    if (bytes.size() < 8)
        throw SafetensorsError("truncated: " + std::to_string(bytes.size()) +
                               " bytes, less than the 8-byte header length");
    uint64_t len = 0;
    std::memcpy(&len, bytes.data(), 8);
    if (len > bytes.size() - 8)
        throw SafetensorsError("truncated: header length " + std::to_string(len) + " exceeds the " +
                               std::to_string(bytes.size() - 8) + " bytes after it");
    nlohmann::json header;
    try {
        // Depth-bounded (JsonRead): a header nested 100,000 deep is refused, not recursed.
        header = parseJson(
            std::string(bytes.begin() + 8, bytes.begin() + 8 + static_cast<long>(len)), "");
    } catch (const JsonReadError& e) {  // "LINE:COL: not valid JSON (...)" within the header
        throw SafetensorsError(std::string("JSON header at ") + e.what());
    }
    if (!header.is_object()) throw SafetensorsError("header is not a JSON object");
    const size_t dataStart = 8 + len;
    const size_t dataSize = bytes.size() - dataStart;
    TensorMap out;
    std::vector<std::tuple<uint64_t, uint64_t, std::string>> spans;  // begin, end, name
    for (auto it = header.begin(); it != header.end(); ++it) {
        const std::string& name = it.key();
        const auto& v = it.value();
        if (name == "__metadata__") {
            if (meta && v.is_object())
                for (auto m = v.begin(); m != v.end(); ++m)
                    if (m.value().is_string()) (*meta)[m.key()] = m.value().get<std::string>();
            continue;
        }
        if (!v.is_object() || !v.contains("dtype") || !v.contains("shape") ||
            !v.contains("data_offsets"))
            throw SafetensorsError("tensor " + name + ": needs dtype, shape and data_offsets");
        if (!v["dtype"].is_string() || v["dtype"].get<std::string>() != "F32")
            throw SafetensorsError("tensor " + name + ": dtype " + v["dtype"].dump() +
                                   " is not supported (F32 only)");
        HostTensor t;
        const size_t count = readTensorShape(name, v["shape"], t.shape);
        const auto& off = v["data_offsets"];
        if (!off.is_array() || off.size() != 2 || !off[0].is_number_unsigned() ||
            !off[1].is_number_unsigned())
            throw SafetensorsError("tensor " + name + ": bad data_offsets");
        const uint64_t b = off[0].get<uint64_t>(), e = off[1].get<uint64_t>();
        if (b > e || e > dataSize)
            throw SafetensorsError("truncated or corrupt: tensor " + name + " spans bytes " +
                                   std::to_string(b) + ".." + std::to_string(e) + " of " +
                                   std::to_string(dataSize) + " data bytes");
        if (e - b != count * sizeof(float))
            throw SafetensorsError("tensor " + name + ": " + std::to_string(e - b) +
                                   " bytes do not match shape " + v["shape"].dump());
        if (e > b) spans.emplace_back(b, e, name);
        t.values.resize(count);
        if (count) std::memcpy(t.values.data(), bytes.data() + dataStart + b, e - b);
        out.emplace(name, std::move(t));
    }
    // The format forbids overlapping tensors (each byte of data belongs to one tensor).
    std::sort(spans.begin(), spans.end());
    for (size_t i = 1; i < spans.size(); ++i)
        if (std::get<0>(spans[i]) < std::get<1>(spans[i - 1]))
            throw SafetensorsError("tensor " + std::get<2>(spans[i]) + " (bytes " +
                                   std::to_string(std::get<0>(spans[i])) + ".." +
                                   std::to_string(std::get<1>(spans[i])) + ") overlaps tensor " +
                                   std::get<2>(spans[i - 1]) + " (bytes " +
                                   std::to_string(std::get<0>(spans[i - 1])) + ".." +
                                   std::to_string(std::get<1>(spans[i - 1])) + ")");
    return out;
}

void checkFiniteTensors(const TensorMap& tensors) {
    for (const auto& [name, t] : tensors)
        for (size_t i = 0; i < t.values.size(); ++i)
            if (!std::isfinite(t.values[i]))
                throw SafetensorsError("tensor " + name + ": value " + std::to_string(i) + " is " +
                                       (std::isnan(t.values[i]) ? "NaN" : "infinite") +
                                       " (weights must be finite numbers)");
}

void saveSafetensors(const std::string& path, const TensorMap& tensors,
                     const std::map<std::string, std::string>& metadata) {
    writeFileAtomic(path, encodeSafetensors(tensors, metadata));
}

TensorMap loadSafetensors(const std::string& path, std::map<std::string, std::string>* meta) {
    const std::string bytes = readFile(path);
    try {
        TensorMap t = decodeSafetensors(bytes, meta);
        checkFiniteTensors(t);
        return t;
    } catch (const SafetensorsError& e) {
        throw SafetensorsError(path + ": " + e.what());
    }
}

}  // namespace nnwb
