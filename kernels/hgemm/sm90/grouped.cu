// hgemm_grouped_sm90 — HGEMM ladder, rung 10 (the Hopper rung) for grouped GEMM: the experts of a
// Mixture-of-Experts layer in one persistent launch (docs/grouped.md, issue 51).
//
// Adds over the dense Hopper kernel (sm90/kernel.cuh), whose producer ring (common/sm90/
// producer.cuh, load_tile), wgmma mainloop (sm90/mainloop.cuh) and register epilogue
// (common/sm90/epilogue.cuh, store_tile_registers) it runs unchanged: a tile walk over all the
// groups at once (common/grouped_schedule.hpp), so that skewed groups spread over every SM instead
// of one launch (or one CTA set) per group. Group g is the dense TN GEMM C_g^T (N, M_g) = B_g
// A_g^T: the weights are wgmma's A, the tokens its B. One tensor map holds all G weight matrices as
// [G*N, K], one all activation rows [stored_rows, K]; a tile's rows past its group are other
// groups' or padding and are computed but never stored: the epilogue writes only rows
// [first_row_g, first_row_g + M_g) and columns < N, straight from the fragment (16-byte stores
// where N % 8 == 0), alpha and beta applied in f32.
// Tile: 256 (N) x 128 (rows) x 64, 4 stages, one producer and two consumer warpgroups (384
// threads, 40/232 registers, 193 KB shared): the dense binding measured best at prefill shapes
// (docs/hgemm-hopper.md); 256 along N reads each activation row once per 256 outputs. Persistent:
// one CTA per SM (occupancy), CTA c takes tiles c, c + grid, ... No cluster, no TMA store.
// Constraints: sm_90 and an sm_90a build; f16 (f32/f16 acc) or bf16 (f32 acc); K % 8 == 0 (TMA
// row strides); G*N, stored rows and tiles below 2^31. Both group layouts, any align.
// Status (2026-11-29, H200, sustained, each provider alone, not checked interleaved; bench_results/
// h200/2026-11-29_moe_grouped_{skipfix,small}.json.gz): over the faster cuBLAS way on the three MoE
// presets, 1.105x at 512 tokens, 1.366x at 4096 balanced, 1.190x at 4096 zipf:1.2 (geomeans;
// Mixtral 0.82-0.99x), 0.94-1.03x at 16-128 tokens with the weights read at 84-102% of the
// measured roof. docs/grouped.md has the tables and what limits skewed routing (the 128-row tile).
// The one wrong result in bench_results/h200/latest/llm_moe.json.gz (Mixtral down_proj, 512 tokens,
// zipf:1.2, align 1) was not this kernel's: hgemm's cached grouped choice, keyed on G and the
// stored rows, ran the _tma variant chosen for the balanced case before it, whose whole-tile stores
// reach the next group's rows there (docs/grouped.md, "The cached choice"; fixed in d9349ff).
// Variant _tma (docs/grouped.md): the dense rung 10's TMA-store epilogue
// (common/sm90/epilogue.cuh) for the register one. Each consumer packs its 64 x 256 fragment into
// four 128B-swizzled 64 x 64 boxes through two staging buffers, one thread stores them with TMA,
// and the wait for the last box's read is deferred to the consumer's next stored tile, so that
// store drains under the next mainloop. A consumer whose group ends inside its 64 rows (a group's
// last tile) stores them from the fragment instead, so no box reaches another group's rows and
// _tma takes any grouping (since 2026-11-30, tenth session; before, only groupings of whole
// 128-row tiles). N % 8 == 0; beta == 0. Status (H200, sustained, each provider alone): 1.026x
// the register epilogue on groupings of whole tiles (0.998-1.083), 0.985x where padding is most
// of the rows (bench_results/h200/2026-11-29_moe_epi_ab_partial.json.gz); 1.024x at align 1 with
// groups of 128, 256, ... rows (2026-11-29_moe_tma_align1_ab.json.gz); level with the whole-tile
// code on balanced groupings (0.994-1.016) and 0.996-1.035x the register kernel on the MoE presets'
// routed groupings at 4096 tokens, align 1
// (bench_results/h200/2026-11-30_moe_tma_edge_ab_*.json.gz). hgemm runs it first on groupings of
// whole tiles whose rows are mostly their own, and after the pairs on other such groupings whose
// rows fill half their tiles (kernels/dispatch/dispatch.cpp).
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "common/convert.cuh"
#include "common/grouped_schedule.hpp"
#include "common/occupancy.hpp"
#include "common/ptx.cuh"
#include "common/sm90.cuh"
#include "common/sm90/config.hpp"
#include "common/sm90/epilogue.cuh"
#include "common/sm90/grouped_launch.hpp"
#include "common/sm90/image.hpp"
#include "common/sm90/pipeline.cuh"
#include "common/sm90/producer.cuh"
#include "common/sm90/tma_desc.hpp"
#include "common/static_for.cuh"
#include "core/cuda_check.hpp"
#include "core/per_device.hpp"
#include "core/registry.hpp"
#include "hgemm/sm90/mainloop.cuh"

