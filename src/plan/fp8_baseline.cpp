#include "plan/fp8_baseline.hpp"

#include <fmt/format.h>

namespace gemmbench {

namespace {

// The block128 limit on top of cublaslt_fp8_unsupported's. Fast accumulation: PyTorch's
// scaled_gemm refuses it with both 128 modes ("doesn't support fast accum with 1x128 blockwise
// scaling", aten/src/ATen/cuda/CUDABlas.cpp), as gemmbench's plan does. N needs no more than the
// scale layouts' multiple of 4: cuBLAS 13.1 runs VEC128 x BLK128x128 with a partial last
// 128-column block (4096x2112x7168 verified on an H100, test_cublaslt_fp8_gpu), which PyTorch's
// wrapper refuses on its own.
std::string block128_unsupported(const GemmProblem& p) {
  if (p.fast_accum)
    return "fast accumulation is not available with block128 scales (cuBLASLt's VEC128 and "
           "BLK128x128 modes)";
  return {};
}

}  // namespace

std::string cublaslt_fp8_unsupported(const GemmProblem& p) {
  if (!is_fp8(p.dtype)) return {};
  // cublasLtMatmul's FP8 requirements (https://docs.nvidia.com/cuda/cublas/#cublasltmatmul):
  // A and B e4m3 or e5m2 but not both e5m2 (its table of FP8 types has no E5M2 x E5M2 row;
  // PyTorch's _scaled_mm refuses the pair for that reason, "Type restrictions imposed by
  // CuBLASLt"), the TN format, CUBLAS_COMPUTE_32F, and the 16-byte alignment of "Tensor Core
  // Usage" for every matrix: K bytes per column of A and B, M * sizeof(C) per column of C. What
  // else cuBLASLt refuses for a pair with e5m2 (a scale mode, a C type) shows on the row as
  // cublasLtMatmulAlgoGetHeuristic's refusal (CublasLtGemm::tune).
  if (const std::string why = fp8_pair_unsupported(p.dtype, p.b_type()); !why.empty()) return why;
  if (p.layout != Layout::tn)
    return "FP8 runs only in the TN layout (cuBLASLt's FP8 kernels take A transposed, B not)";
  if (p.accum != Accum::f32) return "FP8 products accumulate in f32 (CUBLAS_COMPUTE_32F)";
  if (!out_valid_for(p.dtype, p.out)) return "C must be bf16, f16 or f32 with FP8 inputs";
  if (p.scale == ScaleMode::none) return "an FP8 problem needs a scale mode";
  if (p.k % 16 != 0)
    return "K must be a multiple of 16: cuBLASLt's FP8 kernels need 16-byte aligned columns "
           "of A and B (lda = ldb = K bytes)";
  const int c_bytes = dtype_bytes(p.out_type());
  if (p.m * c_bytes % 16 != 0)
    return fmt::format(
        "M must be a multiple of {}: cuBLASLt's FP8 kernels need 16-byte "
        "aligned columns of the {} C (ldc = M)",
        16 / c_bytes, to_string(p.out_type()));
  if (p.scale == ScaleMode::block128) return block128_unsupported(p);
  return {};
}

}  // namespace gemmbench
