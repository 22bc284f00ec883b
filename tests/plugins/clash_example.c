/* A plugin whose kernel takes the name of the example plugin's (tiled_hgemm). */
#include "common.h"

static const gemmbench_kernel kKernel = TEST_KERNEL("tiled_hgemm", launch_nothing);
static const gemmbench_kernel* const kKernels[] = {&kKernel};
static const gemmbench_plugin kPlugin = {sizeof(gemmbench_plugin), GEMMBENCH_PLUGIN_ABI_VERSION,
                                         "clash with the example plugin", kKernels, 1};

GEMMBENCH_PLUGIN_ENTRY {
  return &kPlugin;
}
