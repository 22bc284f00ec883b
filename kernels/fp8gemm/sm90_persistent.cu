// Rung F2, fp8gemm_sm90_persistent: rung F1's FP8 mainloop (fp8gemm/sm90.cu) in the frame of the
// Hopper rung 10: a persistent grid walking 128x128 tiles in raster order (the ring never drains
// between tiles), wgmma's M = GEMM N so that the fragment holds consecutive m and rung 10's
// epilogue applies (stmatrix into swizzled boxes, TMA stores deferred into the next tile). In that
// orientation a thread's columns are 32 rows of A: each consumer warpgroup's 128 threads read the
// next k-block's A block scales (one row each), times B's, into a double-buffered slot of its own
// that its threads read while the wgmmas run. Tensor and row scales multiply once per tile.
// Variant _c2: 2-CTA multicast of A.
// Rung F3, fp8gemm_sm90_persistent_t (MROWS): F2 turned around, wgmma's M = GEMM M: two A rows per
// thread, block scales read from global memory (no slot, six stages), the epilogue transposing
// each 8x8 block with stmatrix.trans into the same boxes. Variant _sk (SK): F3 on rung 10's
// stream-K schedule and workspace (common/sm90/schedule.hpp, common/sm90/stream_k.cuh), each of a
// row of few tiles split over CTAs along K at decode. Variant _pipe (V): two partials, k-block kb +
// 1's wgmmas under kb's promotion; _n192: 128x192 tiles; _m256c2 (kF3Tall): 256x128 tiles, each
// consumer's 128 rows of A in two halves through one partial, on 2-CTA clusters along N
// multicasting the A tile (the one-CTA _m256 was measured and retired); _m64 (kF3Narrow*): 64-row
// tiles by 128, 64 or 32 rows of B (m64_tile_n), the consumers splitting B, on the stream-K
// schedule; _m256c2ts (kF3TmaScales): _m256c2 with A's block scales brought by TMA, a box of 4
// k-blocks with every fourth k-block's stage into one of two slots, each CTA's 128 rows of it
// multicast to both, on 3 stages (issue 50's step; block128, K % 512 == 0; rules R and R2 pick
// it). Its first form, a 256-row box per CTA with every stage, ran 1.030x _m256c2 on DeepGEMM's
// six shapes at M 4096 (H200, bench_results/h200/2026-11-29_fp8_m256_ts_ab.json.gz); the slots
// and the multicast took about 0.7% more (2026-11-29_fp8_ts_ring_ab_{ring,main}.json.gz, both
// sustained, each kernel alone). With B's block scale of the same 4 k-blocks in a 16-byte box
// beside A's (each CTA its own; read with LDS, no LDG left in the k-loop) it ran 1.045x faster on
// those shapes, 1.031x DeepGEMM (2026-11-30_fp8_ts_b_scales_ab_{branch,main}.json.gz, one board,
// sustained). docs/fp8.md tells the ladder and the tries.
// Constraints: sm_90a; TN; e4m3 (F3 and its variants: e4m3 x e5m2 and e5m2 x e4m3 too), a scaling,
// bf16 C; any M, N; K % 16 == 0 (TMA row strides). State (2026-11-27, H100,
// bench_results/h100/2026-11-27_fp8_*.json.gz), geomeans over cuBLASLt: DeepSeek-V3 prefill F2
// 0.82x per-tensor / 0.66x block128 (0.91x fast; block128 0.76x with the producer warps' slot
// hand-off, which racecheck reported, _fp8_f2_slot_*), F3 0.81x / 0.86x, _pipe 0.90x / 0.88x, _n192
// 0.92x / 0.89x; F3 _sk at 64 and 128 tokens 0.96x / 0.95x block128; the e5m2 pairs by fp8gemm's
// picks 0.93x per-tensor (e4m3 x e5m2), 0.90x block128 (e5m2 x e4m3). 2026-11-28 (H200, sustained,
// DeepGEMM by its plugin in the same report,
// bench_results/h200/2026-11-28_fp8_ab_*_uniform.json.gz): with the wgmma descriptors in uniform
// registers, fp8gemm's picks at M 4096 on DeepGEMM's shapes 0.997x cuBLASLt block128 and 0.970x
// DeepGEMM; 1.029x per-tensor. _m256 0.927x, _m256c2 0.935x block128. The F3 family on grids of
// whole waves (whole_wave_clusters; fp8gemm's picks unchanged, _m256c2 4.3% faster at 4096x2112):
// 0.976x DeepGEMM at M 4096, 0.873x at 128, 0.727x at 64 (bench_results/h200/
// 2026-11-2{8,9}_fp8_{waves*,small_m_ab}.json.gz). 2026-11-29: _m64 (fp8gemm's pick at 17-64
// tokens) 1.151x the picks before it at M 64, so fp8gemm 0.821x DeepGEMM there and 1.060x cuBLASLt
// (2026-11-29_fp8_m64_*.json.gz; sustained, each alone, not checked interleaved). With its
// promotion pipelined past 8 k-blocks (step 8) 0.839x DeepGEMM at M 64 and fp8gemm 1.089x
// cuBLASLt there (2026-11-29_fp8_m64_plain_short_k.json.gz); at DeepGEMM's own 64x32 tiling
// it takes 1.39x its time,
// and without any promotion it still trails (2026-11-29_fp8_m64_{fill_ab,decompose}.json.gz).
// 2026-12-01: _m64c2 (the tile on 2-CTA clusters sharing A, rule M3): DeepGEMM's time over the
// kernels fp8gemm picks 0.890x at M 64 and 0.931x at M 128 (2026-12-01_fp8_m64c2_ab_dg.json.gz).
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "common/occupancy.hpp"
#include "common/ptx.cuh"
#include "common/sm90.cuh"
#include "common/static_for.cuh"
#include "core/cuda_check.hpp"
#include "core/per_device.hpp"
#include "core/registry.hpp"
#include "fp8gemm/sm90_rules.hpp"
#include "fp8gemm/sm90_mainloop.cuh"
#include "common/sm90/config.hpp"
#include "common/sm90/epilogue.cuh"
#include "common/sm90/pipeline.cuh"
#include "common/sm90/producer.cuh"
#include "common/sm90/schedule.hpp"
#include "common/sm90/stream_k.cuh"
#include "common/sm90/tma_desc.hpp"

