#include "generators/workload/batsim.hpp"

#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "core/foundation/json.hpp"
#include "core/foundation/json_raw.hpp"
#include "core/foundation/json_writer.hpp"
#include "core/foundation/numbers.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <string_view>
#include <unordered_set>

namespace sgai::workload {

namespace {

using json::Object;
using json::Value;

/** Profile names to their index in Workload::profiles (std::map: the order read_batsim numbers them). */
using ProfileIndex = std::map<std::string, uint32_t, std::less<>>;

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
/** The same for jobs: extra_data, and the annotations of Batsim's test workloads. */
const std::vector<std::string>& kept_job_keys()
{
  static const std::vector<std::string> k = {"extra_data",
                                             "description",
                                             "expected_execution_time",
                                             "expected_state",
                                             "smpi_ranks_to_hosts_mapping",
                                             "NOT_A_smpi_ranks_to_hosts_mapping"};
  return k;
}

/** The most profiles one composed profile may run, its repeats expanded. */
constexpr double max_sequence_runs = 1e9;

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

std::string id_text_of(double d)
{
  if (std::floor(d) == d && std::fabs(d) < 1e15)
    return std::to_string(static_cast<int64_t>(d));
  return format_number(d);
}

std::string id_text(const Value& v)
{
  if (v.is_string())
    return v.string();
  // a number names a job as its digits: whole, and small enough that a double holds it exactly
  if (v.is_number())
    if (double d = v.number(); std::floor(d) == d && std::fabs(d) < 1e15)
      return id_text_of(d);
  v.fail("job id " + v.shown() + " must be a string or a whole number below 1e15 in magnitude");
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

/** A time in seconds, at most `max` (max_time_s); `below` says what else it must be ("must be >= 0"). */
double time_value(const Value& v, const char* what, const char* below, bool positive = false, double max = max_time_s,
                  const char* max_text = max_time_text)
{
  double d = v.number();
  if (positive ? not(d > 0) : not(d >= 0))
    v.fail(std::string(what) + " " + v.shown() + " " + below);
  if (not(d <= max))
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

/** The other fields among `kept`, verbatim as a JSON object's text (empty when none); marks them read. */
std::string kept_fields(Object& o, const Value& v, const std::vector<std::string>& kept)
{
  nlohmann::ordered_json extra = nlohmann::ordered_json::object();
  for (auto it = json::raw(v).begin(); it != json::raw(v).end(); ++it)
    if (std::count(kept.begin(), kept.end(), it.key())) {
      extra[it.key()] = it.value();
      o.optional(it.key()); // marks it read (callers list the kept keys among the accepted ones)
    }
  return extra.empty() ? std::string() : extra.dump();
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
  const char* kinds = "'iteration_time' (measured alone, communication included), 'compute_time' (communication "
                      "excluded), 'traces' (Chakra ETs, one per rank) or 'parallelism' with 'transformer' (a "
                      "generated iteration)";
  int given         = (it ? 1 : 0) + (ct ? 1 : 0) + (tr ? 1 : 0) + (par ? 1 : 0);
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
    accepted.insert(accepted.end(), {"model", "iterations", "iteration_time", "compute_time", "gradient_bytes",
                                     "gpu_type", "pstate", "traces", "comm_groups", "parallelism", "transformer"});
    break;
  case ProfileType::custom:
    break; // (parse_profile reads them)
  }
}

/** A scalar of the document as the quick paths see it: a number (digits only: also as an unsigned
 *  integer, as nlohmann's number_unsigned), a string without escapes, or anything else. */
struct Scalar {
  enum Kind : uint8_t { other, number, string } kind = other;
  bool whole_unsigned                                = false;
  uint64_t u                                         = 0;
  double d                                           = 0;
  std::string_view s;
};

Scalar scalar_of(const nlohmann::json& n)
{
  Scalar v;
  if (n.is_number()) {
    v.kind = Scalar::number;
    v.d    = n.get<double>();
    if (n.is_number_unsigned()) {
      v.whole_unsigned = true;
      v.u              = n.get<uint64_t>();
    }
  } else if (n.is_string()) {
    v.kind = Scalar::string;
    v.s    = n.get_ref<const std::string&>();
  }
  return v;
}

/** A common profile's fields, read straight: the type, then each field (false at a field that
 *  parse_profile would read otherwise or refuse), then whether the profile is whole. */
struct QuickProfile {
  Profile p;
  bool cpu = false, com = false, delay = false;

  bool type(std::string_view t)
  {
    if (t == "delay")
      p.type = ProfileType::delay;
    else if (t == "parallel_homogeneous")
      p.type = ProfileType::parallel_homogeneous;
    else
      return false;
    return not is_registered_profile_type(std::string(t));
  }
  bool field(std::string_view key, const Scalar& v)
  {
    double d = v.d;
    if (v.kind != Scalar::number || not std::isfinite(d) || not(d >= 0))
      return false;
    if (p.type == ProfileType::delay && key == "delay" && d <= max_time_s) {
      p.delay_s = d;
      delay     = true;
    } else if (p.type == ProfileType::parallel_homogeneous && key == "cpu" && d <= max_work) {
      p.cpu = d;
      cpu   = true;
    } else if (p.type == ProfileType::parallel_homogeneous && key == "com" && d <= max_work) {
      p.com = d;
      com   = true;
    } else if (key == "req_time" && d > 0 && d <= max_time_s)
      p.req_time_s = d;
    else if (key == "req_ops" && d <= max_work)
      p.req_ops = d;
    else if (key == "mem")
      p.mem_mb = d;
    else if (key == "mem_bw")
      p.mem_bw_gbps = d;
    else
      return false;
    return true;
  }
  bool whole() const { return p.type == ProfileType::delay ? delay : cpu && com; }
};

/** The common profiles, delay and parallel_homogeneous with only their own and the common numeric
 *  fields, read straight from the document when every value is as parse_profile would take it (the
 *  same Profile); none otherwise, and parse_profile reads it, naming what is wrong. */
std::optional<Profile> quick_profile(const std::string& name, const nlohmann::json& n)
{
  if (not n.is_object())
    return std::nullopt;
  auto type = n.find("type");
  if (type == n.end() || not type->is_string())
    return std::nullopt;
  QuickProfile q;
  q.p.name = name;
  if (not q.type(type->get_ref<const std::string&>()))
    return std::nullopt;
  for (auto it = n.begin(); it != n.end(); ++it)
    if (it.key() != "type" && not q.field(it.key(), scalar_of(it.value())))
      return std::nullopt;
  if (not q.whole())
    return std::nullopt;
  return std::move(q.p);
}

Profile parse_profile(const std::string& name, const Value& v, const std::filesystem::path& folder,
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
        p.custom_fields.emplace_back(key, json::raw(f).dump());
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

/** Resolves the composed profiles' names to indices, rejects cycles and sequences that expand to
 *  more than max_sequence_runs profiles. `seqs[i]` holds profile i's names, `values[i]` the profile. */
void resolve_sequences(Workload& w, const ProfileIndex& index, const std::vector<std::vector<Value>>& seqs,
                       const std::vector<Value>& values)
{
  for (size_t i = 0; i < w.profiles.size(); i++)
    for (const auto& s : seqs[i]) {
      auto it = index.find(s.string());
      if (it == index.end()) {
        std::vector<std::string> known;
        for (const auto& [k, v] : index)
          known.push_back(k);
        s.fail("composed profile " + quote(w.profiles[i].name) + " names profile " + s.shown() +
               ", which is not in 'profiles' (known: " + json::list_names(known, 10) + ")");
      }
      w.profiles[i].sequence.push_back(it->second);
    }
  // depth-first, without recursion (a chain of sequences may be long): 0 new, 1 on the path, 2 done
  std::vector<uint8_t> state(w.profiles.size(), 0);
  std::vector<double> runs(w.profiles.size(), 1); // profiles run, repeats expanded
  for (size_t root = 0; root < w.profiles.size(); root++) {
    if (state[root] != 0 || w.profiles[root].type != ProfileType::composed)
      continue;
    std::vector<std::pair<uint32_t, size_t>> path = {{static_cast<uint32_t>(root), 0}}; // profile, next part
    state[root]                                   = 1;
    while (not path.empty()) {
      auto& [at, next] = path.back();
      const Profile& p = w.profiles[at];
      if (next < p.sequence.size()) {
        size_t k   = next++;
        uint32_t q = p.sequence[k];
        if (state[q] == 1) {
          std::string cycle;
          auto from = std::find_if(path.begin(), path.end(), [&](const auto& e) { return e.first == q; });
          for (auto e = from; e != path.end(); ++e)
            cycle += quote(w.profiles[e->first].name) + " -> ";
          seqs[at][k].fail("composed profile " + quote(p.name) + " runs itself: " + cycle + quote(w.profiles[q].name));
        }
        if (state[q] == 0 && w.profiles[q].type == ProfileType::composed) {
          state[q] = 1;
          path.emplace_back(q, 0);
        }
        continue;
      }
      double n = 0;
      for (uint32_t q : p.sequence)
        n += runs[q];
      runs[at] = n * p.repeat;
      if (not(runs[at] <= max_sequence_runs))
        values[at].object().fail("composed profile " + quote(p.name) + " runs " + format_number(runs[at]) +
                                 " profiles in all (its sequence, repeats expanded), more than 1e9, the most "
                                 "sgai takes");
      state[at] = 2;
      path.pop_back();
    }
  }
}

/** The parallel profiles a profile runs whose size differs from `res`: the first one, or nothing.
 *  `sizes[i]`: the distinct sizes of the parallel profiles profile i runs (at most two kept, each
 *  with one profile of that size), filled on demand; sequences are acyclic here. */
std::optional<uint32_t> parallel_mismatch(const Workload& w, uint32_t profile, uint32_t res,
                                          std::vector<std::optional<std::vector<std::pair<size_t, uint32_t>>>>& sizes)
{
  std::vector<uint32_t> todo = {profile};
  while (not todo.empty()) {
    uint32_t i       = todo.back();
    const Profile& p = w.profiles[i];
    if (sizes[i]) {
      todo.pop_back();
      continue;
    }
    if (p.type != ProfileType::composed) {
      sizes[i].emplace();
      if (p.type == ProfileType::parallel)
        sizes[i]->emplace_back(p.cpu_vector.size(), i);
      todo.pop_back();
      continue;
    }
    bool ready = true;
    for (uint32_t q : p.sequence)
      if (not sizes[q]) {
        todo.push_back(q);
        ready = false;
      }
    if (not ready)
      continue;
    std::vector<std::pair<size_t, uint32_t>> s;
    for (uint32_t q : p.sequence)
      for (const auto& e : *sizes[q])
        if (s.size() < 2 && std::none_of(s.begin(), s.end(), [&](const auto& x) { return x.first == e.first; }))
          s.push_back(e);
    sizes[i] = std::move(s);
    todo.pop_back();
  }
  for (const auto& [n, q] : *sizes[profile])
    if (n != res)
      return q;
  return std::nullopt;
}

} // namespace

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
  auto j = nlohmann::json::parse(custom_field(*this, key));
  if (not j.is_number())
    throw std::invalid_argument("profile " + name + ": field " + key + " is " + j.dump() + ", not a number");
  return j.get<double>();
}

std::string Profile::custom_string(const std::string& key) const
{
  auto j = nlohmann::json::parse(custom_field(*this, key));
  if (not j.is_string())
    throw std::invalid_argument("profile " + name + ": field " + key + " is " + j.dump() + ", not a string");
  return j.get<std::string>();
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

namespace {

/** A common job's fields, read straight: each field (false at one read_batsim would read
 *  otherwise or refuse), then whether the job is whole. */
struct QuickJob {
  Job j;
  bool id = false, submit = false, res = false, profile = false;

  bool field(std::string_view key, const Scalar& v, const ProfileIndex& index)
  {
    double d = v.d;
    if (key == "id") {
      if (v.kind == Scalar::string)
        j.id = std::string(v.s);
      else if (v.kind == Scalar::number && std::floor(d) == d && std::fabs(d) < 1e15)
        j.id = id_text_of(d);
      else
        return false;
      id = true;
    } else if (key == "subtime" && v.kind == Scalar::number && d >= 0 && d <= max_submit_s) {
      j.submit_s = d;
      submit     = true;
    } else if (key == "res" && v.whole_unsigned && v.u >= 1 && v.u <= UINT32_MAX) {
      j.resources = static_cast<uint32_t>(v.u);
      res         = true;
    } else if (key == "walltime" && v.kind == Scalar::number && (d == -1 || (d > 0 && d <= max_time_s))) {
      if (d != -1)
        j.walltime_s = d;
    } else if (key == "profile" && v.kind == Scalar::string) {
      auto p = index.find(v.s);
      if (p == index.end())
        return false;
      j.profile = p->second;
      profile   = true;
    } else
      return false;
    return true;
  }
  bool whole() const { return id && submit && res && profile; }
};

/** A job with only id, subtime, res, profile and walltime, each as read_batsim takes it, its id new
 *  and its profile known: read straight from the document; none otherwise (read_batsim then reads
 *  it field by field and names what is wrong). */
std::optional<Job> quick_job(const nlohmann::json& n, const ProfileIndex& index,
                             const std::unordered_set<std::string>& ids)
{
  if (not n.is_object() || n.size() > 5)
    return std::nullopt;
  QuickJob q;
  for (auto it = n.begin(); it != n.end(); ++it)
    if (not q.field(it.key(), scalar_of(it.value()), index))
      return std::nullopt;
  if (not q.whole() || ids.count(q.j.id))
    return std::nullopt;
  return std::move(q.j);
}

/** A strict reader of the JSON text for fast_read: it accepts what nlohmann would read to the same
 *  values and says no (false) at everything else (an escape or a byte above 127 in a string, a
 *  negative number but -1, a number a double cannot hold, ...), never an error of its own. */
class Scan {
public:
  explicit Scan(std::string_view text)
      : p_(text.data())
      , end_(text.data() + text.size())
  {
  }
  /** The next non-blank character, not taken (0 at the end). */
  char next()
  {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t'))
      ++p_;
    return p_ < end_ ? *p_ : '\0';
  }
  bool eat(char c)
  {
    if (next() != c)
      return false;
    ++p_;
    return true;
  }
  bool at_end() { return next() == '\0' && p_ == end_; }
  /** Where the next value starts, blanks skipped. */
  const char* here()
  {
    next();
    return p_;
  }
  bool string(std::string_view& out)
  {
    if (not eat('"'))
      return false;
    const char* from = p_;
    while (p_ < end_) {
      auto c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        out = std::string_view(from, static_cast<size_t>(p_ - from));
        ++p_;
        return true;
      }
      if (c == '\\' || c < 0x20 || c >= 0x80)
        return false;
      ++p_;
    }
    return false;
  }
  /** A number, as JSON writes it; a scalar otherwise (a string, true, false, null: kind other). */
  bool scalar(Scalar& v)
  {
    v      = Scalar{};
    char c = next();
    if (c == '"') {
      v.kind = Scalar::string;
      return string(v.s);
    }
    if (c == 't' || c == 'f' || c == 'n')
      return literal();
    return number(v);
  }
  /** `open`, then items (each read by `item`) separated by commas, then `close`. */
  template <class Item>
  bool list(char open, char close, Item&& item)
  {
    if (not eat(open))
      return false;
    if (eat(close))
      return true;
    do
      if (not item())
        return false;
    while (eat(','));
    return eat(close);
  }
  /** Any value, skipped (objects and arrays nested at most 64 deep). */
  bool skip(int depth = 0)
  {
    char c = next();
    if (c == '{' || c == '[') {
      std::string_view key;
      return depth < 64 && list(c, c == '{' ? '}' : ']',
                                [&]() { return (c == '[' || (string(key) && eat(':'))) && skip(depth + 1); });
    }
    Scalar v;
    return scalar(v);
  }

private:
  static bool digit(char c) { return c >= '0' && c <= '9'; }
  bool literal()
  {
    for (std::string_view word : {"true", "false", "null"})
      if (static_cast<size_t>(end_ - p_) >= word.size() && std::string_view(p_, word.size()) == word) {
        p_ += word.size();
        return true;
      }
    return false;
  }
  bool number(Scalar& v)
  {
    const char* from = p_;
    if (p_ < end_ && *p_ == '-')
      ++p_;
    if (p_ < end_ && *p_ == '0')
      ++p_;
    else if (p_ < end_ && digit(*p_) && *p_ != '0')
      while (p_ < end_ && digit(*p_))
        ++p_;
    else
      return false;
    bool whole = true;
    if (p_ < end_ && *p_ == '.') {
      whole = false;
      ++p_;
      if (not(p_ < end_ && digit(*p_)))
        return false;
      while (p_ < end_ && digit(*p_))
        ++p_;
    }
    if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
      whole = false;
      ++p_;
      if (p_ < end_ && (*p_ == '+' || *p_ == '-'))
        ++p_;
      if (not(p_ < end_ && digit(*p_)))
        return false;
      while (p_ < end_ && digit(*p_))
        ++p_;
    }
    std::string_view token(from, static_cast<size_t>(p_ - from));
    v.kind = Scalar::number;
    if (token[0] == '-') { // (nlohmann reads -0 as the integer 0: only Batsim's -1 is taken here)
      v.d = -1;
      return token == "-1";
    }
    if (whole) {
      auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), v.u);
      if (ec == std::errc() && end == token.data() + token.size()) {
        v.whole_unsigned = true;
        v.d              = static_cast<double>(v.u);
        return true;
      }
      if (ec != std::errc::result_out_of_range)
        return false;
      v.u = 0; // (too large for 64 bits: nlohmann reads it as a double)
    }
    auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), v.d);
    return ec == std::errc() && end == token.data() + token.size() && std::isfinite(v.d);
  }

  const char* p_;
  const char* end_;
};

} // namespace

