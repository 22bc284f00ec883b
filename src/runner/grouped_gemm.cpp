#include "runner/grouped_gemm.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

#include "core/cuda_check.hpp"
#include "verify/tolerance.hpp"

namespace gemmbench {

namespace {

// The seeds' tensor numbers, as a dense case's operands use them (runner/operands.cpp).
constexpr uint64_t kTensorA = 0, kTensorB = 1, kTensorC = 2;

void check_problem(const GemmProblem& p, const Grouping& g) {
  if (p.layout != Layout::tn) throw std::invalid_argument("grouped GEMM is TN");
  if (p.m != g.total_m()) throw std::invalid_argument("the grouped problem's m is not sum(M_g)");
}

// cuBLAS's two ways take the classic types only.
void check_cublas(const GemmProblem& p, const Grouping& g) {
  if (is_fp8(p.dtype))
    throw std::invalid_argument("grouped " + std::string(to_string(p.dtype)) +
                                ": cuBLAS has no grouped FP8 GEMM (cuBLASLt per group instead: "
                                "CublasLtGroupedLoop)");
  check_problem(p, g);
}

int narrow(int64_t v, const char* what) {
  if (v > int64_t(0x7fffffff)) throw std::invalid_argument(std::string(what) + " exceeds int");
  return int(v);
}

const char* byte_ptr(const DeviceBuffer& b) {
  return static_cast<const char*>(b.get());
}
char* byte_ptr(DeviceBuffer& b) {
  return static_cast<char*>(b.get());
}

}  // namespace

GroupedLaunchTables::GroupedLaunchTables(const Grouping& g, int tile_rows, cudaStream_t stream,
                                         bool interleave) {
  const std::vector<int64_t> first = g.row_offsets();
  std::vector<int> m;
  for (int64_t x : g.m) m.push_back(narrow(x, "M_g"));
  const auto upload = [stream](DeviceBuffer& to, const void* from, size_t bytes) {
    to = DeviceBuffer(bytes);
    CUDA_CHECK(cudaMemcpyAsync(to.get(), from, bytes, cudaMemcpyHostToDevice, stream));
  };
  upload(first_row, first.data(), first.size() * sizeof(int64_t));
  upload(rows, m.data(), m.size() * sizeof(int));
  launch.grouping = &g;
  launch.first_row = first_row.as<int64_t>();
  launch.rows = rows.as<int>();
  std::vector<int> order;  // read by the copies below: synchronized before it goes
  if (tile_rows > 0) {
    if (interleave) order = group_walk_order(g, tile_rows);
    const std::vector<int> prefix =
        interleave ? group_tile_prefix(g, tile_rows, order) : group_tile_prefix(g, tile_rows);
    upload(tile_prefix, prefix.data(), prefix.size() * sizeof(int));
    launch.tile_prefix = tile_prefix.as<int>();
    launch.tile_rows = tile_rows;
    if (interleave && !order.empty()) {
      upload(group_order, order.data(), order.size() * sizeof(int));
      launch.group_order = group_order.as<int>();
      launch.interleave = true;
    }
  }
  // The host vectors go out of scope: the copies must have read them.
  CUDA_CHECK(cudaStreamSynchronize(stream));
}

GemmArgs grouped_kernel_args(const GemmProblem& p, const GroupedOperands& d,
                             const GroupedLaunchTables& tables) {
  GemmArgs args = operand_args(p, d);
  args.grouped = &tables.launch;
  return args;
}

GroupedBatchPlan plan_grouped_batch(const GemmProblem& p, const Grouping& g) {
  std::vector<int64_t> order;
  for (int64_t i = 0; i < g.groups(); ++i)
    if (g.m[size_t(i)] > 0) order.push_back(i);
  // Largest M_g first; equal ones in group order (a stable sort keeps it).
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t x, int64_t y) { return g.m[size_t(x)] > g.m[size_t(y)]; });
  const std::vector<int64_t> first = g.row_offsets();
  GroupedBatchPlan plan;
  for (size_t i = 0; i < order.size(); ++i) {
    const int64_t grp = order[i], rows = g.m[size_t(grp)];
    if (i == 0 || rows != g.m[size_t(order[i - 1])]) {
      const GemmProblem q = group_dense_problem(p, rows);
      plan.m.push_back(narrow(q.m, "N"));
      plan.n.push_back(narrow(q.n, "M_g"));
      plan.k.push_back(narrow(q.k, "K"));
      plan.lda.push_back(narrow(q.lda(), "lda"));
      plan.ldb.push_back(narrow(q.ldb(), "ldb"));
      plan.ldc.push_back(narrow(q.ldc(), "ldc"));
      plan.group_size.push_back(0);
    }
    ++plan.group_size.back();
    plan.a_offset.push_back(first[size_t(grp)] * p.k);
    plan.b_offset.push_back(grp * p.n * p.k);
    plan.c_offset.push_back(first[size_t(grp)] * p.n);
  }
  return plan;
}

