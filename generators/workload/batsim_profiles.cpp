/* Batsim's profiles: the profile types under each of their names, the types registered from
 * outside, and a profile read field by field, type by type (read_batsim's strict path). */
#include "generators/workload/batsim.hpp"
#include "generators/workload/batsim_internal.hpp"

#include "core/foundation/error.hpp"
#include "core/foundation/json.hpp"
#include "core/foundation/json_raw.hpp"
#include "core/training/config.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace sgai::workload {

namespace {

using detail::time_value;
using json::Object;
using json::Value;

/** Fields sgai reads in every profile (HDeepRM's). */
const std::vector<std::string>& common_profile_keys()
{
  static const std::vector<std::string> k = {"type", "req_time", "req_ops", "mem", "mem_bw"};
  return k;
}
/** Profile fields Batsim's workloads carry that sgai keeps verbatim without interpreting them:
 *  command, np and runtime (Batsim's generators), expected_execution_time (its tests), mpi_size
 *  (its SMPI tests) and extra_data (free, forwarded to the scheduler by Batsim). */
const std::vector<std::string>& kept_profile_keys()
{
  static const std::vector<std::string> k = {"command",  "np",        "runtime", "expected_execution_time",
                                             "mpi_size", "extra_data"};
  return k;
}

/** A profile type as workloads name it: Batsim 5 (DelayProfile, ...), Batsim 3 and 4 (delay,
 *  parallel, ...), the names between them (ptask, ...) and the oldest (msg_par, ...). */
struct TypeName {
  const char* name;
  ProfileType type;
  bool strategy   = false; ///< takes generation_strategy (Batsim 5 and the names before it)
  bool trace_type = false; ///< a trace replay whose trace_type says which
  bool cpu_or_com = false; ///< a parallel task with cpu, com or both (Batsim 5; before, both)
};

const std::vector<TypeName>& type_names()
{
  using T                                  = ProfileType;
  static const std::vector<TypeName> names = {
      {"delay", T::delay},
      {"DelayProfile", T::delay},
      {"parallel_homogeneous", T::parallel_homogeneous},
      {"msg_par_hg", T::parallel_homogeneous},
      {"ptask_homogeneous", T::parallel_homogeneous, true},
      {"ParallelTaskHomogeneousProfile", T::parallel_homogeneous, true},
      {"parallel_homogeneous_total", T::parallel_homogeneous_total},
      {"msg_par_hg_tot", T::parallel_homogeneous_total},
      {"parallel", T::parallel},
      {"msg_par", T::parallel},
      {"ptask", T::parallel},
      {"ParallelTaskProfile", T::parallel, false, false, true},
      {"composed", T::composed},
      {"sequential_composition", T::composed},
      {"SequentialCompositionProfile", T::composed},
      {"parallel_homogeneous_pfs", T::parallel_homogeneous_pfs},
      {"msg_par_hg_pfs", T::parallel_homogeneous_pfs},
      {"ptask_on_storage_homogeneous", T::parallel_homogeneous_pfs, true},
      {"ParallelTaskOnStorageHomogeneousProfile", T::parallel_homogeneous_pfs, true},
      {"smpi", T::smpi},
      {"usage_trace", T::usage_trace},
      {"trace_replay", T::smpi, false, true},
      {"TraceReplayProfile", T::smpi, false, true},
      {"training", T::training},
  };
  return names;
}

double non_negative(const Value& v, const char* what)
{
  double d = v.number();
  if (not(d >= 0) || not std::isfinite(d))
    v.fail(std::string(what) + " " + v.shown() + " must be a finite number >= 0");
  return d;
}

/** An amount of work (flop or bytes), at most max_work. */
double amount(const Value& v, const char* what, const char* max_text)
{
  double d = non_negative(v, what);
  if (d > max_work)
    v.fail(std::string(what) + " " + v.shown() + " is above " + max_text);
  return d;
}

/** A non-empty string. */
std::string label(const Value& v, const char* what)
{
  std::string s = v.string();
  if (s.empty())
    v.fail(std::string(what) + " must not be empty");
  return s;
}

/** Batsim's generation_strategy: whether the amounts are totals spread over the resources. */
bool spread_uniformly(Object& o)
{
  auto g = o.optional("generation_strategy");
  return g && g->choice({"DefinedAmountsUsedForEachValue", "DefinedAmountsSpreadUniformly"}) ==
                  "DefinedAmountsSpreadUniformly";
}

void read_parallel(Object& o, Profile& p, bool cpu_or_com)
{
  std::optional<Value> cpu, com;
  if (cpu_or_com) {
    cpu = o.optional("cpu");
    com = o.optional("com");
    if (not cpu && not com)
      o.fail("a ParallelTaskProfile needs 'cpu' (flops per resource), 'com' (bytes, n x n) or both");
  } else {
    cpu = o.required("cpu");
    com = o.required("com");
  }
  size_t n = 0;
  if (cpu) {
    for (auto& c : cpu->array())
      p.cpu_vector.push_back(amount(c, "cpu", max_flop_text));
    if (p.cpu_vector.empty())
      cpu->fail("a parallel profile needs one cpu amount per resource");
    n = p.cpu_vector.size();
  }
  if (com) {
    auto values = com->array();
    if (not cpu) { // communication only: n from the matrix
      n = static_cast<size_t>(std::llround(std::sqrt(static_cast<double>(values.size()))));
      if (n == 0 || n * n != values.size())
        com->fail("a parallel profile without cpu needs n x n com values (n >= 1), got " +
                  std::to_string(values.size()));
    }
    if (values.size() != n * n)
      com->fail("a parallel profile of " + std::to_string(n) + " resources needs " + std::to_string(n * n) +
                " com values (n x n), got " + std::to_string(values.size()));
    for (auto& c : values)
      p.com_matrix.push_back(amount(c, "com", max_bytes_text));
  }
  if (not cpu)
    p.cpu_vector.assign(n, 0); // communication only
}

/** A trace's file, relative to the workload's folder (Batsim names the field filename, trace or trace_file). */
void read_trace(Object& o, Profile& p, const std::filesystem::path& folder)
{
  std::optional<Value> file;
  for (const char* key : {"filename", "trace", "trace_file"})
    if (auto v = o.optional(key)) {
      if (file)
        v->fail("a trace replay profile names its trace once ('filename', 'trace' or 'trace_file'), here twice");
      file = v;
    }
  if (not file)
    o.fail("missing field 'filename' (the trace, relative to the workload's folder; Batsim 4 calls it 'trace')");
  p.trace_file = label(*file, "the trace's file name");
  if (std::filesystem::path(p.trace_file).is_absolute())
    file->fail("trace " + file->shown() + " must be relative to the workload's folder, as in Batsim");
  p.trace_path = (folder / p.trace_file).lexically_normal();
}

/** A training profile: the model and iterations, and what an iteration does: one of the measured
 *  iteration time (communication included) or the compute time per iteration, with the gradient
 *  bytes all-reduced; Chakra traces (`traces`, one per rank); a generated iteration
 *  (`parallelism` and `transformer`). */
void read_training(Object& o, Profile& p, const std::filesystem::path& folder)
{
  p.model           = label(o.required("model"), "the model's name");
  p.iterations      = static_cast<uint64_t>(o.required("iterations").integer(1, 1000000000000000));
  auto it           = o.optional("iteration_time");
  auto ct           = o.optional("compute_time");
  auto tr           = o.optional("traces");
  auto par          = o.optional("parallelism");
  auto meg          = o.optional("megatron");
  const char* kinds = "'iteration_time' (measured alone, communication included), 'compute_time' (communication "
                      "excluded), 'traces' (Chakra ETs, one per rank), 'parallelism' with 'transformer' (a "
                      "generated iteration) or 'megatron' (a training description)";
  int given         = (it ? 1 : 0) + (ct ? 1 : 0) + (tr ? 1 : 0) + (par ? 1 : 0) + (meg ? 1 : 0);
  if (given > 1)
    o.fail(std::string("a training profile gives one of ") + kinds + ", not several");
  if (given == 0)
    o.fail(std::string("a training profile needs one of ") + kinds);
  if (it)
    p.iteration_s = time_value(*it, "iteration_time", "must be positive", true);
  if (ct)
    p.compute_s = time_value(*ct, "compute_time", "must be >= 0");
  if (tr) {
    p.traces = label(*tr, "the traces' ET prefix or folder");
    if (std::filesystem::path(p.traces).is_absolute())
      tr->fail("traces " + tr->shown() + " must be relative to the workload's folder");
    p.traces_path = (folder / p.traces).lexically_normal();
    if (auto g = o.optional("comm_groups")) {
      p.comm_groups = label(*g, "the communicator-group file");
      if (std::filesystem::path(p.comm_groups).is_absolute())
        g->fail("comm_groups " + g->shown() + " must be relative to the workload's folder");
      p.comm_groups_path = (folder / p.comm_groups).lexically_normal();
    }
  }
  if (meg) {
    p.megatron = label(*meg, "the training description's file");
    if (std::filesystem::path(p.megatron).is_absolute())
      meg->fail("megatron " + meg->shown() + " must be relative to the workload's folder");
    p.megatron_path = (folder / p.megatron).lexically_normal();
    // checked now, as sgai train check checks it; its GPU count from data-parallel-size
    try {
      p.megatron_gpus = training::make_config(training::read_settings(p.megatron_path), 0).gpus();
    } catch (const sgai::InputError& e) {
      meg->fail("megatron " + meg->shown() + ": " + e.what());
    }
  }
  auto tf = o.optional("transformer");
  if (par) {
    if (not tf)
      o.fail("a training profile with 'parallelism' needs 'transformer' (layers, hidden, sequence, batch): the "
             "model its ranks split");
    Profile::Generated g;
    auto po    = par->object();
    g.data     = static_cast<uint32_t>(po.required("data").integer(1, 65536));
    g.tensor   = static_cast<uint32_t>(po.required("tensor").integer(1, 65536));
    g.pipeline = static_cast<uint32_t>(po.required("pipeline").integer(1, 65536));
    g.microbatches =
        static_cast<uint32_t>(po.optional("microbatches") ? po.required("microbatches").integer(1, 65536) : 1);
    if (auto b = po.optional("bucket")) {
      double bytes = b->quantity(units::Quantity::size, 1.0);
      if (not(bytes >= 1) || bytes > 1099511627776.0)
        b->fail("bucket " + b->shown() + " must be from 1B to 1TiB");
      g.bucket_bytes = static_cast<uint64_t>(bytes);
    }
    po.finish({"data", "tensor", "pipeline", "microbatches", "bucket"});
    if (g.ranks() > 65536)
      par->fail("data x tensor x pipeline makes " + std::to_string(g.ranks()) +
                " ranks, above 65536, the most sgai generates");
    // the bounds of sgai chakra generate training
    auto to    = tf->object();
    g.layers   = static_cast<uint32_t>(to.required("layers").integer(1, 4096));
    g.hidden   = static_cast<uint64_t>(to.required("hidden").integer(1, 65536));
    g.sequence = static_cast<uint64_t>(to.required("sequence").integer(1, 1048576));
    g.batch    = static_cast<uint64_t>(to.required("batch").integer(1, 65536));
    if (auto e = to.optional("bytes_per_element")) {
      g.bytes_per_element = static_cast<uint32_t>(e->integer(1, 16));
      if ((g.bytes_per_element & (g.bytes_per_element - 1)) != 0)
        e->fail("bytes_per_element " + e->shown() + " must be 1, 2, 4, 8 or 16");
    }
    to.finish({"layers", "hidden", "sequence", "batch", "bytes_per_element"});
    if (g.layers < g.pipeline)
      par->fail("the model has " + std::to_string(g.layers) + " layers for " + std::to_string(g.pipeline) +
                " pipeline stages: each stage needs a layer");
    p.generated = g;
  } else if (tf)
    tf->fail("'transformer' describes the model a generated iteration splits: give 'parallelism' too");
  if (not tr)
    if (auto g = o.optional("comm_groups"))
      g->fail("'comm_groups' names the communicator groups of Chakra traces: give 'traces' too");
  if (auto g = o.optional("gradient_bytes")) {
    if (p.replays_traces())
      g->fail("gradient_bytes: a job replaying Chakra traces all-reduces what its traces say");
    p.gradient_bytes = amount(*g, "gradient_bytes", max_bytes_text);
  }
  if (auto g = o.optional("gpu_type"))
    p.gpu_type = label(*g, "the GPU type");
  if (auto g = o.optional("pstate"))
    p.pstate = static_cast<uint32_t>(g->integer(0, 1000));
  if (static_cast<double>(p.iterations) * p.iteration_s.value_or(p.compute_s.value_or(0)) > max_time_s)
    o.fail("iterations x iteration time is above " + std::string(max_time_text));
}

/** Profile types registered from outside (register_profile_type). */
std::vector<std::string>& custom_types()
{
  static std::vector<std::string> v;
  return v;
}

/** The fields of one of Batsim's profile types (and sgai's training); `accepted` gains its keys. */
void read_builtin(const std::string& type_name, Object& o, Profile& p, const std::filesystem::path& folder,
                  std::vector<Value>& seq, std::vector<std::string>& accepted)
{
  const TypeName& t =
      *std::find_if(type_names().begin(), type_names().end(), [&](const TypeName& x) { return type_name == x.name; });
  if (t.strategy)
    accepted.emplace_back("generation_strategy");
  p.type = t.type;
  switch (t.type) {
  case ProfileType::delay:
    p.delay_s = time_value(o.required("delay"), "delay", "must be a finite number >= 0");
    accepted.emplace_back("delay");
    break;
  case ProfileType::parallel_homogeneous:
  case ProfileType::parallel_homogeneous_total:
    p.cpu = amount(o.required("cpu"), "cpu", max_flop_text);
    p.com = amount(o.required("com"), "com", max_bytes_text);
    if (t.strategy && spread_uniformly(o))
      p.type = ProfileType::parallel_homogeneous_total;
    accepted.insert(accepted.end(), {"cpu", "com"});
    break;
  case ProfileType::parallel:
    read_parallel(o, p, t.cpu_or_com);
    accepted.insert(accepted.end(), {"cpu", "com"});
    break;
  case ProfileType::composed: {
    if (auto r = o.optional("repeat"))
      p.repeat = static_cast<uint32_t>(r->integer(1, UINT32_MAX));
    auto s = o.required("seq");
    seq    = s.array();
    if (seq.empty())
      s.fail("a composed profile needs at least one profile name in 'seq'");
    for (auto& x : seq)
      if (not x.is_string())
        x.fail("'seq' holds profile names: expected a string, got " + x.shown());
    accepted.insert(accepted.end(), {"seq", "repeat"});
    break;
  }
  case ProfileType::parallel_homogeneous_pfs: {
    auto r = o.optional("bytes_to_read");
    auto w = o.optional("bytes_to_write");
    if (not r && not w)
      o.fail("a storage profile needs 'bytes_to_read' or 'bytes_to_write' (0 when absent), or both");
    if (r)
      p.bytes_to_read = amount(*r, "bytes_to_read", max_bytes_text);
    if (w)
      p.bytes_to_write = amount(*w, "bytes_to_write", max_bytes_text);
    auto st = o.optional("storage");
    if (auto h = o.optional("host")) { // Batsim 3's name of the same field
      if (st)
        h->fail("a storage profile names its storage once ('storage', or Batsim 3's 'host'), here twice");
      st = h;
    }
    if (st)
      p.storage = label(*st, "the storage label");
    p.bytes_total = t.strategy && spread_uniformly(o);
    accepted.insert(accepted.end(), {"bytes_to_read", "bytes_to_write", "storage", "host"});
    break;
  }
  case ProfileType::smpi:
  case ProfileType::usage_trace:
    if (t.trace_type) {
      std::string tt = o.required("trace_type").choice({"SMPI", "FractionalComputation", "smpi", "usage"});
      p.type         = (tt == "SMPI" || tt == "smpi") ? ProfileType::smpi : ProfileType::usage_trace;
      accepted.emplace_back("trace_type");
    }
    read_trace(o, p, folder);
    accepted.insert(accepted.end(), {"filename", "trace", "trace_file"});
    break;
  case ProfileType::training:
    read_training(o, p, folder);
    accepted.insert(accepted.end(),
                    {"model", "iterations", "iteration_time", "compute_time", "gradient_bytes", "gpu_type", "pstate",
                     "traces", "comm_groups", "parallelism", "transformer", "megatron"});
    break;
  case ProfileType::custom:
    break; // (parse_profile reads them)
  }
}

} // namespace