namespace gemmbench {
namespace {

// BM: the tile along N (the weights' rows, wgmma N); BN: along the group's rows (64 per consumer
// warpgroup, wgmma M). Sm90Config's names are the dense kernel's GEMM M and N.
constexpr int kTileN = 256, kTileRows = 128, kStages = 4;
using GroupedCfg = Sm90Config<kTileN, kTileRows, kStages, 1>;
// The register epilogue stages nothing: the ring alone (+ 1024 for the swizzle alignment). The
// _tma variant adds the dense rung 10's staging buffers of the same tile, two 8 KB boxes per
// consumer: 4 x 48 KB + 32 KB + 1 KB = 225 KB (GroupedCfg::SMEM_BYTES), so it keeps the 4 stages.
constexpr int grouped_smem_bytes(bool tma_store) {
  return tma_store ? GroupedCfg::SMEM_BYTES : kStages * int(GroupedCfg::STAGE_BYTES) + 1024;
}
static_assert(grouped_smem_bytes(true) + 2 * kStages * 8 <= 227 * 1024,
              "the SM's shared memory: four stages and the _tma variant's staging boxes");
// hgemm_grouped_sm90_pair (issue 51's step for skewed routing): the register kernel's tile on
// 2-CTA clusters whose two CTAs take two consecutive token tiles of one group on the same weight
// tile, each loading half of the weights and multicasting it to both. At 4096 tokens the register
// kernel runs at the L2's limit (90-96% of its peak under ncu), and zipf:1.2 moves 1.51x the L2
// bytes of balanced routing for the same FLOPs, because a large group reads each weight tile once
// per token tile (DeepSeek-V3's 3827-row group 30 times; docs/grouped.md, "What the skew costs,
// profiled"); the pair reads it once per two. The walk's row tiles are 256 rows (the pair's),
// rank r taking the r-th 128; a second tile wholly past its group loads no tokens and computes
// nothing (its weight half still goes to the first). Measured on an H200 (2026-11-30, the MoE
// presets' expert layers at 4096 tokens, bf16, align 1, sustained; bench_results/h200/
// 2026-11-30_moe_pair_ab_*.json.gz): 1.114x and 1.042x the register kernel on Mixtral at
// zipf:1.2, where groups of 346-2975 rows fill their pairs; 0.79-0.94x where groups of 128 rows or
// fewer idle the second CTA (DeepSeek-V3 balanced, Qwen3 at zipf:1.2). hgemm takes it where at
// most 1/16 of the pairs' tiles would idle (kernels/dispatch/dispatch.cpp).
constexpr int kPairRows = 2 * kTileRows;
using PairCfg = Sm90Config<kTileN, kTileRows, kStages, 2>;
static_assert(PairCfg::STAGE_BYTES == GroupedCfg::STAGE_BYTES &&
                  PairCfg::A_SLICE_ROWS == kTileN / 2,
              "the pair's ring is the register kernel's; each CTA loads half the weight rows");
static_assert(GroupedCfg::TMA_STORE && GroupedCfg::WG_N == GroupedCfg::EPI_BOX &&
                  kTileRows % GroupedCfg::EPI_BOX == 0,
              "_tma: a consumer's 64 rows are one box high, its 256 columns four boxes wide");

#if GEMMBENCH_SM90A
// The prologue of every grouped kernel here, thread 0 then the block: the ring's barriers (full:
// the producer's one arrival and its bytes; empty: one arrival per consumer warpgroup of every CTA
// of the cluster) and the tensor maps prefetched (map_c: the TMA-store variant's, or null). A
// cluster (the pair) meets once the barriers are set, before any peer arrives on them.
template <int CONSUMERS, int STAGES, int CLUSTER = 1>
__device__ __forceinline__ void grouped_prologue(uint64_t (&full_bar)[STAGES],
                                                 uint64_t (&empty_bar)[STAGES],
                                                 const CUtensorMap* map_w, const CUtensorMap* map_x,
                                                 const CUtensorMap* map_c) {
  if (threadIdx.x == 0) {
#pragma unroll
    for (int s = 0; s < STAGES; ++s) {
      sm90::mbarrier_init(ptx::smem_u32(&full_bar[s]), 1);
      sm90::mbarrier_init(ptx::smem_u32(&empty_bar[s]), CONSUMERS * CLUSTER);
    }
    sm90::fence_barrier_init();
    sm90::tma_prefetch_descriptor(map_w);
    sm90::tma_prefetch_descriptor(map_x);
    if (map_c) sm90::tma_prefetch_descriptor(map_c);
  }
  __syncthreads();
  if constexpr (CLUSTER > 1) sm90::cluster_sync();
}

// The producer warpgroup of both grouped kernels: the register split's share, then one thread
// walks this CTA's tiles of the walk (BAND: the column tiles of a band, grouped_tile) on its own
// position in the ring and calls load(ring, tile) for each, then done(ring). In clusters of
// CLUSTER CTAs (the pair) the walk is the cluster's: every CTA of it takes the same tiles.
struct GroupedNoDrain {
  template <class Ring>
  __device__ __forceinline__ void operator()(const Ring&) const {}
};
// UNITS (the global pairing, hgemm_grouped_sm90_pairg): the walk's units (grouped_unit), each
// a GroupedUnit, in place of its tiles.
template <int BAND, int PRODUCER_REGS, int CLUSTER = 1, bool UNITS = false, int STAGES, class Load,
          class Done = GroupedNoDrain>
__device__ __forceinline__ void grouped_producer(uint64_t (&full_bar)[STAGES],
                                                 uint64_t (&empty_bar)[STAGES],
                                                 const GroupedWalk& walk, int tiles_total,
                                                 int wg_thread, Load&& load, Done done = {}) {
  sm90::setmaxnreg_dec<PRODUCER_REGS>();
  if (wg_thread != 0) return;
  int stage = 0;
  uint32_t phase = 0;
  const Sm90Ring<STAGES> ring{full_bar, empty_bar, stage, phase};
  for (int t = blockIdx.x / CLUSTER; t < tiles_total; t += gridDim.x / CLUSTER) {
    if constexpr (UNITS)
      load(ring, grouped_unit<BAND>(walk, t));
    else
      load(ring, grouped_tile<BAND>(walk, t));
  }
  done(ring);
}

// One CTA's token tile of a cluster's tile or unit, as the consumers and the producer place it:
// its group, its first row within the group (row0), and whether the weight tile is the cluster's
// to share. A tile of the pair whose rows all lie past the group, or the global pairing's rank 1
// without rows, has group >= 0 and row0 >= M_g: it loads no tokens and computes nothing.
struct GroupedSlot {
  int group;
  int row0;
  bool shared;
};

template <int BN, int UNIT_ROWS>
__device__ __forceinline__ GroupedSlot grouped_slot(const GroupedTile& tile, uint32_t rank) {
  return GroupedSlot{tile.group, tile.row_tile * UNIT_ROWS + int(rank) * BN, true};
}

template <int BN, int UNIT_ROWS>
__device__ __forceinline__ GroupedSlot grouped_slot(const GroupedUnit& unit, uint32_t rank) {
  const GroupedUnitSlot own = unit.slot[rank];
  // Rank 1 without rows: rank 0's group, its rows past the group (M_g <= 2^31 / 2).
  if (own.group < 0) return GroupedSlot{unit.slot[0].group, 1 << 30, true};
  return GroupedSlot{own.group, own.row_tile * BN, unit.shared()};
}

// The body of both kernels, which differ in the epilogue alone: TMA_STORE stages each consumer's
// 64 x 256 tile in shared memory and stores it with TMA through tmap_c (then a valid map), else
// store_tile_registers writes the group's rows from the fragment (tmap_c unread).
template <class T, bool F16_ACCUM, class Cfg, bool TMA_STORE, bool UNITS = false>
__device__ __forceinline__ void grouped_body(const CUtensorMap& tmap_w, const CUtensorMap& tmap_x,
                                             const CUtensorMap* tmap_c, T* c,
                                             const GroupedWalk& walk, const int64_t* first_row,
                                             const int* rows, int N, int k_blocks, float alpha,
                                             float beta) {
  constexpr int BM = Cfg::BM, BN = Cfg::BN, STAGES = Cfg::STAGES, CLUSTER = Cfg::CLUSTER;
  using Acc = Sm90Acc<F16_ACCUM, BM>;
  static_assert(
      !Cfg::PARTIAL && !Cfg::CLUSTER_M && (CLUSTER == 1 || (CLUSTER == 2 && (!TMA_STORE || UNITS))),
      "whole consumer warpgroups; one CTA a tile, or the pair (register epilogue; the "
      "global pair either): two token tiles on one weight tile, multicast");
  // The walk's row tile: BN rows, or the pair's 2 * BN, rank r taking the r-th BN of them; the
  // global pairing (UNITS) walks BN-row tiles two at a time (grouped_unit).
  static_assert(!UNITS || CLUSTER == 2, "the global pairing is a pair's walk");
  constexpr int UNIT_ROWS = UNITS ? BN : BN * CLUSTER;
  const uint32_t cta_rank = CLUSTER > 1 ? sm90::cluster_ctarank() : 0u;

  // The barriers are the kernel's only static shared memory: supports() reads its size back to
  // learn that the driver picked this (sm_90a) image.
  __shared__ alignas(8) uint64_t full_bar[STAGES];   // TMA -> consumers: stage landed
  __shared__ alignas(8) uint64_t empty_bar[STAGES];  // consumers -> producer: stage free
  extern __shared__ uint8_t smem_raw[];
  const uint32_t smem = (ptx::smem_u32(smem_raw) + 1023u) & ~1023u;
  const uint32_t s_w = smem;                                // (STAGES, BM x BK) SW128, weights
  const uint32_t s_x = smem + STAGES * Cfg::A_STAGE_BYTES;  // (STAGES, BN x BK) SW128, tokens
  const uint32_t s_epi = smem + STAGES * Cfg::STAGE_BYTES;  // _tma: (CONSUMERS, 2, 64, 64) SW128

  const int wg = threadIdx.x / 128;  // warpgroup: 0 producer, 1..CONSUMERS consumers
  const int wg_thread = threadIdx.x % 128;
  const int tiles_total = UNITS ? grouped_units_total(walk) : grouped_tiles_total(walk);

  // ======== PROLOGUE ========
  grouped_prologue<Cfg::CONSUMERS, STAGES, CLUSTER>(full_bar, empty_bar, &tmap_w, &tmap_x,
                                                    TMA_STORE ? tmap_c : nullptr);

  if (wg == 0) {
    // ======== PRODUCER (one thread issues every TMA; common/sm90/producer.cuh) ========
    const Sm90Producer<Cfg, true, true, false> producer{&tmap_w, &tmap_x, s_w, s_x, 0, 0, cta_rank};
    grouped_producer<kGroupedBandTiles, Cfg::PRODUCER_REGS, CLUSTER, UNITS>(
        full_bar, empty_bar, walk, tiles_total, wg_thread,
        [&](const Sm90Ring<STAGES>& ring, const auto& tile) {
          // Both boxes start inside the group (n_tile * BM < N, row0 < M_g). The pair's second
          // token tile may lie wholly past the group: that CTA loads its slice of the weight tile
          // for both and no tokens (its consumers skip the tile). The global pairing's unit
          // across two groups: each CTA loads its own group's whole weight tile.
          if constexpr (CLUSTER == 1) {
            producer.load_tile(ring, tile.group * N + tile.n_tile * BM,
                               int(first_row[tile.group]) + tile.row_tile * BN, k_blocks);
          } else {
            const GroupedSlot slot = grouped_slot<BN, UNIT_ROWS>(tile, cta_rank);
            const bool own_rows = slot.row0 < rows[slot.group];
            producer.load_tile(ring, slot.group * N + tile.n_tile * BM,
                               int(first_row[slot.group]) + (own_rows ? slot.row0 : 0), k_blocks,
                               own_rows, slot.shared);
          }
        },
        [&](const Sm90Ring<STAGES>& ring) {
          if constexpr (CLUSTER > 1) producer.drain(ring);  // the peer's last releases
        });
    return;
  }

  // ======== CONSUMERS ========
  sm90::setmaxnreg_inc<Cfg::CONSUMER_REGS>();
  const int consumer = sm90::warp_uniform(wg - 1);  // which 64 rows of the tile (wgmma M)
  const int warp = wg_thread / 32, lane = wg_thread % 32;
  const int q = lane % 4;
  typename Acc::Reg acc[Acc::REGS];  // (64 rows, BM columns of N) per warpgroup, wgmma D fragment
  // 16-byte C stores need every row start (r * N) and the base 16-byte aligned.
  const bool vec = (N % 8 == 0) && (reinterpret_cast<uintptr_t>(c) % 16 == 0);
  int stage = 0;
  uint32_t phase = 0;
  Sm90Mainloop<T, F16_ACCUM, Cfg, true, true> mainloop{
      Sm90Ring<STAGES>{full_bar, empty_bar, stage, phase}, s_w, s_x, consumer, wg_thread};
  for (int t = blockIdx.x / CLUSTER; t < tiles_total; t += gridDim.x / CLUSTER) {
    const auto unit = [&] {
      if constexpr (UNITS)
        return grouped_unit(walk, t);
      else
        return grouped_tile(walk, t);
    }();
    const GroupedSlot slot = grouped_slot<BN, UNIT_ROWS>(unit, cta_rank);
    const GroupedTile tile{slot.group, 0, unit.n_tile};  // this CTA's group and column tile
    const int row0 = slot.row0;
    // Rows of the group from row0: 1 .. M_g, or (the pair's second tile past the group) <= 0.
    const int rows_left = rows[tile.group] - row0;
    // A group's last row tile with at most 64 rows left: the second consumer's rows are all past
    // the group. It only passes the stages on (no wgmma), so the tensor pipe runs the tile at
    // half its work: routed groups are mostly small (zipf:1.2 at 4096 tokens over 256 experts:
    // median 34 rows); both consumers of the pair's tile past the group. Warp-uniform, so that
    // the branch keeps the wgmmas unserialized. _tma:
    // the skip touches no staging box, and its stores still in flight stay committed to its
    // thread 0's bulk groups, for its next stored tile's wait (or the last).
    if (sm90::warp_uniform(rows_left <= consumer * Cfg::WG_N ? 1 : 0)) {
      mainloop.skip(k_blocks, uint32_t(1 + consumer));  // the named barrier: this warpgroup's
      continue;
    }

    // ======== MAINLOOP (sm90/mainloop.cuh) ========
    mainloop.template run<1>(acc, k_blocks, [](auto) {});

    // The register epilogue: the group's rows of the tile only (common/sm90/epilogue.cuh).
    // store_tile_registers sees the tile as column-major (M = N columns contiguous, its "N" the
    // rows left in the group): it stores rows < rows_left and columns < N, nothing else.
    const auto store_registers = [&] {
      T* c_tile = c + (first_row[tile.group] + row0) * int64_t(N);  // (rows_left, N) row-major
      store_tile_registers<T, F16_ACCUM, BM>(acc, c_tile, N, rows_left,
                                             consumer * Cfg::WG_N + 16 * warp + lane / 4,
                                             tile.n_tile * BM, q, vec, alpha, beta);
    };
    if constexpr (TMA_STORE) {
      // _tma: a consumer whose 64 rows all lie in the group stores them by TMA; one whose group
      // ends inside them (its last tile) stores the group's rows from the fragment, so that no
      // box reaches past the group's rows, at any align. Uniform over the warpgroup.
      if (sm90::warp_uniform(rows_left >= (consumer + 1) * Cfg::WG_N ? 1 : 0)) {
        // ======== EPILOGUE: TMA stores of whole boxes (common/sm90/epilogue.cuh) ========
        // The fragment is the dense rung 10's, whose column-major C (M, N) is here C row-major
        // (stored_rows, N): its M is N, the boxes' 128-byte rows are this consumer's 64 token rows
        // and the box index runs along N. Box 0 first waits for this consumer's previous stored
        // tile's boxes to have been read: the deferred wait, so that its last box drained under
        // this tile's mainloop. A box starting past N stores nothing; one crossing N, or the stored
        // rows, is clipped by the map. Every row of the box is the group's.
        const int box_row = int(first_row[tile.group]) + row0 + consumer * Cfg::WG_N;
        const int n0 = tile.n_tile * BM;
        const uint32_t s_epi_own = s_epi + consumer * Cfg::EPI_BUFS * Cfg::EPI_BUF_BYTES;
        constexpr int BOXES = BM / Cfg::EPI_BOX;
        uint32_t packed[BM / 4];  // (64 rows, BM of N) 16-bit pairs, alpha applied
        if (alpha == 1.f)
          pack_tile<T, F16_ACCUM, false>(acc, alpha, packed);
        else
          pack_tile<T, F16_ACCUM, true>(acc, alpha, packed);
        static_for<BOXES>([&](auto box) {
          store_packed_box<decltype(box)::value, BOXES, Cfg::EPI_BUFS>(
              packed, tmap_c, s_epi_own, Cfg::EPI_BUF_BYTES, n0, box_row, N, warp, lane, wg_thread,
              uint32_t(1 + consumer));
        });
      } else {
        store_registers();
      }
    } else {
      store_registers();
    }
  }
  // The CTA may not exit while its last stores still read the boxes (their global writes
  // complete by the kernel's end).
  if constexpr (TMA_STORE)
    if (wg_thread == 0) sm90::bulk_wait_group_read<0>();
}
#endif  // GEMMBENCH_SM90A

template <class T, bool F16_ACCUM, class Cfg>
__global__ void __launch_bounds__(Cfg::THREADS, 1) hgemm_grouped_sm90_kernel(
    const __grid_constant__ CUtensorMap tmap_w,  // B weights (G*N, K): k-major box (BK, BM)
    const __grid_constant__ CUtensorMap tmap_x,  // A activations (stored_rows, K): box (BK, BN)
    T* __restrict__ c,                           // C (stored_rows, N) row-major
    const GroupedWalk walk,                      // tile_prefix (G + 1), device
    const int64_t* __restrict__ first_row,       // (G) each group's first stored row
    const int* __restrict__ rows,                // (G) M_g
    int N, int k_blocks, float alpha, float beta) {
#if GEMMBENCH_SM90A
  grouped_body<T, F16_ACCUM, Cfg, false>(tmap_w, tmap_x, nullptr, c, walk, first_row, rows, N,
                                         k_blocks, alpha, beta);
#else
  // Not the sm_90a image: supports() keeps the runner from launching it.
  __trap();
#endif
}

// _pairg: the pair's cluster on the global pairing of row tiles (grouped_unit, UNITS), with _tma's
// epilogue (each CTA's own TMA stores of the rows inside its group, a group's last rows from the
// fragment; beta == 0).
template <class T, bool F16_ACCUM, class Cfg>
__global__ void __launch_bounds__(Cfg::THREADS, 1)
    hgemm_grouped_sm90_pairg_kernel(const __grid_constant__ CUtensorMap tmap_w,
                                    const __grid_constant__ CUtensorMap tmap_x,
                                    const __grid_constant__ CUtensorMap tmap_c, T* __restrict__ c,
                                    const GroupedWalk walk, const int64_t* __restrict__ first_row,
                                    const int* __restrict__ rows, int N, int k_blocks,
                                    float alpha) {
#if GEMMBENCH_SM90A
  grouped_body<T, F16_ACCUM, Cfg, true, true>(tmap_w, tmap_x, &tmap_c, c, walk, first_row, rows, N,
                                              k_blocks, alpha, 0.f);
#else
  __trap();
#endif
}

// _tma: the same with C through its TMA-store map (beta == 0: C is never read), and C itself for
// the rows of a group's last tile.
template <class T, bool F16_ACCUM, class Cfg>
__global__ void __launch_bounds__(Cfg::THREADS, 1) hgemm_grouped_sm90_tma_kernel(
    const __grid_constant__ CUtensorMap tmap_w,  // B weights (G*N, K): k-major box (BK, BM)
    const __grid_constant__ CUtensorMap tmap_x,  // A activations (stored_rows, K): box (BK, BN)
    const __grid_constant__ CUtensorMap tmap_c,  // C (stored_rows, N) row-major: box (64, 64)
    T* __restrict__ c,                           // the same C
    const GroupedWalk walk,                      // tile_prefix (G + 1), device
    const int64_t* __restrict__ first_row,       // (G) each group's first stored row
    const int* __restrict__ rows,                // (G) M_g
    int N, int k_blocks, float alpha) {
#if GEMMBENCH_SM90A
  grouped_body<T, F16_ACCUM, Cfg, true>(tmap_w, tmap_x, &tmap_c, c, walk, first_row, rows, N,
                                        k_blocks, alpha, 0.f);
#else
  __trap();
#endif
}

// ---- hgemm_grouped_sm90_fit: the tile turned around, its height fitted to the group ----------
// The tokens on wgmma's N side, as the decode rung puts them (sm90/decode.cu): a tile is 128 token
// rows (Sm90Config's BM, wgmma N) by 128 weight rows (BN: 64 per consumer warpgroup, wgmma M), and
// each tile's wgmma N is the group's rows left in it rounded up to 32, 64 or 128 (the wrapped
// shapes), so a group of 34 rows costs the tensor pipe 64 rows, not the 128 of the register
// kernel's row tile (half of it with its skip). Issue 51's skew target: a zipf:1.2 routing over
// DeepSeek-V3's 256 experts at 4096 tokens leaves a median of 34 rows a group (docs/grouped.md,
// "Skew"). The walk, the maps and the producer are the register kernel's (128-row tiles along the
// groups, 128 weight rows along N in bands of 8, the register kernel's 1024 weight rows:
// GroupedWalk, sm90_grouped_launch, Sm90Producer::load_tile), the token box whole (128 rows, the
// rows past the group computed by no wgmma). C (rows, N) row-major
// has the weights contiguous, wgmma's M: the fragment is stored transposed, 2-byte stores (each
// warp instruction writes 4 token rows x 16 bytes), alpha and beta in f32.
constexpr int kFitTileRows = 128, kFitTileN = 128, kFitStages = 6;
// The walk's bands as wide in weight rows as the register kernel's (4 x 256): a large group's
// activations read once per 1024 weight rows, as there.
constexpr int kFitBandTiles = kGroupedBandTiles * kTileN / kFitTileN;
static_assert(
    kFitTileRows == kTileRows,
    "hgemm_grouped_unsupported checks the walk's size in the register kernel's row tiles");
using FitCfg = Sm90Config<kFitTileRows, kFitTileN, kFitStages, 1>;
constexpr int kFitSmemBytes = kFitStages * int(FitCfg::STAGE_BYTES) + 1024;  // the ring alone
static_assert(kFitSmemBytes + 2 * kFitStages * 8 <= 227 * 1024, "the SM's shared memory");
// _fit_trim: the same with the token box cut to the group's rows left in the tile, in boxes of
// kFitBoxRows rows (4 KB a k-block for a group of 32 rows or fewer instead of 16); the boxes stack
// into the layout of one box (each 4 KB, a whole number of 1024-byte swizzle periods).
constexpr int kFitBoxRows = 32;
constexpr const char* fit_name(bool trim) {
  return trim ? "hgemm_grouped_sm90_fit_trim" : "hgemm_grouped_sm90_fit";
}
// wgmma's N for a tile with rows_left rows of its group: 32, 64 or 128 (the wrapped shapes).
GB_HD constexpr int fit_tile_rows(int rows_left) {
  return rows_left <= 32 ? 32 : rows_left <= 64 ? 64 : 128;
}
static_assert(fit_tile_rows(1) == 32 && fit_tile_rows(33) == 64 && fit_tile_rows(65) == 128 &&
                  fit_tile_rows(128) == 128 && fit_tile_rows(1000) == 128,
              "wgmma's N covers the rows left, at most the 128-row tile");

#if GEMMBENCH_SM90A
// One consumer warpgroup's (64 weight rows from n_row's warp block, tn token rows) of a fit tile
// into C (rows_left, N) row-major at c: C(r, n) for r < rows_left, n < N. Fragment (m64nNk16):
// block j holds token rows 8j + 2q + {0, 1} of weight rows n_row + {0, 8} (n_row: this thread's,
// 16 * warp + lane / 4 into the warpgroup's 64).
template <class T, bool F16_ACCUM, class AccReg, int ACC_REGS>
__device__ __forceinline__ void store_fit_tile(const AccReg (&acc)[ACC_REGS], T* __restrict__ c,
                                               int N, int rows_left, int tn, int n_row, int q,
                                               float alpha, float beta) {
  constexpr int BLOCKS = F16_ACCUM ? ACC_REGS / 2 : ACC_REGS / 4;  // 8-row blocks of tokens
#pragma unroll
  for (int j = 0; j < BLOCKS; ++j) {
    if (8 * j >= tn) break;  // uniform: the registers past wgmma's N hold another tile's sums
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int n = n_row + 8 * h;
      float2 v;
      if constexpr (F16_ACCUM)
        v = unpack2<__half>(acc[2 * j + h]);
      else
        v = make_float2(acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1]);
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int r = 8 * j + 2 * q + e;
        if (r >= rows_left || n >= N) continue;
        T* dst = c + int64_t(r) * N + n;
        float x = alpha * (e ? v.y : v.x);
        if (beta != 0.f) x += beta * to_f32(*dst);  // BLAS: C is not read when beta == 0
        *dst = from_f32<T>(x);
      }
    }
  }
}
#endif  // GEMMBENCH_SM90A

