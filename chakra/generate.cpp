#include "chakra/generate.hpp"

#include "chakra/builder.hpp"
#include "chakra/et_io.hpp"
#include "core/foundation/files.hpp"

#include <algorithm>
#include <random>

namespace sgai::chakra {

std::string collective_file_name(CollectiveType t)
{
  std::string s = to_string(t);
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string size_label(uint64_t bytes)
{
  const std::pair<uint64_t, const char*> units[] = {
      {uint64_t{1} << 30, "GB"}, {uint64_t{1} << 20, "MB"}, {uint64_t{1} << 10, "KB"}};
  for (auto [factor, unit] : units)
    if (bytes >= factor && bytes % factor == 0)
      return std::to_string(bytes / factor) + unit;
  return std::to_string(bytes) + "B";
}

std::vector<Trace> microbenchmark(CollectiveType type, uint32_t ranks, uint64_t bytes, uint32_t count)
{
  std::vector<Trace> out;
  std::string name = collective_file_name(type) + "_" + std::to_string(ranks) + "npus_" + size_label(bytes);
  for (uint32_t r = 0; r < ranks; r++) {
    TraceBuilder b("0.0.4", r);
    uint64_t last = b.collective(name, type, bytes);
    for (uint32_t k = 1; k < count; k++)
      last = b.collective(name + "_" + std::to_string(k), type, bytes, {last});
    out.push_back(b.take());
  }
  return out;
}

void random_dag(EtWriter& out, uint64_t nodes, uint32_t width, uint64_t seed)
{
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> parents(1, 3);
  std::uniform_int_distribution<uint64_t> duration(1, 100);
  std::uniform_int_distribution<int64_t> ops(1000000, 1000000000);
  Node n;
  n.type = NodeType::comp;
  n.attrs.push_back(Attribute::of_bool("is_cpu_op", false));
  n.attrs.push_back(Attribute::of_int64("num_ops", 0));
  for (uint64_t i = 0; i < nodes; i++) {
    n.id   = i;
    n.name = "op" + std::to_string(i);
    n.data_deps.clear();
    if (i > 0) {
      uint64_t span = std::min<uint64_t>(width, i);
      std::uniform_int_distribution<uint64_t> back(1, span);
      int k = parents(rng);
      for (int j = 0; j < k; j++) {
        uint64_t p = i - back(rng);
        if (std::find(n.data_deps.begin(), n.data_deps.end(), p) == n.data_deps.end())
          n.data_deps.push_back(p);
      }
    }
    n.duration_micros = duration(rng);
    n.attrs[1].value  = ops(rng);
    out.write(n);
  }
}

std::vector<std::filesystem::path> write_workload(const std::filesystem::path& dir, const std::string& prefix,
                                                  const std::vector<Trace>& ranks)
{
  ensure_directory(dir);
  std::vector<std::filesystem::path> out;
  for (size_t r = 0; r < ranks.size(); r++) {
    auto path = dir / (prefix + "." + std::to_string(r) + ".et");
    write_trace(path, ranks[r]);
    out.push_back(path);
  }
  return out;
}

} // namespace sgai::chakra
