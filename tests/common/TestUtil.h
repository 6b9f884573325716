// Helpers shared by the test suites (GoogleTest and Qt Test): the device ids to test on, seeded
// random data, tolerance comparisons that name the first mismatch, and device buffers with sentinel
// guard values around their data. Used on the test's main thread only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compute/Backend.h"

namespace nnwb::test {

// "cpu" plus every OpenCL device id from listDevices().
std::vector<std::string> testDeviceIds();
// Only the OpenCL device ids (empty on a machine without an OpenCL runtime).
std::vector<std::string> openClDeviceIds();

// NNWB_PARITY_MAX_VALUES=N limits the parity suites to cases whose buffers hold at most N
// floats in all (for slow checking devices such as oclgrind); SIZE_MAX when unset (every case).
size_t parityMaxValues();

// NNWB_PARITY_SLICE=k/n runs only the parity cases whose number (in the order the suite runs
// them, from 0) is k modulo n: n consecutive values of k cover every case. Unset: every case.
// scripts/nnwb.sh check rotates k with the commit for the slow oclgrind runs.
struct ParitySlice {
    size_t index = 0, count = 1;
};
ParitySlice paritySlice();
// Whether the next case is in the slice (counts the cases as they come).
bool parityNextCaseInSlice();

// n values uniform in [lo, hi) from a fixed seed (same numbers on every machine).
std::vector<float> randomVector(size_t n, uint32_t seed, float lo = -1.0f, float hi = 1.0f);
void randomFill(std::vector<float>& v, uint32_t seed, float lo = -1.0f, float hi = 1.0f);

// |got - want| <= abs + rel * |want| per value; NaN only matches NaN, inf only the same inf.
struct Tolerance {
    double abs = 1e-5;
    double rel = 1e-4;
};
// Empty when all n values match, else a message naming the first mismatching index, both
// values, the tolerance and the number of mismatches.
std::string compareNear(const float* got, const float* want, size_t n, Tolerance tol);
std::string compareNear(const std::vector<float>& got, const std::vector<float>& want,
                        Tolerance tol);

// A fresh directory under $TMPDIR (or /tmp) for files a test writes.
std::string tempDir();

// Makes a directory read-only for the lifetime of the object. Root ignores directory
// permissions, so as root the effective user also becomes `nobody` (65534) until destruction,
// and the kernel refuses writes there as it would for a normal user. enforced() is false only
// when neither works (then a test must not claim the save failed for that reason).
class ReadOnlyDir {
public:
    explicit ReadOnlyDir(const std::string& dir);
    ~ReadOnlyDir();
    ReadOnlyDir(const ReadOnlyDir&) = delete;
    ReadOnlyDir& operator=(const ReadOnlyDir&) = delete;
    bool enforced() const { return enforced_; }

private:
    std::string dir_;
    bool droppedRoot_ = false;
    bool enforced_ = false;
};

// The guard value written around outputs; an op that changes it wrote out of bounds.
constexpr float kSentinel = 12345.0f;

// A device buffer of padBefore + data + padAfter floats: the pads hold kSentinel, ref() views
// the data region (a non-zero offset, so offset handling is exercised as well).
class GuardedBuffer {
public:
    GuardedBuffer(Backend& be, const std::vector<float>& data, size_t padBefore = 7,
                  size_t padAfter = 5);
    BufRef ref() const { return BufRef(buf_, padBefore_); }
    size_t count() const { return count_; }
    std::vector<float> read() const;  // the data region
    // Empty when both pads still hold kSentinel, else which value was overwritten.
    std::string guardViolation(const std::string& name) const;

private:
    Backend* be_;
    Buffer buf_;
    size_t padBefore_, count_, padAfter_;
};

// A synthetic data section: {"source":"synthetic","samples":N,"units":U,"window":W}.
nlohmann::json syntheticData(int samples = 256, int units = 4, int window = 6);
// A small experiment JSON (formatVersion 1) on synthetic data with a conv + dense stack that
// trains in well under a second per epoch on the CPU backend.
nlohmann::json tinyExperimentJson(int epochs = 3, int batch = 16);

}  // namespace nnwb::test
