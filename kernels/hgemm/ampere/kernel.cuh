// The Ampere-class HGEMM kernels behind hgemm_tn (rung 3) and hgemm_nn / hgemm_nt / hgemm_tt
// (rung 4), after CuTe's sgemm_sm80 tutorial (seed 000), ldmatrix .trans (seed 002) and the
// rasterization of seed 003.
// Adds over hgemm_mma (rung 2): 16-byte cp.async into a STAGES-deep shared ring (global latency
// hidden), register double-buffering across the BK/16 k-steps (ldmatrix under mma), an XOR
// swizzle instead of padding (no bank conflicts for cp.async or ldmatrix), rasterized tiles (L2
// reuse), edge tiles shifted inside M and N (unpredicated copies), the k-step's mma order by
// accumulate type (COLS_OUTER), C staged through shared memory and stored along M in 16-byte
// pieces, and a persistent schedule (PERSISTENT: one CTA per SM, the ring running on across
// tiles, D drained under the next tile's mma). MN-major operands use ldmatrix .trans.
// Tile (AmpereTile): BM x BN x BK, WARPS_M x WARPS_N warps of (BM/WARPS_M) x (BN/WARPS_N), STAGES;
// shared memory STAGES * (BM + BN) * BK * 2 bytes (+ BN * (BM + 8) * 2 when persistent).
// Constraints (ampere_supports, launch.cuh): 16-byte cp.async pieces, so K % 8 == 0 for a
// K-contiguous operand, M % 8 == 0 for an M-contiguous A, N % 8 == 0 for an N-contiguous B; any M,
// N, K >= 1. Measured (H100, 2026-11-24, hgemm_tn TN 5120x4096x4096): f16 acc 0.7492x cuBLAS
// median, f32 0.635x (bench_results/h100/2026-11-24_ampere_acceptance_final.json); history:
// docs/hgemm-ampere.md.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "common/ptx.cuh"
#include "common/raster.hpp"
#include "hgemm/ampere/config.cuh"
#include "hgemm/ampere/mainloop.cuh"
#include "hgemm/ampere/schedule.cuh"
#include "hgemm/ampere_index.hpp"
#include "hgemm/fragments.cuh"

namespace gemmbench::hgemm {

template <class Cfg, bool A_K_MAJOR, bool B_K_MAJOR, class AccT>
__global__ void __launch_bounds__(Cfg::THREADS) hgemm_ampere_kernel(const AmpereParams p) {
  using K = AmpereKernel<Cfg, A_K_MAJOR, B_K_MAJOR, AccT>;
  constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, STAGES = Cfg::STAGES;
  constexpr int WM = Cfg::WM, WN = Cfg::WN, MI = Cfg::MI, NI = Cfg::NI, NB = Cfg::NB;
  constexpr int KI = Cfg::KI, THREADS = Cfg::THREADS;
  constexpr bool PERSISTENT = Cfg::PERSISTENT;

  // The CTA's tile (a persistent CTA's first one: it then walks the raster grid's slots
  // blockIdx.x, blockIdx.x + gridDim.x, ...; see the PERSISTENT path of the mainloop).
  int slot = 0;
  TileCoord tile;
  if constexpr (PERSISTENT) {
    slot = next_tile_slot(p, int(blockIdx.x));
    if (slot >= p.raster_slots) return;  // more CTAs than tiles
    tile = raster_slot_tile(p, slot);
  } else {
    tile = raster_tile(int(blockIdx.x), int(blockIdx.y), p.log_tile);
    if (!raster_tile_valid(tile, p.tiles_m, p.tiles_n)) return;  // no-op CTA of the last column
  }
  // The CTA owns C rows [m0, m0+BM) and columns [n0, n0+BN), clipped to the matrix. It computes
  // the BM x BN tile at (mt, nt): an edge tile is shifted back to end at the matrix's edge when
  // the matrix is at least a tile large, so every row and column it reads exists (the rows and
  // columns it shares with its neighbour are computed twice and written by the neighbour only).
  // Then only K can cut a k-tile short, which lets the mainloop copy without predicates.
  int m0 = tile.m * BM;
  int n0 = tile.n * BN;
  int mt = shifted_origin(m0, p.m, BM);
  int nt = shifted_origin(n0, p.n, BN);

  extern __shared__ __align__(128) unsigned char smem[];
  // A stages: (BM,BK) K-major or (BK,BM) M-major; B stages: (BN,BK) K-major or (BK,BN) N-major.
  const uint32_t sA = ptx::smem_u32(smem);             // (STAGES, A tile) swizzled
  const uint32_t sB = sA + STAGES * K::STAGE_BYTES_A;  // (STAGES, B tile) swizzled

  const int tid = int(threadIdx.x);
  const int lane = tid % 32;
  const int warp = tid / 32;
  const int wm = warp % Cfg::WARPS_M;
  const int wn = warp / Cfg::WARPS_M;
  const int k_tiles = ceil_div(p.k, BK);

  typename K::CopyA copy_a(p.a, p.m, p.k, mt, tid);  // A tile (BM,BK) -> sA stage
  typename K::CopyB copy_b(p.b, p.n, p.k, nt, tid);  // B tile (BN,BK) -> sB stage

  // Per-lane ldmatrix row addresses in stage 0 (the stage offset is added per k-tile).
  uint32_t a_lane[K::OffA::kBases];  // (kBases) smem addr, stage 0
  uint32_t b_lane[K::OffB::kBases];  // (kBases) smem addr, stage 0
  {
    const typename K::OffA off_a(wm * WM, lane);
    const typename K::OffB off_b(wn * WN, lane);
#pragma unroll
    for (int i = 0; i < K::OffA::kBases; ++i) a_lane[i] = sA + 2u * off_a.base[i];
#pragma unroll
    for (int i = 0; i < K::OffB::kBases; ++i) b_lane[i] = sB + 2u * off_b.base[i];
  }

  AccFrag<AccT> acc[MI][NI];  // (WM,WN) warp tile, m16n8 fragments
#pragma unroll
  for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
    for (int ni = 0; ni < NI; ++ni) acc[mi][ni].clear();
  }
  uint32_t a_frag[2][MI][4];  // (2 bufs, WM,16) A fragments
  uint32_t b_frag[2][NB][4];  // (2 bufs, WN,16) B fragments, 2 n8 tiles per x4

