// The host and wall-clock facts that run records and sweep rows carry: this machine's name and
// the time as Unix seconds. One definition for the run store, the recorder, pending runs and
// the sweep store. Any thread.
#pragma once

#include <string>

namespace nnwb {

// gethostname(), or "" when it fails.
std::string thisHostName();
// Seconds since the Unix epoch (system clock), with a fraction.
double unixSeconds();

}  // namespace nnwb
