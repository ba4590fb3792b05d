/* libFuzzer target: the GPU-cluster trace converters (generators/workload/gpu_traces.*): Tiresias,
 * Gavel and Alibaba inputs. The check (gpu_trace_check.hpp) accepts or rejects the input; a crash, a
 * hang, a memory blow-up or a FuzzBug (a broken property, reported here) is a bug. Run with
 * tools/fuzz.sh gpu_trace. */
#include "gpu_trace_check.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  try {
    sgai::test::check_gpu_trace_bytes(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sgai fuzz target gpu_trace: %s\n", e.what());
    std::abort();
  }
  return 0;
}
