// Binds the GPU run of `inspect ldmatrix` into the host-side command (see inspect.hpp for why
// this lives in the device library).
#include <iostream>

#include "inspect/inspect.hpp"
#include "inspect/inspect_cli.hpp"
#include "inspect/ldmatrix_device.hpp"

namespace gemmbench::inspect {

std::function<int()> add_subcommand(CLI::App& app) {
  return add_inspect_subcommand(app, run_ldmatrix_on_device, std::cout);
}

}  // namespace gemmbench::inspect
