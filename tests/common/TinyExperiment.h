// The tiny synthetic experiment of the CLI and sweep tests (formatVersion 1, 96 synthetic samples
// of 2 units, window 3, two small dense layers) as the text of its file, with the training
// section the test gives. One copy here instead of one per test file. Qt-free; any thread.
#pragma once

#include <string>

namespace nnwb::test {

// The experiment file's text; `training` is the JSON of its "training" object.
inline std::string tinySyntheticExperiment(const std::string& training) {
    return R"({"formatVersion":1,"name":"tiny","data":{
            "source":"synthetic","samples":96,"units":2,"window":3},"model":{"layers":[
            {"type":"dense","neurons":4},{"type":"dense","neurons":3}]},
            "training":)" +
           training + "}";
}

}  // namespace nnwb::test
