#include "runner/operands.hpp"

#include "core/cuda_check.hpp"
#include "verify/tolerance.hpp"

namespace gemmbench {

namespace {

// Tensor ids of the seeded data: A, B and the initial C never share a random stream.
constexpr uint64_t kTensorA = 0, kTensorB = 1, kTensorC = 2;

// FP8 inputs as a released model has them: f32 data (the same seeded values as an f32 problem)
// quantized with the scales of p.scale, computed here from each group's amax.
GroupData set_up_fp8(const ProblemGroup& g, uint64_t seed, ErrorMeter& meter, cudaStream_t stream) {
  const GemmProblem& p = g.problem;
  const size_t es_out = dtype_bytes(p.out_type());
  const DataDist dist = g.measure.data;
  GroupData d;
  d.c = DeviceBuffer(size_t(p.m * p.n) * es_out);
  if (p.beta != 0) {
    d.c0 = DeviceBuffer(size_t(p.m * p.n) * es_out);
    fill_inputs(d.c0.get(), p.out_type(), p.m * p.n, seed, kTensorC, dist, stream);
  }
  // The reference of the quantization error needs the f32 values, which live only inside.
  const auto unquantized_reference = [&](const float* a32, const float* b32) {
    if (!g.measure.verify) return;
    d.ref_unquantized = DeviceBuffer(size_t(p.m * p.n) * sizeof(double));
    reference_gemm_f32_inputs(p, a32, b32, d.c0.get(), d.ref_unquantized.as<double>(), stream);
  };
  Fp8Inputs in = make_fp8_inputs(p, seed, kTensorA, kTensorB, dist, stream, unquantized_reference);
  d.a = std::move(in.a);
  d.b = std::move(in.b);
  d.scale_a = std::move(in.scale_a);
  d.scale_b = std::move(in.scale_b);
  if (g.measure.verify) {
    d.ref = DeviceBuffer(size_t(p.m * p.n) * sizeof(double));
    reference_gemm_fp8(p, d.a.get(), d.scale_a.as<float>(), d.b.get(), d.scale_b.as<float>(),
                       d.c0.get(), d.ref.as<double>(), stream);
    d.ref_rms = meter.reference_rms(d.ref.as<double>(), p.m * p.n, stream);
    d.ref_unquantized_rms = meter.reference_rms(d.ref_unquantized.as<double>(), p.m * p.n, stream);
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return d;
}

// C before a verified run: NaN poison, or the seeded initial values when beta != 0.
void prepare_for_verify(const GemmProblem& p, GroupData& d, cudaStream_t stream) {
  if (p.beta != 0)
    CUDA_CHECK(
        cudaMemcpyAsync(d.c.get(), d.c0.get(), d.c.bytes(), cudaMemcpyDeviceToDevice, stream));
  else
    fill_nan(d.c.get(), p.out_type(), p.m * p.n, stream);
}

}  // namespace

GroupData set_up_operands(const ProblemGroup& g, uint64_t seed, ErrorMeter& meter,
                          cudaStream_t stream) {
  const GemmProblem& p = g.problem;
  if (g.grouped) {
    GroupData d;
    d.grouped = std::make_unique<GroupedOperands>(make_grouped_operands(
        p, g.grouped->grouping, seed, g.measure.data, meter, stream, g.measure.verify));
    return d;
  }
  if (is_fp8(p.dtype)) return set_up_fp8(g, seed, meter, stream);
  const size_t es = dtype_bytes(p.dtype);
  GroupData d;
  d.a = DeviceBuffer(size_t(p.m * p.k) * es);
  d.b = DeviceBuffer(size_t(p.k * p.n) * es);
  d.c = DeviceBuffer(size_t(p.m * p.n) * es);
  const DataDist dist = g.measure.data;
  fill_inputs(d.a.get(), p.dtype, p.m * p.k, seed, kTensorA, dist, stream);
  fill_inputs(d.b.get(), p.dtype, p.k * p.n, seed, kTensorB, dist, stream);
  if (p.beta != 0) {
    d.c0 = DeviceBuffer(size_t(p.m * p.n) * es);
    fill_inputs(d.c0.get(), p.dtype, p.m * p.n, seed, kTensorC, dist, stream);
  }
  if (g.measure.verify) {
    d.ref = DeviceBuffer(size_t(p.m * p.n) * sizeof(double));
    reference_gemm(p, d.a.get(), d.b.get(), d.c0.get(), d.ref.as<double>(), stream);
    d.ref_rms = meter.reference_rms(d.ref.as<double>(), p.m * p.n, stream);
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return d;
}

ErrorStats verify_launch(const ProblemGroup& g, GroupData& d, ErrorMeter& meter,
                         cudaStream_t stream, const std::function<void()>& launch,
                         bool c_row_major) {
  const GemmProblem& p = g.problem;
  if (g.grouped) return verify_grouped(p, g.grouped->grouping, *d.grouped, meter, stream, launch);
  prepare_for_verify(p, d, stream);
  launch();
  const void* c = d.c.get();
  DeviceBuffer c_cols;
  if (c_row_major) {
    c_cols = DeviceBuffer(d.c.bytes());
    transpose_to_column_major(d.c.get(), c_cols.get(), dtype_bytes(p.out_type()), p.m, p.n, stream);
    c = c_cols.get();
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));
  ErrorStats e = meter.measure(p.out_type(), c, d.ref.as<double>(), p.m * p.n, d.ref_rms, stream);
  e.tolerance = verification_tolerance(p);
  if (d.ref_unquantized.get()) {
    const ErrorStats q = meter.measure(p.out_type(), c, d.ref_unquantized.as<double>(), p.m * p.n,
                                       d.ref_unquantized_rms, stream);
    e.quant_normwise = q.normwise;
    e.quant_calc_diff = q.calc_diff;
  }
  return e;
}

}  // namespace gemmbench
