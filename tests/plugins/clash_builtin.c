/* A plugin whose kernel takes the name of one of gemmbench's own (hgemm_tn). */
#include "common.h"

static const gemmbench_kernel kKernel = TEST_KERNEL("hgemm_tn", launch_nothing);
static const gemmbench_kernel* const kKernels[] = {&kKernel};
static const gemmbench_plugin kPlugin = {sizeof(gemmbench_plugin), GEMMBENCH_PLUGIN_ABI_VERSION,
                                         "clash with a built-in kernel", kKernels, 1};

GEMMBENCH_PLUGIN_ENTRY {
  return &kPlugin;
}
