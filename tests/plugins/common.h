/* Shared by the test plugins: a kernel's fixed facts and a launch that does nothing. The test
 * plugins are C so that the build proves gemmbench/plugin.h is a C header. */
#ifndef GEMMBENCH_TEST_PLUGIN_COMMON_H
#define GEMMBENCH_TEST_PLUGIN_COMMON_H

#include "gemmbench/plugin.h"

static const int32_t kF16[] = {GEMMBENCH_DTYPE_F16};
static const int32_t kF32Accum[] = {GEMMBENCH_ACCUM_F32};
static const int32_t kTN[] = {GEMMBENCH_LAYOUT_TN};

__attribute__((unused)) static int launch_nothing(const gemmbench_launch_args* args, char* error,
                                                  size_t error_size, void* user) {
  (void)args, (void)error, (void)error_size, (void)user;
  return GEMMBENCH_PLUGIN_OK;
}

/* A well-formed f16 TN kernel named `name` whose launch does nothing. */
#define TEST_KERNEL(name, launch_fn)                                                             \
  {                                                                                              \
    sizeof(gemmbench_kernel), name, "test", 1, "test plugin", kF16, 1, kF32Accum, 1, kTN, 1, 70, \
        NULL, launch_fn, NULL, NULL, NULL, 0, 0, 0                                               \
  }

#endif
