/* Training descriptions in unit tests: Megatron-LM's keys and values, one setting overridden. */
#ifndef SGAI_TESTS_UNIT_TRAINING_KV_HPP
#define SGAI_TESTS_UNIT_TRAINING_KV_HPP

#include <string>
#include <utility>
#include <vector>

namespace sgai::test {

using KeyValues = std::vector<std::pair<std::string, std::string>>;

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

} // namespace sgai::test

#endif