template <class T, bool F16_ACCUM, bool TRIM>
__global__ void __launch_bounds__(FitCfg::THREADS, 1) hgemm_grouped_sm90_fit_kernel(
    const __grid_constant__ CUtensorMap tmap_w,  // B weights (G*N, K): k-major box (BK, 128)
    const __grid_constant__ CUtensorMap tmap_x,  // A activations (stored_rows, K): box (BK, 128),
                                                 // TRIM: (BK, kFitBoxRows)
    T* __restrict__ c,                           // C (stored_rows, N) row-major
    const GroupedWalk walk,                      // tile_prefix (G + 1), device
    const int64_t* __restrict__ first_row,       // (G) each group's first stored row
    const int* __restrict__ rows,                // (G) M_g
    int N, int k_blocks, float alpha, float beta) {
#if GEMMBENCH_SM90A
  using Cfg = FitCfg;
  constexpr int STAGES = Cfg::STAGES, TILE_ROWS = Cfg::BM, TILE_N = Cfg::BN;
  using Acc = Sm90Acc<F16_ACCUM, TILE_ROWS>;
  __shared__ alignas(8) uint64_t full_bar[STAGES];   // TMA -> consumers: stage landed
  __shared__ alignas(8) uint64_t empty_bar[STAGES];  // consumers -> producer: stage free
  extern __shared__ uint8_t smem_raw[];
  const uint32_t smem = (ptx::smem_u32(smem_raw) + 1023u) & ~1023u;
  const uint32_t s_x = smem;  // (STAGES, 128 token rows x BK) SW128: wgmma B
  const uint32_t s_w = smem + STAGES * Cfg::A_STAGE_BYTES;  // (STAGES, 128 weight rows x BK): A
  const int wg = threadIdx.x / 128;                         // warpgroup: 0 producer, 1..2 consumers
  const int wg_thread = threadIdx.x % 128;
  const int tiles_total = grouped_tiles_total(walk);

  grouped_prologue<Cfg::CONSUMERS>(full_bar, empty_bar, &tmap_w, &tmap_x, nullptr);

  if (wg == 0) {  // the producer: the tokens are the A role (BM rows), the weights the B role
    const Sm90Producer<Cfg, true, true, false> producer{&tmap_x, &tmap_w, s_x, s_w, 0, 0, 0u};
    grouped_producer<kFitBandTiles, Cfg::PRODUCER_REGS>(
        full_bar, empty_bar, walk, tiles_total, wg_thread,
        [&](const Sm90Ring<STAGES>& ring, const GroupedTile& tile) {
          const int row0 = tile.row_tile * TILE_ROWS;
          const int x_row = int(first_row[tile.group]) + row0,
                    w_row = tile.group * N + tile.n_tile * TILE_N;
          if constexpr (!TRIM) {
            producer.load_tile(ring, x_row, w_row, k_blocks);
          } else {
            // The group's own rows of the tile, in boxes of kFitBoxRows: every box starts inside
            // the group. wgmma reads tn rows; those past the boxes (at most tn - rows left) hold an
            // earlier stage's rows and feed only the token columns past the group's, never stored.
            const int left = min(rows[tile.group] - row0, TILE_ROWS);
            const int boxes = (left + kFitBoxRows - 1) / kFitBoxRows;
            const uint32_t tx = uint32_t(boxes * kFitBoxRows + TILE_N) * Cfg::ROW_BYTES;
            for (int kb = 0; kb < k_blocks; ++kb) {
              const int st = ring.stage;
              sm90::mbarrier_wait_parity(ring.empty(st), ring.phase ^ 1);  // lap 0 passes at once
              sm90::mbarrier_arrive_expect_tx(ring.full(st), tx);
              for (int b = 0; b < boxes; ++b)
                sm90::tma_load_2d(s_x + st * Cfg::A_STAGE_BYTES + b * kFitBoxRows * Cfg::ROW_BYTES,
                                  &tmap_x, ring.full(st), kb * Cfg::BK, x_row + b * kFitBoxRows);
              sm90::tma_load_2d(s_w + st * Cfg::B_STAGE_BYTES, &tmap_w, ring.full(st), kb * Cfg::BK,
                                w_row);
              ring.advance();
            }
          }
        });
    return;
  }

  sm90::setmaxnreg_inc<Cfg::CONSUMER_REGS>();
  const int consumer = sm90::warp_uniform(wg - 1);  // which 64 weight rows of the tile (wgmma M)
  const int warp = wg_thread / 32, lane = wg_thread % 32;
  typename Acc::Reg acc[Acc::REGS];  // (64 weight rows, 128 token rows), wgmma D fragment
  int stage = 0;
  uint32_t phase = 0;
  Sm90Mainloop<T, F16_ACCUM, Cfg, true, true> mainloop{
      Sm90Ring<STAGES>{full_bar, empty_bar, stage, phase}, s_x, s_w, consumer, wg_thread};
  const auto none = [](auto) {};
  for (int t = blockIdx.x; t < tiles_total; t += gridDim.x) {
    const GroupedTile tile = grouped_tile<kFitBandTiles>(walk, t);
    const int row0 = tile.row_tile * TILE_ROWS;
    const int rows_left = rows[tile.group] - row0;  // (1 .. M_g) rows of the group from row0
    // wgmma's N: the rows left, rounded up to a wrapped shape (uniform over the CTA).
    const int tn = sm90::warp_uniform(fit_tile_rows(rows_left));
    if (tn == 32)
      mainloop.template run<1>(acc, k_blocks, none, std::integral_constant<int, 32>{});
    else if (tn == 64)
      mainloop.template run<1>(acc, k_blocks, none, std::integral_constant<int, 64>{});
    else
      mainloop.template run<1>(acc, k_blocks, none, std::integral_constant<int, 128>{});
    T* c_tile = c + (first_row[tile.group] + row0) * int64_t(N);  // (rows_left, N) row-major
    store_fit_tile<T, F16_ACCUM>(acc, c_tile, N, rows_left, tn,
                                 tile.n_tile * TILE_N + consumer * Cfg::WG_N + 16 * warp + lane / 4,
                                 lane % 4, alpha, beta);
  }
#else
  __trap();  // not the sm_90a image: supports() keeps the runner from launching it
#endif
}

