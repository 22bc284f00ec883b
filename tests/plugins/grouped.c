/* ABI version 2's grouped problems: a kernel that takes the contiguous layout and one that takes
 * both. Their supports() decline K = 7, and their launch() fails at alpha = 7, with what they were
 * handed, so that the tests read the grouped fields as a plugin sees them; anything else they
 * take, and a launch does nothing. */
#include <stdio.h>

#include "common.h"

static const int32_t kBf16F16[] = {GEMMBENCH_DTYPE_BF16, GEMMBENCH_DTYPE_F16};

static int supports(const gemmbench_problem* p, const gemmbench_device* d, char* reason,
                    size_t reason_size, void* user) {
  (void)d, (void)user;
  if (p->groups == 0) {
    snprintf(reason, reason_size, "a dense problem reached a grouped kernel");
    return GEMMBENCH_PLUGIN_DECLINE;
  }
  if (p->k != 7) return GEMMBENCH_PLUGIN_OK;
  snprintf(reason, reason_size,
           "G %lld layout %d m %lld n %lld stored_rows %lld max_m %lld align %lld ldc %lld "
           "c_row_major %d",
           (long long)p->groups, p->group_layout, (long long)p->m, (long long)p->n,
           (long long)p->stored_rows, (long long)p->group_max_m, (long long)p->group_align,
           (long long)p->ldc, p->c_row_major);
  return GEMMBENCH_PLUGIN_DECLINE;
}

static int launch(const gemmbench_launch_args* args, char* error, size_t error_size, void* user) {
  const gemmbench_problem* p = args->problem;
  int64_t g = 0;
  int n = 0;
  (void)user;
  if (args->alpha != 7) return GEMMBENCH_PLUGIN_OK;
  n = snprintf(error, error_size, "G %lld, device arrays %s %s, M_g", (long long)p->groups,
               args->group_first_row ? "first_row" : "NULL", args->group_m ? "m" : "NULL");
  for (g = 0; g < p->groups && args->host_group_m && n > 0 && (size_t)n < error_size; ++g)
    n += snprintf(error + n, error_size - (size_t)n, " %lld", (long long)args->host_group_m[g]);
  return 5;
}

#define GROUPED_KERNEL(name, layouts)                                                             \
  {                                                                                               \
    sizeof(gemmbench_kernel), name, "test", 1, "test plugin: grouped", kBf16F16, 2, kF32Accum, 1, \
        kTN, 1, 70, supports, launch, NULL, NULL, NULL, 0, 0, layouts                             \
  }

static const gemmbench_kernel kContiguous =
    GROUPED_KERNEL("grouped_contig", GEMMBENCH_GROUP_LAYOUT_CONTIGUOUS);
static const gemmbench_kernel kBoth = GROUPED_KERNEL(
    "grouped_both", GEMMBENCH_GROUP_LAYOUT_CONTIGUOUS | GEMMBENCH_GROUP_LAYOUT_MASKED);
static const gemmbench_kernel* const kKernels[] = {&kContiguous, &kBoth};
static const gemmbench_plugin kPlugin = {sizeof(gemmbench_plugin), GEMMBENCH_PLUGIN_ABI_VERSION,
                                         "grouped", kKernels, 2};

GEMMBENCH_PLUGIN_ENTRY {
  return &kPlugin;
}
