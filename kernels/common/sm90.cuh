// The Hopper (sm_90a) PTX our kernels use, wrapped once (docs/contributing.md#kernels), with the
// operand layouts beside each: the wgmma shared-memory matrix descriptor, wgmma.mma_async and its
// fence/commit/wait, mbarrier, the TMA tensor copy (cp.async.bulk.tensor loads, with cluster
// multicast, and stores with their bulk groups), stmatrix, named barriers, GPU-scope
// release/acquire flags, cluster barriers and setmaxnreg.
//
// wgmma and setmaxnreg exist only in the arch-specific sm_90a target, so the device wrappers are
// compiled only in that pass (GEMMBENCH_SM90A below). A kernel that uses them wraps its body in
// `#if GEMMBENCH_SM90A` and traps in every other pass (sm_80, plain sm_90, the host pass); its
// supports() tells the runner which image the driver picked (see kernels/hgemm/sm90/launch.cuh).
// The descriptor encoding is host+device so that a host test can check it.
#pragma once

#include <cuda.h>  // CUtensorMap (a type only: nothing here links against libcuda)
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "common/hd.hpp"
#include "common/ptx.cuh"

// nvcc defines __CUDA_ARCH_FEAT_SM90_ALL only in the -gencode arch=compute_90a pass (checked with
// nvcc 13.0: absent for compute_90 and compute_80, and in the host pass).
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define GEMMBENCH_SM90A 1
#else
#define GEMMBENCH_SM90A 0
#endif