namespace gemmbench {
namespace {

// The ring: 6 stages of 32 KB beside the epilogue's 32 KB of staging boxes; block scales take 5,
// their scale slots (2 KB) would not fit beside a sixth.
// MROWS (rung F3): the other orientation, wgmma's M = GEMM M; no scale slot, six stages always.
template <ScaleMode S, bool MROWS>
constexpr int kStages = S == ScaleMode::block128 && !MROWS ? 5 : 6;
// Rung 10's configuration: a row of a stage is 128 bytes (64 f16 there, 128 e4m3 here), so its
// stage sizes, staging boxes and register split hold as they are.
// CLUSTER 2: two CTAs neighbours along N share the A tile, each loading 64 of its rows and
// multicasting them to both (half the A traffic from L2).
// kF3TmaScales (_m256c2ts) on kF3Tall: the same tile with two 4 KB A scale slots beside the
// stages, 3 stages (a fourth does not fit beside the staging boxes and the slots: 233 of 227 KB;
// F3Cfg). DeepGEMM runs 3 at this tile for the same reason (its 1 KB scale slots beside 68 KB of C
// staging).
// The narrow tiles on CLUSTER 2 (_m64c2): each CTA loads 32 of the 64 rows of A and multicasts
// them to both.
// kF3TmaScales on the narrow tiles (_m64c2 where the scale maps take it): the same rings with A's
// and B's scale slots beside them (three of each: F3Cfg's SA_SLOTS at 8 stages).
// kF3OneConsumer on the narrow tiles (_m64c2's e4m3 block128): the same rings, one consumer
// warpgroup. kF3Narrow16 (_m64c2's one consumer only): 64 x 16 tiles, 16 stages of 10 KB (as
// many bytes of B in flight a CTA as 8 stages of the 64 x 32 tile).
template <int V, int CLUSTER, int B = f3_base(V), bool TS = f3_tma_scales(V),
          int C = f3_one_consumer(V) ? 1 : 2>
using F3CfgOf = std::conditional_t<
    B == kF3N192, F3Cfg<128, 192, 4>,
    std::conditional_t<
        B == kF3Tall, F3Cfg<256, 128, TS ? 3 : 4, CLUSTER, TS>,
        std::conditional_t<
            B == kF3Narrow || B == kF3NarrowPlain, F3Cfg<64, 128, 8, CLUSTER, TS, C>,
            std::conditional_t<
                B == kF3Narrow64, F3Cfg<64, 64, 8, CLUSTER, TS, C>,
                std::conditional_t<
                    B == kF3Narrow32, F3Cfg<64, 32, 8, CLUSTER, TS, C>,
                    std::conditional_t<B == kF3Narrow16, F3Cfg<64, 16, 16, CLUSTER, TS, C>,
                                       F3Cfg<128, 128, 6>>>>>>>;
template <ScaleMode S, int CLUSTER, bool MROWS = false, int V = kF3>
using F2Cfg = std::conditional_t<MROWS, F3CfgOf<V, CLUSTER>,
                                 Sm90Config<kBM, kBN, kStages<S, MROWS>, CLUSTER>>;

struct F2Params {
  int m, n, k;
  float alpha, beta;
  const float* scale_a;
  const float* scale_b;
  __nv_bfloat16* c;
  Sm90Schedule sched;
  uint32_t epoch;  // stream-K (F3's _sk): this launch's flag value
};

#if GEMMBENCH_SM90A

// ---- Rung F3's consumer: wgmma's M = GEMM M, and an epilogue that transposes ----------------
// The fragment of consumer c holds C(m, n) for m = m0 + 64c + 16 warp + 8h + g and
// n = n0 + 8j + 2q + e (acc[4j + 2h + e]): pairs along N, while C is column-major (M contiguous).
// stmatrix.trans turns each 8x8 block (8 m x 8 n) into 8 rows of n, 16 bytes of m each: the two
// staging boxes of 64 n x 64 m (128 B rows, 128B-swizzled) that one TMA store each writes, the
// boxes rung 10's epilogue stores. Box b takes the blocks j = 8b .. 8b + 7; stmatrix.x4 number p
// of it the blocks (j = 8b + 2p + i/2, h = i%2) for i < 4, whose row r (n = 8j + r) lane 8i + r
// addresses: row 8(j % 8) + r of the box, chunk (16 warp + 8h) / 8 = 2 warp + h.
template <int EPI_BUF_BYTES, int BOXES, int NACC>
__device__ __forceinline__ void f3_store_tma(const float (&acc)[NACC], const CUtensorMap* map_c,
                                             uint32_t s_epi_own, int m_wg, int n0, int N,
                                             int consumer, int warp, int lane, int wg_thread) {
  const uint32_t bar_id = 1 + consumer;
  static_assert(NACC == 32 * BOXES, "a box per 64 columns of the fragment");
  // The previous tile's stores have read the boxes before they are written again.
  if (wg_thread == 0) sm90::bulk_wait_group_read<0>();
  sm90::named_barrier_sync(bar_id, 128);
  const int i = lane / 8, r = lane % 8;
#pragma unroll
  for (int b = 0; b < BOXES; ++b) {
    const uint32_t buf = s_epi_own + b * EPI_BUF_BYTES;
#pragma unroll
    for (int p = 0; p < 4; ++p) {
      uint32_t v[4];
#pragma unroll
      for (int t = 0; t < 4; ++t) {
        const int j = 8 * b + 2 * p + t / 2, h = t % 2;
        v[t] = pack2<__nv_bfloat16>(acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1]);
      }
      const uint32_t row = 8 * (2 * p + i / 2) + r, chunk = 2 * warp + i % 2;
      sm90::stmatrix_x4<true>(buf + row * 128 + ((chunk ^ r) << 4), v[0], v[1], v[2], v[3]);
    }
  }
  sm90::fence_proxy_async_shared();  // the copy engine reads what stmatrix wrote
  sm90::named_barrier_sync(bar_id, 128);
  if (wg_thread == 0) {
#pragma unroll
    for (int b = 0; b < BOXES; ++b)
      if (n0 + 64 * b < N)
        sm90::tma_store_2d(map_c, s_epi_own + b * EPI_BUF_BYTES, m_wg, n0 + 64 * b);
    sm90::bulk_commit_group();
  }
}

// SK (variant _sk): stream-K items. A partial item (k-blocks short of the tile's end) publishes
// its sums to the workspace (common/sm90/stream_k.cuh) before any scale is applied and stores
// nothing; the finishing item adds the partials of the lower CTAs that hold the tile's first
// k-blocks, then scales and stores. The block scales of a partial item are those of its own
// k-blocks, so every partial is a sum of fully scaled terms.
// kF3Tall: each consumer's rows are two halves of 64 (hf), each its own sums, scales and stores;
// on a cluster the CTA of rank `rank` computes the rank-th N tile of the cluster's.
template <ScaleMode S, bool kFast, class Cfg, bool SK, int V, DType TA, DType TB, class Ring,
          class WorkIter>
__device__ __forceinline__ void f3_consumer(const Ring& ring, WorkIter& work_iter,
                                            const F2Params& prm, const CUtensorMap& map_c,
                                            uint32_t s_a, uint32_t s_b, uint32_t s_epi_own,
                                            int consumer, int warp, int lane, int wg_thread,
                                            uint32_t rank, uint32_t s_sa = 0, uint32_t s_sb = 0) {
  const Sm90Schedule& sched = prm.sched;
  const int g = lane / 4, q = lane % 4;
  const int M = prm.m, N = prm.n, kbs = sched.k_blocks;
  using Mainloop = F2Mainloop<S, kFast, Cfg, true, V, TA, TB>;
  constexpr int NJ = Mainloop::NW / 8, NACC = Mainloop::NACC;  // the fragment's 8-column blocks
  constexpr int HALVES = Cfg::HALVES;
  static_assert(!SK || (Cfg::BN <= 128 && HALVES == 1),
                "the stream-K workspace holds 128 x 128 tiles");
  static_assert(HALVES == 1 || f3_base(V) == kF3Tall, "two halves are kF3Tall's");
  static_assert(!f3_tma_scales(V) ||
                    (Cfg::TMA_SCALES && (HALVES == 2 || Cfg::SPLIT_N) && S == ScaleMode::block128),
                "A's scales by TMA with the stages: kF3Tall's block128 promotion (run_tall)");
  Mainloop mainloop{ring, s_a, s_b, 0u, consumer, lane, q};
  if constexpr (Mainloop::kTmaScales) {  // this thread's first row of the tile, as row() says
    mainloop.s_sa = s_sa;
    mainloop.s_sb = s_sb;
    // (SPLIT_N: both consumers on the tile's 64 rows.)
    const int first_row = Cfg::SPLIT_N ? 0 : consumer * HALVES * Cfg::WG_N;
    mainloop.sa_row = uint32_t(first_row + 16 * warp + g) * Cfg::SA_ROW_BYTES;
  }
  const float tensor_scale =
      S == ScaleMode::tensor ? prm.alpha * prm.scale_a[0] * prm.scale_b[0] : prm.alpha;
  float acc[HALVES][NACC];
  Sm90Work w;
  while (work_iter.next(w)) {
    const auto [m_tile, n_tile] = sm90_cta_tile<Cfg::CLUSTER, false>(w, rank);
    const int m0 = m_tile * Cfg::BM, n0 = n_tile * Cfg::BN;
    // This consumer's first row of B (kF3Narrow: its half of the B tile).
    const int n0c = n0 + (Cfg::SPLIT_N ? consumer * Mainloop::NW : 0);
    // Half hf's first row of A (kF3Narrow: the tile's, both consumers), and this thread's two
    // rows in it.
    const auto m_wg = [&](int hf) {
      return m0 + (Cfg::SPLIT_N ? 0 : (consumer * HALVES + hf) * Cfg::WG_N);
    };
    const auto row = [&](int hf, int h) { return m_wg(hf) + 16 * warp + g + 8 * h; };
    // Row scales: this thread's 2 rows a half (m of A, times alpha) and 2 NJ columns (n of B),
    // loaded now and used after the mainloop.
    float rsa[2 * HALVES], rsb[S == ScaleMode::row ? 2 * NJ : 1];
    const auto load_row_scales = [&] {
#pragma unroll
      for (int i = 0; i < 2 * HALVES; ++i) {
        const int r = row(i / 2, i % 2);
        rsa[i] = r < M ? prm.alpha * __ldg(prm.scale_a + r) : 0.f;
      }
#pragma unroll
      for (int j = 0; j < NJ; ++j)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int n = n0c + 8 * j + 2 * q + e;
          rsb[2 * j + e] = n < N ? __ldg(prm.scale_b + n) : 0.f;
        }
    };
    // Variants _pipe, _n192 and _m256 keep 192 registers of partials and sums live through the
    // mainloop: their row scales wait until after it.
    if constexpr (S == ScaleMode::row && f3_base(V) == kF3) load_row_scales();
    if constexpr (S == ScaleMode::block128) {  // rows past M read the last row's (unstored)
      const auto row_scales = [&](int hf, int h) {
        return prm.scale_a + int64_t(min(row(hf, h), M - 1)) * kbs + w.kb_begin;
      };
      if constexpr (Mainloop::kTmaScales) {
        mainloop.sa_kb0 = w.kb_begin;  // A's scales come with the stages: the boxes' columns
      } else {
        mainloop.sa0 = row_scales(0, 0);
        mainloop.sa1 = row_scales(0, 1);
        if constexpr (HALVES == 2) mainloop.sa2 = row_scales(1, 0), mainloop.sa3 = row_scales(1, 1);
      }
      // B's 128-row blocks under the tile's rows n0 .. n0 + BN - 1 (the second clamped to the
      // last block: its columns past N are not stored; so is a cluster's padding tile, all past
      // N).
      const int nb_last = (N - 1) / int(kScaleBlock);
      const int nb = Cfg::CLUSTER > 1 ? min(n0 / int(kScaleBlock), nb_last) : n0 / int(kScaleBlock);
      mainloop.sb = prm.scale_b + int64_t(nb) * kbs + w.kb_begin;
      if constexpr (Cfg::BN == 192) {
        mainloop.sb_hi = prm.scale_b + int64_t(min(nb + 1, nb_last)) * kbs + w.kb_begin;
        mainloop.mid_lo = n0 % int(kScaleBlock) == 0;  // columns 64..127 of the tile in block nb
      }
    }
    if constexpr (HALVES == 2)
      mainloop.run_tall(acc, w.kb_end - w.kb_begin);
    else
      mainloop.template run<0>(acc[0], w.kb_end - w.kb_begin, [](auto) {});
    if constexpr (S == ScaleMode::row && f3_base(V) != kF3) load_row_scales();
    if constexpr (SK) {
      const int slot = int(blockIdx.x) * Cfg::CONSUMERS + consumer;
      const uint32_t bar_id = 1 + consumer;
      if (w.kb_end < kbs) {  // partial: the tile's finisher adds it
        sk_publish(acc[0], slot, prm.epoch, wg_thread, bar_id);
        continue;
      }
      if (w.kb_begin > 0)  // add the tile's first k-blocks, published by lower CTAs
        for (int cc = sk_prev_contributor(sched, int(blockIdx.x), w.sk_tile); cc >= 0;
             cc = sk_prev_contributor(sched, cc, w.sk_tile))
          sk_accumulate(acc[0], cc * Cfg::CONSUMERS + consumer, prm.epoch, wg_thread, bar_id);
    }
#pragma unroll
    for (int hf = 0; hf < HALVES; ++hf) {
#pragma unroll
      for (int j = 0; j < NJ; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h)
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            float& v = acc[hf][4 * j + 2 * h + e];
            if constexpr (S == ScaleMode::row)
              v *= rsa[2 * hf + h] * rsb[2 * j + e];
            else
              v *= tensor_scale;  // alpha * sa * sb; alpha alone with block scales
          }
      if (m_wg(hf) >= M) continue;  // this warpgroup's rows of the half are all past M (uniform)
      if (Cfg::EPI_BUFS > 0 && sched.c_tma) {
        if constexpr (Cfg::EPI_BUFS > 0)
          f3_store_tma<Cfg::EPI_BUF_BYTES, Cfg::EPI_BUFS>(acc[hf], &map_c, s_epi_own, m_wg(hf), n0c,
                                                          N, consumer, warp, lane, wg_thread);
      } else {  // beta != 0, M % 8 != 0, C unaligned or a narrow tile: straight from the fragment
#pragma unroll
        for (int j = 0; j < NJ; ++j)
#pragma unroll
          for (int h = 0; h < 2; ++h)
#pragma unroll
            for (int e = 0; e < 2; ++e) {
              const int m = row(hf, h), n = n0c + 8 * j + 2 * q + e;
              if (m >= M || n >= N) continue;
              __nv_bfloat16* dst = prm.c + int64_t(n) * M + m;
              float v = acc[hf][4 * j + 2 * h + e];
              if (prm.beta != 0.f) v += prm.beta * __bfloat162float(*dst);
              *dst = __float2bfloat16_rn(v);
            }
      }
    }
  }
  if (wg_thread == 0) sm90::bulk_wait_group_read<0>();  // the CTA outlives the stores' reads
}