template <class T, bool F16_ACCUM, bool TMA_STORE>
constexpr auto grouped_kernel_ptr() {
  if constexpr (TMA_STORE)
    return &hgemm_grouped_sm90_tma_kernel<T, F16_ACCUM, GroupedCfg>;
  else
    return &hgemm_grouped_sm90_kernel<T, F16_ACCUM, GroupedCfg>;
}

// Per device and kernel, once: the shared-memory limit raised, and the CTAs resident at once (the
// grid).
template <class T, bool F16_ACCUM, bool TMA_STORE>
int grouped_resident_ctas() {
  static PerDevice<int> count;
  return count.get([](int dev) {
    const auto kernel = grouped_kernel_ptr<T, F16_ACCUM, TMA_STORE>();
    constexpr int smem = grouped_smem_bytes(TMA_STORE);
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    return resident_ctas(kernel, GroupedCfg::THREADS, smem, dev);
  });
}

constexpr const char* grouped_name(bool tma_store) {
  return tma_store ? "hgemm_grouped_sm90_tma" : "hgemm_grouped_sm90";
}

template <class T, bool F16_ACCUM, bool TMA_STORE>
void run_grouped(const GemmArgs& args, cudaStream_t stream) {
  const char* name = grouped_name(TMA_STORE);
  const Sm90GroupedLaunch l = sm90_grouped_launch(args, name, kTileN, kTileRows,
                                                  grouped_resident_ctas<T, F16_ACCUM, TMA_STORE>());
  const GroupedLaunch& gl = *args.grouped;
  const int K = int(args.problem.k);
  const int k_blocks = (K + GroupedCfg::BK - 1) / GroupedCfg::BK;
  constexpr int smem = grouped_smem_bytes(TMA_STORE);
  if constexpr (TMA_STORE) {
    // The map is bf16's; a plain (non-reducing) TMA store copies the 16-bit elements as they are,
    // so it stores f16 C the same.
    // Any grouping: a group's last rows are stored from the fragment (whole_tiles false).
    const CUtensorMap map_c = sm90_grouped_c_store_map(args, name, GroupedCfg::EPI_BOX, false);
    hgemm_grouped_sm90_tma_kernel<T, F16_ACCUM, GroupedCfg>
        <<<l.ctas, GroupedCfg::THREADS, smem, stream>>>(
            l.weights, l.rows, map_c, static_cast<T*>(args.c), l.walk, gl.first_row, gl.rows,
            int(args.problem.n), k_blocks, args.alpha);
  } else {
    hgemm_grouped_sm90_kernel<T, F16_ACCUM, GroupedCfg>
        <<<l.ctas, GroupedCfg::THREADS, smem, stream>>>(
            l.weights, l.rows, static_cast<T*>(args.c), l.walk, gl.first_row, gl.rows,
            int(args.problem.n), k_blocks, args.alpha, args.beta);
  }
}

