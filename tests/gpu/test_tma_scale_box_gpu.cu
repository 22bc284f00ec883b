// The box of A's block scales that fp8gemm_sm90_persistent_t_m256c2ts loads with each stage,
// alone: one CTA TMA-loads a box of make_rowmajor_f32_map(scale_a, M, KB, 4, ROWS) (the kernel's
// map of the row-major [M, KB] scale_a the runner hands it; ROWS 256, the tile's rows, which every
// CTA of a cluster loads whole) at (rowmajor_f32_box_col(k), m0), as the kernel's producer does for
// k-block k of the tile at m0, into shared memory poisoned with NaN, and every float that lands is
// checked: scale_a's (rows past M as zeros), and k-block k's in the column the consumers read,
// k - rowmajor_f32_box_col(k). Over every k-block and ROWS-row tile of (M, KB) pairs with M below
// a tile, M past one, KB = 4 and the kernel tests' K % 512 == 0 shapes; at ROWS 64 too (the box of
// _m64ts, exp-m64-tma-scales, whose first GPU run this test was written after).
// And the TMA rule that placement follows: a box whose first column is not a multiple of 4 (not
// 16-byte aligned) ends the context with an illegal instruction, as _m64ts's first run did with a
// box at every k-block; checked in a child process (a death test), whose context is the one lost.
// Its own binary, so that a fault here cannot take the kernel suites' context with it.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "common/ptx.cuh"
#include "common/sm90.cuh"
#include "common/sm90/image.hpp"
#include "common/sm90/tma_desc.hpp"
#include "core/cuda_check.hpp"
#include "core/device_caps.hpp"
#include "device/buffer.hpp"
#include "gpu_test_util.hpp"

using namespace gemmbench;