// _m256c2ts's and _m64c2's (kF3TmaScales) loads beside A's and B's tiles (Sm90Producer::run's stage
// loads): with the stage of every fourth k-block kb (K % 512 == 0: a tile's walk is whole boxes),
// the box of A's scales of k-blocks kb .. kb + 3 for this CTA's A slice's rows (rows past M:
// clamped, as A's, or zeros), multicast to the cluster as A is, into slot `loaded` % SA_SLOTS; each
// CTA's full barrier counts the whole box, its own rows and its peers' (tx_bytes). The slots'
// lifetime: F3Cfg. With A's box, B's: the same 4 k-blocks of the tile's 128-row block of B (scale_b
// [NB, KB] row-major, box (SA_BOX_KB, 1): 16 bytes), this CTA's own (its B tile is its own), into
// B's slot of the same index; the padding N tile of a cluster (all past N) reads the last block's.
template <class Cfg>
struct TallScaleLoads {
  const CUtensorMap* map;     // scale_a [M, KB] row-major, box (SA_BOX_KB, A_SLICE_ROWS)
  const CUtensorMap* map_sb;  // scale_b [NB, KB] row-major, box (SA_BOX_KB, 1)
  const Sm90Ring<Cfg::STAGES>* ring;
  uint32_t s_sa;  // (SA_SLOTS, BM, SA_BOX_KB) f32
  uint32_t s_sb;  // (SA_SLOTS, SB_SLOT_BYTES): SA_BOX_KB f32 at the start of each
  int M;
  int nb_last;    // B's last 128-row block
  uint32_t rank;  // in the cluster: which rows of the box this CTA loads
  uint32_t loaded = 0;
  static_assert(int(kScaleBlock) % Cfg::BN == 0,
                "the tile's B rows lie in one block of B's scales (_m256c2ts: 128, _m64c2: 128, "
                "64 or 32)");
  // The block of B's scales under the CTA's tile n_tile (units of BN).
  __device__ __forceinline__ static int b_block(int n_tile) {
    return n_tile / (int(kScaleBlock) / Cfg::BN);
  }

  __device__ __forceinline__ uint32_t tx_bytes(int kb) const {
    return kb % Cfg::SA_BOX_KB == 0 ? Cfg::SA_SLOT_BYTES + Cfg::SB_BOX_BYTES : 0u;
  }
  __device__ __forceinline__ void operator()(int stage, int kb, int m_tile, int n_tile) {
    if (kb % Cfg::SA_BOX_KB != 0) return;
    const uint32_t slot = loaded++ % Cfg::SA_SLOTS;
    sm90::tma_load_2d(s_sb + slot * Cfg::SB_SLOT_BYTES, map_sb, ring->full(stage),
                      rowmajor_f32_box_col(kb), min(b_block(n_tile), nb_last));
    const uint32_t dst = s_sa + slot * Cfg::SA_SLOT_BYTES + rank * Cfg::SA_SLICE_BYTES;
    const int row = min(m_tile * Cfg::BM + int(rank) * Cfg::A_SLICE_ROWS, M - 1);
    if constexpr (Cfg::CLUSTER > 1)
      sm90::tma_load_2d_multicast(dst, map, ring->full(stage), uint16_t((1u << Cfg::CLUSTER) - 1),
                                  rowmajor_f32_box_col(kb), row);
    else
      sm90::tma_load_2d(dst, map, ring->full(stage), rowmajor_f32_box_col(kb), row);
  }
};

