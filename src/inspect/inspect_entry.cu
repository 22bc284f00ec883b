// Binds the GPU runs of `inspect ldmatrix` and `inspect mma-peak` into the host-side command (see
// inspect.hpp for why this lives in the device library).
#include <iostream>

#include "inspect/inspect.hpp"
#include "inspect/inspect_cli.hpp"
#include "inspect/ldmatrix_device.hpp"
#include "inspect/mma_peak_device.hpp"

namespace gemmbench::inspect {

std::function<int()> add_subcommand(CLI::App& app) {
  return add_inspect_subcommand(app, DeviceRunners{run_ldmatrix_on_device, run_mma_peak_on_device},
                                std::cout);
}

}  // namespace gemmbench::inspect
