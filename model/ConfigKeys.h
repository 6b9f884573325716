// Checked reads of optional keys from a JSON object of the experiment file: a missing key keeps
// the default, a wrong type or a value out of range throws std::invalid_argument naming the full
// key ("training.earlyStopping.patience: 0 is outside 1..100000"). Pure functions; any thread.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace nnwb {

int readIntKey(const nlohmann::json& j, const std::string& path, const char* key, int def, int lo,
               int hi);
double readNumberKey(const nlohmann::json& j, const std::string& path, const char* key, double def,
                     double lo, double hi);
bool readBoolKey(const nlohmann::json& j, const std::string& path, const char* key, bool def);
std::string readStringKey(const nlohmann::json& j, const std::string& path, const char* key,
                          const std::string& def);
// Throws unless j is an object: "PATH: must be an object".
void requireObject(const nlohmann::json& j, const std::string& path);

}  // namespace nnwb