// The kernels' body (fp8gemm_sm90_persistent_kernel, and _m256c2ts's entry point below with its
// fourth and fifth tensor maps): map_sa and map_sb, scale_a's and scale_b's maps for the stages'
// scale slots (kF3TmaScales), else null.
template <ScaleMode S, bool kFast, int CLUSTER, bool MROWS, bool SK, int V, DType TA, DType TB>
__device__ __forceinline__ void persistent_body(const CUtensorMap& map_a,
                                                const CUtensorMap& map_a_tail,
                                                const CUtensorMap& map_b, const CUtensorMap& map_c,
                                                const CUtensorMap* map_sa,
                                                const CUtensorMap* map_sb, const F2Params& prm) {
  using Cfg = F2Cfg<S, CLUSTER, MROWS, V>;
  constexpr bool kTs = f3_tma_scales(V);
  constexpr int STAGES = Cfg::STAGES;
  // kBlock: the block scales go through the consumers' scale slots (F2's orientation only).
  constexpr bool kBlock = S == ScaleMode::block128 && !MROWS;
  static_assert(!MROWS || CLUSTER == 1 || f3_base(V) == kF3Tall ||
                    (!SK && (f3_base(V) == kF3Narrow || f3_base(V) == kF3NarrowPlain ||
                             f3_base(V) == kF3Narrow64 || f3_base(V) == kF3Narrow32 ||
                             f3_base(V) == kF3Narrow16)),
                "rung F3 runs clusters at 256 rows, and the 64-row tiles without stream-K");
  static_assert(!SK || MROWS, "stream-K is rung F3's (variant _sk)");
  static_assert(MROWS || (TA == DType::e4m3 && TB == DType::e4m3), "F2 takes e4m3 x e4m3");
  static_assert(!(kFast && S == ScaleMode::block128), "block scales are applied at promotion");
  static_assert(Cfg::A_SLICE_ROWS * CLUSTER == Cfg::BM,
                "the cluster's CTAs split the A tile's rows");
  // The register split: rung 10's 40 / 232.
  constexpr int kProducerRegs = Cfg::PRODUCER_REGS;
  constexpr int kConsumerRegs = Cfg::CONSUMER_REGS;
  static_assert(128 * kProducerRegs + 128 * Cfg::CONSUMERS * kConsumerRegs <= 65536,
                "the SM's 64K registers");
  // The barriers (and scale slots) are the static shared memory: supports() tells the sm_90a
  // image from the trap stub of the other passes by it.
  __shared__ alignas(8) uint64_t full_bar[STAGES], empty_bar[STAGES];
  __shared__ alignas(16) float s_scale[kBlock ? 2 * Cfg::CONSUMERS : 1][kScaleSlot];
  extern __shared__ uint8_t smem_raw[];
  const uint32_t smem = (ptx::smem_u32(smem_raw) + 1023u) & ~1023u;
  const uint32_t s_a = smem;                                // (STAGES, 128 x 128 B), SW128
  const uint32_t s_b = smem + STAGES * Cfg::A_STAGE_BYTES;  // (STAGES, 128 x 128 B), SW128
  const uint32_t s_epi = smem + STAGES * Cfg::STAGE_BYTES;  // (2 consumers, 2, 64, 64) SW128
  uint32_t s_sa = 0;  // kTs: (SA_SLOTS, BM, 4) f32 after the boxes, 4 KB a slot (1024-B aligned)
  uint32_t s_sb = 0;  // kTs: B's (SA_SLOTS, 128 B) after A's slots (128-byte aligned)
  if constexpr (kTs) {
    s_sa = s_epi + Cfg::CONSUMERS * Cfg::EPI_BUFS * Cfg::EPI_BUF_BYTES;
    s_sb = s_sa + Cfg::SA_SLOTS * Cfg::SA_SLOT_BYTES;
  }
  const Sm90Schedule& sched = prm.sched;
  const int wg = threadIdx.x / 128, wg_thread = threadIdx.x % 128;
  const int warp = wg_thread / 32, lane = wg_thread % 32;

  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      // full: the TMA thread's expect_tx.
      sm90::mbarrier_init(ptx::smem_u32(&full_bar[s]), 1);
      // empty: every consumer warp of every CTA the stage's A slices were multicast to.
      sm90::mbarrier_init(ptx::smem_u32(&empty_bar[s]), Cfg::CONSUMERS * 4 * CLUSTER);
    }
    sm90::fence_barrier_init();
    sm90::tma_prefetch_descriptor(&map_a);
    sm90::tma_prefetch_descriptor(&map_a_tail);
    sm90::tma_prefetch_descriptor(&map_b);
    if (sched.c_tma) sm90::tma_prefetch_descriptor(&map_c);
    if constexpr (kTs) {
      sm90::tma_prefetch_descriptor(map_sa);
      sm90::tma_prefetch_descriptor(map_sb);
    }
  }
  // Peers arrive on our barriers and multicast into our stages: all must be initialised first.
  if constexpr (CLUSTER > 1)
    sm90::cluster_sync();
  else
    __syncthreads();
  const uint32_t rank = CLUSTER > 1 ? sm90::cluster_ctarank() : 0;

  int stage = 0;
  uint32_t phase = 0;
  const Sm90Ring<STAGES> ring{full_bar, empty_bar, stage, phase};
  Sm90WorkIter<SK> work_iter(sched, blockIdx.x / CLUSTER);
  Sm90Work w;

  if (wg == 0) {  // ======== PRODUCER warpgroup: the TMA thread (common/sm90/producer.cuh) ========
    // Both operands K-major, A's tile multicast over the cluster (CLUSTER 2: each CTA loads its
    // 64-row slice), 128 e4m3 of K a k-block; the multicast producer's tail included.
    sm90::setmaxnreg_dec<kProducerRegs>();
    using Producer = Sm90Producer<Cfg, true, true, false, kBK, f3_skip_past_m(V)>;
    if constexpr (kTs) {  // and A's scales, a box of 4 k-blocks with every fourth (F3Cfg)
      if (wg_thread == 0)
        Producer{&map_a, &map_b, s_a, s_b, prm.m, prm.n, rank, &map_a_tail}.run(
            ring, work_iter,
            TallScaleLoads<Cfg>{map_sa, map_sb, &ring, s_sa, s_sb, prm.m,
                                (prm.n - 1) / int(kScaleBlock), rank});
    } else if (wg_thread == 0) {
      Producer{&map_a, &map_b, s_a, s_b, prm.m, prm.n, rank, &map_a_tail}.run(ring, work_iter);
    }
    return;
  }

  // ======== CONSUMERS: 64 rows of the B tile each, all 128 rows of the A tile ========
  sm90::setmaxnreg_inc<kConsumerRegs>();
  // Warp-uniform: the wgmma descriptors built from it go in uniform registers.
  const int consumer = sm90::warp_uniform(wg - 1);
  const int g = lane / 4, q = lane % 4;
  if constexpr (MROWS) {
    f3_consumer<S, kFast, Cfg, SK, V, TA, TB>(ring, work_iter, prm, map_c, s_a, s_b,
                                              s_epi + consumer * Cfg::EPI_BUFS * Cfg::EPI_BUF_BYTES,
                                              consumer, warp, lane, wg_thread, rank, s_sa, s_sb);
  } else {  // F2's consumers (Sm90Config: rung 10's epilogue)
    const int M = prm.m, N = prm.n;
    __nv_bfloat16* c = prm.c;
    const float one = 1.f;  // the epilogue's alpha: alpha and the scales are applied before it
    const float beta = prm.beta;
    uint32_t packed[kBM / 4];
    bool pending = false;
    int pending_m0 = 0, pending_n0 = 0;
    Sm90Epilogue<__nv_bfloat16, false, Cfg, false> epilogue{
        &map_c,
        c,
        M,
        N,
        one,
        beta,
        s_epi + consumer * Cfg::EPI_BUFS * Cfg::EPI_BUF_BYTES,  // (EPI_BUFS, 64, 64) SW128
        consumer,
        warp,
        lane,
        q,
        wg_thread,
        uint32_t(1 + consumer),
        consumer * Cfg::WG_N + 16 * warp + g,  // this thread's row of B (h = 0) within the tile
        (M % 8 == 0) && (reinterpret_cast<uintptr_t>(c) % 16 == 0),
        packed,
        pending,
        pending_m0,
        pending_n0};
    F2Mainloop<S, kFast, Cfg, false> mainloop{
        ring, s_a, s_b, ptx::smem_u32(&s_scale[kBlock ? 2 * consumer : 0][0]), consumer, lane, q};
    mainloop.wg_thread = wg_thread;
    const float tensor_scale =
        S == ScaleMode::tensor ? prm.alpha * prm.scale_a[0] * prm.scale_b[0] : prm.alpha;
    float acc[64];
    while (work_iter.next(w)) {
      const auto [m_tile, n_tile] = sm90_cta_tile<CLUSTER, false>(w, rank);
      const int m0 = m_tile * kBM, n_row = n_tile * kBN + consumer * Cfg::WG_N + 16 * warp + g;
      if constexpr (kBlock) {  // this thread's row of A in the tile's scale slots, and B's block
        const int kbs = sched.k_blocks, m = m0 + wg_thread;
        mainloop.f2_valid = m < M && n_tile < sched.tiles_n;  // else 0 (a padding tile of _c2)
        mainloop.sa0 = prm.scale_a + int64_t(min(m, M - 1)) * kbs;
        mainloop.sb = prm.scale_b + int64_t(min(n_tile, sched.tiles_n - 1)) * kbs;
      }
      // Row scales: this thread's 32 columns (rows m of A) and 2 rows (n of B), loaded now and used
      // after the mainloop.
      float rsa[S == ScaleMode::row ? 32 : 1], rsb[2];
      if constexpr (S == ScaleMode::row) {
#pragma unroll
        for (int j = 0; j < 16; ++j)
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            const int m = m0 + 8 * j + 2 * q + e;
            rsa[2 * j + e] = m < M ? __ldg(prm.scale_a + m) : 0.f;
          }
#pragma unroll
        for (int h = 0; h < 2; ++h)
          rsb[h] = n_row + 8 * h < N ? prm.alpha * __ldg(prm.scale_b + n_row + 8 * h) : 0.f;
      }
      mainloop.template run<decltype(epilogue)::BOXES>(acc, sched.k_blocks, [&](auto box) {
        epilogue.template store_pending_box<decltype(box)::value>();
      });
      pending = false;
#pragma unroll
      for (int j = 0; j < 16; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h)
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            float& v = acc[4 * j + 2 * h + e];
            if constexpr (S == ScaleMode::row)
              v *= rsa[2 * j + e] * rsb[h];
            else
              v *= tensor_scale;  // alpha * sa * sb; alpha alone with block scales
          }
      epilogue.store(acc, m_tile, n_tile, sched);
    }
    epilogue.drain();
  }
}