namespace {

// Each group's place in the reference: the valid rows of the groups before it.
std::vector<int64_t> reference_rows_before(const Grouping& g) {
  std::vector<int64_t> out(g.m.size());
  int64_t done = 0;
  for (size_t i = 0; i < g.m.size(); ++i) out[i] = done, done += g.m[i];
  return out;
}

void allocate_reference(const GemmProblem& p, const Grouping& g, GroupedOperands& d) {
  const int64_t total = std::max<int64_t>(g.total_m(), 1);
  d.ref = DeviceBuffer(size_t(total * p.n) * sizeof(double));
  d.valid = DeviceBuffer(size_t(total * p.n) * dtype_bytes(p.out_type()));
}

// The seeded initial C where beta != 0, of C's type.
void seed_c(const GemmProblem& p, const Grouping& g, uint64_t seed, DataDist dist,
            cudaStream_t stream, GroupedOperands& d) {
  const int64_t rows = g.stored_rows() + (is_fp8(p.dtype) ? kGroupedFp8SlackRows : 0);
  const size_t es_out = dtype_bytes(p.out_type());
  d.c = DeviceBuffer(size_t(rows * p.n) * es_out);
  if (p.beta == 0) return;
  d.c0 = DeviceBuffer(size_t(rows * p.n) * es_out);
  fill_inputs(d.c0.get(), p.out_type(), rows * p.n, seed, kTensorC, dist, stream);
}

// Group grp's initial C rows (beta != 0), or null.
const void* c0_of(const GemmProblem& p, const GroupedOperands& d, int64_t grp) {
  if (!d.c0.get()) return nullptr;
  return byte_ptr(d.c0) +
         size_t(d.first_row[size_t(grp)] * p.n) * size_t(dtype_bytes(p.out_type()));
}

void make_classic_operands(const GemmProblem& p, const Grouping& g, uint64_t seed, DataDist dist,
                           cudaStream_t stream, bool with_reference, GroupedOperands& d) {
  const size_t es = dtype_bytes(p.dtype);
  const int64_t rows = g.stored_rows();
  d.a = DeviceBuffer(size_t(rows * p.k) * es);
  d.b = DeviceBuffer(size_t(g.groups() * p.n * p.k) * es);
  fill_inputs(d.a.get(), p.dtype, rows * p.k, seed, kTensorA, dist, stream);
  fill_inputs(d.b.get(), p.dtype, g.groups() * p.n * p.k, seed, kTensorB, dist, stream);
  if (!with_reference) return;
  allocate_reference(p, g, d);
  const std::vector<int64_t> place = reference_rows_before(g);
  for (int64_t grp = 0; grp < g.groups(); ++grp) {
    const int64_t m_g = g.m[size_t(grp)];
    if (m_g == 0) continue;
    const GroupPointers at = group_pointers(p, d, grp);
    reference_gemm(group_dense_problem(p, m_g), at.weights, at.rows, c0_of(p, d, grp),
                   d.ref.as<double>() + place[size_t(grp)] * p.n, stream);
  }
}

// FP8: expert g's weights are group g's, so the unquantized reference of each group is taken
// while its expert's f32 weights exist (make_fp8_grouped_inputs keeps one expert's at a time),
// and the reference of the dequantized inputs once all are quantized, both through the group's
// dense problem and the dense references.
void make_fp8_operands(const GemmProblem& p, const Grouping& g, uint64_t seed, DataDist dist,
                       cudaStream_t stream, bool with_reference, GroupedOperands& d) {
  const std::vector<int64_t> place = reference_rows_before(g);
  if (with_reference) {
    allocate_reference(p, g, d);
    d.ref_unquantized = DeviceBuffer(d.ref.bytes());
  }
  const auto unquantized = [&](int64_t grp, const float* a32, const float* b32) {
    const int64_t m_g = g.m[size_t(grp)];
    if (!with_reference || m_g == 0) return;
    reference_gemm_f32_inputs(group_dense_problem(p, m_g), b32,
                              a32 + d.first_row[size_t(grp)] * p.k, c0_of(p, d, grp),
                              d.ref_unquantized.as<double>() + place[size_t(grp)] * p.n, stream);
  };
  Fp8Inputs in = make_fp8_grouped_inputs(p, g.stored_rows() + kGroupedFp8SlackRows, g.groups(),
                                         seed, kTensorA, kTensorB, dist, stream, unquantized);
  d.a = std::move(in.a);
  d.b = std::move(in.b);
  d.scale_a = std::move(in.scale_a);
  d.scale_b = std::move(in.scale_b);
  if (!with_reference) return;
  for (int64_t grp = 0; grp < g.groups(); ++grp) {
    const int64_t m_g = g.m[size_t(grp)];
    if (m_g == 0) continue;
    const GroupPointers at = group_pointers(p, d, grp);
    reference_gemm_fp8(group_dense_problem(p, m_g), at.weights, at.scales.a, at.rows, at.scales.b,
                       c0_of(p, d, grp), d.ref.as<double>() + place[size_t(grp)] * p.n, stream);
  }
}

}  // namespace