namespace gemmbench::sm90 {

// ---- wgmma shared-memory matrix descriptor (64 bits) -----------------------------------------
// PTX ISA "Matrix Descriptor Format" (asynchronous warpgroup-level matrix shared memory layout):
//   bits  0-13  start address >> 4          (shared-window byte address, 16-byte units)
//   bits 16-29  leading dimension byte offset >> 4
//   bits 32-45  stride dimension byte offset >> 4
//   bits 49-51  matrix base offset           (0 when the start sits in the first 128 B of a
//                                              1024-byte-aligned swizzle pattern)
//   bits 62-63  swizzle mode: 0 none, 1 = 128B, 2 = 64B, 3 = 32B
// This helper describes a K-major operand stored as TMA's SWIZZLE_128B writes it: rows of 64
// 16-bit elements (128 B) back to back, the 16-byte chunk c of row r at chunk c ^ (r % 8), the
// tile starting on a 1024-byte boundary. The canonical unit is 8 rows x 128 B (1024 B); SBO is
// the distance between consecutive 8-row groups along M/N (1024 B). LBO is not used by swizzled
// K-major layouts whose K extent per instruction (16 elements = 32 B) stays inside one 128-byte
// row; it is set to 1 as CUTLASS does. Advancing K by 16 elements inside the 128-byte row adds
// 32 B to the start address (+2 in the encoded field): the hardware applies the XOR swizzle to
// the final address bits, which is why the tile must be 1024-byte aligned.
inline constexpr uint64_t kWgmmaDescSwizzle128B = uint64_t(1) << 62;
inline constexpr uint32_t kSw128RowBytes = 128;    // one row of the swizzle atom
inline constexpr uint32_t kSw128AtomBytes = 1024;  // 8 rows: the unit SBO steps over

GB_HD constexpr uint64_t wgmma_desc_sw128_kmajor(uint32_t smem_addr) {
  return kWgmmaDescSwizzle128B                     // 128-byte swizzle
         | (uint64_t(kSw128AtomBytes >> 4) << 32)  // SBO = 1024 B
         | (uint64_t(1) << 16)                     // LBO: unused here, 1 by convention
         | uint64_t((smem_addr & 0x3FFFFu) >> 4);  // start address
}
// The descriptor of the same tile advanced by `bytes` along K inside the 128-byte row
// (bytes = 32 * k for the k-th k16 step of 16-bit elements).
GB_HD constexpr uint64_t wgmma_desc_advance(uint64_t desc, uint32_t bytes) {
  return desc + uint64_t(bytes >> 4);
}
// A tile at shared offset 0x400: start 0x40, LBO 1, SBO 64 (1024 B), swizzle mode 1 (128B).
static_assert(wgmma_desc_sw128_kmajor(0x400) == 0x4000004000010040ull, "descriptor layout");
static_assert(wgmma_desc_advance(wgmma_desc_sw128_kmajor(0x400), 32) == 0x4000004000010042ull,
              "k16 step inside the 128-byte row: +32 B");

// An MN-major operand (M- or N-contiguous: the A of NN/NT, the B of NT/TT) as TMA's SWIZZLE_128B
// writes a box of 64 MN elements x K rows: K row r is 128 bytes holding 64 consecutive M (or N)
// elements, its 16-byte chunk c at chunk c ^ (r % 8); an operand wider than 64 is several such
// blocks, block_bytes apart. In elements, the canonical layout wgmma reads with imm-trans = 1
// (CUTLASS's GMMA Layout_MN_SW128_Atom) is ((8, 8, blocks), (8, groups)) : ((1, 8, LBO), (64,
// SBO)): LBO = block_bytes between the 64-element blocks along MN, SBO = 1024 B between 8-row
// groups along K. A k16 step advances 16 K rows: 2048 B, two whole swizzle periods
// (wgmma_desc_advance).
inline constexpr uint32_t kSw128MnK16StepBytes = 16 * kSw128RowBytes;

GB_HD constexpr uint64_t wgmma_desc_sw128_mnmajor(uint32_t smem_addr, uint32_t block_bytes) {
  return kWgmmaDescSwizzle128B                             // 128-byte swizzle
         | (uint64_t(kSw128AtomBytes >> 4) << 32)          // SBO = 1024 B (8 K rows)
         | (uint64_t((block_bytes >> 4) & 0x3FFFu) << 16)  // LBO = MN block stride
         | uint64_t((smem_addr & 0x3FFFFu) >> 4);          // start address
}
// Blocks of 64 K rows (8 KB) at shared offset 0x400: start 0x40, LBO 512 (8192 B), SBO 64.
static_assert(wgmma_desc_sw128_mnmajor(0x400, 8192) == 0x4000004002000040ull,
              "MN-major descriptor layout");

#if GEMMBENCH_SM90A

// ---- Warp-uniform values -------------------------------------------------------------------
// v as lane 0 holds it: a value the compiler then knows is the same across the warp. A consumer
// warpgroup's index computed from threadIdx.x is not, so the wgmma descriptors built from it
// (with the ring's stage) were per-thread registers moved over by R2UR before every wgmma; read
// through this they are built in uniform registers (docs/fp8.md, "Step 3, uniform descriptors").
__device__ __forceinline__ int warp_uniform(int v) {
  return __shfl_sync(0xffffffffu, v, 0);
}

// ---- Cluster -------------------------------------------------------------------------------
// Rank of this CTA in its cluster (0 .. cluster size - 1).
__device__ __forceinline__ uint32_t cluster_ctarank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return r;
}
// CTAs in this CTA's cluster (1 for a launch without clusters).
__device__ __forceinline__ uint32_t cluster_nctarank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_nctarank;\n" : "=r"(r));
  return r;
}
// 16 bytes into CTA `cta`'s shared memory at the offset `addr` has in this CTA's (distributed
// shared memory: mapa turns the local address into that CTA's shared::cluster address). Visible
// to the peer after a cluster barrier (release/acquire) between the store and its load.
__device__ __forceinline__ void st_shared_cluster_v4(uint32_t addr, uint32_t cta, uint4 v) {
  asm volatile(
      "{\n"
      ".reg .b32 remote;\n"
      "mapa.shared::cluster.u32 remote, %0, %1;\n"
      "st.shared::cluster.v4.u32 [remote], {%2, %3, %4, %5};\n"
      "}\n" ::"r"(addr),
      "r"(cta), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
      : "memory");
}
// 4 bytes into this CTA's shared memory.
__device__ __forceinline__ void st_shared_f32(uint32_t addr, float v) {
  asm volatile("st.shared.f32 [%0], %1;\n" ::"r"(addr), "f"(v) : "memory");
}
// 4 bytes of this CTA's shared memory. Volatile, with a memory clobber: it stays after the
// mbarrier wait that makes what it reads visible (a TMA load's bytes).
__device__ __forceinline__ float ld_shared_f32(uint32_t addr) {
  float v;
  asm volatile("ld.shared.f32 %0, [%1];\n" : "=f"(v) : "r"(addr) : "memory");
  return v;
}
// 16 bytes of this CTA's shared memory.
__device__ __forceinline__ uint4 ld_shared_v4(uint32_t addr) {
  uint4 v;
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "r"(addr)
               : "memory");
  return v;
}
// Whole-cluster barrier: every thread of every CTA of the cluster arrives, then waits. Release/
// acquire order each thread's earlier shared-memory accesses (and mbarrier inits, after
// fence_barrier_init) before its peers' later ones. `.aligned`: all threads of a warp execute it
// together.
__device__ __forceinline__ void cluster_sync() {
  asm volatile(
      "barrier.cluster.arrive.release.aligned;\n"
      "barrier.cluster.wait.acquire.aligned;\n" ::
          : "memory");
}

