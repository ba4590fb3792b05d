/* What the AI-ops fuzz target checks for one input, shared with the corpus replay test: the bytes
 * are read as an AI-ops model file and as an AI-ops experiment file; each reader accepts them or
 * rejects them with an InputError. A model read is written back and reads the same; merged over
 * the default model it synthesizes pipelines whose sizes and times are finite and positive. An
 * experiment read orders each pipeline's tasks after the tasks they wait for. */
#ifndef SGAI_TESTS_FUZZ_AIOPS_CHECK_HPP
#define SGAI_TESTS_FUZZ_AIOPS_CHECK_HPP

#include "core/aiops/experiment.hpp"
#include "core/aiops/model.hpp"
#include "core/aiops/synth.hpp"
#include "core/foundation/error.hpp"
#include "fuzz_input.hpp"

#include <cmath>
#include <map>
#include <sstream>
#include <string>

namespace sgai::test {

inline void check_positive(double v, const char* what)
{
  if (not(std::isfinite(v) && v >= 0))
    throw FuzzBug(std::string("a synthesized ") + what + " is " + std::to_string(v));
}

/** True when some reader accepted the bytes; a FuzzBug or another exception is a bug. */
inline bool check_aiops_bytes(const std::string& bytes)
{
  bool accepted = false;
  try {
    aiops::Model m = aiops::parse_model(bytes, "model.json");
    accepted       = true;
    std::ostringstream out;
    aiops::write_model(out, m);
    aiops::Model again = aiops::parse_model(out.str(), "again.json");
    if (bool(again.arrivals) != bool(m.arrivals) || bool(again.training) != bool(m.training) ||
        bool(again.tasks) != bool(m.tasks) || bool(again.models) != bool(m.models))
      throw FuzzBug("a model file written back reads with other sections");
    static const aiops::Model base =
        aiops::read_model(std::string(SGAI_FUZZ_SOURCE_DIR) + "/deploy/aiops/default-model.json");
    aiops::Model merged = base;
    aiops::merge(merged, m);
    aiops::Synthesizer s(merged);
    std::mt19937_64 rng(1);
    for (int i = 0; i < 50; ++i) {
      auto a = s.asset(rng);
      check_positive(a.bytes, "data size");
      check_positive(s.preprocess_seconds(a.bytes, rng), "preprocessing time");
      double train = s.train_seconds(s.framework(rng), rng);
      check_positive(train, "training time");
      check_positive(s.compress_seconds(train, rng), "compression time");
      check_positive(s.model_bytes(rng), "model size");
      double metric = s.metric(rng);
      if (not(metric >= 0 && metric <= 1))
        throw FuzzBug("a metric outside [0, 1]: " + std::to_string(metric));
      double gap = merged.arrivals->sample(double(i) * 977, rng);
      if (not(std::isfinite(gap) && gap >= 0))
        throw FuzzBug("an interarrival gap of " + std::to_string(gap));
    }
  } catch (const InputError&) {
  }
  try {
    aiops::ExperimentSpec e = aiops::parse_experiment(bytes, "experiment.json");
    accepted                = true;
    for (const auto& p : e.pipelines) {
      std::map<std::string, size_t> position;
      for (size_t k = 0; k < p.order.size(); ++k)
        position[p.tasks.at(p.order[k]).name] = k;
      if (position.size() != p.tasks.size())
        throw FuzzBug("pipeline " + p.name + ": its order is no permutation of its tasks");
      for (const auto& t : p.tasks)
        for (const auto& a : t.after)
          if (position.at(a) >= position.at(t.name))
            throw FuzzBug("pipeline " + p.name + ": " + t.name + " ordered before " + a);
    }
  } catch (const InputError&) {
  }
  return accepted;
}

} // namespace sgai::test

#endif