// The same Workload read_document makes, or nothing at the first thing it would read otherwise (a
// duplicate key, a job_limits, an escape in a string, a field quick_job or quick_profile refuses).
std::optional<Workload> detail::read_batsim_common(std::string_view text, const std::filesystem::path& file)
{
  struct RawJob {
    std::array<std::pair<std::string_view, Scalar>, 5> fields;
    uint8_t n = 0;
  };
  Workload w;
  w.source = file.string();
  w.name   = file.stem().string();
  std::vector<RawJob> raw_jobs;
  bool jobs = false, profiles = false;
  std::vector<std::string_view> top_keys;
  Scan in(text);
  auto job = [&]() {
    RawJob& j = raw_jobs.emplace_back();
    return in.list('{', '}', [&]() {
      if (j.n == j.fields.size())
        return false;
      auto& [k, v] = j.fields[j.n++];
      if (not(in.string(k) && in.eat(':') && in.scalar(v)))
        return false;
      for (uint8_t i = 0; i + 1 < j.n; i++)
        if (j.fields[i].first == k)
          return false;
      return true;
    });
  };
  std::vector<std::pair<std::string_view, Scalar>> fields;
  auto profile = [&]() {
    std::string_view name;
    if (not(in.string(name) && in.eat(':')))
      return false;
    fields.clear();
    if (not in.list('{', '}', [&]() {
          auto& [k, v] = fields.emplace_back();
          return in.string(k) && in.eat(':') && in.scalar(v);
        }))
      return false;
    QuickProfile q;
    q.p.name  = std::string(name);
    auto type = std::find_if(fields.begin(), fields.end(), [](const auto& f) { return f.first == "type"; });
    if (type == fields.end() || type->second.kind != Scalar::string || not q.type(type->second.s))
      return false;
    for (auto f = fields.begin(); f != fields.end(); ++f) {
      for (auto g = fields.begin(); g != f; ++g)
        if (g->first == f->first)
          return false;
      if (f != type && not q.field(f->first, f->second))
        return false;
    }
    if (not q.whole())
      return false;
    w.profiles.push_back(std::move(q.p));
    return true;
  };
  auto member = [&]() {
    std::string_view key;
    if (not(in.string(key) && in.eat(':')))
      return false;
    if (std::find(top_keys.begin(), top_keys.end(), key) != top_keys.end())
      return false;
    top_keys.push_back(key);
    if (key == "nb_res") {
      Scalar v;
      if (not(in.scalar(v) && v.whole_unsigned && v.u >= 1 && v.u <= static_cast<uint64_t>(INT64_MAX)))
        return false;
      w.nb_res = v.u;
      return true;
    }
    if (key == "jobs")
      return jobs = in.list('[', ']', job);
    if (key == "profiles")
      return profiles = in.list('{', '}', profile);
    if (key == "job_limits") { // (kept as nlohmann writes it: read by nlohmann, it is small)
      const char* from = in.here();
      if (not(in.next() == '{' && in.skip()))
        return false;
      try {
        auto limits       = json::parse(std::string(from, static_cast<size_t>(in.here() - from)), file.string());
        w.job_limits_json = json::raw(limits.value()).dump();
      } catch (const InputError&) { // (a duplicate key: named in the document by read_document)
        return false;
      }
      return true;
    }
    if (key == "description" || key == "command" || key == "date" || key == "comments" || key == "sgai")
      return in.skip();
    return false;
  };
  if (not(in.list('{', '}', member) && in.at_end() && jobs && profiles))
    return std::nullopt;

  // profiles in read_batsim's order (the document's keys sorted), a name given twice: not here
  std::vector<uint32_t> order(w.profiles.size());
  for (uint32_t i = 0; i < order.size(); i++)
    order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](uint32_t a, uint32_t b) { return w.profiles[a].name < w.profiles[b].name; });
  std::vector<Profile> sorted;
  sorted.reserve(order.size());
  for (uint32_t i : order)
    sorted.push_back(std::move(w.profiles[i]));
  w.profiles = std::move(sorted);
  ProfileIndex index;
  for (uint32_t i = 0; i < w.profiles.size(); i++)
    if (not index.emplace(w.profiles[i].name, i).second)
      return std::nullopt;
  std::unordered_set<std::string> ids;
  ids.reserve(raw_jobs.size());
  w.jobs.reserve(raw_jobs.size());
  for (const RawJob& raw : raw_jobs) {
    QuickJob q;
    for (uint8_t i = 0; i < raw.n; i++)
      if (not q.field(raw.fields[i].first, raw.fields[i].second, index))
        return std::nullopt;
    if (not q.whole() || not ids.insert(q.j.id).second)
      return std::nullopt;
    w.jobs.push_back(std::move(q.j));
  }
  std::stable_sort(w.jobs.begin(), w.jobs.end(), [](const Job& a, const Job& b) { return a.submit_s < b.submit_s; });
  return w;
}