// ---- Fences --------------------------------------------------------------------------------
// Makes mbarrier.init visible to the other CTAs of the cluster and to the async proxy (TMA
// complete_tx); follow it with a CTA or cluster barrier before anyone uses the barriers.
__device__ __forceinline__ void fence_barrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
// Orders this thread's generic-proxy shared-memory accesses before later async-proxy ones (TMA,
// wgmma operand reads) that a barrier makes depend on them.
__device__ __forceinline__ void fence_proxy_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// ---- mbarrier, Hopper additions (init, arrive and the parity waits are in ptx.cuh) ------------
// A phase completes when its pending arrival count reaches 0 AND its transaction count (bytes
// announced by expect_tx minus bytes delivered by complete_tx) is 0; the barrier then moves to
// the next phase, whose parity is the opposite bit.
using ptx::mbarrier_arrive;
using ptx::mbarrier_init;
using ptx::mbarrier_test_wait_parity;
using ptx::mbarrier_wait_parity;
using ptx::named_barrier_sync;

// One arrival, and `bytes` more expected from complete_tx (TMA) in the current phase.
__device__ __forceinline__ void mbarrier_arrive_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
               : "memory");
}
// One arrival on the barrier at the same shared offset in CTA `cta` of the cluster (mapa turns the
// local address into that CTA's shared::cluster address; `cta` may be this CTA's own rank).
// Default semantics (release at CTA scope), as CUTLASS's ClusterBarrier uses: the arrival only
// has to follow the completion of this warpgroup's wgmma reads (wgmma_wait_group), not publish
// generic stores. `.release.cluster` would cost a MEMBAR.ALL.GPU per arrival (seen in SASS),
// which stalls the warp that must issue the next wgmma.
__device__ __forceinline__ void mbarrier_arrive_cluster(uint32_t bar, uint32_t cta) {
  asm volatile(
      "{\n"
      ".reg .b32 remote;\n"
      "mapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n"
      "}\n" ::"r"(bar),
      "r"(cta)
      : "memory");
}
// ---- TMA: cp.async.bulk.tensor, 2D tile, global -> shared ----------------------------------
// Copies the box the tensor map declares (boxDim[0] elements along the contiguous dimension x
// boxDim[1] rows) whose first element is at coordinates (c0 = along the contiguous dimension,
// c1 = row), in elements, into shared memory at `dst` laid out as the map's swizzle mode says.
// Elements outside the tensor are written as zeros and still count as delivered bytes, so the
// barrier's expected bytes are always the full box. Completion: complete_tx of the box's bytes
// on the mbarrier `bar`. `dst` must be 128-byte aligned (1024 for SWIZZLE_128B to keep the
// pattern's phase).
__device__ __forceinline__ void tma_load_2d(uint32_t dst, const CUtensorMap* map, uint32_t bar,
                                            int c0, int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4}], [%2];\n" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(bar), "r"(c0), "r"(c1)
      : "memory");
}
// The same box delivered to every CTA whose bit is set in `cta_mask` (bit i = cluster rank i),
// at the same shared offset `dst` in each, completing on the mbarrier at offset `bar` in each.
__device__ __forceinline__ void tma_load_2d_multicast(uint32_t dst, const CUtensorMap* map,
                                                      uint32_t bar, uint16_t cta_mask, int c0,
                                                      int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      ".multicast::cluster [%0], [%1, {%4, %5}], [%2], %3;\n" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(bar), "h"(cta_mask), "r"(c0), "r"(c1)
      : "memory");
}
// Pulls a tensor map (a __grid_constant__ kernel parameter) into the descriptor cache early.
__device__ __forceinline__ void tma_prefetch_descriptor(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
}

// ---- TMA: cp.async.bulk.tensor, 2D tile, shared -> global (store) ----------------------------
// Writes the box the tensor map declares from shared memory at `src` (laid out as the map's
// swizzle mode says; 1024-byte aligned for SWIZZLE_128B) to the tensor at coordinates (c0 along
// the contiguous dimension, c1 = row), in elements. Elements of the box outside the tensor are not
// written (the copy engine clips), so edge tiles need no predication. Asynchronous: the copy
// belongs to this thread's bulk async-group once bulk_commit_group() closes it, and only the
// issuing thread can wait for it. The shared-memory writes it reads must be made visible to the
// async proxy first (fence_proxy_async_shared in every writing thread, then a barrier).
__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, uint32_t src, int c0, int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];\n" ::"l"(
          reinterpret_cast<uint64_t>(map)),
      "r"(src), "r"(c0), "r"(c1)
      : "memory");
}
// Closes the bulk copies this thread issued since its last commit into one bulk async-group.
__device__ __forceinline__ void bulk_commit_group() {
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}
// Waits until at most N of this thread's bulk groups still READ their shared-memory source: the
// buffers of all older groups may be overwritten (their global writes may still be in flight).
template <int N>
__device__ __forceinline__ void bulk_wait_group_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}
// Waits until at most N of this thread's bulk groups are incomplete (global writes done).
template <int N>
__device__ __forceinline__ void bulk_wait_group() {
  asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(N) : "memory");
}

