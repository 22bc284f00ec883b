// Built with the kernels' include path (tests/CMakeLists.txt, layer_probe_kernel_includes_driver):
// a kernel that includes driver code must not compile, because src/ is not on that path. The test
// passes only when this file fails to build for that reason.
#include "core/types.hpp"
#include "runner/runner.hpp"

namespace gemmbench {
int layer_probe_bad() {
  return 0;
}
}  // namespace gemmbench