  int write_stage = STAGES - 1;  // stage receiving k-tile kt + STAGES - 1

  // ================================ PROLOGUE ================================
  // Fill stages 0..STAGES-2 with k-tiles 0..STAGES-2. One commit group per stage even when the
  // tile does not exist, so "tile t landed" is always "at most STAGES-2 groups pending". (The
  // persistent schedule has its own prologue, below.)
  if constexpr (!PERSISTENT) {
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
      if (s < k_tiles) {
        copy_a.copy_next(sA + s * K::STAGE_BYTES_A);
        copy_b.copy_next(sB + s * K::STAGE_BYTES_B);
      }
      ptx::cp_async_commit();
    }
  }

  int read_stage = 0;  // stage holding k-tile kt
  uint32_t read_off_a = 0, read_off_b = 0;

  // g2s: all of the next k-tile into write_stage, one commit group per k-tile, then the next
  // write stage. A k-tile past K is copied as zeros into a stage nobody reads again rather than
  // skipped: with the two k-tile loops below, a
  // branch around the copies kept ptxas from interleaving them with the mma (hgemm_tn measured
  // 0.57x cuBLAS instead of 0.70x on edge CTAs' loop).
  auto copy_whole_tile = [&](auto mode) {
    constexpr bool IN = decltype(mode)::value == CopyMode::inside;
    copy_a.template copy_next<IN>(sA + write_stage * K::STAGE_BYTES_A);
    copy_b.template copy_next<IN>(sB + write_stage * K::STAGE_BYTES_B);
    ptx::cp_async_commit();
    write_stage = write_stage + 1 == STAGES ? 0 : write_stage + 1;
  };
  // At the last step of k-tile kt, before any read of k-tile kt+1: move the read stage on, wait
  // for k-tile kt+1 (groups up to kt+1 complete = at most STAGES-2 pending) and sync. The
  // barrier also means every warp has finished reading k-tile kt's stage.
  auto next_read_stage = [&]() {
    read_stage = read_stage + 1 == STAGES ? 0 : read_stage + 1;
    read_off_a = read_stage * K::STAGE_BYTES_A;
    read_off_b = read_stage * K::STAGE_BYTES_B;
    ptx::cp_async_wait<STAGES - 2>();
    __syncthreads();
  };

  // s2r of step kk's fragments into register buffer buf.
  auto load_step = [&](int buf, int kk) {
    uint32_t a_base[K::OffA::kBases];
    uint32_t b_base[K::OffB::kBases];
#pragma unroll
    for (int i = 0; i < K::OffA::kBases; ++i) a_base[i] = a_lane[i] + read_off_a;
#pragma unroll
    for (int i = 0; i < K::OffB::kBases; ++i) b_base[i] = b_lane[i] + read_off_b;
    load_fragments<typename K::OffA, A_K_MAJOR, MI>(a_frag[buf], a_base, kk);
    load_fragments<typename K::OffB, B_K_MAJOR, NB>(b_frag[buf], b_base, kk);
  };

  // ================================ MAINLOOP ================================
  // k-tile kt is read from read_stage while k-tile kt+STAGES-1 is copied into write_stage, the
  // stage k-tile kt-1 used: all of k-tile kt+STAGES-1's copies at step 0, its group committed
  // before the wait at step KI-1, so "at most STAGES-2 pending" there means k-tile kt+1 landed.
  //
  // Two copies of the k-tile loop. A CTA whose tile lies inside M and N (every CTA once M >= BM
  // and N >= BN, see mt/nt) runs its first `inside_end` k-tiles with the copies unpredicated:
  // every k-tile they copy is a whole BK inside K, so no chunk needs a bounds test or a
  // redirected address. Those are most of the mainloop's integer instructions otherwise, and
  // they share each warp's issue slots with its mma: 120 instead of 146 instructions per k-tile
  // in hgemm_tn's f16 build. The last k-tiles, and every k-tile of a matrix smaller than a
  // tile, run the predicated copies; the second loop picks up the copy state where the first
  // left it.
  const int k_whole = p.k / BK;  // k-tiles with all BK columns inside K
  // Iteration kt copies k-tile kt+STAGES-1: it must be whole.
  const int inside_end = mt + BM <= p.m && nt + BN <= p.n ? max(0, k_whole - (STAGES - 1)) : 0;
  auto first_fragments = [&]() {
    if (k_tiles > 0) {
      ptx::cp_async_wait<STAGES - 2>();  // k-tile 0 landed (this thread's copies)
      __syncthreads();                   // ... and every other thread's
      load_step(0, 0);
    }
  };
  // One k-tile; `mode` (CopyModeC) says how its g2s copies.
  auto k_tile = [&](auto mode) {
#pragma unroll
    for (int kk = 0; kk < KI; ++kk) {
      // Step 0 of the next k-tile is loaded below. Every warp loaded its last fragments of
      // k-tile kt at step KI-2, so the barrier frees k-tile kt's stage for k-tile kt+STAGES.
      if (kk == KI - 1) next_read_stage();
      // s2r: fragments of step kk+1 (of the next k-tile after the last step) into the other
      // register buffer, overlapping this step's mma. After the last k-tile this reads a stage
      // no copy is writing (all real tiles have landed) and the values go unused; loading
      // unconditionally keeps the compiler from copying registers to preserve the old ones.
      load_step((kk + 1) % 2, (kk + 1) % KI);

      // g2s.
      if (kk == 0) copy_whole_tile(mode);

        // mma on step kk, in the order K::COLS_OUTER picks.
#pragma unroll
      for (int st = 0; st < MI * NI; ++st) {  // the step's st-th mma
        int mi, nj;
        if constexpr (K::COLS_OUTER) {
          // Columns outer, serpentine over rows: consecutive mma share the B fragment.
          nj = st / MI;
          mi = (nj % 2 == 0) ? st % MI : MI - 1 - st % MI;
        } else {
          // Rows outer, serpentine over columns: consecutive mma share the A fragment.
          mi = st / NI;
          nj = (mi % 2 == 0) ? st % NI : NI - 1 - st % NI;
        }
        const uint32_t b[2] = {b_frag[kk % 2][nj / 2][2 * (nj % 2)],
                               b_frag[kk % 2][nj / 2][2 * (nj % 2) + 1]};
        acc[mi][nj].mma(a_frag[kk % 2][mi], b);
      }
    }
  };
  if constexpr (!PERSISTENT) {
    first_fragments();
    int kt = 0;
    for (; kt < inside_end; ++kt) k_tile(CopyModeC<CopyMode::inside>{});
    for (; kt < k_tiles; ++kt) k_tile(CopyModeC<CopyMode::predicated>{});
  } else {
    // ---------------------------- PERSISTENT ----------------------------
    // The CTA's tiles form one stream of k-tiles: the copies run STAGES-1 k-tiles ahead of the
    // mma, from the end of one tile into the start of the next (the copy state is pointed at
    // the next tile once the current one's last k-tile has been copied), so a new tile starts
    // with its first k-tiles in shared memory (no prologue per tile), and the register
    // double-buffering's load at a tile's last step is the next tile's step 0. The epilogue
    // stages D = alpha*acc + beta*C as f16 in a buffer of its own (s_d), not in the pipeline's
    // stages, which hold the next tile's k-tiles, and issues its 16-byte stores, which drain
    // while the next tile's mma run. The launcher runs this path only where every copy can go
    // unpredicated (persistent_fits: M >= BM, N >= BN, K whole k-tiles, at least STAGES-1 of
    // them, M % 8 == 0), so the k-tile loop is the non-persistent CTAs' inside loop. (A first
    // build that chose each k-tile's copy mode and deferred stores at run time measured 0.566x
    // against hgemm_tn's 0.719x; one with compile-time segments and the stores spread over the
    // next tile's first k-tiles 0.683x against 0.714x: ptxas then reordered the mainloop's mma
    // and reused fragment registers, and it stalled on barriers and ldmatrix results.)
    __half* s_d = reinterpret_cast<__half*>(smem + Cfg::PIPE_BYTES);  // (BM,BN) col-major, ld LD_D

    // PROLOGUE: the first STAGES-1 k-tiles of the first tile.
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
      copy_a.template copy_next<true>(sA + s * K::STAGE_BYTES_A);
      copy_b.template copy_next<true>(sB + s * K::STAGE_BYTES_B);
      ptx::cp_async_commit();
    }
    first_fragments();

    const int copy_switch = k_tiles - (STAGES - 1);  // k-tiles whose copies are this tile's
    for (;;) {
      // The copies after this tile's: the next tile's, or after the last tile this tile's
      // again (valid addresses; what they bring is never read).
      const int next = next_tile_slot(p, slot + int(gridDim.x));
      const TileCoord after = next < p.raster_slots ? raster_slot_tile(p, next) : tile;
      const int after_mt = shifted_origin(after.m * BM, p.m, BM);
      const int after_nt = shifted_origin(after.n * BN, p.n, BN);
      auto copy_after = [&] {
        copy_a.restart(p.m, p.k, after_mt, tid);
        copy_b.restart(p.n, p.k, after_nt, tid);
      };
      if (copy_switch == 0) copy_after();
      // MAINLOOP of one tile.
      for (int kt = 0; kt < k_tiles; ++kt) {
        k_tile(CopyModeC<CopyMode::inside>{});
        if (kt + 1 == copy_switch) copy_after();
      }

      // EPILOGUE of one tile: D staged as f16 (the last reads of s_d, the previous tile's
      // stores, were followed by the mainloop's barriers), a barrier, and the stores. With
      // alpha = 1 and beta = 0, D is the accumulator rounded to f16 once, as the general path
      // rounds 1 * acc, so that case skips the float round trip (f16 accumulators are stored
      // as they are): bit for bit the same D, a third of the epilogue's instructions.
      const auto stage_tile = [&](auto plain) {
        for_each_acc_element<MI, NI>(lane, [&](int mi, int ni, int i, int wrow, int wcol) {
          const int row = wm * WM + wrow;  // within the computed tile
          const int col = wn * WN + wcol;
          __half d;
          if constexpr (decltype(plain)::value) {
            d = to_half(acc[mi][ni].element(i));
          } else {
            float v = p.alpha * to_float(acc[mi][ni].element(i));
            if (p.beta != 0.f) {
              v = fmaf(p.beta, __half2float(p.c[int64_t(nt + col) * p.m + mt + row]), v);
            }
            d = __float2half_rn(v);
          }
          s_d[col * Cfg::LD_D + row] = d;
          if (i == 3) acc[mi][ni].clear();  // the fragment is staged: the next tile's starts
        });
      };
      if (p.alpha == 1.f && p.beta == 0.f) {
        stage_tile(std::true_type{});
      } else {
        stage_tile(std::false_type{});
      }
      __syncthreads();
#pragma unroll
      for (int j = 0; j < K::STORE_PIECES; ++j) {
        const int id = j * THREADS + tid;
        const int mc = id % (BM / 8);
        const int sc = id / (BM / 8);
        const int m = mt + mc * 8;  // a multiple of 8 (M % 8 == 0): wholly owned or not
        const int n = nt + sc;
        const uint4 v = *reinterpret_cast<const uint4*>(s_d + sc * Cfg::LD_D + mc * 8);  // (8) D
        if (n >= n0 && m >= m0) {  // owned (the shifted edge tile's other rows/columns not)
          *reinterpret_cast<uint4*>(p.c + int64_t(n) * p.m + m) = v;  // (8) C(m..m+7, n)
        }
      }

      if (next >= p.raster_slots) break;
      slot = next;
      tile = after;
      m0 = tile.m * BM;
      n0 = tile.n * BN;
      mt = after_mt;
      nt = after_nt;
    }
    ptx::cp_async_wait<0>();  // leave no copy in flight into the shared memory of an exited CTA
    return;
  }

  // ================================ EPILOGUE ================================
  // Stage the accumulators through shared memory (reusing the pipeline's), then write C along
  // M in 16-byte pieces: D = alpha * acc + beta * C in float, C read only when beta != 0.
  // Only empty groups (or zero-filled copies of tiles past K) can be pending, but leave none
  // behind: the staging tile below overwrites the stages.
  ptx::cp_async_wait<0>();
  __syncthreads();                            // every warp is done with the pipeline stages
  AccT* s_c = reinterpret_cast<AccT*>(smem);  // (BM,SC) col-major, ld = Stage::kLd
  // 16-byte C pieces are aligned (mt too is then a multiple of 8) and wholly inside or outside
  // both the matrix and the rows this CTA owns.
  const bool c_vec = p.m % 8 == 0;