// The input type and accumulation of a case, as types: f(GroupedType<T, F16_ACCUM>{}) for f16
// with f32 or f16 accumulation and bf16 with f32; any other pair throws, naming `kernel`.
template <class T, bool F16_ACCUM>
struct GroupedType {
  using type = T;
  static constexpr bool f16_accum = F16_ACCUM;
};
template <class F>
void by_grouped_type(const GemmProblem& p, const char* kernel, F&& f) {
  if (p.dtype == DType::f16 && p.accum == Accum::f32)
    f(GroupedType<__half, false>{});
  else if (p.dtype == DType::f16 && p.accum == Accum::f16)
    f(GroupedType<__half, true>{});
  else if (p.dtype == DType::bf16 && p.accum == Accum::f32)
    f(GroupedType<__nv_bfloat16, false>{});
  else
    throw std::invalid_argument(std::string(kernel) + ": unsupported dtype/accumulate pair");
}

template <bool TMA_STORE>
void launch_grouped(const GemmArgs& args, cudaStream_t stream) {
  by_grouped_type(args.problem, grouped_name(TMA_STORE), [&](auto t) {
    using G = decltype(t);
    run_grouped<typename G::type, G::f16_accum, TMA_STORE>(args, stream);
  });
}

template <bool TMA_STORE>
const void* grouped_kernel_for(const GemmProblem& p) {
  if (p.dtype == DType::bf16)
    return reinterpret_cast<const void*>(grouped_kernel_ptr<__nv_bfloat16, false, TMA_STORE>());
  if (p.accum == Accum::f16)
    return reinterpret_cast<const void*>(grouped_kernel_ptr<__half, true, TMA_STORE>());
  return reinterpret_cast<const void*>(grouped_kernel_ptr<__half, false, TMA_STORE>());
}