// ---- stmatrix: registers -> shared memory, four 8x8 matrices of 16-bit elements --------------
// The inverse of ldmatrix.x4 (sm_90). Register r_i of lane L holds row L/4, columns 2(L%4) and
// 2(L%4)+1 of matrix i (low half = the even column): the mma/wgmma accumulator fragment of an 8x8
// block. Lanes 8i..8i+7 give the shared addresses of rows 0..7 of matrix i; each row is written as
// 16 contiguous bytes (16-byte aligned). `.aligned`: all 32 lanes execute it together.
// TRANS (.trans): each 8x8 matrix is stored transposed, so the row that lane 8i + r addresses
// receives column r of matrix i (one value from each of the eight row pairs): a fragment block
// whose rows are M and columns N lands as 8 rows of N, each 16 contiguous bytes along M.
template <bool TRANS = false>
__device__ __forceinline__ void stmatrix_x4(uint32_t smem_row, uint32_t r0, uint32_t r1,
                                            uint32_t r2, uint32_t r3) {
  if constexpr (TRANS)
    asm volatile(
        "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(smem_row),
        "r"(r0), "r"(r1), "r"(r2), "r"(r3)
        : "memory");
  else
    asm volatile(
        "stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(smem_row),
        "r"(r0), "r"(r1), "r"(r2), "r"(r3)
        : "memory");
}

// ---- GPU-scope flags (inter-CTA hand-off through global memory) -------------------------------
// The release store publishes, at GPU scope, every write that happens before it: this thread's
// own, and those of the threads it synchronised with through a barrier just before (release is
// cumulative). The acquire load that reads the value makes those writes visible to this thread,
// and, through a barrier right after it, to the threads of that barrier. The pattern: writers
// store, bar.sync, one thread st_release_gpu; the reader's one thread spins on ld_acquire_gpu,
// bar.sync, then all read (with loads that skip L1, e.g. __ldcg).
__device__ __forceinline__ void st_release_gpu(uint32_t* p, uint32_t v) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;\n" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ uint32_t ld_acquire_gpu(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// ---- setmaxnreg: move registers between warpgroups ------------------------------------------
// Every warp of the warpgroup executes it (.sync.aligned), in a warpgroup-uniform branch; it
// takes effect only in a kernel with a register cap at entry (__launch_bounds__(threads, 1)).
// REGS is a multiple of 8 in [24, 256].
template <int REGS>
__device__ __forceinline__ void setmaxnreg_inc() {
  static_assert(REGS % 8 == 0 && REGS >= 24 && REGS <= 256, "setmaxnreg takes 24..256, step 8");
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(REGS));
}
template <int REGS>
__device__ __forceinline__ void setmaxnreg_dec() {
  static_assert(REGS % 8 == 0 && REGS >= 24 && REGS <= 256, "setmaxnreg takes 24..256, step 8");
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(REGS));
}

// ---- wgmma.mma_async: fence / commit / wait -------------------------------------------------
// All 128 threads of the warpgroup execute each of these together (.sync.aligned).
// wgmma_fence: orders earlier register accesses (the epilogue reading the accumulators, their
// zeroing) before the next wgmma.mma_async that uses those registers.
__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
// Closes the group of wgmma.mma_async issued since the last commit.
__device__ __forceinline__ void wgmma_commit_group() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
// Waits until at most N committed groups are pending: after wgmma_wait_group<N>(), every group
// but the newest N has finished reading shared memory and writing its accumulators.
template <int N>
__device__ __forceinline__ void wgmma_wait_group() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
// Compiler-only fence on one accumulator register: the empty volatile asm "rewrites" it, so the
// compiler neither reads it before an earlier wgmma_wait_group nor moves writes across it.
__device__ __forceinline__ void fence_operand(float& r) {
  asm volatile("" : "+f"(r)::"memory");
}
__device__ __forceinline__ void fence_operand(uint32_t& r) {
  asm volatile("" : "+r"(r)::"memory");
}

