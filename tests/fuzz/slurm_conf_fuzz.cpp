/* libFuzzer target: slurm.conf and `sacctmgr dump` files (core/scheduling/slurm_conf.*). The check
 * (slurm_conf_check.hpp) accepts or rejects the input; a crash, a hang, a memory blow-up or a
 * FuzzBug (a broken property, reported here) is a bug. Run with tools/fuzz.sh slurm_conf. */
#include "slurm_conf_check.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  try {
    sgai::test::check_slurm_conf_bytes(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sgai fuzz target slurm_conf: %s\n", e.what());
    std::abort();
  }
  return 0;
}
