// Built with the kernels' include path (tests/CMakeLists.txt, layer_probe_kernel_includes_core):
// what a kernel may include compiles, so that layer_probe_kernel_includes_driver's failure is
// the driver include's and not a broken probe.
#include "common/hd.hpp"
#include "core/registry.hpp"
#include "core/types.hpp"

namespace gemmbench {
int layer_probe_ok() {
  return int(sizeof(GemmProblem));
}
}  // namespace gemmbench