// ---- wgmma.mma_async m64nNk16, A and B from shared memory -----------------------------------
// D(64 x N) (+)= A(64 x 16) * B(16 x N), issued by one warpgroup. desc_a describes A, desc_b B.
// TRANS_A / TRANS_B are the instruction's imm-trans-a / imm-trans-b: 0 for a K-major operand
// (64 or N rows of K-contiguous data, wgmma_desc_sw128_kmajor), 1 for an MN-major one (K rows
// of M- or N-contiguous data, wgmma_desc_sw128_mnmajor); 16-bit inputs only, as here.
// scale_d = 0 ignores D's old value (D = A*B: no zeroing needed), 1 accumulates.
// Accumulator fragment (CUTLASS CLayout_64xN): thread t of the warpgroup, warp w = t / 32,
// g = (t % 32) / 4, q = t % 4. f32: d[4*j + 2*h + e] = D[16*w + 8*h + g][8*j + 2*q + e]
// (j < N/8, h, e in {0,1}). f16: register d[2*j + h] packs the same two elements (e = 0 in the
// low half, e = 1 in the high half).
#define GB_WGMMA_REGS_32                                                           \
  "{"                                                                              \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "         \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31" \
  "}"
#define GB_WGMMA_REGS_64                                                             \
  "{"                                                                                \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "           \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"   \
  "}"
#define GB_WGMMA_REGS_128                                                                          \
  "{"                                                                                              \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "                         \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "               \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "               \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "               \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "               \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "               \
  "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "   \
  "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127" \
  "}"
#define GB_WGMMA_REGS_48                                                             \
  "{"                                                                                \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "           \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47"   \
  "}"
#define GB_WGMMA_REGS_96                                                             \
  "{"                                                                                \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "           \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, " \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95"   \
  "}"
#define GB_WGMMA_F8(d, i)                                                                         \
  "+f"(d[i + 0]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), \
      "+f"(d[i + 6]), "+f"(d[i + 7])
#define GB_WGMMA_F32(d, i) \
  GB_WGMMA_F8(d, i), GB_WGMMA_F8(d, i + 8), GB_WGMMA_F8(d, i + 16), GB_WGMMA_F8(d, i + 24)
#define GB_WGMMA_R8(d, i)                                                                         \
  "+r"(d[i + 0]), "+r"(d[i + 1]), "+r"(d[i + 2]), "+r"(d[i + 3]), "+r"(d[i + 4]), "+r"(d[i + 5]), \
      "+r"(d[i + 6]), "+r"(d[i + 7])
#define GB_WGMMA_R32(d, i) \
  GB_WGMMA_R8(d, i), GB_WGMMA_R8(d, i + 8), GB_WGMMA_R8(d, i + 16), GB_WGMMA_R8(d, i + 24)

#define GB_WGMMA_REGS_16                                                 \
  "{"                                                                    \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15" \
  "}"
#define GB_WGMMA_REGS_4 "{%0, %1, %2, %3}"
#define GB_WGMMA_REGS_8 "{%0, %1, %2, %3, %4, %5, %6, %7}"
#define GB_WGMMA_REGS_12 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11}"
#define GB_WGMMA_REGS_20                                                                     \
  "{"                                                                                        \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19" \
  "}"
#define GB_WGMMA_REGS_24                                                                       \
  "{"                                                                                          \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, " \
  "%20, "                                                                                      \
  "%21, %22, %23"                                                                              \
  "}"
#define GB_WGMMA_REGS_28                                                                       \
  "{"                                                                                          \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, " \
  "%20, "                                                                                      \
  "%21, %22, %23, %24, %25, %26, %27"                                                          \
  "}"
#define GB_WGMMA_F16(d, i) GB_WGMMA_F8(d, i), GB_WGMMA_F8(d, i + 8)
#define GB_WGMMA_R16(d, i) GB_WGMMA_R8(d, i), GB_WGMMA_R8(d, i + 8)

