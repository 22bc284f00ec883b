#include "inspect/swizzle_map.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "common/swizzle.hpp"
#include "core/errors.hpp"

namespace gemmbench::inspect {
namespace {

constexpr int kBanks = 32;
constexpr int kBankBytes = 4;

int bank_of_byte(int64_t byte) {
  return int((byte / kBankBytes) % kBanks);
}

std::string span_text(int64_t first, int64_t last) {
  return first == last ? fmt::format("{}", first) : fmt::format("{}-{}", first, last);
}

std::string bits_text(const SwizzleParams& p) {
  return fmt::format("{},{},{}", p.bits_b, p.base_m, p.shift_s);
}

// Bytes one thread moves per access.
int access_bytes(SwizzleAccess a) {
  return a == SwizzleAccess::row ? 4 : 16;
}

void validate(const SwizzleParams& p, int elem_bytes) {
  const std::string bits = bits_text(p);
  if (p.bits_b < 0 || p.base_m < 0 || p.shift_s < 0)
    throw UsageError(fmt::format("--bits {}: B, M and S must be >= 0", bits));
  if (p.shift_s < p.bits_b)
    throw UsageError(fmt::format(
        "--bits {}: Swizzle<B,M,S> needs S >= B so the XORed bit ranges do not overlap", bits));
  if (p.bits_b + p.base_m + p.shift_s > 20)
    throw UsageError(fmt::format(
        "--bits {}: B+M+S = {} spans more than any shared-memory tile; accepted: B+M+S <= 20", bits,
        p.bits_b + p.base_m + p.shift_s));
  if (p.rows < 1 || p.cols < 1)
    throw UsageError(fmt::format("--tile {}x{}: ROWS and COLS must be >= 1", p.rows, p.cols));
  const int64_t elements = int64_t(p.rows) * p.cols;
  if (elements * elem_bytes > kMaxSwizzleTileBytes)
    throw UsageError(fmt::format(
        "--tile {}x{} of {} is {} bytes, more than the {} KiB of shared memory a block can have",
        p.rows, p.cols, to_string(p.dtype), elements * elem_bytes, kMaxSwizzleTileBytes / 1024));

  if (p.bits_b > 0) {
    const int64_t period = int64_t(1) << (p.bits_b + p.base_m + p.shift_s);
    if (elements % period != 0)
      throw UsageError(fmt::format(
          "--bits {} swizzles blocks of 2^(B+M+S) = {} elements, but the {}x{} tile holds {}: "
          "the tile's element count must be a multiple of {}",
          bits, period, p.rows, p.cols, elements, period));
  }

  const char* access = to_string(p.access);
  if (p.access == SwizzleAccess::ldmatrix && elem_bytes != 2)
    throw UsageError(fmt::format(
        "--access ldmatrix loads b16 elements and --dtype {} is {} bytes: use --dtype f16 or "
        "bf16, or --access cp.async|row",
        to_string(p.dtype), elem_bytes));
  const int vec = access_bytes(p.access);
  if (p.bits_b > 0 && (int64_t(1) << p.base_m) * elem_bytes < vec) {
    int need_m = 0;
    while ((1 << need_m) * elem_bytes < vec) ++need_m;
    throw UsageError(fmt::format(
        "--bits {} keeps {}-element ({} B) chunks together, but one {} thread moves {} contiguous "
        "bytes: M must be >= {} for {}",
        bits, 1 << p.base_m, (1 << p.base_m) * elem_bytes, access, vec, need_m,
        to_string(p.dtype)));
  }

  switch (p.access) {
    case SwizzleAccess::ldmatrix: {
      const bool square = p.rows % 16 == 0 && p.cols % 16 == 0;
      const bool strip = p.rows % 8 == 0 && p.cols % 32 == 0;
      if (!square && !strip)
        throw UsageError(fmt::format(
            "--tile {}x{}: an ldmatrix.x4 reads a 16x16 or an 8x32 block; ROWS and COLS must be "
            "multiples of 16, or ROWS of 8 and COLS of 32",
            p.rows, p.cols));
      break;
    }
    case SwizzleAccess::cp_async:
    case SwizzleAccess::row:
      if (int64_t(p.cols) * elem_bytes % vec != 0)
        throw UsageError(fmt::format(
            "--tile {}x{}: {} rows of {} bytes cannot be cut into the {}-byte pieces one {} thread "
            "moves; COLS must be a multiple of {} for {}",
            p.rows, p.cols, to_string(p.dtype), int64_t(p.cols) * elem_bytes, vec, access,
            vec / elem_bytes, to_string(p.dtype)));
      break;
  }
}

class Builder {
 public:
  Builder(const SwizzleParams& p, int elem_bytes, const std::vector<int>& physical)
      : p_(p), elem_bytes_(elem_bytes), physical_(physical) {}

