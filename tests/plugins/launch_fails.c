/* A plugin whose kernel declines odd K with a reason and M = 7 without one, and whose launch
 * always fails with status 3 and a message: the row must say so, and the run go on. */
#include <stdio.h>

#include "common.h"

static int supports(const gemmbench_problem* p, const gemmbench_device* d, char* reason,
                    size_t reason_size, void* user) {
  (void)d, (void)user;
  if (p->k % 2 != 0) {
    snprintf(reason, reason_size, "K must be even (got %lld)", (long long)p->k);
    return GEMMBENCH_PLUGIN_DECLINE;
  }
  if (p->m == 7) return GEMMBENCH_PLUGIN_DECLINE;
  return GEMMBENCH_PLUGIN_OK;
}

static int launch_fails(const gemmbench_launch_args* args, char* error, size_t error_size,
                        void* user) {
  (void)args, (void)user;
  snprintf(error, error_size, "no tensor cores today");
  return 3;
}

static const gemmbench_kernel kKernel = {sizeof(gemmbench_kernel),
                                         "failing_launch",
                                         "test",
                                         1,
                                         "test plugin: launch fails",
                                         kF16,
                                         1,
                                         kF32Accum,
                                         1,
                                         kTN,
                                         1,
                                         70,
                                         supports,
                                         launch_fails,
                                         NULL,
                                         NULL,
                                         NULL,
                                         0,
                                         0,
                                         0};
static const gemmbench_kernel* const kKernels[] = {&kKernel};
static const gemmbench_plugin kPlugin = {sizeof(gemmbench_plugin), GEMMBENCH_PLUGIN_ABI_VERSION,
                                         "launch fails", kKernels, 1};

GEMMBENCH_PLUGIN_ENTRY {
  return &kPlugin;
}