// f32 accumulate; T = __half or __nv_bfloat16 inputs; N = 32, 64 (the decode tiles: wgmma N =
// the few tokens), 128, 192 or 256.
template <int N, class T, int TRANS_A = 0, int TRANS_B = 0>
__device__ __forceinline__ void wgmma_m64k16_f32(float (&d)[N / 2], uint64_t desc_a,
                                                 uint64_t desc_b, int scale_d) {
  static_assert(N == 32 || N == 64 || N == 128 || N == 192 || N == 256,
                "wrapped shapes: m64n32k16, m64n64k16, m64n128k16, m64n192k16, m64n256k16");
  static_assert(std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>, "f16 or bf16");
  if constexpr (N == 32 && std::is_same_v<T, __half>) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 " GB_WGMMA_REGS_16
        ", %16, %17, p, 1, 1, %19, %20;\n}\n"
        : GB_WGMMA_F16(d, 0)
        : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
  } else if constexpr (N == 32) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 " GB_WGMMA_REGS_16
        ", %16, %17, p, 1, 1, %19, %20;\n}\n"
        : GB_WGMMA_F16(d, 0)
        : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
  } else if constexpr (N == 64 && std::is_same_v<T, __half>) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 " GB_WGMMA_REGS_32
        ", %32, %33, p, 1, 1, %35, %36;\n}\n"
        : GB_WGMMA_F32(d, 0)
        : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
  } else if constexpr (N == 64) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 " GB_WGMMA_REGS_32
        ", %32, %33, p, 1, 1, %35, %36;\n}\n"
        : GB_WGMMA_F32(d, 0)
        : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
  } else if constexpr (N == 192 && std::is_same_v<T, __half>) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n192k16.f32.f16.f16 " GB_WGMMA_REGS_96
        ", %96, %97, p, 1, 1, %99, %100;\n}\n"
        : GB_WGMMA_F32(d, 0), GB_WGMMA_F32(d, 32), GB_WGMMA_F32(d, 64)
        : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
  } else if constexpr (N == 192) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n192k16.f32.bf16.bf16 " GB_WGMMA_REGS_96
        ", %96, %97, p, 1, 1, %99, %100;\n}\n"
        : GB_WGMMA_F32(d, 0), GB_WGMMA_F32(d, 32), GB_WGMMA_F32(d, 64)
        : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
  } else if constexpr (N == 256 && std::is_same_v<T, __half>) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 " GB_WGMMA_REGS_128
        ", %128, %129, p, 1, 1, %131, %132;\n}\n"
        : GB_WGMMA_F32(d, 0), GB_WGMMA_F32(d, 32), GB_WGMMA_F32(d, 64), GB_WGMMA_F32(d, 96)
        : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
  } else if constexpr (N == 256) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 " GB_WGMMA_REGS_128
        ", %128, %129, p, 1, 1, %131, %132;\n}\n"
        : GB_WGMMA_F32(d, 0), GB_WGMMA_F32(d, 32), GB_WGMMA_F32(d, 64), GB_WGMMA_F32(d, 96)
        : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
  } else if constexpr (std::is_same_v<T, __half>) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 " GB_WGMMA_REGS_64
        ", %64, %65, p, 1, 1, %67, %68;\n}\n"
        : GB_WGMMA_F32(d, 0), GB_WGMMA_F32(d, 32)
        : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
  } else {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 " GB_WGMMA_REGS_64
        ", %64, %65, p, 1, 1, %67, %68;\n}\n"
        : GB_WGMMA_F32(d, 0), GB_WGMMA_F32(d, 32)
        : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
  }
}

// f16 accumulate (f16 inputs only); each register packs two halves; N = 32, 64, 128, 192 or 256.
template <int N, int TRANS_A = 0, int TRANS_B = 0>
__device__ __forceinline__ void wgmma_m64k16_f16(uint32_t (&d)[N / 4], uint64_t desc_a,
                                                 uint64_t desc_b, int scale_d) {
  static_assert(N == 32 || N == 64 || N == 128 || N == 192 || N == 256,
                "wrapped shapes: m64n32k16, m64n64k16, m64n128k16, m64n192k16, m64n256k16");
  if constexpr (N == 32) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n32k16.f16.f16.f16 " GB_WGMMA_REGS_8
        ", %8, %9, p, 1, 1, %11, %12;\n}\n"
        : GB_WGMMA_R8(d, 0)
        : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
  } else if constexpr (N == 64) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f16.f16.f16 " GB_WGMMA_REGS_16
        ", %16, %17, p, 1, 1, %19, %20;\n}\n"
        : GB_WGMMA_R16(d, 0)
        : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
  } else if constexpr (N == 192) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %50, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n192k16.f16.f16.f16 " GB_WGMMA_REGS_48
        ", %48, %49, p, 1, 1, %51, %52;\n}\n"
        : GB_WGMMA_R32(d, 0), GB_WGMMA_R16(d, 32)
        : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
  } else if constexpr (N == 256) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f16.f16.f16 " GB_WGMMA_REGS_64
        ", %64, %65, p, 1, 1, %67, %68;\n}\n"
        : GB_WGMMA_R32(d, 0), GB_WGMMA_R32(d, 32)
        : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
  } else {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f16.f16.f16 " GB_WGMMA_REGS_32
        ", %32, %33, p, 1, 1, %35, %36;\n}\n"
        : GB_WGMMA_R32(d, 0)
        : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
  }
}