double detail::time_value(const Value& v, const char* what, const char* below, bool positive, double max,
                          const char* max_text)
{
  double d = v.number();
  if (positive ? not(d > 0) : not(d >= 0))
    v.fail(std::string(what) + " " + v.shown() + " " + below);
  if (not(d <= max))
    v.fail(std::string(what) + " " + v.shown() + " is above " + max_text);
  return d;
}

std::string detail::kept_fields(Object& o, const Value& v, const std::vector<std::string>& kept)
{
  nlohmann::ordered_json extra = nlohmann::ordered_json::object();
  for (auto it = json::raw(v).begin(); it != json::raw(v).end(); ++it)
    if (std::count(kept.begin(), kept.end(), it.key())) {
      extra[it.key()] = it.value();
      o.optional(it.key()); // marks it read (callers list the kept keys among the accepted ones)
    }
  return extra.empty() ? std::string() : extra.dump();
}

Profile detail::parse_profile(const std::string& name, const Value& v, const std::filesystem::path& folder,
                              std::vector<Value>& seq)
{
  auto o = v.object();
  Profile p;
  p.name = name;
  std::vector<std::string> allowed;
  for (const auto& t : type_names())
    allowed.emplace_back(t.name);
  for (const auto& t : custom_types())
    allowed.push_back(t);
  std::string type_name = o.required("type").choice(allowed);
  if (is_registered_profile_type(type_name)) {
    p.type                       = ProfileType::custom;
    p.custom_type                = type_name;
    std::vector<std::string> own = common_profile_keys();
    own.insert(own.end(), kept_profile_keys().begin(), kept_profile_keys().end());
    own.insert(own.end(), {"type", "req_time", "req_ops", "mem", "mem_bw"});
    for (const auto& key : o.keys())
      if (std::find(own.begin(), own.end(), key) == own.end()) {
        auto f = o.required(key);
        p.custom_fields.emplace_back(key, f.dump());
      }
  }
  std::vector<std::string> accepted = common_profile_keys();
  accepted.insert(accepted.end(), kept_profile_keys().begin(), kept_profile_keys().end());
  if (p.type == ProfileType::custom)
    for (const auto& [key, text] : p.custom_fields)
      accepted.push_back(key);
  else
    read_builtin(type_name, o, p, folder, seq, accepted);
  if (auto x = o.optional("req_time"))
    p.req_time_s = time_value(*x, "req_time", "must be positive", true);
  if (auto x = o.optional("req_ops"))
    p.req_ops = amount(*x, "req_ops", max_flop_text);
  if (auto x = o.optional("mem"))
    p.mem_mb = non_negative(*x, "mem");
  if (auto x = o.optional("mem_bw"))
    p.mem_bw_gbps = non_negative(*x, "mem_bw");
  p.extra_json = kept_fields(o, v, kept_profile_keys());
  // any other key is an error (a misspelt field would be silently ignored), per profile type
  o.finish(accepted);
  return p;
}