namespace {

// The kernels' boxes (F3Cfg<BM, ..., TMA_SCALES>: SA_BOX_KB k-blocks by BM rows): _m256c2ts's
// 256 rows (TMA's largest box dimension), and _m64ts's 64.
constexpr int kBoxCols = 4, kTallRows = 256, kNarrowRows = 64;
// Functions rather than variable templates: clang-format 14 reads a variable template's product
// as a declaration ('kBoxCols* ROWS'), as in grouped.cu's box check.
__host__ __device__ constexpr int box_floats(int rows) {
  return kBoxCols * rows;
}
__host__ __device__ constexpr uint32_t box_bytes(int rows) {
  return uint32_t(box_floats(rows)) * 4;
}
constexpr int kThreads = 128;
constexpr size_t smem_bytes(int rows) {
  return box_bytes(rows) + 1024;  // the box at a 1024-byte aligned offset
}

// The box at (c0, c1) into (ROWS, kBoxCols) floats of `out`; *landed = 1 once its barrier
// completed. The slot is poisoned with NaN first (each writer's fence orders its stores before
// the copy's async-proxy writes).
template <int ROWS>
__global__ void load_scale_box(const __grid_constant__ CUtensorMap map, int c0, int c1, float* out,
                               int* landed) {
#if GEMMBENCH_SM90A
  constexpr int kFloats = box_floats(ROWS);
  __shared__ alignas(8) uint64_t bar;
  extern __shared__ uint8_t smem_raw[];
  const uint32_t box = (ptx::smem_u32(smem_raw) + 1023u) & ~1023u;  // (ROWS, 4) f32, unswizzled
  const uint32_t bar_addr = ptx::smem_u32(&bar);
  for (int i = threadIdx.x; i < kFloats; i += kThreads)
    sm90::st_shared_f32(box + 4 * uint32_t(i), NAN);
  sm90::fence_proxy_async_shared();
  if (threadIdx.x == 0) {
    sm90::mbarrier_init(bar_addr, 1);
    sm90::fence_barrier_init();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    sm90::mbarrier_arrive_expect_tx(bar_addr, box_bytes(ROWS));
    sm90::tma_load_2d(box, &map, bar_addr, c0, c1);
  }
  bool done = false;  // a bounded wait: a load that never completes fails the test, not hangs it
  for (int i = 0; i < (1 << 22) && !done; ++i) done = ptx::mbarrier_try_wait_parity(bar_addr, 0);
  if (!done) return;
  for (int i = threadIdx.x; i < kFloats; i += kThreads)
    out[i] = sm90::ld_shared_f32(box + 4 * uint32_t(i));
  if (threadIdx.x == 0) *landed = 1;
#else
  __trap();
#endif
}

// Empty when this device runs the sm_90a kernel above, else why not.
std::string no_tma_reason() {
  const DeviceCaps caps = current_device_caps();
  if (caps.sm != 90)
    return "needs an sm_90 device (TMA, and the sm_90a image), have sm_" + std::to_string(caps.sm);
  return sm90a_image_unsupported(reinterpret_cast<const void*>(&load_scale_box<kTallRows>),
                                 smem_bytes(kTallRows), caps);
}

#define REQUIRE_TMA()                                                 \
  do {                                                                \
    GEMMBENCH_REQUIRE_GPU();                                          \
    const std::string why_ = no_tma_reason();                         \
    if (!why_.empty()) GTEST_SKIP() << why_ << " (GPU test skipped)"; \
  } while (0)

// A row-major [M, KB] scale_a of distinct, exactly representable values.
std::vector<float> scale_values(int m, int kb) {
  std::vector<float> s(size_t(m) * kb);
  for (int r = 0; r < m; ++r)
    for (int c = 0; c < kb; ++c) s[size_t(r) * kb + c] = float(r) * 1000.f + float(c) + 0.25f;
  return s;
}

struct Landed {
  cudaError_t error = cudaSuccess;
  bool landed = false;
  std::vector<float> box;  // (ROWS, kBoxCols)
};

// One launch of load_scale_box on the map of `scale` (device, [m, kb]) at (c0, c1).
template <int ROWS>
Landed load_box(const float* scale, int m, int kb, int c0, int c1) {
  const CUtensorMap map = make_rowmajor_f32_map(scale, m, kb, kBoxCols, ROWS);
  constexpr uint32_t kBytes = box_bytes(ROWS);
  DeviceBuffer out(kBytes), landed(sizeof(int));
  CUDA_CHECK(cudaMemset(out.get(), 0xff, kBytes));  // NaN, should the copy-out be skipped
  CUDA_CHECK(cudaMemset(landed.get(), 0, sizeof(int)));
  load_scale_box<ROWS>
      <<<1, kThreads, smem_bytes(ROWS)>>>(map, c0, c1, out.as<float>(), landed.as<int>());
  Landed r;
  r.error = cudaGetLastError();
  if (r.error == cudaSuccess) r.error = cudaDeviceSynchronize();
  if (r.error != cudaSuccess) return r;
  int flag = 0;
  CUDA_CHECK(cudaMemcpy(&flag, landed.get(), sizeof(int), cudaMemcpyDeviceToHost));
  r.landed = flag == 1;
  r.box.resize(box_floats(ROWS));
  CUDA_CHECK(cudaMemcpy(r.box.data(), out.get(), kBytes, cudaMemcpyDeviceToHost));
  return r;
}

struct ScaleShape {
  int m, kb;
};
// _m256c2ts's boxes: M < 256 (one partial tile) with KB = 4 (a box as wide as the tensor), M = 256
// exactly, M past a tile, and the (M, K / 128) of test_kernels' shapes for it (200x264x512,
// 300x520x2048, 520x136x1024, 130x264x3584, and 1024x8x2048, 392x776x512 of the common shapes).
const std::vector<ScaleShape> kTallShapes = {{9, 4},   {200, 4},  {256, 4},   {257, 8}, {300, 16},
                                             {520, 8}, {130, 28}, {1024, 16}, {392, 4}};
// _m64ts's: M < 64 with KB = 4, M = 64 exactly, M past a tile, and its test_kernels shapes then
// (100x1000x1024, 130x264x3584, 37x520x2048, 50x7168x512).
const std::vector<ScaleShape> kNarrowShapes = {{9, 4},   {50, 4},  {64, 4},   {65, 8},
                                               {100, 8}, {37, 16}, {130, 28}, {264, 12}};

// Every k-block of every ROWS-row tile of each shape: the box lands whole, and k-block k's
// column holds scale_a's k-th column.
template <int ROWS>
void check_every_box(const std::vector<ScaleShape>& shapes) {
  for (const ScaleShape& sh : shapes) {
    const std::vector<float> host = scale_values(sh.m, sh.kb);
    DeviceBuffer scale(host.size() * sizeof(float));
    CUDA_CHECK(
        cudaMemcpy(scale.get(), host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
    for (int m0 = 0; m0 < sh.m; m0 += ROWS)
      for (int k = 0; k < sh.kb; ++k) {
        SCOPED_TRACE("box rows " + std::to_string(ROWS) + ", M " + std::to_string(sh.m) + ", KB " +
                     std::to_string(sh.kb) + ", rows " + std::to_string(m0) + ", k-block " +
                     std::to_string(k));
        const int c0 = rowmajor_f32_box_col(k);
        ASSERT_EQ(c0 % 4, 0);
        ASSERT_TRUE(c0 <= k && k < c0 + kBoxCols) << "the box holds k-block k";
        const Landed got = load_box<ROWS>(scale.as<float>(), sh.m, sh.kb, c0, m0);
        ASSERT_EQ(got.error, cudaSuccess) << cudaGetErrorName(got.error);
        ASSERT_TRUE(got.landed) << "the box's barrier never completed";
        int wrong = 0;
        for (int r = 0; r < ROWS; ++r)
          for (int c = 0; c < kBoxCols; ++c) {
            const int row = m0 + r, col = c0 + c;
            const float want = row < sh.m ? host[size_t(row) * sh.kb + col] : 0.f;
            const float have = got.box[size_t(r) * kBoxCols + c];
            if (std::memcmp(&want, &have, sizeof(float)) != 0 && ++wrong <= 4)
              ADD_FAILURE() << "row " << row << ", column " << col << ": " << have << ", want "
                            << want;
          }
        EXPECT_EQ(wrong, 0);
        // What a consumer reads for k-block k: its column of the box.
        for (int r = 0; r < ROWS && m0 + r < sh.m; ++r)
          ASSERT_EQ(got.box[size_t(r) * kBoxCols + (k - c0)], host[size_t(m0 + r) * sh.kb + k])
              << "row " << m0 + r;
      }
  }
}

TEST(TmaScaleBox, EveryKBlockLandsWhereTheConsumersReadIt) {
  REQUIRE_TMA();
  check_every_box<kTallRows>(kTallShapes);
}

TEST(TmaScaleBox, NarrowBoxToo) {
  REQUIRE_TMA();
  check_every_box<kNarrowRows>(kNarrowShapes);
}

// In the child: a box one column (4 bytes) past a 16-byte boundary; exits 0 on the illegal
// instruction, 1 on anything else, saying which.
void load_unaligned_box_and_exit() {
  const std::vector<float> host = scale_values(300, 8);
  DeviceBuffer scale(host.size() * sizeof(float));
  CUDA_CHECK(
      cudaMemcpy(scale.get(), host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
  const Landed got = load_box<kTallRows>(scale.as<float>(), 300, 8, 1, 0);
  std::fprintf(stderr, "box at column 1: %s%s\n", cudaGetErrorName(got.error),
               got.error == cudaSuccess ? (got.landed ? ", landed" : ", never landed") : "");
  std::exit(got.error == cudaErrorIllegalInstruction ? 0 : 1);
}

TEST(TmaScaleBoxDeathTest, BoxOffA16ByteColumnIsAnIllegalInstruction) {
  REQUIRE_TMA();
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // the child starts its own CUDA context
  EXPECT_EXIT(load_unaligned_box_and_exit(), ::testing::ExitedWithCode(0),
              "box at column 1: cudaErrorIllegalInstruction");
}

}  // namespace