// ---- wgmma.mma_async m64n128k32 / m64n192k32, FP8 inputs, f32 accumulate -------------------
// D(64 x 128) (+)= A(64 x 32) * B(32 x 128), A and B e4m3 from shared memory, both K-major:
// 8-bit inputs have no transpose immediates, so each operand is rows of K-contiguous bytes as
// TMA's SWIZZLE_128B writes them (wgmma_desc_sw128_kmajor, a row = 128 elements), and one
// instruction's 32 elements of K are 32 bytes, the same step as 16 f16 elements. The tensor
// cores keep about 14 bits of the FP8 partial sums (DeepSeek-V3 report, 3.3.2): a kernel that
// needs f32 accuracy adds D into f32 registers every few instructions (scale_d = 0 starts a new
// partial). Fragment as wgmma_m64k16_f32 with N = 128.
// One wgmma of FP8 kind KIND (".e4m3.e4m3", ".e4m3.e5m2", ".e5m2.e4m3": A's format, then B's),
// f32 accumulate, N = 8 to 192 (d[N / 2]); d, desc_a, desc_b and scale_d are the caller's. N = 8,
// 16, 24, 40, 48, 56: the FP8 decode path's token tiles fitted to 9-48 and 65-112 tokens (two on a
// pair).
// One instruction m64nNk32 (N its text) into REGS, A's and B's descriptors the operands %IA and
// %IB, scale_d's predicate %IP (the operands after the N / 2 accumulators), the accumulators the
// rest.
#define GB_WGMMA_FP8_ASM(KIND, N, REGS, IA, IB, IP, ...)                                       \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" IP                                         \
               ", 0;\n"                                                                        \
               "wgmma.mma_async.sync.aligned.m64n" N "k32.f32" KIND " " REGS ", %" IA ", %" IB \
               ", p, 1, 1;\n}\n"                                                               \
               : __VA_ARGS__                                                                   \
               : "l"(desc_a), "l"(desc_b), "r"(scale_d))
#define GB_WGMMA_FP8_N8(KIND)                                                                     \
  GB_WGMMA_FP8_ASM(KIND, "8", GB_WGMMA_REGS_4, "4", "5", "6", "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), \
                   "+f"(d[3]))
#define GB_WGMMA_FP8_N16(KIND) \
  GB_WGMMA_FP8_ASM(KIND, "16", GB_WGMMA_REGS_8, "8", "9", "10", GB_WGMMA_F8(d, 0))
#define GB_WGMMA_FP8_N24(KIND)                                                                    \
  GB_WGMMA_FP8_ASM(KIND, "24", GB_WGMMA_REGS_12, "12", "13", "14", GB_WGMMA_F8(d, 0), "+f"(d[8]), \
                   "+f"(d[9]), "+f"(d[10]), "+f"(d[11]))
#define GB_WGMMA_FP8_N32(KIND) \
  GB_WGMMA_FP8_ASM(KIND, "32", GB_WGMMA_REGS_16, "16", "17", "18", GB_WGMMA_F16(d, 0))
#define GB_WGMMA_FP8_N40(KIND)                                                         \
  GB_WGMMA_FP8_ASM(KIND, "40", GB_WGMMA_REGS_20, "20", "21", "22", GB_WGMMA_F16(d, 0), \
                   "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]))
#define GB_WGMMA_FP8_N48(KIND)                                                         \
  GB_WGMMA_FP8_ASM(KIND, "48", GB_WGMMA_REGS_24, "24", "25", "26", GB_WGMMA_F16(d, 0), \
                   GB_WGMMA_F8(d, 16))
#define GB_WGMMA_FP8_N56(KIND)                                                         \
  GB_WGMMA_FP8_ASM(KIND, "56", GB_WGMMA_REGS_28, "28", "29", "30", GB_WGMMA_F16(d, 0), \
                   GB_WGMMA_F8(d, 16), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]))
#define GB_WGMMA_FP8_N64(KIND) \
  GB_WGMMA_FP8_ASM(KIND, "64", GB_WGMMA_REGS_32, "32", "33", "34", GB_WGMMA_F32(d, 0))