#endif  // GEMMBENCH_SM90A

template <ScaleMode S, bool kFast, int CLUSTER, bool MROWS, bool SK = false, int V = 0,
          DType TA = DType::e4m3, DType TB = DType::e4m3>
__global__ void __launch_bounds__(F2Cfg<S, CLUSTER, MROWS, V>::THREADS, 1)
    fp8gemm_sm90_persistent_kernel(
        const __grid_constant__ CUtensorMap map_a,       // (M,K), box (128,128)
        const __grid_constant__ CUtensorMap map_a_tail,  // box (128, M % A_SLICE_ROWS), else map_a
        const __grid_constant__ CUtensorMap map_b,       // (N,K), box (128,128)
        const __grid_constant__ CUtensorMap map_c,       // C, box (64,64) SW128
        const F2Params prm) {
#if GEMMBENCH_SM90A
  static_assert(!f3_tma_scales(V), "_m256c2ts has its own entry point (its scale map)");
  persistent_body<S, kFast, CLUSTER, MROWS, SK, V, TA, TB>(map_a, map_a_tail, map_b, map_c, nullptr,
                                                           nullptr, prm);
#else
  __trap();
#endif
}

// _m256c2ts (V: kF3Tall | kF3TmaScales): _m256c2's kernel, block128, with scale_a's tensor map
// as a fourth parameter. An entry point of its own, so that the other kernels keep their
// parameters and their machine code.
template <int CLUSTER, bool SK, int V, DType TA, DType TB>
__global__ void __launch_bounds__(F3CfgOf<V, CLUSTER>::THREADS, 1)
    fp8gemm_sm90_persistent_ts_kernel(
        const __grid_constant__ CUtensorMap map_a,       // (M,K), box (128,BM / CLUSTER)
        const __grid_constant__ CUtensorMap map_a_tail,  // box (128, M % A_SLICE_ROWS), else map_a
        const __grid_constant__ CUtensorMap map_b,       // (N,K), box (128,BN)
        const __grid_constant__ CUtensorMap map_c,       // C, box (64,64) SW128
        const __grid_constant__ CUtensorMap map_sa,  // scale_a (KB, M) f32, box (4,BM), unswizzled
        const __grid_constant__ CUtensorMap map_sb,  // scale_b (KB, NB) f32, box (4,1), unswizzled
        const F2Params prm) {
#if GEMMBENCH_SM90A
  using Cfg = F3CfgOf<V, CLUSTER>;
  static_assert(f3_tma_scales(V) && Cfg::TMA_SCALES,
                "the entry point of the tiles with A's scales in the stages");
  persistent_body<ScaleMode::block128, false, CLUSTER, true, SK, V, TA, TB>(
      map_a, map_a_tail, map_b, map_c, &map_sa, &map_sb, prm);
#else
  __trap();
#endif
}

// The instantiation of a problem, with its shared-memory limit raised and its resident clusters
// counted once per device: the persistent grid. kernel_fn: its entry point (_m256c2ts's its own).
template <ScaleMode S, bool kFast, int CLUSTER, bool MROWS, bool SK, int V, DType TA, DType TB>
constexpr auto kernel_fn() {
  if constexpr (f3_tma_scales(V))
    return &fp8gemm_sm90_persistent_ts_kernel<CLUSTER, SK, V, TA, TB>;
  else
    return &fp8gemm_sm90_persistent_kernel<S, kFast, CLUSTER, MROWS, SK, V, TA, TB>;
}
template <ScaleMode S, bool kFast, int CLUSTER, bool MROWS, bool SK, int V, DType TA, DType TB>
const void* kernel_ptr() {
  return reinterpret_cast<const void*>(kernel_fn<S, kFast, CLUSTER, MROWS, SK, V, TA, TB>());
}
template <ScaleMode S, int CLUSTER, bool MROWS, int V>
cudaLaunchConfig_t launch_config(int ctas, cudaStream_t stream, cudaLaunchAttribute& attr) {
  using Cfg = F2Cfg<S, CLUSTER, MROWS, V>;
  return cluster_launch_config(ctas, CLUSTER, Cfg::THREADS, Cfg::SMEM_BYTES, stream, attr);
}
template <ScaleMode S, bool kFast, int CLUSTER, bool MROWS, bool SK, int V, DType TA, DType TB>
int resident_clusters() {
  static PerDevice<int> count;
  return count.get([](int dev) {
    const auto fn = kernel_fn<S, kFast, CLUSTER, MROWS, SK, V, TA, TB>();
    CUDA_CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    F2Cfg<S, CLUSTER, MROWS, V>::SMEM_BYTES));
    if constexpr (CLUSTER == 1) {
      return resident_ctas(fn, F2Cfg<S, CLUSTER, MROWS, V>::THREADS,
                           F2Cfg<S, CLUSTER, MROWS, V>::SMEM_BYTES, dev);
    } else {
      const int n = max_active_clusters(fn, CLUSTER, F2Cfg<S, CLUSTER, MROWS, V>::THREADS,
                                        F2Cfg<S, CLUSTER, MROWS, V>::SMEM_BYTES);
      if (n < 1) throw std::runtime_error("fp8gemm_sm90_persistent: no cluster fits the device");
      return n;
    }
  });
}

