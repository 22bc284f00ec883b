/* A plugin of ABI version 1 (built against tests/plugins/abi1) that declares dtype 4, the value
 * version 2 gave e4m3: version 1 has no FP8, so gemmbench refuses it rather than hand it FP8. */
#include "gemmbench/plugin.h"

static const int32_t kFp8[] = {4};
static const int32_t kF32Accum[] = {GEMMBENCH_ACCUM_F32};
static const int32_t kTN[] = {GEMMBENCH_LAYOUT_TN};

static int launch_nothing(const gemmbench_launch_args* args, char* error, size_t error_size,
                          void* user) {
  (void)args, (void)error, (void)error_size, (void)user;
  return GEMMBENCH_PLUGIN_OK;
}

static const gemmbench_kernel kKernel = {
    sizeof(gemmbench_kernel), "abi1_fp8", "test", 1, "test plugin", kFp8, 1, kF32Accum, 1, kTN, 1,
    89, NULL, launch_nothing, NULL, NULL};
static const gemmbench_kernel* const kKernels[] = {&kKernel};
static const gemmbench_plugin kPlugin = {sizeof(gemmbench_plugin), GEMMBENCH_PLUGIN_ABI_VERSION,
                                         "abi 1 with fp8", kKernels, 1};

GEMMBENCH_PLUGIN_ENTRY {
  return &kPlugin;
}
