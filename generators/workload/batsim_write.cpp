/* Batsim JSON out: write_batsim. */
#include "generators/workload/batsim.hpp"

#include "core/foundation/json_writer.hpp"

#include <nlohmann/json.hpp>

#include <ostream>

namespace sgai::workload {

namespace {

/** Fields kept verbatim (a JSON object's text), written back as they were read. */
void write_extra(json::Writer& jw, const std::string& extra_json)
{
  if (extra_json.empty())
    return;
  auto extra = nlohmann::ordered_json::parse(extra_json);
  for (auto it = extra.begin(); it != extra.end(); ++it)
    jw.key(it.key()).raw(it.value().dump());
}

} // namespace

void write_batsim(const Workload& w, std::ostream& out)
{
  json::Writer jw(out);
  jw.begin_object();
  if (w.nb_res)
    jw.field("nb_res", *w.nb_res);
  jw.key("jobs").begin_array();
  for (const auto& j : w.jobs) {
    jw.begin_object(true).field("id", j.id).field("subtime", j.submit_s).field("res", j.resources);
    if (j.walltime_s)
      jw.field("walltime", *j.walltime_s);
    jw.field("profile", w.profiles[j.profile].name);
    for (auto [key, field] :
         {std::pair{"user", &j.user}, {"group", &j.group}, {"partition", &j.partition}, {"qos", &j.qos}})
      if (not field->empty())
        jw.field(key, *field);
    write_extra(jw, j.extra_json);
    jw.end_object();
  }
  jw.end_array();
  jw.key("profiles").begin_object();
  for (const auto& p : w.profiles) {
    // Batsim 5's names for what Batsim 4 had no name for: a parallel task without communication
    // (rather than n x n zeros), a storage profile of bytes spread over the resources
    if (p.type == ProfileType::parallel && p.com_matrix.empty())
      jw.key(p.name).begin_object(true).field("type", "ParallelTaskProfile");
    else if (p.type == ProfileType::parallel_homogeneous_pfs && p.bytes_total)
      jw.key(p.name)
          .begin_object(true)
          .field("type", "ParallelTaskOnStorageHomogeneousProfile")
          .field("generation_strategy", "DefinedAmountsSpreadUniformly");
    else if (p.type == ProfileType::custom)
      jw.key(p.name).begin_object(true).field("type", p.custom_type);
    else
      jw.key(p.name).begin_object(true).field("type", to_string(p.type));
    switch (p.type) {
    case ProfileType::delay:
      jw.field("delay", p.delay_s);
      break;
    case ProfileType::parallel_homogeneous:
    case ProfileType::parallel_homogeneous_total:
      jw.field("cpu", p.cpu).field("com", p.com);
      break;
    case ProfileType::parallel:
      jw.key("cpu").begin_array();
      for (double c : p.cpu_vector)
        jw.value(c);
      jw.end_array();
      if (not p.com_matrix.empty()) {
        jw.key("com").begin_array();
        for (double c : p.com_matrix)
          jw.value(c);
        jw.end_array();
      }
      break;
    case ProfileType::composed:
      jw.field("repeat", p.repeat).key("seq").begin_array();
      for (uint32_t q : p.sequence)
        jw.value(w.profiles[q].name);
      jw.end_array();
      break;
    case ProfileType::parallel_homogeneous_pfs:
      jw.field("bytes_to_read", p.bytes_to_read).field("bytes_to_write", p.bytes_to_write).field("storage", p.storage);
      break;
    case ProfileType::smpi:
    case ProfileType::usage_trace:
      jw.field("trace", p.trace_file); // Batsim 4's field, as the type's name is Batsim 4's
      break;
    case ProfileType::training:
      jw.field("model", p.model).field("iterations", p.iterations);
      if (p.iteration_s)
        jw.field("iteration_time", *p.iteration_s);
      if (p.compute_s)
        jw.field("compute_time", *p.compute_s);
      if (not p.replays_traces())
        jw.field("gradient_bytes", p.gradient_bytes);
      if (not p.traces.empty())
        jw.field("traces", p.traces);
      if (not p.comm_groups.empty())
        jw.field("comm_groups", p.comm_groups);
      if (not p.megatron.empty())
        jw.field("megatron", p.megatron);
      if (const auto& g = p.generated) {
        jw.key("parallelism").begin_object();
        jw.field("data", g->data).field("tensor", g->tensor).field("pipeline", g->pipeline);
        jw.field("microbatches", g->microbatches).field("bucket", g->bucket_bytes);
        jw.end_object();
        jw.key("transformer").begin_object();
        jw.field("layers", g->layers).field("hidden", g->hidden).field("sequence", g->sequence);
        jw.field("batch", g->batch).field("bytes_per_element", g->bytes_per_element);
        jw.end_object();
      }
      if (not p.gpu_type.empty())
        jw.field("gpu_type", p.gpu_type);
      if (p.pstate)
        jw.field("pstate", *p.pstate);
      break;
    case ProfileType::custom:
      for (const auto& [key, text] : p.custom_fields)
        jw.key(key).raw(text);
      break;
    }
    if (p.req_time_s)
      jw.field("req_time", *p.req_time_s);
    if (p.req_ops)
      jw.field("req_ops", *p.req_ops);
    if (p.mem_mb)
      jw.field("mem", *p.mem_mb);
    if (p.mem_bw_gbps)
      jw.field("mem_bw", *p.mem_bw_gbps);
    write_extra(jw, p.extra_json);
    jw.end_object();
  }
  jw.end_object();
  if (not w.job_limits_json.empty())
    jw.key("job_limits").raw(w.job_limits_json);
  jw.end_object();
}

} // namespace sgai::workload
