#include "model/ConfigKeys.h"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace nnwb {

namespace {
std::string full(const std::string& path, const char* key) {
    return path + "." + key;
}
std::string num(double x) {
    std::ostringstream s;
    s << x;
    return s.str();
}
}  // namespace

int readIntKey(const nlohmann::json& j, const std::string& path, const char* key, int def, int lo,
               int hi) {
    if (!j.contains(key)) return def;
    const auto& v = j[key];
    if (!v.is_number_integer())
        throw std::invalid_argument(full(path, key) + ": must be an integer, got " + v.dump());
    const long long x = v.get<long long>();
    if (x < lo || x > hi)
        throw std::invalid_argument(full(path, key) + ": " + std::to_string(x) + " is outside " +
                                    std::to_string(lo) + ".." + std::to_string(hi));
    return static_cast<int>(x);
}

double readNumberKey(const nlohmann::json& j, const std::string& path, const char* key, double def,
                     double lo, double hi) {
    if (!j.contains(key)) return def;
    const auto& v = j[key];
    if (!v.is_number())
        throw std::invalid_argument(full(path, key) + ": must be a number, got " + v.dump());
    const double x = v.get<double>();
    if (!std::isfinite(x) || x < lo || x > hi)
        throw std::invalid_argument(full(path, key) + ": " + v.dump() + " is outside [" + num(lo) +
                                    ", " + num(hi) + "]");
    return x;
}

bool readBoolKey(const nlohmann::json& j, const std::string& path, const char* key, bool def) {
    if (!j.contains(key)) return def;
    if (!j[key].is_boolean())
        throw std::invalid_argument(full(path, key) + ": must be true or false, got " +
                                    j[key].dump());
    return j[key].get<bool>();
}

std::string readStringKey(const nlohmann::json& j, const std::string& path, const char* key,
                          const std::string& def) {
    if (!j.contains(key)) return def;
    if (!j[key].is_string())
        throw std::invalid_argument(full(path, key) + ": must be a string, got " + j[key].dump());
    return j[key].get<std::string>();
}

void requireObject(const nlohmann::json& j, const std::string& path) {
    if (!j.is_object()) throw std::invalid_argument(path + ": must be an object");
}

}  // namespace nnwb
