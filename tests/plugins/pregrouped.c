/* A version-2 plugin built before the grouped fields (against plugins/abi2_fp8, the header as it
 * then was): its struct_size is that header's sizeof, and the table is built over 0xff bytes, so
 * that its tail padding, where a careless new field would sit, holds garbage. gemmbench must load
 * it as a dense kernel and never hand it a grouped case. Its supports() declines K = 7 with the m
 * it was handed (a dense problem still reaches it). */
#include <stdio.h>
#include <string.h>

#include "gemmbench/plugin.h"

static const int32_t kBf16[] = {GEMMBENCH_DTYPE_BF16};
static const int32_t kF32Accum[] = {GEMMBENCH_ACCUM_F32};
static const int32_t kTN[] = {GEMMBENCH_LAYOUT_TN};

static int supports(const gemmbench_problem* p, const gemmbench_device* d, char* reason,
                    size_t reason_size, void* user) {
  (void)d, (void)user;
  if (p->k != 7) return GEMMBENCH_PLUGIN_OK;
  snprintf(reason, reason_size, "pregrouped: m %lld", (long long)p->m);
  return GEMMBENCH_PLUGIN_DECLINE;
}

static int launch(const gemmbench_launch_args* args, char* error, size_t error_size, void* user) {
  (void)args, (void)error, (void)error_size, (void)user;
  return GEMMBENCH_PLUGIN_OK;
}

static gemmbench_kernel kKernel;
static const gemmbench_kernel* kKernels[1];
static gemmbench_plugin kPlugin;

GEMMBENCH_PLUGIN_ENTRY {
  memset(&kKernel, 0xff, sizeof(kKernel));
  kKernel.struct_size = sizeof(gemmbench_kernel);
  kKernel.name = "pregrouped";
  kKernel.family = "test";
  kKernel.rung = 1;
  kKernel.summary = "test plugin: version 2 before the grouped fields";
  kKernel.dtypes = kBf16;
  kKernel.num_dtypes = 1;
  kKernel.accums = kF32Accum;
  kKernel.num_accums = 1;
  kKernel.layouts = kTN;
  kKernel.num_layouts = 1;
  kKernel.min_sm = 70;
  kKernel.supports = supports;
  kKernel.launch = launch;
  kKernel.workspace_bytes = NULL;
  kKernel.user = NULL;
  kKernel.prepare = NULL;
  kKernel.c_row_major = 0;
  kKernels[0] = &kKernel;
  kPlugin.struct_size = sizeof(gemmbench_plugin);
  kPlugin.abi_version = GEMMBENCH_PLUGIN_ABI_VERSION;
  kPlugin.name = "pregrouped";
  kPlugin.kernels = kKernels;
  kPlugin.num_kernels = 1;
  return &kPlugin;
}