#define GB_WGMMA_FP8_N128(KIND)                                                         \
  GB_WGMMA_FP8_ASM(KIND, "128", GB_WGMMA_REGS_64, "64", "65", "66", GB_WGMMA_F32(d, 0), \
                   GB_WGMMA_F32(d, 32))
#define GB_WGMMA_FP8_N192(KIND)                                                         \
  GB_WGMMA_FP8_ASM(KIND, "192", GB_WGMMA_REGS_96, "96", "97", "98", GB_WGMMA_F32(d, 0), \
                   GB_WGMMA_F32(d, 32), GB_WGMMA_F32(d, 64))
// The kind of a pair of formats (A, B the wgmma's operands' types; PTX ISA, wgmma.mma_async
// .f32.atype.btype), A's bytes in .atype's format and B's in .btype's, N = 8, 16, 24, 32, 40, 48,
// 56, 64, 128 or 192: one wgmma m64nNk32, fragment as wgmma_m64k16_f32 with that N. e5m2 x e5m2 has
// no instance (nothing runs it: core/types.hpp, fp8_pair_unsupported).
template <DType A, DType B, int N>
__device__ __forceinline__ void wgmma_m64k32_fp8_f32(float (&d)[N / 2], uint64_t desc_a,
                                                     uint64_t desc_b, int scale_d) {
  static_assert(is_fp8(A) && is_fp8(B) && !(A == DType::e5m2 && B == DType::e5m2),
                "e4m3 x e4m3, e4m3 x e5m2 or e5m2 x e4m3");
  static_assert(N == 8 || N == 16 || N == 24 || N == 32 || N == 40 || N == 48 || N == 56 ||
                    N == 64 || N == 128 || N == 192,
                "wgmma m64n{8,16,24,32,40,48,56,64,128,192}k32");
#define GB_WGMMA_FP8(KIND)         \
  if constexpr (N == 8) {          \
    GB_WGMMA_FP8_N8(KIND);         \
  } else if constexpr (N == 16) {  \
    GB_WGMMA_FP8_N16(KIND);        \
  } else if constexpr (N == 24) {  \
    GB_WGMMA_FP8_N24(KIND);        \
  } else if constexpr (N == 32) {  \
    GB_WGMMA_FP8_N32(KIND);        \
  } else if constexpr (N == 40) {  \
    GB_WGMMA_FP8_N40(KIND);        \
  } else if constexpr (N == 48) {  \
    GB_WGMMA_FP8_N48(KIND);        \
  } else if constexpr (N == 56) {  \
    GB_WGMMA_FP8_N56(KIND);        \
  } else if constexpr (N == 64) {  \
    GB_WGMMA_FP8_N64(KIND);        \
  } else if constexpr (N == 128) { \
    GB_WGMMA_FP8_N128(KIND);       \
  } else {                         \
    GB_WGMMA_FP8_N192(KIND);       \
  }
  if constexpr (A == DType::e4m3 && B == DType::e4m3) {
    GB_WGMMA_FP8(".e4m3.e4m3");
  } else if constexpr (A == DType::e4m3) {
    GB_WGMMA_FP8(".e4m3.e5m2");
  } else {
    GB_WGMMA_FP8(".e5m2.e4m3");
  }
#undef GB_WGMMA_FP8
}
#undef GB_WGMMA_FP8_ASM
#undef GB_WGMMA_FP8_N8
#undef GB_WGMMA_FP8_N16
#undef GB_WGMMA_FP8_N24
#undef GB_WGMMA_FP8_N32
#undef GB_WGMMA_FP8_N40
#undef GB_WGMMA_FP8_N48
#undef GB_WGMMA_FP8_N56
#undef GB_WGMMA_FP8_N64
#undef GB_WGMMA_FP8_N128
#undef GB_WGMMA_FP8_N192

#undef GB_WGMMA_REGS_4
#undef GB_WGMMA_REGS_8
#undef GB_WGMMA_REGS_16
#undef GB_WGMMA_REGS_12
#undef GB_WGMMA_REGS_20
#undef GB_WGMMA_REGS_24
#undef GB_WGMMA_REGS_28
#undef GB_WGMMA_F16
#undef GB_WGMMA_R16
#undef GB_WGMMA_REGS_32
#undef GB_WGMMA_REGS_48
#undef GB_WGMMA_REGS_96
#undef GB_WGMMA_REGS_64
#undef GB_WGMMA_REGS_128
#undef GB_WGMMA_F8
#undef GB_WGMMA_F32
#undef GB_WGMMA_R8
#undef GB_WGMMA_R32

#endif  // GEMMBENCH_SM90A

}  // namespace gemmbench::sm90