GroupPointers group_pointers(const GemmProblem& p, const GroupedOperands& d, int64_t g) {
  const size_t es = dtype_bytes(p.dtype), es_out = dtype_bytes(p.out_type());
  const int64_t first = d.first_row[size_t(g)];
  GroupPointers at;
  at.weights = byte_ptr(d.b) + size_t(g * p.n * p.k) * es;
  at.rows = byte_ptr(d.a) + size_t(first * p.k) * es;
  at.c = static_cast<char*>(d.c.get()) + size_t(first * p.n) * es_out;
  if (is_fp8(p.dtype))
    at.scales = {d.scale_b.as<float>() + d.scales.b_offset(g),
                 d.scale_a.as<float>() + d.scales.a_offset(first)};
  return at;
}

GroupedOperands make_grouped_operands(const GemmProblem& p, const Grouping& g, uint64_t seed,
                                      DataDist dist, ErrorMeter& meter, cudaStream_t stream,
                                      bool with_reference) {
  check_problem(p, g);
  GroupedOperands d;
  d.first_row = g.row_offsets();
  seed_c(p, g, seed, dist, stream, d);
  if (is_fp8(p.dtype)) {
    d.scales = grouped_scales(p.scale, g, p.n, p.k);
    make_fp8_operands(p, g, seed, dist, stream, with_reference, d);
  } else {
    make_classic_operands(p, g, seed, dist, stream, with_reference, d);
  }
  const int64_t total = g.total_m();
  if (with_reference && total > 0) {
    d.ref_rms = meter.reference_rms(d.ref.as<double>(), total * p.n, stream);
    if (d.ref_unquantized.get())
      d.ref_unquantized_rms =
          meter.reference_rms(d.ref_unquantized.as<double>(), total * p.n, stream);
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return d;
}

ErrorStats verify_grouped(const GemmProblem& p, const Grouping& g, GroupedOperands& d,
                          ErrorMeter& meter, cudaStream_t stream,
                          const std::function<void()>& launch) {
  check_problem(p, g);
  const size_t es = dtype_bytes(p.out_type());
  const int64_t rows = g.stored_rows(), total = g.total_m();
  if (d.c0.get())
    CUDA_CHECK(
        cudaMemcpyAsync(d.c.get(), d.c0.get(), d.c.bytes(), cudaMemcpyDeviceToDevice, stream));
  else
    fill_nan(d.c.get(), p.out_type(), rows * p.n, stream);
  launch();
  // The valid rows, group after group, as the reference holds them.
  int64_t done = 0;
  for (int64_t grp = 0; grp < g.groups(); ++grp) {
    const int64_t m_g = g.m[size_t(grp)];
    if (m_g == 0) continue;
    CUDA_CHECK(cudaMemcpyAsync(byte_ptr(d.valid) + size_t(done * p.n) * es,
                               byte_ptr(d.c) + size_t(d.first_row[size_t(grp)] * p.n) * es,
                               size_t(m_g * p.n) * es, cudaMemcpyDeviceToDevice, stream));
    done += m_g;
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));
  ErrorStats e;
  if (total > 0)
    e = meter.measure(p.out_type(), d.valid.get(), d.ref.as<double>(), total * p.n, d.ref_rms,
                      stream);
  else
    e.computed = true;  // nothing to compute: every group empty
  e.tolerance = verification_tolerance(p);
  if (total > 0 && d.ref_unquantized.get()) {  // FP8: what the format costs, held to no bound
    const ErrorStats q = meter.measure(p.out_type(), d.valid.get(), d.ref_unquantized.as<double>(),
                                       total * p.n, d.ref_unquantized_rms, stream);
    e.quant_normwise = q.normwise;
    e.quant_calc_diff = q.calc_diff;
  }
  return e;
}

