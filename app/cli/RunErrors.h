// How a command reports what went wrong while it set up or ran training: a file that does not
// load, a device that fails, a model that does not fit its data or settings. These are the
// user's input, so they leave nnwb-cli as a UsageError (exit status 2, "nnwb-cli CMD: ...").
// Runs on the CLI's main thread; Qt-free.
#pragma once

#include <string>
#include <utility>

#include "app/cli/Commands.h"
#include "compute/ComputeError.h"
#include "model/Network.h"
#include "model/Trainer.h"
#include "model/TrainingSession.h"

namespace nnwb::cli {

// Runs `f` and returns what it returns; the errors above come out as UsageError (a ShapeError
// prefixed "model: ").
template <class F>
auto asUsageErrors(F&& f) -> decltype(std::forward<F>(f)()) {
    try {
        return std::forward<F>(f)();
    } catch (const DataLoadError& e) {
        throw UsageError(e.what());
    } catch (const ComputeError& e) {
        throw UsageError(e.what());
    } catch (const ShapeError& e) {
        throw UsageError(std::string("model: ") + e.what());
    } catch (const TrainingError& e) {  // the data does not fit the model or its settings
        throw UsageError(e.what());
    }
}

}  // namespace nnwb::cli