// The host checks both kernels share; the driver's answer for the image comes after each one's own.
std::string hgemm_grouped_unsupported(const GemmProblem& p, const Grouping& g,
                                      const DeviceCaps& caps, int tile_n = kTileN,
                                      int tile_rows = kTileRows) {
  if (caps.sm != 90)
    return "needs a compute capability 9.0 GPU (H100/H200): sm_90a wgmma/TMA code runs on no other";
  if (p.dtype == DType::bf16 && p.accum == Accum::f16) return "bf16 inputs accumulate in f32 only";
  if (p.k % 8 != 0) return "K must be a multiple of 8: TMA needs 16-byte aligned row strides";
  return sm90_grouped_size_unsupported(p, g, tile_n, tile_rows);
}

std::string supports_grouped(const GemmProblem& p, const Grouping& g, const DeviceCaps& caps) {
  if (std::string why = hgemm_grouped_unsupported(p, g, caps); !why.empty()) return why;
  return sm90a_image_unsupported(grouped_kernel_for<false>(p), size_t(grouped_smem_bytes(false)),
                                 caps);
}

// _tma: what TMA stores of C need beside the kernel's own: beta == 0 (C is never read) and N % 8
// == 0 (16-byte row strides of C). Any grouping: no box reaches past its group's rows.
std::string supports_grouped_tma(const GemmProblem& p, const Grouping& g, const DeviceCaps& caps) {
  if (std::string why = hgemm_grouped_unsupported(p, g, caps); !why.empty()) return why;
  if (std::string why =
          sm90_grouped_tile_store_unsupported(p, g, kTileRows, "hgemm_grouped_sm90", false);
      !why.empty())
    return why;
  return sm90a_image_unsupported(grouped_kernel_for<true>(p), size_t(grouped_smem_bytes(true)),
                                 caps);
}

