/* What the GPU-cluster trace fuzz target checks for one input, shared with the corpus replay test:
 * the bytes are read as a Tiresias trace, a Gavel trace and an Alibaba pod list (with a small set of
 * Gavel throughputs), as `sgai workload tiresias|gavel|alibaba` do; each converter accepts them or
 * rejects them with an InputError. What one accepts has as many jobs as it kept, asks for the GPUs
 * it reported, and reads back from the Batsim JSON sgai writes. */
#ifndef SGAI_TESTS_FUZZ_GPU_TRACE_CHECK_HPP
#define SGAI_TESTS_FUZZ_GPU_TRACE_CHECK_HPP

#include "core/foundation/error.hpp"
#include "fuzz_input.hpp"
#include "generators/workload/gpu_traces.hpp"
#include "workload_roundtrip.hpp"

#include <functional>
#include <string>

namespace sgai::test {

inline const workload::GavelThroughputs& fuzz_gavel_throughputs()
{
  static const workload::GavelThroughputs t = [] {
    return workload::read_gavel_throughputs(write_input("throughputs.json", R"J({
      "v100": {"('ResNet-18 (batch size 64)', 1)": {"null": 10.0}, "('ResNet-18 (batch size 64)', 2)": {"null": 16.0},
               "('A3C', 1)": {"null": 4.0}, "('LM (batch size 5)', 1)": {"null": 0.5}}})J")
                                                .string());
  }();
  return t;
}

/** True when some converter accepted the bytes; a FuzzBug or another exception is a bug. */
inline bool check_gpu_trace_bytes(const std::string& bytes)
{
  bool any = false;
  auto one = [&](const char* what,
                 const std::function<workload::Workload(const std::string&, workload::GpuTraceReport*)>& f) {
    workload::GpuTraceReport r;
    workload::Workload w;
    try {
      w = f(write_input("trace.csv", bytes).string(), &r);
    } catch (const InputError&) {
      return;
    }
    any           = true;
    uint64_t gpus = 0, skipped = 0;
    for (const auto& j : w.jobs)
      gpus += j.resources;
    for (const auto& [why, n] : r.skipped)
      skipped += n;
    if (w.jobs.size() != r.jobs || gpus != r.gpus || r.jobs + skipped != r.rows)
      throw FuzzBug(std::string(what) + ": the report does not count the jobs written");
    for (const auto& j : w.jobs) {
      const auto& p = w.profile_of(j);
      if (p.iterations == 0 || not(p.iteration_s.value_or(p.compute_s.value_or(-1)) >= 0))
        throw FuzzBug(std::string(what) + ": a job without iterations or time");
    }
    if (not w.jobs.empty())
      check_batsim_roundtrip(w);
  };
  one("tiresias",
      [](const std::string& f, workload::GpuTraceReport* r) { return workload::tiresias_to_workload(f, r); });
  one("gavel", [](const std::string& f, workload::GpuTraceReport* r) {
    return workload::gavel_to_workload(f, fuzz_gavel_throughputs(), {}, r);
  });
  one("alibaba", [](const std::string& f, workload::GpuTraceReport* r) {
    return workload::alibaba_to_workload(f, fuzz_gavel_throughputs(), {}, r);
  });
  return any;
}

} // namespace sgai::test

#endif