void CublasGrouped::run_loop(const GemmProblem& p, const Grouping& g, GroupedOperands& d,
                             cudaStream_t stream) {
  const size_t es = dtype_bytes(p.dtype);
  cublas_.on_stream(stream);  // once for all groups, as an engine's loop does
  for (int64_t grp = 0; grp < g.groups(); ++grp) {
    const int64_t m_g = g.m[size_t(grp)];
    if (m_g == 0) continue;
    const int64_t off = d.first_row[size_t(grp)];
    cublas_.enqueue(group_dense_problem(p, m_g), byte_ptr(d.b) + size_t(grp * p.n * p.k) * es,
                    byte_ptr(d.a) + size_t(off * p.k) * es, byte_ptr(d.c) + size_t(off * p.n) * es);
  }
}

void CublasGrouped::prepare(const GemmProblem& p, const Grouping& g, const GroupedOperands& d,
                            cudaStream_t stream) {
  check_cublas(p, g);
  if (p.accum != Accum::f32)
    throw std::invalid_argument(
        "the grouped API runs with f32 accumulation here (CUBLAS_COMPUTE_32F); f16 accumulation "
        "has the per-group loop only");
  plan_ = plan_grouped_batch(p, g);
  const int n = plan_.problems();
  const size_t es = dtype_bytes(p.dtype);
  // cuBLAS's A is the group's weights, its B the group's activations (group_dense_problem).
  std::vector<const void*> host(size_t(3 * n));
  for (int i = 0; i < n; ++i) {
    host[size_t(i)] = byte_ptr(d.b) + size_t(plan_.b_offset[size_t(i)]) * es;
    host[size_t(n + i)] = byte_ptr(d.a) + size_t(plan_.a_offset[size_t(i)]) * es;
    host[size_t(2 * n + i)] = byte_ptr(d.c) + size_t(plan_.c_offset[size_t(i)]) * es;
  }
  ptrs_ = DeviceBuffer(std::max<size_t>(host.size(), 1) * sizeof(void*));
  if (n > 0)
    CUDA_CHECK(cudaMemcpyAsync(ptrs_.get(), host.data(), host.size() * sizeof(void*),
                               cudaMemcpyHostToDevice, stream));
  op_a_.assign(plan_.group_size.size(), CUBLAS_OP_T);  // the weights, K-contiguous
  op_b_.assign(plan_.group_size.size(), CUBLAS_OP_N);  // the activations, K-contiguous
  alpha_.assign(plan_.group_size.size(), float(p.alpha));
  beta_.assign(plan_.group_size.size(), float(p.beta));
  CUDA_CHECK(cudaStreamSynchronize(stream));
}