// The pair's launch: the register kernel's maps with 128-row boxes (each CTA's half of the weight
// tile, its own token tile), the walk in 256-row tiles, clusters of two.
// GLOBAL: _pairg, the same cluster on the global pairing of 128-row tiles (grouped_unit).
constexpr const char* kPairName = "hgemm_grouped_sm90_pair";
constexpr const char* kPairGName = "hgemm_grouped_sm90_pairg";
template <bool GLOBAL>
constexpr const char* pair_name() {
  return GLOBAL ? kPairGName : kPairName;
}
template <class T, bool F16_ACCUM, bool GLOBAL = false>
constexpr auto pair_kernel_ptr() {
  if constexpr (GLOBAL)
    return &hgemm_grouped_sm90_pairg_kernel<T, F16_ACCUM, PairCfg>;
  else
    return &hgemm_grouped_sm90_kernel<T, F16_ACCUM, PairCfg>;
}

// The global pair stages its stores (_tma's boxes); the pair does not.
cudaLaunchConfig_t pair_launch_config(int ctas, bool global, cudaStream_t stream,
                                      cudaLaunchAttribute& attr) {
  return cluster_launch_config(ctas, PairCfg::CLUSTER, PairCfg::THREADS, grouped_smem_bytes(global),
                               stream, attr);
}

// Per device and kernel, once: the shared-memory limit raised, and the CTAs of the pairs resident
// at once (a persistent grid of clusters must not exceed it).
template <class T, bool F16_ACCUM, bool GLOBAL>
int pair_resident_ctas() {
  static PerDevice<int> count;
  return count.get([](int) {
    const auto kernel = pair_kernel_ptr<T, F16_ACCUM, GLOBAL>();
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    grouped_smem_bytes(GLOBAL)));
    const int clusters =
        max_active_clusters(kernel, PairCfg::CLUSTER, PairCfg::THREADS, grouped_smem_bytes(GLOBAL));
    if (clusters < 1)
      throw std::runtime_error(std::string(pair_name<GLOBAL>()) +
                               ": no 2-CTA cluster fits an SM pair");
    return clusters * PairCfg::CLUSTER;
  });
}

// The pair walks 256-row tiles (one 128-row box a CTA); _pairg the 128-row tiles two at a time.
template <class T, bool F16_ACCUM, bool GLOBAL>
void run_grouped_pair(const GemmArgs& args, cudaStream_t stream) {
  const Sm90GroupedLaunch l = sm90_grouped_launch(
      args, pair_name<GLOBAL>(), kTileN, GLOBAL ? kTileRows : kPairRows,
      pair_resident_ctas<T, F16_ACCUM, GLOBAL>(), kTileRows, PairCfg::A_SLICE_ROWS);
  const GroupedLaunch& gl = *args.grouped;
  const GemmProblem& p = args.problem;
  const int k_blocks = int((p.k + PairCfg::BK - 1) / PairCfg::BK);
  // Whole clusters: a grid capped for a test (GemmArgs::test_max_ctas) to an odd count takes one
  // CTA fewer, and never less than one pair.
  const int ctas = std::max(PairCfg::CLUSTER, l.ctas / PairCfg::CLUSTER * PairCfg::CLUSTER);
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t cfg = pair_launch_config(ctas, GLOBAL, stream, attr);
  if constexpr (GLOBAL) {
    const CUtensorMap map_c =
        sm90_grouped_c_store_map(args, pair_name<GLOBAL>(), PairCfg::EPI_BOX, false);
    CUDA_CHECK(cudaLaunchKernelEx(&cfg, pair_kernel_ptr<T, F16_ACCUM, GLOBAL>(), l.weights, l.rows,
                                  map_c, static_cast<T*>(args.c), l.walk, gl.first_row, gl.rows,
                                  int(p.n), k_blocks, args.alpha));
  } else {
    CUDA_CHECK(cudaLaunchKernelEx(&cfg, pair_kernel_ptr<T, F16_ACCUM, GLOBAL>(), l.weights, l.rows,
                                  static_cast<T*>(args.c), l.walk, gl.first_row, gl.rows, int(p.n),
                                  k_blocks, args.alpha, args.beta));
  }
}

template <bool GLOBAL>
void launch_grouped_pair(const GemmArgs& args, cudaStream_t stream) {
  by_grouped_type(args.problem, pair_name<GLOBAL>(), [&](auto t) {
    using G = decltype(t);
    run_grouped_pair<typename G::type, G::f16_accum, GLOBAL>(args, stream);
  });
}

template <bool GLOBAL>
std::string supports_grouped_pair(const GemmProblem& p, const Grouping& g, const DeviceCaps& caps) {
  if (std::string why =
          hgemm_grouped_unsupported(p, g, caps, kTileN, GLOBAL ? kTileRows : kPairRows);
      !why.empty())
    return why;
  if (GLOBAL)  // _tma's epilogue: beta == 0, N % 8 == 0, any grouping
    if (std::string why =
            sm90_grouped_tile_store_unsupported(p, g, kTileRows, "hgemm_grouped_sm90", false);
        !why.empty())
      return why;
  const void* kernel =
      p.dtype == DType::bf16
          ? reinterpret_cast<const void*>(pair_kernel_ptr<__nv_bfloat16, false, GLOBAL>())
      : p.accum == Accum::f16
          ? reinterpret_cast<const void*>(pair_kernel_ptr<__half, true, GLOBAL>())
          : reinterpret_cast<const void*>(pair_kernel_ptr<__half, false, GLOBAL>());
  return sm90a_image_unsupported(kernel, size_t(grouped_smem_bytes(GLOBAL)), caps);
}

// _fit's launch: the same walk and maps as the register kernel's, in 128 x 128 tiles.
template <class T, bool F16_ACCUM, bool TRIM>
int fit_resident_ctas() {
  static PerDevice<int> count;
  return count.get([](int dev) {
    const auto kernel = &hgemm_grouped_sm90_fit_kernel<T, F16_ACCUM, TRIM>;
    CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kFitSmemBytes));
    return resident_ctas(kernel, FitCfg::THREADS, kFitSmemBytes, dev);
  });
}