namespace {

/** read_batsim's general path: the whole document, common jobs and profiles straight from it, the
 *  others field by field. */
Workload read_document(const json::Document& doc, const std::filesystem::path& file)
{
  auto o = doc.object();
  Workload w;
  w.source = file.string();
  w.name   = file.stem().string();
  if (auto n = o.optional("nb_res"))
    w.nb_res = static_cast<uint64_t>(n->integer(1, INT64_MAX));

  ProfileIndex index;
  std::vector<std::vector<Value>> seqs;
  std::vector<Value> values;
  auto profiles = o.required("profiles").object();
  for (const auto& name : profiles.take_all_keys()) {
    index[name] = static_cast<uint32_t>(w.profiles.size());
    values.push_back(profiles.required(name));
    seqs.emplace_back();
    if (auto quick = quick_profile(name, json::raw(values.back())))
      w.profiles.push_back(std::move(*quick));
    else
      w.profiles.push_back(parse_profile(name, values.back(), file.parent_path(), seqs.back()));
  }
  resolve_sequences(w, index, seqs, values);

  std::unordered_set<std::string> ids;
  std::vector<std::optional<std::vector<std::pair<size_t, uint32_t>>>> sizes(w.profiles.size());
  auto jobs                                          = o.required("jobs");
  static const std::vector<std::string> own_job_keys = {"id", "subtime", "res", "walltime", "profile"};
  for (auto& item : jobs.array()) {
    // the common job (those five fields, each as the checks below take it) straight from the document
    if (auto quick = quick_job(json::raw(item), index, ids)) {
      if (not parallel_mismatch(w, quick->profile, quick->resources, sizes)) {
        ids.insert(quick->id);
        w.jobs.push_back(std::move(*quick));
        continue;
      }
    }
    auto jo = item.object();
    Job j;
    auto id = jo.required("id");
    j.id    = id_text(id);
    if (not ids.insert(j.id).second)
      id.fail("duplicate job id " + id.shown());
    j.submit_s =
        time_value(jo.required("subtime"), "submission time", "must be >= 0", false, max_submit_s, max_submit_text);
    j.resources = static_cast<uint32_t>(jo.required("res").integer(1, UINT32_MAX));
    if (auto wt = jo.optional("walltime")) {
      double d = wt->number();
      if (d == -1) {
        // Batsim: no walltime
      } else if (d > 0 && d <= max_time_s) {
        j.walltime_s = d;
      } else if (d > max_time_s) {
        wt->fail("walltime " + wt->shown() + " is above " + max_time_text);
      } else {
        wt->fail("walltime " + wt->shown() + " must be positive (or -1 for none)");
      }
    }
    auto prof = jo.required("profile");
    auto it   = index.find(prof.string());
    if (it == index.end()) {
      std::vector<std::string> known;
      for (const auto& [k, v] : index)
        known.push_back(k);
      prof.fail("job " + quote(j.id) + " names profile " + prof.shown() +
                ", which is not in 'profiles' (known: " + json::list_names(known, 10) + ")");
    }
    j.profile         = it->second;
    const Profile& pr = w.profiles[j.profile];
    if (auto q = parallel_mismatch(w, j.profile, j.resources, sizes)) {
      const Profile& pq = w.profiles[*q];
      std::string which = *q == j.profile
                              ? "its parallel profile " + quote(pq.name)
                              : "the parallel profile " + quote(pq.name) + " of its composed profile " + quote(pr.name);
      jo.fail_at("res", "job " + quote(j.id) + " asks for " + std::to_string(j.resources) + " resources but " + which +
                            " describes " + std::to_string(pq.cpu_vector.size()));
    }
    j.extra_json                      = kept_fields(jo, item, kept_job_keys());
    std::vector<std::string> accepted = own_job_keys;
    accepted.insert(accepted.end(), kept_job_keys().begin(), kept_job_keys().end());
    jo.finish(accepted);
    w.jobs.push_back(std::move(j));
  }
  std::stable_sort(w.jobs.begin(), w.jobs.end(), [](const Job& a, const Job& b) { return a.submit_s < b.submit_s; });

  if (auto jl = o.optional("job_limits")) {
    jl->object();
    w.job_limits_json = json::raw(*jl).dump();
  }
  static const std::vector<std::string> ignored = {"description", "command", "date", "comments", "sgai"};
  for (const auto& k : ignored)
    o.optional(k);
  std::vector<std::string> accepted = {"nb_res", "jobs", "profiles", "job_limits"};
  accepted.insert(accepted.end(), ignored.begin(), ignored.end());
  o.finish(accepted);
  return w;
}

} // namespace

