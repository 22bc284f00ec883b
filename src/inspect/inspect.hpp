// `gemmbench inspect`: the ldmatrix, swizzle and raster mechanisms made visible from the same
// code the kernels run (kernels/common/ptx.cuh, swizzle.hpp, raster.hpp), and the throughput
// ceiling of mma.sync (mma-peak).
//
// add_subcommand is defined in inspect_entry.cu (gemmbench_device), not in a .cpp: it binds the
// GPU halves of `inspect ldmatrix` and `inspect mma-peak`, and a symbol of the host library cannot
// refer to the device library (the device library comes first on the link line of static archives).
#pragma once

#include <functional>

namespace CLI {
class App;
}

namespace gemmbench::inspect {

// Adds the `inspect` subcommand (with ldmatrix / swizzle / raster / mma-peak below it) to `app`.
// Returns a function main() calls when `inspect` was selected after parsing; it returns the
// process exit code. Bad parameters throw gemmbench::UsageError (one line; main prints
// "gemmbench: <message>" and exits 2); `inspect ldmatrix` without --model and `inspect mma-peak`
// on a machine with no usable GPU throw gemmbench::NoDeviceError (exit 3). Output goes to stdout.
std::function<int()> add_subcommand(CLI::App& app);

}  // namespace gemmbench::inspect
