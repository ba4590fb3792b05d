/* Training descriptions in unit tests: Megatron-LM's keys and values, one setting overridden, read as
 * a file's settings. */
#ifndef SGAI_TESTS_UNIT_TRAINING_KV_HPP
#define SGAI_TESTS_UNIT_TRAINING_KV_HPP

#include "core/foundation/error.hpp"
#include "core/training/config.hpp"
#include "core/training/traffic.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace sgai::test {

using KeyValues = std::vector<std::pair<std::string, std::string>>;

/** Settings from "key=value" pairs, as if written in a file named "t.yaml", a line each. */
inline std::vector<training::Setting> settings(const KeyValues& kv)
{
  std::vector<training::Setting> out;
  int line = 1;
  for (const auto& [k, v] : kv)
    out.push_back({k, v, "t.yaml", "line " + std::to_string(line++)});
  return out;
}

/** The one-line error make_config gives for `kv` on `gpus` GPUs ("place: message", "usage: ..."),
 *  empty when it takes them. */
inline std::string error_of(const KeyValues& kv, uint64_t gpus)
{
  try {
    training::make_config(settings(kv), gpus);
  } catch (const InputError& e) {
    return e.place() + ": " + e.message();
  } catch (const UsageError& e) {
    return std::string("usage: ") + e.what();
  }
  return "";
}

/** Megatron-Core's 1.7B row: 24 layers, hidden 2048, 16 heads, sequence 4,096, vocabulary 131,072,
 *  global batch 192 on 48 GPUs. */
inline KeyValues gpt_1_7b()
{
  return {{"num-layers", "24"},          {"hidden-size", "2048"},
          {"num-attention-heads", "16"}, {"seq-length", "4096"},
          {"vocab-size", "131072"},      {"micro-batch-size", "1"},
          {"global-batch-size", "192"},  {"use-distributed-optimizer", "true"}};
}

/** `kv` with `key` set to `value` (replaced, or added at the end). */
inline KeyValues with(KeyValues kv, const std::string& key, const std::string& value)
{
  for (auto& [k, v] : kv)
    if (k == key) {
      v = value;
      return kv;
    }
  kv.emplace_back(key, value);
  return kv;
}

/** The transfer of that group, collective and phase (the test fails without one). */
inline training::Transfer find_transfer(const std::vector<training::Transfer>& all, training::Group g,
                                        training::Collective k, training::Phase p)
{
  for (const auto& t : all)
    if (t.group == g && t.collective == k && t.phase == p)
      return t;
  ADD_FAILURE() << "no " << to_string(g) << " " << to_string(k) << " " << to_string(p);
  return {};
}

} // namespace sgai::test

#endif