  // One thread reading `elements` consecutive logical elements from (row, col).
  ThreadAccess thread(int t, int row, int col, int elements) const {
    ThreadAccess a;
    a.thread = t;
    a.row = row;
    a.col = col;
    a.elements = elements;
    const int64_t logical = int64_t(row) * p_.cols + col;
    a.byte_before = logical * elem_bytes_;
    a.byte_after = int64_t(physical_[logical]) * elem_bytes_;
    std::set<int> before, after;
    for (int j = 0; j < elements; ++j) {
      before.insert(bank_of_byte((logical + j) * elem_bytes_));
      after.insert(bank_of_byte(int64_t(physical_[logical + j]) * elem_bytes_));
    }
    a.banks_before.assign(before.begin(), before.end());
    a.banks_after.assign(after.begin(), after.end());
    return a;
  }

  // Wavefronts of a phase from the words its threads touch, before and after the swizzle.
  void finish(SwizzlePhase& phase) const {
    std::vector<int64_t> before, after;
    for (const ThreadAccess& a : phase.threads) {
      const int64_t logical = int64_t(a.row) * p_.cols + a.col;
      for (int j = 0; j < a.elements; ++j) {
        before.push_back((logical + j) * elem_bytes_ / kBankBytes * kBankBytes);
        after.push_back(int64_t(physical_[logical + j]) * elem_bytes_ / kBankBytes * kBankBytes);
      }
    }
    phase.wavefronts_before = phase_wavefronts(before);
    phase.wavefronts_after = phase_wavefronts(after);
  }

  void finish(SwizzleRequest& req) const {
    for (SwizzlePhase& ph : req.phases) {
      finish(ph);
      req.wavefronts_before += ph.wavefronts_before;
      req.wavefronts_after += ph.wavefronts_after;
    }
  }