#pragma unroll
  for (int pass = 0; pass < K::PASSES; ++pass) {
    constexpr int NIP = NI / K::PASSES;
    for_each_acc_element<MI, NI>(
        lane,
        [&](int mi, int ni, int i, int wrow, int wcol) {
          s_c[K::Stage::staged_col(wn, wcol) * K::Stage::kLd + wm * WM + wrow] =
              acc[mi][ni].element(i);
        },
        pass * NIP, (pass + 1) * NIP);
    __syncthreads();
#pragma unroll
    for (int it = 0; it < K::STORE_ITERS; ++it) {
      const int id = it * THREADS + tid;
      const int mc = id % (BM / 8);
      const int sc = id / (BM / 8);
      const int m = mt + mc * 8;
      const int n = nt + K::Stage::cta_col(sc, pass);
      // Columns and whole pieces of rows the CTA does not own (computed for a shifted edge tile)
      // or outside the matrix are left alone.
      if (n < n0 || n >= p.n || m + 8 <= m0 || m >= p.m) continue;
      const AccT* src = s_c + sc * K::Stage::kLd + mc * 8;  // (8) staged accumulators along M
      float v[8];                                           // (8) alpha*acc [+ beta*C] along M
      if constexpr (sizeof(AccT) == 4) {
        const float4 lo = *reinterpret_cast<const float4*>(src);
        const float4 hi = *reinterpret_cast<const float4*>(src + 4);
        v[0] = lo.x, v[1] = lo.y, v[2] = lo.z, v[3] = lo.w;
        v[4] = hi.x, v[5] = hi.y, v[6] = hi.z, v[7] = hi.w;
      } else {
        const uint4 raw = *reinterpret_cast<const uint4*>(src);
        const __half* h = reinterpret_cast<const __half*>(&raw);
#pragma unroll
        for (int e = 0; e < 8; ++e) v[e] = __half2float(h[e]);
      }
#pragma unroll
      for (int e = 0; e < 8; ++e) v[e] *= p.alpha;
      __half* dst = p.c + int64_t(n) * p.m + m;  // (8) C(m..m+7, n), M contiguous
      if (c_vec) {
        if (p.beta != 0.f) {
          const uint4 old = *reinterpret_cast<const uint4*>(dst);
          const __half* h = reinterpret_cast<const __half*>(&old);
#pragma unroll
          for (int e = 0; e < 8; ++e) v[e] = fmaf(p.beta, __half2float(h[e]), v[e]);
        }
        uint4 out;
        __half2* o = reinterpret_cast<__half2*>(&out);
#pragma unroll
        for (int e = 0; e < 4; ++e) o[e] = __floats2half2_rn(v[2 * e], v[2 * e + 1]);
        *reinterpret_cast<uint4*>(dst) = out;
      } else {
#pragma unroll
        for (int e = 0; e < 8; ++e) {
          if (m + e >= m0 && m + e < p.m) {
            const float r = p.beta != 0.f ? fmaf(p.beta, __half2float(dst[e]), v[e]) : v[e];
            dst[e] = __float2half_rn(r);
          }
        }
      }
    }
    if (pass + 1 < K::PASSES) __syncthreads();  // the next pass overwrites the staging tile
  }
}

}  // namespace gemmbench::hgemm
