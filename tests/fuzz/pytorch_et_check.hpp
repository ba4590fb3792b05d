/* What the PyTorch trace fuzz target checks for one input, shared with the corpus replay test:
 * a host execution trace, optionally followed by the line KINETO_SEPARATOR and a Kineto trace, is
 * converted into a Chakra ET (as `sgai chakra convert` does) that sgai's reader takes, or
 * rejected with an InputError. */
#ifndef SGAI_TESTS_FUZZ_PYTORCH_ET_CHECK_HPP
#define SGAI_TESTS_FUZZ_PYTORCH_ET_CHECK_HPP

#include "chakra/convert.hpp"
#include "chakra/et_io.hpp"
#include "chakra_et_check.hpp"
#include "core/foundation/error.hpp"
#include "fuzz_input.hpp"

#include <string>

namespace sgai::test {

/** Separates the host trace from the Kineto trace in one fuzz input. */
inline const std::string kKinetoSeparator = "\n=====KINETO=====\n";

/** True when accepted, false when rejected with an InputError; throws on a bug. */
inline bool check_pytorch_et_bytes(const std::string& bytes)
{
  auto cut         = bytes.find(kKinetoSeparator);
  std::string host = bytes.substr(0, cut);
  std::filesystem::path kineto;
  if (cut != std::string::npos)
    kineto = write_input("fuzz.kineto.json", bytes.substr(cut + kKinetoSeparator.size()));
  chakra::Trace trace;
  try {
    chakra::ConversionReport report;
    trace = chakra::convert_pytorch(write_input("fuzz.host.json", host), kineto, &report);
  } catch (const InputError&) {
    return false;
  }
  auto et = input_dir() / "converted.et";
  chakra::write_trace(et, trace);
  if (not check_et_bytes(read_back(et)))
    throw FuzzBug("sgai's ET reader or feeder rejects the ET converted from an accepted PyTorch trace");
  return true;
}

} // namespace sgai::test

#endif