 private:
  const SwizzleParams& p_;
  int elem_bytes_;
  const std::vector<int>& physical_;
};

std::vector<SwizzleRequest> ldmatrix_requests(const SwizzleParams& p, const Builder& b,
                                              std::string& description) {
  // Origins of the four 8x8 matrices of one x4 request, relative to its footprint.
  const bool square = p.rows % 16 == 0 && p.cols % 16 == 0;
  const int foot_rows = square ? 16 : 8, foot_cols = square ? 16 : 32;
  const int origin[4][2] = {{0, 0},
                            {square ? 8 : 0, square ? 0 : 8},
                            {0, square ? 8 : 16},
                            {square ? 8 : 0, square ? 8 : 24}};
  description =
      square
          ? "one ldmatrix.x4 per 16x16 block: phase p reads 8x8 matrix p at (r,c), (r+8,c), "
            "(r,c+8), "
            "(r+8,c+8) (the mma.m16n8k16 A fragment); threads 8p..8p+7 read its rows, 16 B each"
          : "one ldmatrix.x4 per 8x32 block: phase p reads the 8x8 matrix at columns c+8p..c+8p+7; "
            "threads 8p..8p+7 read its rows, 16 B each";
  std::vector<SwizzleRequest> out;
  for (int r0 = 0; r0 < p.rows; r0 += foot_rows) {
    for (int c0 = 0; c0 < p.cols; c0 += foot_cols) {
      SwizzleRequest req;
      req.what = fmt::format("rows {}, cols {}", span_text(r0, r0 + foot_rows - 1),
                             span_text(c0, c0 + foot_cols - 1));
      for (int ph = 0; ph < 4; ++ph) {
        SwizzlePhase phase;
        const int mr = r0 + origin[ph][0], mc = c0 + origin[ph][1];
        for (int i = 0; i < 8; ++i) phase.threads.push_back(b.thread(8 * ph + i, mr + i, mc, 8));
        req.phases.push_back(std::move(phase));
      }
      b.finish(req);
      out.push_back(std::move(req));
    }
  }
  return out;
}

// Row-major runs of `piece` elements, 32 per request, `per_phase` threads per phase (cp.async,
// row).
std::vector<SwizzleRequest> linear_requests(const SwizzleParams& p, const Builder& b, int piece,
                                            int per_phase) {
  const int64_t pieces = int64_t(p.rows) * p.cols / piece;
  std::vector<SwizzleRequest> out;
  for (int64_t first = 0; first < pieces; first += 32) {
    const int64_t last = std::min(pieces, first + 32) - 1;
    SwizzleRequest req;
    req.what = fmt::format("elements {} in row-major order (rows {})",
                           span_text(first * piece, (last + 1) * piece - 1),
                           span_text(first * piece / p.cols, ((last + 1) * piece - 1) / p.cols));
    for (int64_t k = first; k <= last; ++k) {
      const int t = int(k - first);
      if (t % per_phase == 0) req.phases.emplace_back();
      const int64_t e = k * piece;
      req.phases.back().threads.push_back(b.thread(t, int(e / p.cols), int(e % p.cols), piece));
    }
    b.finish(req);
    out.push_back(std::move(req));
  }
  return out;
}

}  // namespace

const char* to_string(SwizzleAccess a) {
  switch (a) {
    case SwizzleAccess::ldmatrix:
      return "ldmatrix";
    case SwizzleAccess::cp_async:
      return "cp.async";
    case SwizzleAccess::row:
      return "row";
  }
  return "?";
}

int phase_wavefronts(const std::vector<int64_t>& word_bytes) {
  std::map<int, std::set<int64_t>> words_in_bank;
  for (int64_t w : word_bytes) words_in_bank[bank_of_byte(w)].insert(w / kBankBytes);
  size_t most = 1;
  for (const auto& [bank, words] : words_in_bank) most = std::max(most, words.size());
  return int(most);
}

int SwizzleMap::bank_before(int r, int c) const {
  return bank_of_byte((int64_t(r) * params.cols + c) * elem_bytes);
}

int SwizzleMap::bank_after(int r, int c) const {
  return bank_of_byte(int64_t(physical_at(r, c)) * elem_bytes);
}

int64_t SwizzleMap::ideal_wavefronts() const {
  int64_t n = 0;
  for (const SwizzleRequest& r : requests) n += int64_t(r.phases.size());
  return n;
}

int64_t SwizzleMap::total_wavefronts_before() const {
  int64_t n = 0;
  for (const SwizzleRequest& r : requests) n += r.wavefronts_before;
  return n;
}

int64_t SwizzleMap::total_wavefronts_after() const {
  int64_t n = 0;
  for (const SwizzleRequest& r : requests) n += r.wavefronts_after;
  return n;
}

int SwizzleMap::max_phase_wavefronts_before() const {
  int n = 0;
  for (const SwizzleRequest& r : requests)
    for (const SwizzlePhase& ph : r.phases) n = std::max(n, ph.wavefronts_before);
  return n;
}

int SwizzleMap::max_phase_wavefronts_after() const {
  int n = 0;
  for (const SwizzleRequest& r : requests)
    for (const SwizzlePhase& ph : r.phases) n = std::max(n, ph.wavefronts_after);
  return n;
}

SwizzleMap make_swizzle_map(const SwizzleParams& p) {
  SwizzleMap map;
  map.params = p;
  map.elem_bytes = dtype_bytes(p.dtype);
  validate(p, map.elem_bytes);

  const int elements = p.rows * p.cols;
  map.physical.resize(size_t(elements));
  for (int o = 0; o < elements; ++o)
    map.physical[size_t(o)] = swizzle_offset(o, p.bits_b, p.base_m, p.shift_s);

  const Builder b(p, map.elem_bytes, map.physical);
  switch (p.access) {
    case SwizzleAccess::ldmatrix:
      map.requests = ldmatrix_requests(p, b, map.access_description);
      break;
    case SwizzleAccess::cp_async:
      map.access_description =
          "one cp.async per 512 B: thread t writes the 16-byte chunk 32k+t of the tile in "
          "row-major order; phases of 8 threads (0-7, 8-15, 16-23, 24-31)";
      map.requests = linear_requests(p, b, 16 / map.elem_bytes, 8);
      break;
    case SwizzleAccess::row:
      map.access_description =
          "one 4-byte load per thread: thread t reads word 32k+t of the tile in row-major order; "
          "one phase of 32 threads";
      map.requests = linear_requests(p, b, 4 / map.elem_bytes, 32);
      break;
  }
  return map;
}

}  // namespace gemmbench::inspect