template <ScaleMode S, bool kFast, int CLUSTER, bool MROWS, bool SK, int V, DType TA, DType TB>
void run(const GemmArgs& a, cudaStream_t stream) {
  using Cfg = F2Cfg<S, CLUSTER, MROWS, V>;
  const GemmProblem& p = a.problem;
  const int M = int(p.m), N = int(p.n), K = int(p.k);
  int clusters = resident_clusters<S, kFast, CLUSTER, MROWS, SK, V, TA, TB>();
  if (a.test_max_ctas > 0)  // tests: several tiles a cluster; whole clusters, at least one
    clusters = std::min(clusters, std::max(1, a.test_max_ctas / CLUSTER));
  if constexpr (SK) clusters = std::min(clusters, kSkMaxCtas);  // the workspace's slots
  F2Params prm{M, N, K, a.alpha, a.beta, a.scale_a, a.scale_b, static_cast<__nv_bfloat16*>(a.c),
               // Rung F3's family on grids of whole waves (whole_wave_clusters); one-byte weights.
               make_schedule(M, N, K, Cfg::BM, Cfg::BN, kBK, CLUSTER, clusters, SK, MROWS, 1),
               SK ? next_sk_epoch() : 0u};
  const CUtensorMap map_a = make_kmajor_map(a.a, p.dtype, M, K, Cfg::A_SLICE_ROWS);
  const CUtensorMap map_a_tail = a_tail_map(map_a, true, a.a, p.dtype, M, K, Cfg::A_SLICE_ROWS);
  const CUtensorMap map_b = make_kmajor_map(a.b, p.b_type(), N, K, Cfg::BN);
  CUtensorMap map_c{};  // left zero (and unread) unless the TMA-store epilogue runs
  if (a.beta == 0.f && M % 8 == 0 && reinterpret_cast<uintptr_t>(a.c) % 16 == 0) {
    map_c = make_c_store_map(a.c, DType::bf16, M, N, Cfg::EPI_BOX);
    prm.sched.c_tma = 1;
  }
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t cfg =
      launch_config<S, CLUSTER, MROWS, V>(prm.sched.clusters * CLUSTER, stream, attr);
  if constexpr (f3_tma_scales(V)) {  // scale_a [M, KB] row-major: boxes of 4 k-blocks x BM rows
    const CUtensorMap map_sa =
        make_rowmajor_f32_map(a.scale_a, M, (K + kBK - 1) / kBK, Cfg::SA_BOX_KB, Cfg::A_SLICE_ROWS);
    // scale_b [NB, KB] row-major: boxes of 4 k-blocks x 1 block of B.
    const CUtensorMap map_sb =
        make_rowmajor_f32_map(a.scale_b, (N + int(kScaleBlock) - 1) / int(kScaleBlock),
                              (K + kBK - 1) / kBK, Cfg::SA_BOX_KB, 1);
    CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel_fn<S, kFast, CLUSTER, MROWS, SK, V, TA, TB>(), map_a,
                                  map_a_tail, map_b, map_c, map_sa, map_sb, prm));
  } else {
    CUDA_CHECK(cudaLaunchKernelEx(
        &cfg, &fp8gemm_sm90_persistent_kernel<S, kFast, CLUSTER, MROWS, SK, V, TA, TB>, map_a,
        map_a_tail, map_b, map_c, prm));
  }
}

// f(scale, fast) with the problem's scheme as compile-time constants.
template <class F>
auto by_scheme(const GemmProblem& p, F&& f) {
  using Row = std::integral_constant<ScaleMode, ScaleMode::row>;
  using Block = std::integral_constant<ScaleMode, ScaleMode::block128>;
  using Tensor = std::integral_constant<ScaleMode, ScaleMode::tensor>;
  switch (p.scale) {
    case ScaleMode::row:
      return p.fast_accum ? f(Row{}, std::true_type{}) : f(Row{}, std::false_type{});
    case ScaleMode::block128:
      return f(Block{}, std::false_type{});
    default:
      return p.fast_accum ? f(Tensor{}, std::true_type{}) : f(Tensor{}, std::false_type{});
  }
}

// f(a, b) with the problem's pair of FP8 formats as compile-time constants: rung F3 (MROWS) takes
// e4m3 x e4m3, e4m3 x e5m2 and e5m2 x e4m3 (supports() refuses e5m2 x e5m2), F2 e4m3 x e4m3.
template <bool MROWS, class F>
auto by_pair(const GemmProblem& p, F&& f) {
  using E4 = std::integral_constant<DType, DType::e4m3>;
  using E5 = std::integral_constant<DType, DType::e5m2>;
  if constexpr (MROWS) {
    if (p.dtype == DType::e5m2) return f(E5{}, E4{});
    if (p.b_type() == DType::e5m2) return f(E4{}, E5{});
  }
  return f(E4{}, E4{});
}

template <int CLUSTER, bool MROWS = false, bool SK = false, int V = 0>
std::string supports(const GemmProblem& p, const DeviceCaps& caps) {
  if constexpr (MROWS) {
    if (std::string why = fp8_pair_unsupported(p.dtype, p.b_type()); !why.empty()) return why;
  } else if (p.dtype != DType::e4m3 || p.b_type() != DType::e4m3) {
    return "e4m3 x e4m3 only (rung F2)";
  }
  if (std::string why = fp8_sm90_problem_unsupported(p, caps); !why.empty()) return why;
  // Raster slots, padded to whole bands (of up to 8; 16 leaves room), in a 32-bit index.
  constexpr int BM = F2Cfg<ScaleMode::tensor, CLUSTER, MROWS, V>::BM;
  constexpr int BN = F2Cfg<ScaleMode::tensor, CLUSTER, MROWS, V>::BN;
  if ((p.m + BM - 1) / BM * 16 * ((p.n + BN * CLUSTER - 1) / (BN * CLUSTER) + 15) >=
      (int64_t(1) << 31))
    return "too many tiles for the 32-bit persistent tile index";
  return by_pair<MROWS>(p, [&](auto ta, auto tb) {
    return by_scheme(p, [&](auto s, auto fast) {
      constexpr ScaleMode S = decltype(s)::value;
      return sm90a_image_unsupported(kernel_ptr<S, decltype(fast)::value, CLUSTER, MROWS, SK, V,
                                                decltype(ta)::value, decltype(tb)::value>(),
                                     F2Cfg<S, CLUSTER, MROWS, V>::SMEM_BYTES, caps);
    });
  });
}

template <int CLUSTER, bool MROWS = false, bool SK = false, int V = 0>
void launch(const GemmArgs& a, cudaStream_t stream) {
  by_pair<MROWS>(a.problem, [&](auto ta, auto tb) {
    by_scheme(a.problem, [&](auto s, auto fast) {
      run<decltype(s)::value, decltype(fast)::value, CLUSTER, MROWS, SK, V, decltype(ta)::value,
          decltype(tb)::value>(a, stream);
    });
  });
}

// The 64-row tiles. _m64 (CLUSTER 1): on the stream-K schedule, with 128, 64 or 32 rows of B
// (m64_tile_n: a narrower width where 128 rows would split each tile many ways or K is short).
// _m64c2 (CLUSTER 2, rule M3): on 2-CTA clusters along N, each CTA loading 32 of the tile's rows
// of A and multicasting them to both, no stream-K (a cluster's two CTAs walk the same k-blocks),
// at the width that fills the waves (fill_tile_n, DeepGEMM's BLOCK_N rule, over the grid's CTAs;
// m64c2_tile_n), with the slices of A wholly past M not loaded. FLAGS: kF3SkipPastM (_m64c2) or
// none, with kF3TmaScales and kF3OneConsumer; with one consumer 64 x 16 tiles where they make one
// wave (m64c2_tile_n).
template <ScaleMode S, bool kFast, int CLUSTER, int FLAGS, DType TA, DType TB>
void run_narrow(const GemmArgs& a, cudaStream_t stream) {
  constexpr bool SK = CLUSTER == 1;
  constexpr bool kOne = f3_one_consumer(FLAGS);
  static_assert(!kOne || !SK, "one consumer warpgroup on _m64c2's clusters only");
  const int m = int(a.problem.m), n = int(a.problem.n), k = int(a.problem.k);
  // (Sized by the 64 x 128 tile's image of these FLAGS, which the default case launches.)
  int ctas = CLUSTER * resident_clusters<S, kFast, CLUSTER, true, SK, kF3Narrow | FLAGS, TA, TB>();
  if (a.test_max_ctas > 0) ctas = std::min(ctas, std::max(CLUSTER, a.test_max_ctas));
  if constexpr (SK) ctas = std::min(ctas, kSkMaxCtas);
  switch (SK ? m64_tile_n(m, n, k, ctas) : m64c2_tile_n(m, n, ctas, kOne)) {
    case 16:
      if constexpr (kOne)
        return run<S, kFast, CLUSTER, true, SK, kF3Narrow16 | FLAGS, TA, TB>(a, stream);
      [[fallthrough]];  // (m64c2_tile_n picks 16 for one consumer only)
    case 32:
      return run<S, kFast, CLUSTER, true, SK, kF3Narrow32 | FLAGS, TA, TB>(a, stream);
    case 64:
      return run<S, kFast, CLUSTER, true, SK, kF3Narrow64 | FLAGS, TA, TB>(a, stream);
    default:
      if (!m64_pipelined_promotion(k))
        return run<S, kFast, CLUSTER, true, SK, kF3NarrowPlain | FLAGS, TA, TB>(a, stream);
      return run<S, kFast, CLUSTER, true, SK, kF3Narrow | FLAGS, TA, TB>(a, stream);
  }
}
template <int CLUSTER, int FLAGS = 0>
void launch_narrow(const GemmArgs& a, cudaStream_t stream) {
  by_pair<true>(a.problem, [&](auto ta, auto tb) {
    by_scheme(a.problem, [&](auto s, auto fast) {
      run_narrow<decltype(s)::value, decltype(fast)::value, CLUSTER, FLAGS, decltype(ta)::value,
                 decltype(tb)::value>(a, stream);
    });
  });
}

