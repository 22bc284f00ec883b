#include "runner/sampling.hpp"

#include "runner/nvtx_range.hpp"

namespace gemmbench {

SamplingContext::SamplingContext(size_t l2_bytes, const std::string& pci)
    : flush(l2_bytes), nvml(pci), sampler(nvml) {
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
}

SamplingContext::~SamplingContext() {
  for (cudaEvent_t e : events) cudaEventDestroy(e);
  if (stream) cudaStreamDestroy(stream);
}

cudaEvent_t SamplingContext::event(size_t i) {
  while (events.size() <= i) {
    cudaEvent_t e;
    CUDA_CHECK(cudaEventCreate(&e));
    events.push_back(e);
  }
  return events[i];
}

void fail_member(Member& m, const CudaError& e, RunSummary& summary) {
  m.r.status = Status::error;
  m.r.reason = e.what();
  m.launch = nullptr;
  const cudaError_t sync = cudaDeviceSynchronize();
  if (is_sticky(e.code) || is_sticky(sync)) {
    summary.aborted = true;
    summary.abort_reason = std::string("CUDA context lost: ") + e.what();
  }
}

void prepare_sample(SamplingContext& ctx, const GemmProblem& p, const MeasureSettings& s,
                    GroupData& d) {
  if (p.beta != 0)
    CUDA_CHECK(cudaMemcpyAsync(d.c_out().get(), d.c_initial().get(), d.c_out().bytes(),
                               cudaMemcpyDeviceToDevice, ctx.stream));
  if (s.cache == CacheMode::cold) ctx.flush.run(ctx.stream);
}

std::vector<std::vector<double>> run_steps(SamplingContext& ctx, const ProblemGroup& g,
                                           GroupData& d, const std::vector<const Member*>& step,
                                           size_t count) {
  const size_t np = step.size();
  for (size_t j = 0; j < count; ++j)
    for (size_t i = 0; i < np; ++i) {
      prepare_sample(ctx, g.problem, g.measure, d);
      CUDA_CHECK(cudaEventRecord(ctx.event(2 * (j * np + i)), ctx.stream));
      if (np > 1) {  // interleaved (burst): each launch in its row's and provider's ranges
        const NvtxRange row(step[i]->nvtx_name), provider(step[i]->r.kernel);
        step[i]->launch();
      } else {
        step[i]->launch();
      }
      CUDA_CHECK(cudaEventRecord(ctx.event(2 * (j * np + i) + 1), ctx.stream));
    }
  CUDA_CHECK(cudaEventSynchronize(ctx.event(2 * count * np - 1)));
  std::vector<std::vector<double>> ms(np, std::vector<double>(count));
  for (size_t j = 0; j < count; ++j)
    for (size_t i = 0; i < np; ++i) {
      float t = 0;
      CUDA_CHECK(
          cudaEventElapsedTime(&t, ctx.event(2 * (j * np + i)), ctx.event(2 * (j * np + i) + 1)));
      ms[i][j] = t;
    }
  return ms;
}

}  // namespace gemmbench