void register_profile_type(const std::string& name)
{
  if (name.empty())
    throw std::invalid_argument("a profile type needs a name");
  for (const auto& t : type_names())
    if (name == t.name)
      throw std::invalid_argument("profile type '" + name + "' is one of Batsim's");
  if (not is_registered_profile_type(name))
    custom_types().push_back(name);
}

bool is_registered_profile_type(const std::string& name)
{
  return std::find(custom_types().begin(), custom_types().end(), name) != custom_types().end();
}

namespace {
const std::string& custom_field(const Profile& p, const std::string& key)
{
  for (const auto& [k, text] : p.custom_fields)
    if (k == key)
      return text;
  throw std::invalid_argument("profile " + p.name + " (type " + p.custom_type + ") has no field " + key);
}
} // namespace

double Profile::custom_number(const std::string& key) const
{
  auto doc = json::parse(custom_field(*this, key), "profile " + name);
  auto v   = doc.value();
  if (not v.is_number())
    throw std::invalid_argument("profile " + name + ": field " + key + " is " + v.dump() + ", not a number");
  return v.number();
}

std::string Profile::custom_string(const std::string& key) const
{
  auto doc = json::parse(custom_field(*this, key), "profile " + name);
  auto v   = doc.value();
  if (not v.is_string())
    throw std::invalid_argument("profile " + name + ": field " + key + " is " + v.dump() + ", not a string");
  return v.string();
}

