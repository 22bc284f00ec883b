// Host side of the Hopper kernel's TMA: tensor maps (CUtensorMap) for the K-major and MN-major
// operands and for C's TMA stores, encoded by the driver's cuTensorMapEncodeTiled.
#include "common/sm90/tma_desc.hpp"

#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled_v12000
#include <cuda_runtime.h>

#include "core/cuda_check.hpp"

namespace gemmbench {
namespace {

using EncodeTiledFn = PFN_cuTensorMapEncodeTiled_v12000;

// cuTensorMapEncodeTiled from the driver, fetched once through the runtime: no link-time
// dependency on libcuda.
EncodeTiledFn tensor_map_encoder() {
  static const EncodeTiledFn fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult status{};
    CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000,
                                                cudaEnableDefault, &status));
    if (status != cudaDriverEntryPointSuccess || p == nullptr)
      throw CudaError("cuTensorMapEncodeTiled is not available from the installed CUDA driver");
    return reinterpret_cast<EncodeTiledFn>(p);
  }();
  return fn;
}

CUtensorMapDataType tensor_map_type(DType dtype) {
  if (is_fp8(dtype)) return CU_TENSOR_MAP_DATA_TYPE_UINT8;  // TMA moves bytes; wgmma reads FP8
  return dtype == DType::bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
}

}  // namespace

// A K-major operand stored (rows, K), K contiguous, as a 2D tensor map: dimension 0 = K,
// dimension 1 = rows; box (128 bytes of K, box_rows) lands as box_rows rows of 128 bytes,
// 128B-swizzled; out-of-bounds elements read as zero.
CUtensorMap make_kmajor_map(const void* base, DType dtype, int rows, int k, int box_rows) {
  CUtensorMap map;
  const cuuint64_t es = cuuint64_t(dtype_bytes(dtype));
  const cuuint64_t dims[2] = {cuuint64_t(k), cuuint64_t(rows)};
  const cuuint64_t strides[1] = {cuuint64_t(k) * es};  // bytes between rows: a multiple of 16
  const cuuint32_t box[2] = {cuuint32_t(128 / es), cuuint32_t(box_rows)};
  const cuuint32_t elem_strides[2] = {1, 1};
  CU_CHECK(tensor_map_encoder()(&map, tensor_map_type(dtype), 2, const_cast<void*>(base), dims,
                                strides, box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  return map;
}

CUtensorMap a_tail_map(const CUtensorMap& map_a, bool a_k_major, const void* base, DType dtype,
                       int m, int k, int slice_rows) {
  if (!a_k_major || m % slice_rows == 0) return map_a;
  return make_kmajor_map(base, dtype, m, k, m % slice_rows);
}

// An MN-major operand stored (K, mn) with mn contiguous (the A of NN/NT, the B of NT/TT) as a
// 2D tensor map: dimension 0 = mn, dimension 1 = K; box (64, box_k) lands as box_k K rows of 128
// bytes (64 mn elements), 128B-swizzled; out-of-bounds elements read as zero. Needs mn % 8 == 0.
CUtensorMap make_mnmajor_map(const void* base, DType dtype, int mn, int k, int box_k) {
  CUtensorMap map;
  const cuuint64_t dims[2] = {cuuint64_t(mn), cuuint64_t(k)};
  const cuuint64_t strides[1] = {cuuint64_t(mn) * 2};  // bytes between K rows
  const cuuint32_t box[2] = {64, cuuint32_t(box_k)};
  const cuuint32_t elem_strides[2] = {1, 1};
  CU_CHECK(tensor_map_encoder()(&map, tensor_map_type(dtype), 2, const_cast<void*>(base), dims,
                                strides, box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  return map;
}

// C (M,N) column-major as a 2D tensor map for TMA stores: dimension 0 = M (contiguous),
// dimension 1 = N; box (64, 64) read from a 128B-swizzled staging box (64 rows of 128 bytes, one
// per n). Needs M % 8 == 0 (16-byte column stride) and a 16-byte aligned base.
CUtensorMap make_c_store_map(void* base, DType dtype, int m, int n, int box) {
  CUtensorMap map;
  const cuuint64_t dims[2] = {cuuint64_t(m), cuuint64_t(n)};
  const cuuint64_t strides[1] = {cuuint64_t(m) * 2};  // bytes between columns
  const cuuint32_t box_dims[2] = {cuuint32_t(box), cuuint32_t(box)};
  const cuuint32_t elem_strides[2] = {1, 1};
  CU_CHECK(tensor_map_encoder()(&map, tensor_map_type(dtype), 2, base, dims, strides, box_dims,
                                elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  return map;
}

// Row-major f32 (rows, cols) as a 2D tensor map: dimension 0 = cols, dimension 1 = rows; box
// (box_cols, box_rows) unswizzled; out-of-bounds elements read as zero. Needs cols % 4 == 0.
CUtensorMap make_rowmajor_f32_map(const float* base, int rows, int cols, int box_cols,
                                  int box_rows) {
  CUtensorMap map;
  const cuuint64_t dims[2] = {cuuint64_t(cols), cuuint64_t(rows)};
  const cuuint64_t strides[1] = {cuuint64_t(cols) * 4};  // bytes between rows: a multiple of 16
  const cuuint32_t box[2] = {cuuint32_t(box_cols), cuuint32_t(box_rows)};
  const cuuint32_t elem_strides[2] = {1, 1};
  CU_CHECK(tensor_map_encoder()(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float*>(base),
                                dims, strides, box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  return map;
}

}  // namespace gemmbench