// What rung F3's experiment takes (_m256c2ts): e4m3 x e4m3 with block128 scales only
// (DeepGEMM's problem, where their A/Bs run), and with the block scales by TMA in the stages
// (kF3TmaScales) K % 512 == 0 (F3Cfg's boxes); what one refuses, its base kernel (`base`, named in
// the reason) runs. BM and BN: the narrowest tile, for the raster slots supports() counts, on
// clusters of two along N; V: the variant whose image is queried.
template <int BM, int BN, int V>
std::string f3_experiment_unsupported(const GemmProblem& p, const DeviceCaps& caps,
                                      const std::string& base) {
  if (p.dtype != DType::e4m3 || p.b_type() != DType::e4m3)
    return "e4m3 x e4m3 only (an A/B of " + base + " on DeepGEMM's shapes); " + base +
           " runs the e5m2 pairs";
  if (std::string why = fp8_sm90_problem_unsupported(p, caps); !why.empty()) return why;
  if (p.scale != ScaleMode::block128)
    return std::string("block128 scales only: ") +
           (f3_tma_scales(V) ? "A's block scales are what its stages carry"
                             : "an A/B at DeepGEMM's scaling") +
           "; " + base + " runs the other scalings";
  if (f3_tma_scales(V) && p.k % 512 != 0)
    return "K must be a multiple of 512: scale_a's rows of K/128 floats are a TMA map's rows "
           "(16-byte strides) and its boxes of 4 k-blocks stay inside them; " +
           base + " takes any K";
  if ((p.m + BM - 1) / BM * 16 * ((p.n + 2 * BN - 1) / (2 * BN) + 15) >= (int64_t(1) << 31))
    return "too many tiles for the 32-bit persistent tile index";
  constexpr ScaleMode S = ScaleMode::block128;
  constexpr DType E4 = DType::e4m3;
  return sm90a_image_unsupported(kernel_ptr<S, false, 2, true, false, V, E4, E4>(),
                                 F2Cfg<S, 2, true, V>::SMEM_BYTES, caps);
}
// Their maps' bases (supports() sees no pointer; the runner's are aligned).
bool scale_maps_aligned(const GemmArgs& a) {
  return reinterpret_cast<uintptr_t>(a.scale_a) % 16 == 0 &&
         reinterpret_cast<uintptr_t>(a.scale_b) % 16 == 0;
}
void check_scale_maps_aligned(const GemmArgs& a, const char* name) {
  if (!scale_maps_aligned(a))
    throw std::invalid_argument(std::string(name) +
                                ": scale_a and scale_b must be 16-byte aligned (TMA maps' bases)");
}

// _m64c2 (rule M3): the 64-row tiles on 2-CTA clusters, slices of A wholly past M not loaded.
// On e4m3 x e4m3 with block128 scales and no fast accumulation (DeepGEMM's problem, rule M3's),
// one consumer warpgroup on all of the tile's rows of B (kF3OneConsumer: wgmma m64n32k32 at
// 64x32, DeepGEMM's arrangement), two on half of them each elsewhere (measured only there); and
// of those, where the scale maps can take it (K % 512 == 0, both scale arrays 16-byte aligned: as
// _m256c2ts's f3_experiment_unsupported asks) A's and B's block scales come by TMA with every
// fourth stage and are read from shared memory (kF3TmaScales, as _m256c2ts), elsewhere from
// global memory by the consumer (m64c2_one_consumer: fp8gemm/sm90_rules.hpp).
bool m64c2_tma_scales(const GemmArgs& a) {
  return m64c2_one_consumer(a.problem) && a.problem.k % 512 == 0 && scale_maps_aligned(a);
}
void launch_m64c2(const GemmArgs& a, cudaStream_t stream) {
  constexpr DType E4 = DType::e4m3;
  constexpr ScaleMode S = ScaleMode::block128;
  constexpr int kOne = kF3SkipPastM | kF3OneConsumer;
  if (m64c2_tma_scales(a)) return run_narrow<S, false, 2, kOne | kF3TmaScales, E4, E4>(a, stream);
  if (m64c2_one_consumer(a.problem)) return run_narrow<S, false, 2, kOne, E4, E4>(a, stream);
  launch_narrow<2, kF3SkipPastM>(a, stream);
}

// _m256c2ts (issue 50's experiment): _m256c2 with A's block scales by TMA in each stage.
constexpr int kM256Ts = kF3Tall | kF3TmaScales;
std::string supports_m256c2ts(const GemmProblem& p, const DeviceCaps& caps) {
  return f3_experiment_unsupported<256, 128, kM256Ts>(p, caps, "fp8gemm_sm90_persistent_t_m256c2");
}
void launch_m256c2ts(const GemmArgs& a, cudaStream_t stream) {
  check_scale_maps_aligned(a, "fp8gemm_sm90_persistent_t_m256c2ts");
  constexpr DType E4 = DType::e4m3;
  run<ScaleMode::block128, false, 2, true, false, kM256Ts, E4, E4>(a, stream);
}

// Rung F3 and its variants take the e5m2 pairs too.
const std::vector<DType> kF3Types = {DType::e4m3, DType::e5m2};

GEMMBENCH_REGISTER_KERNEL(fp8_sm90_info(
    "fp8gemm_sm90_persistent", 2,
    "Hopper FP8 (e4m3), rung F1 made persistent in rung 10's frame: wgmma M = GEMM N "
    "(64 rows of B per consumer), 128x128x128 tiles in raster order, TMA-store epilogue "
    "deferred into the next tile; block scales staged a k-block ahead by each consumer warpgroup",
    supports<1>, launch<1>));

// A measured variant of F2 (docs/fp8.md: multicast of A did not pay at 128x128 tiles, 0.794x
// against 0.815x per-tensor); registered because the ladder's table reports it.
GEMMBENCH_REGISTER_KERNEL(fp8_sm90_info(
    "fp8gemm_sm90_persistent_c2", 2,
    "rung F2 on clusters of two CTAs along N: each loads half of the shared 128-row A "
    "tile and multicasts it to both (a quarter less L2 traffic per k-block)",
    supports<2>, launch<2>));

GEMMBENCH_REGISTER_KERNEL(
    fp8_sm90_info("fp8gemm_sm90_persistent_t", 3,
                  "rung F2 turned around: wgmma M = GEMM M (two A rows per thread: block scales "
                  "read from global memory, no shared-memory slot), 6 stages, an epilogue that "
                  "transposes through stmatrix.trans into the TMA-store boxes",
                  supports<1, true>, launch<1, true>, kF3Types));

// Rung F3 on the stream-K schedule of the Hopper rung (common/sm90/schedule.hpp): at decode token
// counts (one row of tiles, fewer tiles than SMs) each tile's k-blocks are split in equal parts
// over about half the grid; elsewhere the last partial wave is split. Partials go through the
// global workspace of common/sm90/stream_k.cuh (this translation unit's own copy).
GEMMBENCH_REGISTER_KERNEL(
    fp8_sm90_info("fp8gemm_sm90_persistent_t_sk", 3,
                  "rung F3 on the stream-K schedule: tiles' k-blocks split over CTAs where there "
                  "are fewer tiles than SMs (decode) or a last partial wave, partials summed "
                  "through a workspace",
                  supports<1, true, true>, launch<1, true, true>, kF3Types));

GEMMBENCH_REGISTER_KERNEL(
    fp8_sm90_info("fp8gemm_sm90_persistent_t_pipe", 3,
                  "rung F3 with the promotion pipelined inside each warpgroup: k-block kb + 1's "
                  "wgmmas run into a second partial while kb's is added",
                  supports<1, true, false, kF3Pipe>, launch<1, true, false, kF3Pipe>, kF3Types));

GEMMBENCH_REGISTER_KERNEL(
    fp8_sm90_info("fp8gemm_sm90_persistent_t_n192", 3,
                  "rung F3 on 128x192 tiles: wgmma m64n192k32, a third fewer shared-memory "
                  "operand reads per FLOP than 128 rows of B, 4 stages",
                  supports<1, true, false, kF3N192>, launch<1, true, false, kF3N192>, kF3Types));

