#include "inspect/mma_peak.hpp"

#include <map>

namespace gemmbench::inspect {

void derive_mma_peak(MmaPeakReport& report) {
  std::map<Accum, MmaPeakRow*> best;
  for (MmaPeakRow& r : report.rows) {
    r.tflops = r.elapsed_ms > 0 ? r.flop / (r.elapsed_ms * 1e-3) / 1e12 : 0;
    // Launch gaps and the CTAs' staggered starts fall inside the event time but outside every
    // CTA's cycles, so this reads slightly below the clock the SMs ran at.
    r.clock_mhz = r.elapsed_ms > 0 ? r.mean_cta_cycles / (r.elapsed_ms * 1e3) : 0;
    // One CTA per SM: a CTA's cycles are its SM's. Independent of the event time.
    r.flop_per_clk_per_sm =
        r.ctas > 0 && r.mean_cta_cycles > 0 ? r.flop / (r.ctas * r.mean_cta_cycles) : 0;
    r.best = false;
    MmaPeakRow*& b = best[r.config.accum];
    if (r.tflops > 0 && (!b || r.tflops > b->tflops)) b = &r;
  }
  for (auto& [accum, row] : best)
    if (row) row->best = true;
}

}  // namespace gemmbench::inspect
