// OpenCL error codes as readable names (clErrorName) and the check helper that turns a failed
// OpenCL call into a ComputeError naming the op or kernel. Stateless; usable from any thread.
#pragma once

#include <string>

#include <CL/cl.h>

namespace nnwb {

// "CL_OUT_OF_RESOURCES", "CL_MEM_OBJECT_ALLOCATION_FAILURE", ... or "CL error -1234".
std::string clErrorName(cl_int err);

// Throws ComputeError("<what>: <call> failed (<error name>)") unless err == CL_SUCCESS.
void clCheck(cl_int err, const std::string& what, const char* call);

}  // namespace nnwb
