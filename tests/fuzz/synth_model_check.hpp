/* What the synthesis model fuzz target checks for one input, shared with the corpus replay test:
 * the model JSON `sgai chakra synth --model` reads is accepted, written back to the same JSON,
 * and sampled (4 ranks in groups of 2, both Markov orders) into traces sgai's ET reader takes;
 * or it is rejected with an InputError. */
#ifndef SGAI_TESTS_FUZZ_SYNTH_MODEL_CHECK_HPP
#define SGAI_TESTS_FUZZ_SYNTH_MODEL_CHECK_HPP

#include "chakra/et_io.hpp"
#include "chakra/synth.hpp"
#include "chakra_et_check.hpp"
#include "core/foundation/error.hpp"
#include "fuzz_input.hpp"

#include <string>

namespace sgai::test {

/** Models with longer sequences are read and written back but not sampled (time per input). */
constexpr uint64_t kSynthSampleMaxLength = 2000;

/** True when accepted, false when rejected with an InputError; throws on a bug. */
inline bool check_synth_model_bytes(const std::string& bytes)
{
  chakra::SynthModel m;
  try {
    m = chakra::read_synth_model(write_input("fuzz.model.json", bytes));
  } catch (const InputError&) {
    return false;
  }
  auto text = chakra::synth_model_json(m);
  chakra::SynthModel again;
  try {
    again = chakra::read_synth_model(write_input("again.model.json", text));
  } catch (const InputError& e) {
    throw FuzzBug(std::string("sgai rejects the synthesis model it wrote: ") + e.what());
  }
  if (chakra::synth_model_json(again) != text)
    throw FuzzBug("a synthesis model written and read back is written differently");
  if (m.length_max > kSynthSampleMaxLength)
    return true;
  for (uint32_t order : {0U, 1U}) {
    chakra::SynthSampleOptions o;
    o.ranks        = 4;
    o.group_size   = 2;
    o.seed         = 7;
    o.markov_order = order;
    auto out       = chakra::sample_synth(m, o);
    if (out.ranks.size() != 4 || out.groups.size() != 2)
      throw FuzzBug("sampling 4 ranks in groups of 2 gave another shape");
    auto et = input_dir() / "sampled.et";
    chakra::write_trace(et, out.ranks[0]);
    if (not check_et_bytes(read_back(et)))
      throw FuzzBug("sgai's ET reader rejects a trace sampled from an accepted model");
  }
  return true;
}

} // namespace sgai::test

#endif
