// The C structs of the plugin ABI (include/gemmbench/plugin.h) that a plugin kernel's callbacks
// receive, built from gemmbench's own types. Host code without a CUDA call, so that the host tests
// check what a plugin is handed (tests/host/test_plugin.cpp) where no GPU is present.
#pragma once

#include <cuda_runtime.h>

#include "core/grouping.hpp"
#include "core/registry.hpp"
#include "core/types.hpp"
#include "gemmbench/plugin.h"

namespace gemmbench {

// The problem a plugin kernel sees: `grouping` null for a dense problem; for a grouped case
// (p.m = sum(M_g)) the grouped fields, with C [stored_rows, N] row-major whatever the kernel
// declared. c_row_major: the kernel's KernelInfo::c_row_major.
gemmbench_problem plugin_problem(const GemmProblem& p, const Grouping* grouping, bool c_row_major);

// The launch arguments of `args` on `stream`, pointing to `problem` (plugin_problem's of args,
// which must outlive them), with a grouped case's per-group arrays from args.grouped. The
// workspace is left NULL and 0 bytes, for the caller to fill.
gemmbench_launch_args plugin_launch_args(const GemmArgs& args, const gemmbench_problem& problem,
                                         cudaStream_t stream);

}  // namespace gemmbench