Workload read_batsim(const std::filesystem::path& file)
{
  std::string text = read_text_file(file);
  if (auto w = detail::read_batsim_common(text, file))
    return std::move(*w);
  return read_document(json::parse(text, file.string()), file);
}

Workload detail::read_batsim_document(const std::filesystem::path& file)
{
  return read_document(json::load(file), file);
}

std::optional<uint64_t> resources_made_for(const Workload& w)
{
  if (not w.job_limits_json.empty())
    return std::nullopt;
  return w.nb_res;
}

Workload read_workload(const std::filesystem::path& file)
{
  std::string name = file.filename().string();
  bool swf         = name.size() > 4 &&
             (name.substr(name.size() - 4) == ".swf" || (name.size() > 7 && name.substr(name.size() - 7) == ".swf.gz"));
  if (not swf)
    return read_batsim(file);
  SwfLog log = read_swf(file);
  Workload w = swf_to_workload(log, select_swf(log, {}), {});
  return w;
}

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

Workload swf_to_workload(const SwfLog& log, const SwfSelected& selected, const SwfConversion& options,
                         SwfConversionReport* report)
{
  Workload w;
  w.source = log.file;
  w.name   = std::filesystem::path(log.file).filename().string();
  for (const char* ext : {".gz", ".swf"})
    if (w.name.size() > std::string(ext).size() && w.name.substr(w.name.size() - std::string(ext).size()) == ext)
      w.name = w.name.substr(0, w.name.size() - std::string(ext).size());
  SwfConversionReport local;
  SwfConversionReport& r = report ? *report : local;

  std::mt19937_64 rng(options.seed);
  std::uniform_real_distribution<double> bw(options.mem_bw_min_gbps, options.mem_bw_max_gbps);
  std::uniform_int_distribution<size_t> pick(0, options.mem_bw_values.empty() ? 0 : options.mem_bw_values.size() - 1);

  double max_time = 0, max_mem = 0, max_bw = 0;
  uint64_t max_core = 0;
  std::map<std::string, uint64_t> line_of_id; // job numbers name the jobs and their profiles
  for (const auto& rec : selected.records) {
    Profile p;
    p.type = ProfileType::parallel_homogeneous;
    p.name = "p" + id_text_of(rec.job_number);
    if (auto [it, fresh] = line_of_id.emplace(id_text_of(rec.job_number), rec.line); not fresh)
      throw InputError(log.file, "line " + std::to_string(rec.line),
                       "job number " + id_text_of(rec.job_number) + " is also the job number of line " +
                           std::to_string(it->second) + " (job numbers name the Batsim jobs: they must differ)");
    if (not(rec.processors() > 0 && rec.processors() <= max_processors) || not(rec.run_time <= max_time_s) ||
        not(rec.requested_time <= max_time_s) || not(rec.submit_time <= max_time_s))
      throw InputError(log.file, "line " + std::to_string(rec.line),
                       "job " + id_text_of(rec.job_number) +
                           " has no processor count or a time out of range: read_swf and select_swf reject or drop it");
    // a run time that is unknown (-1) or not positive, kept by --no-clean: no operations
    double run = rec.run_time > 0 ? rec.run_time : 0;
    if (not(rec.run_time > 0))
      r.run_time_unknown++;
    p.cpu      = run * options.reference_speed;
    p.com      = 0;
    double req = rec.requested_time;
    if (not(req > 0)) {
      req = run;
      if (run > 0)
        r.requested_time_unknown++;
    } else if (req < run) {
      r.requested_time_below_run_time++;
    }
    if (req > 0) { // else neither is known: the job has no requested time
      p.req_time_s = req;
      p.req_ops    = req * options.reference_speed;
    }
    if (not(std::max(run, req) * options.reference_speed <= max_work))
      throw InputError(log.file, "line " + std::to_string(rec.line),
                       "job " + id_text_of(rec.job_number) + ": a time of " + format_number(std::max(run, req)) +
                           " s at the reference speed of " + format_number(options.reference_speed) + " flop/s makes " +
                           format_number(std::max(run, req) * options.reference_speed) + " flop, above " +
                           max_flop_text);
    double kb = rec.requested_memory_kb > 0 ? rec.requested_memory_kb : rec.used_memory_kb;
    if (kb > 0) {
      p.mem_mb = kb / 1000.0; // HDeepRM: KB -> MB
    } else {
      p.mem_mb = options.default_mem_mb;
      r.memory_unknown++;
    }
    p.mem_bw_gbps = options.mem_bw_values.empty() ? bw(rng) : options.mem_bw_values[pick(rng)];

    Job j;
    j.id        = id_text_of(rec.job_number);
    j.submit_s  = rec.submit_time;
    j.resources = static_cast<uint32_t>(rec.processors());
    if (options.walltime && req > 0)
      j.walltime_s = req;
    j.profile = static_cast<uint32_t>(w.profiles.size());
    w.profiles.push_back(p);
    w.jobs.push_back(j);

    max_time = std::max(max_time, req);
    max_core = std::max<uint64_t>(max_core, j.resources);
    max_mem  = std::max(max_mem, *p.mem_mb);
    max_bw   = std::max(max_bw, *p.mem_bw_gbps);
  }
  // MaxProcs is checked by read_swf: a whole number from 1 to max_processors, or -1 (unknown)
  auto procs       = log.header_value("MaxProcs");
  double max_procs = 0;
  if (procs)
    std::from_chars(procs->data(), procs->data() + procs->size(), max_procs);
  if (max_procs >= 1 && max_procs <= max_processors)
    w.nb_res = static_cast<uint64_t>(max_procs);
  else if (max_core > 0)
    w.nb_res = max_core;
  w.job_limits_json = job_limits_json(max_time, max_core, max_mem, max_bw, options.reference_speed);
  return w;
}

