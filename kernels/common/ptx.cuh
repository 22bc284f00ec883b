// The PTX instructions our kernels use, wrapped once (docs/contributing.md#kernels). Each wrapper
// states the operand layout beside it; kernels call these and never write inline asm of their own.
#pragma once

#include <cstdint>
#include <cuda_fp16.h>

#include "core/types.hpp"  // DType: the FP8 formats of the mixed mma kinds

namespace gemmbench::ptx {

// Shared-memory address of a generic pointer, as the 32-bit value PTX .shared operands expect.
__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// ---- cp.async (sm_80+): global -> shared without passing through registers -----------------
// cp.async.cg.shared.global [dst], [src], 16, src_bytes: copies src_bytes (0..16) and zero-fills
// the rest of the 16 bytes, so an out-of-bounds row is copied as zeros with src_bytes = 0 (src
// must still be a valid address; pass the tensor's base pointer).
__device__ __forceinline__ void cp_async_16(void* smem_dst, const void* gmem_src,
                                            int src_bytes = 16) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_u32(smem_dst)),
               "l"(gmem_src), "r"(src_bytes));
}
// 4-byte variant (.ca: .cg only takes 16), for operands whose rows are not 16-byte aligned.
__device__ __forceinline__ void cp_async_4(void* smem_dst, const void* gmem_src,
                                           int src_bytes = 4) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(smem_u32(smem_dst)),
               "l"(gmem_src), "r"(src_bytes));
}
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::);
}
// Wait until at most N committed groups are still in flight.
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

// ---- mbarrier (sm_80+; a 64-bit object in shared memory, `bar` its shared-window address) ---
// Counts arrivals in phases: a phase completes when its pending arrival count reaches 0 (on
// sm_90 also its transaction count, see sm90.cuh), and the barrier moves on to the next phase,
// whose parity is the opposite bit.
__device__ __forceinline__ void mbarrier_init(uint32_t bar, uint32_t arrivals) {
  asm volatile("mbarrier.init.shared.b64 [%0], %1;\n" ::"r"(bar), "r"(arrivals) : "memory");
}
// One arrival on this CTA's barrier (release: this thread's earlier accesses happen before).
__device__ __forceinline__ void mbarrier_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
// mbarrier_try_wait_parity's answer (below) without ever suspending the thread (test_wait): for a
// poll issued ahead of the wait it stands in for, with independent work between them
// (F2Mainloop::poll_next); sm_80's only form of the wait.
__device__ __forceinline__ bool mbarrier_test_wait_parity(uint32_t bar, uint32_t parity) {
  uint32_t done;
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "mbarrier.test_wait.parity.shared.b64 p, [%1], %2;\n"
      "selp.u32 %0, 1, 0, p;\n"
      "}\n"
      : "=r"(done)
      : "r"(bar), "r"(parity)
      : "memory");
  return done != 0;
}
// True once the phase with parity `parity` has completed, i.e. while the barrier's current phase
// has the other parity (acquire: what the arrivals released is visible after it). A fresh
// barrier is in phase 0, so waiting on parity 1 returns at once (the "phase before the first"
// counts as complete): that is how a producer treats every slot of a new ring as free. sm_90's
// try_wait may suspend the thread for a while before answering false; sm_80 has test_wait only.
__device__ __forceinline__ bool mbarrier_try_wait_parity(uint32_t bar, uint32_t parity) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  uint32_t done;
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "mbarrier.try_wait.parity.shared.b64 p, [%1], %2;\n"
      "selp.u32 %0, 1, 0, p;\n"
      "}\n"
      : "=r"(done)
      : "r"(bar), "r"(parity)
      : "memory");
  return done != 0;
#else
  return mbarrier_test_wait_parity(bar, parity);
#endif
}
__device__ __forceinline__ void mbarrier_wait_parity(uint32_t bar, uint32_t parity) {
  while (!mbarrier_try_wait_parity(bar, parity)) {
  }
}

// ---- Named barriers (sm_70+) ----------------------------------------------------------------
// bar.sync on barrier `id` (1..15; 0 is __syncthreads) for `threads` threads (a multiple of 32):
// lets a group of warps synchronise without stopping the others (a producer warp, another
// warpgroup). Every thread of each participating warp executes it (.aligned). Orders
// shared-memory accesses among the participants like __syncthreads does.
__device__ __forceinline__ void named_barrier_sync(uint32_t id, uint32_t threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

// ---- ldmatrix (sm_75+): shared -> registers, 8x8 b16 matrices ------------------------------
// Threads 8i..8i+7 give the addresses of the 8 rows (16 bytes each) of matrix i. Without .trans,
// thread t receives, for each matrix, the pair (row t/4, cols 2*(t%4), 2*(t%4)+1) packed in one
// 32-bit register; with .trans it receives (rows 2*(t%4), 2*(t%4)+1 of col t/4), i.e. the same
// fragment of the transposed matrix.
__device__ __forceinline__ void ldmatrix_x1(uint32_t& r0, const void* smem_row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\n"
               : "=r"(r0)
               : "r"(smem_u32(smem_row)));
}
__device__ __forceinline__ void ldmatrix_x2(uint32_t& r0, uint32_t& r1, const void* smem_row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
               : "=r"(r0), "=r"(r1)
               : "r"(smem_u32(smem_row)));
}
__device__ __forceinline__ void ldmatrix_x4(uint32_t& r0, uint32_t& r1, uint32_t& r2, uint32_t& r3,
                                            const void* smem_row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(smem_u32(smem_row)));
}
__device__ __forceinline__ void ldmatrix_x1_trans(uint32_t& r0, const void* smem_row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];\n"
               : "=r"(r0)
               : "r"(smem_u32(smem_row)));
}
__device__ __forceinline__ void ldmatrix_x2_trans(uint32_t& r0, uint32_t& r1,
                                                  const void* smem_row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
               : "=r"(r0), "=r"(r1)
               : "r"(smem_u32(smem_row)));
}
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t& r0, uint32_t& r1, uint32_t& r2,
                                                  uint32_t& r3, const void* smem_row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(smem_u32(smem_row)));
}

