/* A plugin with a good kernel and one without a launch function: the loader refuses the plugin
 * whole, so neither is registered. */
#include "common.h"

static const gemmbench_kernel kGood = TEST_KERNEL("incomplete_good", launch_nothing);
static const gemmbench_kernel kNoLaunch = TEST_KERNEL("incomplete_no_launch", NULL);
static const gemmbench_kernel* const kKernels[] = {&kGood, &kNoLaunch};
static const gemmbench_plugin kPlugin = {sizeof(gemmbench_plugin), GEMMBENCH_PLUGIN_ABI_VERSION,
                                         "missing launch", kKernels, 2};

GEMMBENCH_PLUGIN_ENTRY {
  return &kPlugin;
}