template <class T, bool F16_ACCUM, bool TRIM>
void run_grouped_fit(const GemmArgs& args, cudaStream_t stream) {
  // TRIM: the activations in boxes of kFitBoxRows rows.
  const Sm90GroupedLaunch l =
      sm90_grouped_launch(args, fit_name(TRIM), kFitTileN, kFitTileRows,
                          fit_resident_ctas<T, F16_ACCUM, TRIM>(), TRIM ? kFitBoxRows : 0);
  const GroupedLaunch& gl = *args.grouped;
  const GemmProblem& p = args.problem;
  const int k_blocks = int((p.k + FitCfg::BK - 1) / FitCfg::BK);
  hgemm_grouped_sm90_fit_kernel<T, F16_ACCUM, TRIM>
      <<<l.ctas, FitCfg::THREADS, kFitSmemBytes, stream>>>(
          l.weights, l.rows, static_cast<T*>(args.c), l.walk, gl.first_row, gl.rows, int(p.n),
          k_blocks, args.alpha, args.beta);
}

template <bool TRIM>
void launch_grouped_fit(const GemmArgs& args, cudaStream_t stream) {
  by_grouped_type(args.problem, fit_name(TRIM), [&](auto t) {
    using G = decltype(t);
    run_grouped_fit<typename G::type, G::f16_accum, TRIM>(args, stream);
  });
}

template <bool TRIM>
std::string supports_grouped_fit(const GemmProblem& p, const Grouping& g, const DeviceCaps& caps) {
  if (std::string why = hgemm_grouped_unsupported(p, g, caps, kFitTileN); !why.empty()) return why;
  const void* kernel =
      p.dtype == DType::bf16 ? reinterpret_cast<const void*>(
                                   &hgemm_grouped_sm90_fit_kernel<__nv_bfloat16, false, TRIM>)
      : p.accum == Accum::f16
          ? reinterpret_cast<const void*>(&hgemm_grouped_sm90_fit_kernel<__half, true, TRIM>)
          : reinterpret_cast<const void*>(&hgemm_grouped_sm90_fit_kernel<__half, false, TRIM>);
  return sm90a_image_unsupported(kernel, size_t(kFitSmemBytes), caps);
}

// What the grouped bf16/f16 kernels below share: the family, the rung, the types, both group
// layouts.
KernelInfo grouped_info(const char* name, const char* summary, LaunchFn launch,
                        GroupedSupportsFn supports, int tile_rows) {
  return KernelInfo{
      .name = name,
      .family = "hgemm",
      .rung = 10,
      .summary = summary,
      .dtypes = {DType::f16, DType::bf16},
      .accums = {Accum::f32, Accum::f16},
      .layouts = {Layout::tn},
      .min_sm = 90,
      .launch = launch,
      .group_layouts = {GroupLayout::contiguous, GroupLayout::masked},
      .supports_grouped = supports,
      .group_tile_rows = tile_rows,
  };
}

}  // namespace

GEMMBENCH_REGISTER_KERNEL(
    grouped_info("hgemm_grouped_sm90",
                 "grouped (MoE experts) Hopper TMA+wgmma, persistent over all groups' tiles; "
                 "256x128x64 (N x rows), 4 stages, register epilogue masked to each group's rows",
                 launch_grouped<false>, supports_grouped, kTileRows));

// hgemm runs it on groupings whose stored rows are mostly the groups' own (the grouped rule,
// kernels/dispatch/dispatch.cpp); the register kernel above takes the rest.
GEMMBENCH_REGISTER_KERNEL(grouped_info(
    "hgemm_grouped_sm90_tma",
    "hgemm_grouped_sm90 with a TMA-store epilogue: each tile staged in swizzled "
    "shared-memory boxes and stored by TMA while the next tile's mainloop runs, a group's "
    "last rows from the fragment (any grouping); N % 8 == 0, beta == 0",
    launch_grouped<true>, supports_grouped_tma, kTileRows));

// Issue 51's step for skewed routing (the L2 bytes of a large group's weight tiles); hgemm picks
// it on contiguous groupings whose groups fill the pairs (rule grouped-cluster-pair-sm90).
GEMMBENCH_REGISTER_KERNEL(
    grouped_info(kPairName,
                 "hgemm_grouped_sm90 on 2-CTA clusters: two token tiles of a group share each "
                 "256-row weight tile, each CTA loading half and multicasting it (half the "
                 "weights' L2 reads of a large group); 256x128x64 a CTA, 4 stages",
                 launch_grouped_pair<false>, supports_grouped_pair<false>, kPairRows));

// Issue 51's step for the skew left after the pair: the pair's cluster on the global pairing of
// 128-row tiles, so that a group's odd last tile pairs with the next group's first (each CTA its
// own weights) instead of idling the second CTA (DeepSeek-V3 and Qwen3 at zipf:1.2: 34% and 24%
// of the pair's tiles idle). Measured on an H200 (2026-11-30, tenth session, the MoE presets'
// expert layers at 4096 tokens, bf16, align 1, sustained; bench_results/h200/
// 2026-11-30_moe_pairg_*.json.gz): over the register kernel 1.082x / 1.021x on DeepSeek-V3 and
// 1.114x / 1.031x on Mixtral at zipf:1.2 (ahead of the pair on all six layers), 0.967-0.986x on
// Qwen3's small experts, 0.928x / 0.989x on DeepSeek-V3 balanced (no unit shares its weights).
// Its epilogue is _tma's (the rows inside the group by TMA under the next tile's mainloop, a
// group's last rows from the fragment; it refuses beta != 0 and N % 8 != 0, which hgemm's next
// candidates take):
// against the register epilogue 1.011-1.040x on seven of eight DeepSeek-V3 and Mixtral layers at
// 4096 tokens, zipf:1.2 and random, 0.995x on the eighth (eleventh session, one board,
// 2026-11-30_moe_pairg_tma_ab_{branch,main}.json.gz, scripts/dev/moe_pairg_tma_ab.json).
// hgemm takes it where the experts hold 8 Mi weights or more and 1/4 of the units share
// (rule grouped-global-pair-sm90, kernels/dispatch/dispatch.cpp).
GEMMBENCH_REGISTER_KERNEL(grouped_info(
    kPairGName,
    "hgemm_grouped_sm90_pair on the global order of 128-row tiles, two at a time: a group's "
    "tiles share each weight tile two by two, a unit across two groups loads both (no CTA idle "
    "but the last); 256x128x64 a CTA, 4 stages",
    launch_grouped_pair<true>, supports_grouped_pair<true>, kTileRows));

// Issue 51's step for skewed routing, registered for an A/B against hgemm_grouped_sm90
// and its variant _fit_trim below (scripts/dev/moe_fit_ab.json); hgemm picks neither.
GEMMBENCH_REGISTER_KERNEL(
    grouped_info("hgemm_grouped_sm90_fit",
                 "hgemm_grouped_sm90 turned around: the tokens on wgmma's N, each tile's N the "
                 "group's rows left rounded up to 32, 64 or 128 (a small group costs the tensor "
                 "pipe its own rows); 128x128x64 (rows x N), 6 stages, register epilogue",
                 launch_grouped_fit<false>, supports_grouped_fit<false>, kFitTileRows));

GEMMBENCH_REGISTER_KERNEL(grouped_info(
    "hgemm_grouped_sm90_fit_trim",
    "hgemm_grouped_sm90_fit with each stage's token box cut to the group's rows of the "
    "tile (32-row boxes): a small group's tile loads its own rows, not 128",
    launch_grouped_fit<true>, supports_grouped_fit<true>, kFitTileRows));

}  // namespace gemmbench
