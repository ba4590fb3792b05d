#include "chakra/stats.hpp"

#include "chakra/feeder.hpp"
#include "chakra/visualize.hpp"

#include <queue>

namespace sgai::chakra {

TraceStats trace_stats(const std::filesystem::path& et, size_t window, Deps deps, std::vector<ReplayEvent>* log)
{
  TraceStats s;
  s.file = et.string();
  s.rank = rank_of_file(et.filename().string());
  EtReader reader(et);
  Feeder::Options o;
  o.window            = window;
  o.control           = follow_control(deps, reader.metadata());
  s.data_deps_only    = not o.control;
  s.pytorch_converted = pytorch_converted(reader.metadata());
  Feeder feeder(std::move(reader), o);
  // Replay with unlimited resources: every issuable node starts at once and ends after its
  // recorded duration; the last end is the critical path length.
  using Event = std::pair<uint64_t, uint64_t>; // end time, node id
  std::priority_queue<Event, std::vector<Event>, std::greater<>> running;
  uint64_t now = 0;
  for (;;) {
    while (const Node* n = feeder.next_issuable()) {
      s.nodes++;
      s.by_type[n->type]++;
      s.total_duration_us += n->duration_micros;
      if (n->bool_attr("is_cpu_op") == true)
        s.cpu_ops++;
      switch (n->type) {
      case NodeType::comp:
        if (auto ops = n->num_ops())
          s.compute_ops += *ops;
        else
          s.compute_without_ops++;
        break;
      case NodeType::comm_coll: {
        auto type = n->collective();
        if (not type) {
          s.collectives_without_type++;
        } else {
          auto& t = s.collectives[*type];
          t.count++;
          t.bytes += n->comm_size().value_or(0);
        }
        if (const Attribute* pg = n->attr("pg_name"); pg && pg->as_string())
          s.process_groups[*pg->as_string()]++;
        break;
      }
      case NodeType::comm_send:
        s.sends.count++;
        s.sends.bytes += n->comm_size().value_or(0);
        break;
      case NodeType::comm_recv:
        s.recvs.count++;
        s.recvs.bytes += n->comm_size().value_or(0);
        break;
      default:
        break;
      }
      running.emplace(now + n->duration_micros, n->id);
      if (log)
        log->push_back({s.rank.value_or(0), n->id, true, static_cast<double>(now), n->type, n->name});
    }
    if (running.empty())
      break;
    auto [end, id] = running.top();
    running.pop();
    now = end;
    if (log) {
      const Node* done = feeder.lookup(id);
      log->push_back({s.rank.value_or(0), id, false, static_cast<double>(now), done->type, done->name});
    }
    feeder.complete(id);
  }
  s.critical_path_us     = now;
  s.control_deps_ignored = feeder.control_deps_ignored();
  return s;
}

void accumulate(TraceStats& a, const TraceStats& b)
{
  a.nodes += b.nodes;
  for (const auto& [k, v] : b.by_type)
    a.by_type[k] += v;
  for (const auto& [k, v] : b.collectives) {
    a.collectives[k].count += v.count;
    a.collectives[k].bytes += v.bytes;
  }
  a.collectives_without_type += b.collectives_without_type;
  a.sends.count += b.sends.count;
  a.sends.bytes += b.sends.bytes;
  a.recvs.count += b.recvs.count;
  a.recvs.bytes += b.recvs.bytes;
  a.compute_ops += b.compute_ops;
  a.compute_without_ops += b.compute_without_ops;
  a.cpu_ops += b.cpu_ops;
  a.total_duration_us += b.total_duration_us;
  a.critical_path_us = std::max(a.critical_path_us, b.critical_path_us);
  a.control_deps_ignored += b.control_deps_ignored;
  for (const auto& [k, v] : b.process_groups)
    a.process_groups[k] += v;
}

} // namespace sgai::chakra
