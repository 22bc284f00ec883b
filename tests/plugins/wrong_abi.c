/* A plugin that says it was built for plugin ABI version 99. */
#include "common.h"

static const gemmbench_kernel kKernel = TEST_KERNEL("wrong_abi_kernel", launch_nothing);
static const gemmbench_kernel* const kKernels[] = {&kKernel};
static const gemmbench_plugin kPlugin = {sizeof(gemmbench_plugin), 99, "wrong abi", kKernels, 1};

GEMMBENCH_PLUGIN_ENTRY {
  return &kPlugin;
}