void CublasGrouped::run_grouped_api(const GemmProblem& p, cudaStream_t stream) {
  const int n = plan_.problems();
  if (n == 0) return;
  cublasHandle_t handle = cublas_.on_stream(stream);
  const int api_groups = int(plan_.group_size.size());
  const cudaDataType_t t = cuda_type(p.dtype);
  const void* const* ptrs = static_cast<const void* const*>(ptrs_.get());
  void* const* c_ptrs = static_cast<void* const*>(ptrs_.get()) + 2 * n;
  CUBLAS_CHECK(cublasGemmGroupedBatchedEx(
      handle, op_a_.data(), op_b_.data(), plan_.m.data(), plan_.n.data(), plan_.k.data(),
      alpha_.data(), ptrs, t, plan_.lda.data(), ptrs + n, t, plan_.ldb.data(), beta_.data(), c_ptrs,
      t, plan_.ldc.data(), api_groups, plan_.group_size.data(), CUBLAS_COMPUTE_32F));
}

std::string CublasLtGroupedLoop::prepare(const GemmProblem& p, const Grouping& g,
                                         const GroupedOperands& d, cudaStream_t stream,
                                         const std::function<void()>& prepare_sample) {
  check_problem(p, g);
  calls_.clear();
  if (!is_fp8(p.dtype))
    throw std::invalid_argument("CublasLtGroupedLoop: the grouped FP8 baseline, not " +
                                std::string(to_string(p.dtype)) + " (CublasGrouped runs those)");
  std::vector<Call> calls;
  int padded = 0;
  for (int64_t grp = 0; grp < g.groups(); ++grp) {
    const int64_t m_g = g.m[size_t(grp)];
    if (m_g == 0) continue;
    const std::string group =
        "group " + std::to_string(grp) + " (" + std::to_string(m_g) + " rows)";
    // The group's own stored rows (its padding included) end where the next group's begin.
    const int64_t own_end = grp + 1 < g.groups() ? d.first_row[size_t(grp + 1)] : g.stored_rows();
    Call call{group_dense_problem(p, m_g), group_pointers(p, d, grp), {}};
    std::string why_not;
    bool tuned = bool(lt_.tune(call.plan, call.q, call.at.weights, call.at.rows, call.at.c, stream,
                               prepare_sample, why_not, call.at.scales));
    for (int multiple : kLtPadMultiples) {
      if (tuned || p.scale != ScaleMode::block128) break;
      const int64_t rows = (m_g + multiple - 1) / multiple * multiple;
      if (rows == m_g) continue;
      if (p.beta != 0 && d.first_row[size_t(grp)] + rows > own_end)
        return group + ": " + why_not + "; padded to " + std::to_string(rows) +
               " rows it would write the next group's C before that group reads it (beta != 0): "
               "pad the groups (--group-align 4)";
      call.q = group_dense_problem(p, rows);
      std::string why_padded;
      tuned = bool(lt_.tune(call.plan, call.q, call.at.weights, call.at.rows, call.at.c, stream,
                            prepare_sample, why_padded, call.at.scales));
    }
    if (!tuned) return group + ": " + why_not;
    if (call.q.n != m_g) ++padded;
    calls.push_back(std::move(call));
  }
  calls_ = std::move(calls);
  padded_ = padded;
  return {};
}

void CublasLtGroupedLoop::run(cudaStream_t stream) {
  for (const Call& c : calls_)
    lt_.run(c.plan, c.q, c.at.weights, c.at.rows, c.at.c, stream, c.at.scales);
}

}  // namespace gemmbench