const char* to_string(ProfileType t)
{
  switch (t) {
  case ProfileType::delay:
    return "delay";
  case ProfileType::parallel_homogeneous:
    return "parallel_homogeneous";
  case ProfileType::parallel_homogeneous_total:
    return "parallel_homogeneous_total";
  case ProfileType::parallel:
    return "parallel";
  case ProfileType::composed:
    return "composed";
  case ProfileType::parallel_homogeneous_pfs:
    return "parallel_homogeneous_pfs";
  case ProfileType::smpi:
    return "smpi";
  case ProfileType::usage_trace:
    return "usage_trace";
  case ProfileType::custom:
    return "custom";
  case ProfileType::training:
    return "training";
  }
  return "delay";
}

std::vector<std::string> profile_types_used(const Workload& w)
{
  std::vector<std::string> out;
  std::vector<bool> seen_profile(w.profiles.size(), false);
  std::vector<bool> seen_type(static_cast<size_t>(ProfileType::training) + 1, false);
  for (const auto& j : w.jobs) {
    std::vector<uint32_t> todo = {j.profile}; // depth first, a composed profile before its parts
    while (not todo.empty()) {
      uint32_t i = todo.back();
      todo.pop_back();
      if (seen_profile[i])
        continue;
      seen_profile[i]  = true;
      const Profile& p = w.profiles[i];
      if (not seen_type[static_cast<size_t>(p.type)]) {
        seen_type[static_cast<size_t>(p.type)] = true;
        out.emplace_back(to_string(p.type));
      }
      todo.insert(todo.end(), p.sequence.rbegin(), p.sequence.rend());
    }
  }
  return out;
}

std::optional<double> requested_time(const Workload& w, const Job& j)
{
  const Profile& p = w.profile_of(j);
  if (p.req_time_s)
    return p.req_time_s;
  return j.walltime_s;
}

} // namespace sgai::workload
