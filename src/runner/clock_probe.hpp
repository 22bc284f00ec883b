// The SM clock of the work itself (docs/contributing.md#power-regime: NVML readings lag the work):
// a one-thread kernel enqueued right after a batch of samples counts SM cycles (clock64) against
// the global timer
// (%globaltimer, ns) for about kSpinNs, so cycles / ns is the clock the batch ended at. The burst
// regime keeps a batch only while that clock holds (stats/regime.hpp); nvbench judges its burst
// samples the same way. The probe runs outside the timed events.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include "device/buffer.hpp"

namespace gemmbench {

class ClockProbe {
 public:
  // Room for `slots` probes between two reads.
  explicit ClockProbe(size_t slots = 256);
  // Enqueues one probe on `stream` into `slot` (< slots()).
  void enqueue(cudaStream_t stream, size_t slot);
  // The clocks (MHz) of slots [0, count), after the stream has passed them (the caller
  // synchronizes). A slot whose timer did not advance reads NaN.
  std::vector<double> read(size_t count, cudaStream_t stream);
  size_t slots() const { return slots_; }
  // Spin per probe, ns of the global timer: long against its update interval (1 us on recent
  // GPUs), so one probe is good to about 0.5%.
  static constexpr unsigned long long kSpinNs = 200000;

 private:
  size_t slots_;
  DeviceBuffer buf_;  // slots x {cycles, ns}
};

}  // namespace gemmbench
