// Exceptions that cross stage boundaries, each mapped to one exit code by main().
#pragma once

#include <stdexcept>
#include <string>

namespace gemmbench {

// Exit codes, documented in README.md.
enum ExitCode : int {
  kExitOk = 0,
  kExitFailedVerification = 1,  // at least one row FAILED verification
  kExitUsage = 2,               // bad arguments, config, output path, or a case too large
  kExitNoDevice = 3,            // no GPU, no driver, or a driver too old for this build
  kExitCudaError = 4,           // a CUDA error ended the run (rows so far are written)
  kExitWorkerLost = 5,          // --devices: a worker was killed or left no report (rows marked)
};

// What the user typed wrong: one line, no stack trace, exit code 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// No usable CUDA device or driver: exit code 3.
struct NoDeviceError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace gemmbench