// ---- mma.sync m16n8k16 (sm_80+) ------------------------------------------------------------
// A fragment (16x16, row-major): a0..a3, each two halves; groupID g = lane/4, t = lane%4:
//   a0 = A[g][2t..2t+1], a1 = A[g+8][2t..2t+1], a2 = A[g][2t+8..], a3 = A[g+8][2t+8..].
// B fragment (16x8, "col"): b0 = B[2t..2t+1][g], b1 = B[2t+8..2t+9][g].
// C/D fragment (16x8): c0,c1 = C[g][2t..2t+1], c2,c3 = C[g+8][2t..2t+1]
//   (f32 accumulate: four floats; f16 accumulate: two registers of two halves each).
__device__ __forceinline__ void mma_m16n8k16_f32(float (&d)[4], const uint32_t (&a)[4],
                                                 const uint32_t (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
// ---- mma.sync m16n8k32, e4m3 inputs, f32 accumulate (sm_89+) ---------------------------------
// A fragment (16x32, row-major): a0..a3, each four e4m3; g = lane/4, t = lane%4:
//   a0 = A[g][4t..4t+3], a1 = A[g+8][4t..4t+3], a2 = A[g][16+4t..], a3 = A[g+8][16+4t..].
// B fragment (32x8, "col"): b0 = B[4t..4t+3][g], b1 = B[16+4t..16+4t+3][g].
// C/D fragment as mma_m16n8k16_f32. The caller compiles it for sm_89 and above only.
// One mma of FP8 kind KIND (".e4m3.e4m3", ".e4m3.e5m2", ".e5m2.e4m3": the A operand's format, then
// the B operand's; d, a, b are the caller's). The mixed kinds (PTX ISA, mma .m16n8k32, .atype and
// .btype each .e4m3 or .e5m2, sm_89+) take the fragments as above, four bytes of the operand's own
// format per register.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
#define GB_MMA_FP8(KIND)                                                      \
  asm volatile("mma.sync.aligned.m16n8k32.row.col.f32" KIND                   \
               ".f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n" \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])               \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]))
#else
#define GB_MMA_FP8(KIND) __trap()
#endif
__device__ __forceinline__ void mma_m16n8k32_e4m3_f32(float (&d)[4], const uint32_t (&a)[4],
                                                      const uint32_t (&b)[2]) {
  GB_MMA_FP8(".e4m3.e4m3");
}
// The kind of a pair of formats, for kernels templated on it: A, B the mma's operands' types
// (whichever GEMM operand the caller puts there; e5m2 x e5m2 has no instance: nothing runs it,
// core/types.hpp fp8_pair_unsupported).
template <DType A, DType B>
__device__ __forceinline__ void mma_m16n8k32_fp8_f32(float (&d)[4], const uint32_t (&a)[4],
                                                     const uint32_t (&b)[2]) {
  static_assert(is_fp8(A) && is_fp8(B) && !(A == DType::e5m2 && B == DType::e5m2),
                "e4m3 x e4m3, e4m3 x e5m2 or e5m2 x e4m3");
  if constexpr (A == DType::e4m3 && B == DType::e4m3)
    GB_MMA_FP8(".e4m3.e4m3");
  else if constexpr (A == DType::e4m3)
    GB_MMA_FP8(".e4m3.e5m2");
  else
    GB_MMA_FP8(".e5m2.e4m3");
}
#undef GB_MMA_FP8
// bf16 inputs, f32 accumulate (operand layout as mma_m16n8k16_f32); used by `inspect mma-peak`.
__device__ __forceinline__ void mma_m16n8k16_bf16_f32(float (&d)[4], const uint32_t (&a)[4],
                                                      const uint32_t (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
__device__ __forceinline__ void mma_m16n8k16_f16(uint32_t (&d)[2], const uint32_t (&a)[4],
                                                 const uint32_t (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, "
      "{%0,%1};\n"
      : "+r"(d[0]), "+r"(d[1])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// ---- Variants on 32-bit shared addresses ------------------------------------------------------
// Same instructions as above; the kernel keeps shared addresses as uint32_t (a stage base plus
// per-lane offsets computed once), so no generic->shared conversion sits in the mainloop.
__device__ __forceinline__ void cp_async_16(uint32_t smem_dst, const void* gmem_src,
                                            int src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_dst), "l"(gmem_src),
               "r"(src_bytes));
}
// Unpredicated: all 16 bytes are copied (no src-size operand, so ptxas needs no predicate).
__device__ __forceinline__ void cp_async_16(uint32_t smem_dst, const void* gmem_src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_dst), "l"(gmem_src));
}
// Operand layout as ldmatrix_x4 / ldmatrix_x4_trans above: lanes 8i..8i+7 address the 8 rows of
// matrix i, register ri receives matrix i.
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t smem_row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_row));
}
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], uint32_t smem_row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_row));
}

}  // namespace gemmbench::ptx