std::string job_limits_json(double longest_s, uint64_t max_cores, double max_mem_mb, double max_mem_bw_gbps,
                            double reference_speed)
{
  nlohmann::ordered_json limits;
  limits["max_time"]          = longest_s;
  limits["max_core"]          = max_cores;
  limits["max_mem"]           = max_mem_mb;
  limits["max_mem_bw"]        = max_mem_bw_gbps;
  limits["reference_machine"] = {{"speed_flops", reference_speed}};
  return limits.dump();
}

const std::vector<std::string>& stats_fields()
{
  static const std::vector<std::string> f = {"req_time", "size", "mem", "mem_bw", "subtime", "walltime"};
  return f;
}

std::vector<double> field_values(const Workload& w, const std::string& field)
{
  std::vector<double> out;
  for (const auto& j : w.jobs) {
    const Profile& p = w.profile_of(j);
    if (field == "size")
      out.push_back(j.resources);
    else if (field == "subtime")
      out.push_back(j.submit_s);
    else if (field == "walltime" && j.walltime_s)
      out.push_back(*j.walltime_s);
    else if (field == "req_time") {
      if (auto t = requested_time(w, j))
        out.push_back(*t);
    } else if (field == "mem" && p.mem_mb)
      out.push_back(*p.mem_mb);
    else if (field == "mem_bw" && p.mem_bw_gbps)
      out.push_back(*p.mem_bw_gbps);
  }
  return out;
}

Summary summarize(std::vector<double> values)
{
  Summary s;
  s.count = values.size();
  if (values.empty())
    return s;
  std::sort(values.begin(), values.end());
  auto q = [&](double f) {
    double pos  = f * static_cast<double>(values.size() - 1);
    auto lo     = static_cast<size_t>(std::floor(pos));
    auto hi     = static_cast<size_t>(std::ceil(pos));
    double frac = pos - static_cast<double>(lo);
    return values[lo] + (values[hi] - values[lo]) * frac;
  };
  s.min      = values.front();
  s.max      = values.back();
  s.q1       = q(0.25);
  s.median   = q(0.5);
  s.q3       = q(0.75);
  s.p95      = q(0.95);
  s.p99      = q(0.99);
  double sum = 0;
  for (double v : values)
    sum += v;
  s.mean = sum / static_cast<double>(values.size());
  return s;
}

} // namespace sgai::workload
