// A group's operands on the device (A and B seeded, FP8 ones quantized from seeded f32 with their
// scales; C and its initial copy; the fp64 reference), and one launch verified against them.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <memory>

#include "device/buffer.hpp"
#include "plan/plan.hpp"
#include "runner/cublaslt_gemm.hpp"
#include "runner/grouped_gemm.hpp"
#include "verify/device_verify.hpp"

namespace gemmbench {

struct GroupData {
  DeviceBuffer a, b, c, c0, ref;
  double ref_rms = 0;
  // FP8: the scales of A and B (core/types.hpp's layouts) and the fp64 product of the inputs
  // before quantization, against which each row's quantization error is taken.
  DeviceBuffer scale_a, scale_b, ref_unquantized;
  double ref_unquantized_rms = 0;
  ScalePtrs scales() const { return {scale_a.as<float>(), scale_b.as<float>()}; }
  // A grouped case (ProblemGroup::grouped): its operands (runner/grouped_gemm.hpp) in place of
  // every buffer above, which stay empty.
  std::unique_ptr<GroupedOperands> grouped;
  // C, and its initial copy where beta != 0: the dense or the grouped one.
  DeviceBuffer& c_out() { return grouped ? grouped->c : c; }
  DeviceBuffer& c_initial() { return grouped ? grouped->c0 : c0; }
};

// Allocates and fills the group's operands from `seed`, and its reference where it verifies;
// synchronizes `stream`. A grouped case's: make_grouped_operands (reference always).
GroupData set_up_operands(const ProblemGroup& g, uint64_t seed, ErrorMeter& meter,
                          cudaStream_t stream);

// Runs `launch` once on a poisoned (or restored, beta != 0) C and compares C with the reference.
// A C written row-major (N contiguous) is turned column-major into a scratch buffer first, so that
// one reference serves every kernel. A grouped case: verify_grouped (padding rows left out).
ErrorStats verify_launch(const ProblemGroup& g, GroupData& d, ErrorMeter& meter,
                         cudaStream_t stream, const std::function<void()>& launch,
                         bool c_row_major);

}  // namespace gemmbench