// The 256-row tile on 2-CTA clusters sharing it. The tile alone (_m256, one CTA) was measured as
// its own step (docs/fp8.md: block128 0.927x cuBLASLt against _m256c2's 0.935x, per-tensor 0.952x
// against 0.974x) and retired for _m64's place in the rung: the same code at CLUSTER 1.
GEMMBENCH_REGISTER_KERNEL(
    fp8_sm90_info("fp8gemm_sm90_persistent_t_m256c2", 3,
                  "rung F3 on 256x128 tiles and 2-CTA clusters along N: each CTA loads half of "
                  "the shared 256-row A tile and multicasts it to both (half the L2 reads per "
                  "FLOP of a 128x128 tile)",
                  supports<2, true, false, kF3Tall>, launch<2, true, false, kF3Tall>, kF3Types));

// DeepGEMM's tile at M 64-128 (BLOCK_M 64, 8 stages): 64-row tiles whose rows of A both
// consumers share, each on half the tile's 128, 64 or 32 rows of B (m64_tile_n), on _sk's
// stream-K schedule (at decode each tile's k-blocks split over the grid;
// with more tiles than SMs only a last partial wave).
GEMMBENCH_REGISTER_KERNEL(
    fp8_sm90_info("fp8gemm_sm90_persistent_t_m64", 3,
                  "rung F3 on 64-row tiles: both consumer warpgroups on the tile's 64 rows of A, "
                  "each on half its 128, 64 or 32 rows of B (narrower where 128 would split "
                  "each tile many ways, or K is short), 8 stages, on the stream-K schedule (as "
                  "_sk); no rows past M at "
                  "M 64",
                  supports<1, true, true, kF3Narrow>, launch_narrow<1>, kF3Types));

// Rule M3's kernel (issue 50, 2026-12-01): _m64's tile on 2-CTA clusters sharing A. _m64 reads
// all of A's 64 rows in every CTA (at 64x4096x7168 on 64x32 tiles, 8 KB of A to 4 KB of B a
// k-block); rings twice as deep (_m64d, deleted) bought nothing (0.997-1.000x). With A multicast,
// _m64's time over this one's 1.037 at M 64 and 1.248 at M 128 on DeepGEMM's six shapes, block128
// (H200 sustained, bench_results/h200/2026-12-01_fp8_m64c2_ab_{dg,ds}.json.gz); behind where its
// tiles leave SMs idle or run many waves (rule M3's line, dispatch/rules.cpp).
// The slices of A wholly past M are not loaded (Sm90Producer's SKIP_PAST_M; measured as _m64c2z,
// 2026-12-01, fifteenth session, and folded in): without it a cluster's second CTA loaded a
// 32-row box of zeros each k-block at 32 tokens, as it does with the second token tile at 65-96.
// Its time over the skipping kernel's, DeepSeek-V3's eight layers, block128, one board: 1.113 at
// 32 tokens (0.997-1.237), 1.024 at 72, 1.027 at 96, no layer below 0.996
// (bench_results/h200/2026-12-01_fp8_m64c2z_ab.json.gz).
// Not kept: the consumers splitting K instead of N at the widths 64 and 32 (_m64c2k, each on
// every other k-block against the whole width, wgmma m64n64k32 or m64n32k32, sums added at the
// tile's end; commit 54c27ff): 0.990 at M 64 and 1.007 at M 128 on DeepGEMM's six shapes,
// 0.935-1.048 a shape (bench_results/h200/2026-12-01_fp8_m64c2k_ab_{dg,ds}.json.gz).
// The block scales by TMA in the stages where the maps take them (launch_m64c2; measured as
// _m64c2ts, 2026-12-01, sixteenth session, and folded in): Nsight Compute had shown the largest
// single stall of _m64c2 on a block scale loaded from global memory (8.6% of its warp samples at
// 64x4096x7168). The LDG kernel's time over the TMA one's on the cases rule M3 takes, one board
// each: DeepSeek-V3 at 32, 64 and 96 tokens 1.008, 1.019, 1.014 (0.982-1.048 a layer); DeepGEMM's
// shapes at M 64 1.016 and 1.019 in two calls (0.983-1.064), at M 128 1.023 and 1.026 (0.996-1.047)
// (bench_results/h200/2026-12-01_fp8_m64c2ts_ab{,_dg}.json.gz, _m64c2d_ab_dg.json.gz).
// Not kept: the 64x32 and 64x64 tiles on rings of 16 and 12 stages (_m64c2d, _m64c2tsd; 8
// before; commit f05ec13): _m64c2's time over _m64c2d's 0.987 at M 64 (0.967-1.003) and 0.999 at
// M 128 on DeepGEMM's six shapes; _m64c2ts's over _m64c2tsd's 0.992 and 1.006
// (bench_results/h200/2026-12-01_fp8_m64c2d_ab_dg.json.gz). At 128 CTAs of 64x32 tiles, as
// with _m64's 66 (_m64d), the ring's depth is not what holds the k-block back.
// One consumer warpgroup on all of the tile's rows of B on e4m3 x e4m3 block128 (measured as
// _m64c2w1, 2026-12-02, seventeenth session, and folded in): at 64x4096x7168 the two consumers
// issued 708 warp instructions a k-block a CTA to DeepGEMM's 291. A CTA of one warpgroup
// pipelining wgmma m64n32k32 runs four a k-block in 54 ns, two warpgroups of m64n16k32 in 90
// (scripts/dev/wgmma_chain.cu). The two-consumer kernel's time over this one's, one board each:
// DeepGEMM's six shapes 1.047 at M 64 (0.997-1.090) and 1.032 at M 128 (0.998-1.091);
// DeepSeek-V3's eight layers 1.050, 1.050, 1.037 at 32, 64, 96 tokens (0.994-1.114 a layer)
// (bench_results/h200/2026-12-02_fp8_m64c2w1_ab_{dg,ds}.json.gz).
// With it, 64 x 16 tiles where they make one wave at one row of tiles (m64c2_tile_n; measured as
// _m64c2n16, 2026-12-02, and folded in): 64x2112x7168 in 132 tiles, DeepGEMM's own choice there,
// 1.060x the speed of 66 tiles of 32; 1.061-1.068x at 32-64 tokens on N 1024-2112
// (bench_results/h200/2026-12-02_fp8_m64c2n16_ab_{dg,ds}.json.gz). Where fill_tile_n's columns a
// CTA would have picked 16 past one wave or on two rows of tiles, it lost (128x7168x16384 in 896
// tiles: 0.336x).
// Not kept: the same one-consumer tiles on single CTAs, A not multicast and no cluster, as
// DeepGEMM runs M below 512 (_m64c1, 2026-12-02, eighteenth session; commit ab09093): this
// kernel's time over _m64c1's 1.001 at M 64 (0.948-1.027) and 0.982 at M 128 (0.954-1.008) on
// DeepGEMM's six shapes; 0.996 / 1.005 / 0.975 at 32 / 64 / 96 tokens on DeepSeek-V3's eight
// layers (bench_results/h200/2026-12-02_fp8_m64c1_ab_{dg,ds}.json.gz). The cluster's tie between
// two CTAs' rings is not what holds the k-block back; the multicast still pays at M 96-128.
GEMMBENCH_REGISTER_KERNEL(
    fp8_sm90_info("fp8gemm_sm90_persistent_t_m64c2", 3,
                  "fp8gemm_sm90_persistent_t_m64's 64-row tile on 2-CTA clusters along N that "
                  "share its rows of A (each CTA loads 32 and multicasts them; slices wholly "
                  "past M not loaded), the width that fills the waves, no stream-K; e4m3 x e4m3 "
                  "block128: one consumer warpgroup on all the tile's rows of B (64x16 tiles "
                  "where they make one wave), and with K % 512 == 0 the block scales by TMA "
                  "with the stages",
                  supports<2, true, false, kF3Narrow>, launch_m64c2, kF3Types));

// Issue 50's step after _m256c2 (scripts/dev/reference/deepgemm_plugin/m256_ts_ab.json against
// _m256c2 and DeepGEMM); with the poll ahead, rules R and R2's kernel (block128 at M >= 4096).
GEMMBENCH_REGISTER_KERNEL(
    fp8_sm90_info("fp8gemm_sm90_persistent_t_m256c2ts", 3,
                  "_m256c2 with A's and B's block scales loaded by TMA (boxes of 4 k-blocks with "
                  "every fourth stage, each CTA's rows of A's multicast) and read from shared "
                  "memory, 3 stages: block128, K % 512 == 0, e4m3",
                  supports_m256c2ts, launch_m256c2ts));

}  // namespace
}  // namespace gemmbench
