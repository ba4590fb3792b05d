#include "generators/workload/gpu_traces.hpp"

#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "core/foundation/json.hpp"
#include "core/foundation/numbers.hpp"
#include "generators/workload/swf.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <set>

namespace sgai::workload {

void GpuTraceReport::skip(const std::string& why)
{
  for (auto& [w, n] : skipped)
    if (w == why) {
      n++;
      return;
    }
  skipped.emplace_back(why, 1);
}

void GpuTraceReport::note(const std::string& what)
{
  for (auto& [w, n] : notes)
    if (w == what) {
      n++;
      return;
    }
  notes.emplace_back(what, 1);
}

namespace {

constexpr double MiB = 1024.0 * 1024.0;

/** One line of a delimited text file, split, with what is needed to name a field in an error. */
struct Row {
  const std::string* file = nullptr;
  uint64_t line           = 0;
  std::vector<std::string> fields;
  const std::vector<std::string>* names = nullptr; ///< column names (header or format)

  [[noreturn]] void fail(size_t column, const std::string& why) const
  {
    std::string name = names != nullptr && column < names->size() ? (*names)[column] : std::to_string(column + 1);
    throw InputError(*file, "line " + std::to_string(line) + ", column " + name,
                     (valid_utf8(fields[column]) ? quote(fields[column]) : std::string("the value")) + " " + why);
  }
  /** A field that names something (ids, models, qos): UTF-8 text without control characters, as the
   *  JSON written must hold it. */
  const std::string& text(size_t column) const
  {
    const std::string& t = fields[column];
    if (not valid_utf8(t))
      fail(column, "is not UTF-8 text");
    for (char c : t)
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
        fail(column, "holds a control character");
    return t;
  }
  /** A whole number in [min, max]. */
  uint64_t whole(size_t column, uint64_t min, uint64_t max = 1'000'000'000'000'000ULL) const
  {
    const std::string& s = fields[column];
    uint64_t v           = 0;
    auto [p, ec]         = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty())
      fail(column, "is missing: expected a whole number");
    if (ec != std::errc() || p != s.data() + s.size()) {
      // "8.0" and "-1" are numbers, not whole non-negative ones: say which
      double d     = 0;
      auto [q, e2] = std::from_chars(s.data(), s.data() + s.size(), d);
      if (e2 == std::errc() && q == s.data() + s.size() && d < 0)
        fail(column, "is negative: expected a whole number >= " + std::to_string(min));
      fail(column, "is not a whole number");
    }
    if (v < min || v > max)
      fail(column,
           "is out of range: expected a whole number from " + std::to_string(min) + " to " + std::to_string(max));
    return v;
  }
  /** A finite number >= 0 (> 0 when positive), at most max_time_s. */
  double seconds(size_t column, bool positive = false) const
  {
    const std::string& s = fields[column];
    double v             = 0;
    auto [p, ec]         = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty())
      fail(column, "is missing: expected a time in seconds");
    if (ec != std::errc() || p != s.data() + s.size() || not std::isfinite(v))
      fail(column, "is not a number");
    if (v < 0)
      fail(column, "is negative: expected a time in seconds >= 0");
    if (positive && v == 0)
      fail(column, "must be positive");
    if (v > max_time_s)
      fail(column, std::string("is above ") + max_time_text);
    return v;
  }
};

std::vector<std::string> split(const std::string& line, char sep)
{
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t end = line.find(sep, start);
    out.push_back(line.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos)
      break;
    start = end + 1;
  }
  if (not out.empty() && not out.back().empty() && out.back().back() == '\r')
    out.back().pop_back();
  return out;
}

std::ifstream open_input(const std::string& file)
{
  std::ifstream in(file, std::ios::binary);
  if (not in)
    throw InputError(file, "file", "cannot be read");
  return in;
}

/** A CSV file with a header: calls `row` for each data row with the columns named in `wanted`, in
 *  that order (InputError for a missing column, a row with another field count). */
template <class F>
void read_csv(const std::string& file, const std::vector<std::string>& wanted, F&& row)
{
  std::ifstream in = open_input(file);
  std::string line;
  uint64_t line_no = 0;
  std::vector<size_t> index;
  std::vector<std::string> header;
  while (std::getline(in, line)) {
    line_no++;
    if (line_no == 1) {
      if (line.size() >= 3 && line.compare(0, 3, "\xEF\xBB\xBF") == 0) // a UTF-8 byte-order mark
        line.erase(0, 3);
      header = split(line, ',');
      for (const auto& w : wanted) {
        auto it = std::find(header.begin(), header.end(), w);
        if (it == header.end())
          throw InputError(file, "line 1",
                           "the header has no column " + quote(w) + " (needed: " + json::list_names(wanted) + ")");
        index.push_back(static_cast<size_t>(it - header.begin()));
      }
      continue;
    }
    if (line.empty() || line == "\r")
      continue;
    auto fields = split(line, ',');
    if (fields.size() != header.size())
      throw InputError(file, "line " + std::to_string(line_no),
                       std::to_string(fields.size()) + " fields where the header has " + std::to_string(header.size()));
    Row r;
    r.file  = &file;
    r.line  = line_no;
    r.names = &wanted;
    for (size_t i : index)
      r.fields.push_back(fields[i]);
    row(r);
  }
  if (line_no == 0)
    throw InputError(file, "line 1", "the file is empty: expected a header (" + json::list_names(wanted) + ")");
}

/** A job's extra fields, kept under Batsim's extra_data (forwarded to schedulers as it is). */
std::string extra(const nlohmann::ordered_json& j)
{
  return j.empty() ? std::string() : nlohmann::ordered_json{{"extra_data", j}}.dump();
}

/** Sorts the jobs by submission time, stably, and names the workload after its file. */
void finish(Workload& w, const std::string& file)
{
  std::stable_sort(w.jobs.begin(), w.jobs.end(), [](const Job& a, const Job& b) { return a.submit_s < b.submit_s; });
  w.source  = file;
  auto stem = std::filesystem::path(file).stem().string();
  w.name    = stem.empty() ? "gpu-trace" : stem;
}

/** A profile of its own for job `id`. */
Profile& add_job(Workload& w, const std::string& id, double submit, uint32_t gpus, GpuTraceReport& r)
{
  Job j;
  j.id        = id;
  j.submit_s  = submit;
  j.resources = gpus;
  j.profile   = static_cast<uint32_t>(w.profiles.size());
  w.jobs.push_back(j);
  Profile p;
  p.name = "train" + std::to_string(w.profiles.size());
  p.type = ProfileType::training;
  w.profiles.push_back(p);
  r.jobs++;
  r.gpus += gpus;
  return w.profiles.back();
}

/** The model of a Gavel job type: its name without " (batch size N)". */
std::string gavel_model(const std::string& type)
{
  auto p = type.find(" (");
  return p == std::string::npos ? type : type.substr(0, p);
}

const char* catalogue_gpu(const std::string& gavel_gpu)
{
  if (gavel_gpu == "v100")
    return "V100 SXM2 16GB";
  if (gavel_gpu == "p100")
    return "P100 SXM2 16GB";
  if (gavel_gpu == "k80")
    return "K80 GK210";
  return "";
}

/** FNV-1a, 64 bits, of the seed's 8 bytes (little-endian) then the text: the same on every machine. */
uint64_t seeded_hash(uint64_t seed, const std::string& text)
{
  uint64_t h = 1469598103934665603ULL;
  auto mix   = [&](unsigned char c) {
    h ^= c;
    h *= 1099511628211ULL;
  };
  for (int i = 0; i < 8; i++)
    mix(static_cast<unsigned char>(seed >> (8 * i)));
  for (char c : text)
    mix(static_cast<unsigned char>(c));
  return h;
}

} // namespace

std::optional<ModelGradient> gradient_tiresias(const std::string& model, bool* fell_back)
{
  // SymbioticLab/Tiresias simulator/models.py (959f9b0): m_tensors, MiB per large tensor, summed
  static const std::map<std::string, double> mib = {
      {"vgg19", 547.1},     {"vgg16", 526.8},   {"vgg11", 506.5},      {"alexnet", 235.8},   {"resnet152", 149.6},
      {"resnet101", 119.7}, {"resnet50", 80.6}, {"inception4", 132.8}, {"inception3", 56.6},
  };
  static const char* source = "Tiresias simulator/models.py: the sum of the model's tensor sizes (MiB)";
  if (fell_back)
    *fell_back = false;
  auto it = mib.find(model);
  if (it == mib.end()) { // models.py's get_model: any other name gets inception3
    if (fell_back)
      *fell_back = true;
    it = mib.find("inception3");
  }
  return ModelGradient{it->second * MiB, source};
}

std::optional<ModelGradient> gradient_gavel(const std::string& model)
{
  // fp32 parameters of the models Gavel's workloads train (docs/workloads.md gives each count's source)
  static const std::map<std::string, ModelGradient> g = {
      {"ResNet-18",
       {4.0 * 11'173'962, "ResNet-18 for CIFAR-10 (gavel workloads/pytorch/image_classification/cifar10)"}},
      {"ResNet-50", {4.0 * 25'557'032, "torchvision's ResNet-50 for ImageNet"}},
      {"Transformer", {4.0 * 47'241'216, "6+6-layer Transformer, d_model 512, Multi30k vocabularies 2,911 / 3,149"}},
      {"LM", {4.0 * 13'987'678, "2-layer LSTM, 200 units, Wikitext-2's 33,278 words, untied"}},
      {"Recommendation", {4.0 * 8'063'508, "autoencoder, one 200-unit layer, ML-20M's 20,108 items"}},
      {"CycleGAN", {4.0 * 28'285'832, "two ResNet-9 generators and two PatchGAN discriminators, 256 x 256"}},
      {"A3C", {4.0 * 3'249'639, "A3C-LSTM for Pong (4 convolutions, LSTMCell 1,024 -> 512, 6 actions)"}},
  };
  auto it = g.find(model);
  if (it == g.end())
    return std::nullopt;
  return it->second;
}

Workload tiresias_to_workload(const std::string& file, GpuTraceReport* report)
{
  GpuTraceReport local;
  GpuTraceReport& r = report ? *report : local;
  Workload w;
  std::set<std::string> ids;
  read_csv(file, {"job_id", "num_gpu", "submit_time", "iterations", "model_name", "duration"}, [&](const Row& row) {
    r.rows++;
    const std::string& id = row.text(0);
    if (id.empty())
      row.fail(0, "is missing: expected the job's id");
    if (not ids.insert(id).second)
      row.fail(0, "names a job already read");
    auto gpus         = static_cast<uint32_t>(row.whole(1, 1, 1u << 20));
    double submit     = row.seconds(2);
    uint64_t iters    = row.whole(3, 1);
    const auto& model = row.text(4);
    double duration   = row.seconds(5, true);
    if (model.empty())
      row.fail(4, "is missing: expected the model's name");
    bool fell_back = false;
    auto grad      = gradient_tiresias(model, &fell_back);
    if (fell_back)
      r.note("model " + model + " is not in Tiresias' models.py: inception3's gradient, as Tiresias does");
    Profile& p               = add_job(w, id, submit, gpus, r);
    p.model                  = model;
    p.iterations             = iters;
    p.iteration_s            = duration / static_cast<double>(iters);
    p.gradient_bytes         = grad->bytes;
    w.jobs.back().extra_json = extra({{"duration", duration}, {"measured_on", "P100 SXM2 16GB"}});
  });
  finish(w, file);
  return w;
}

std::optional<double> GavelThroughputs::get(const std::string& gpu, const std::string& type, uint32_t count) const
{
  auto g = alone.find(gpu);
  if (g == alone.end())
    return std::nullopt;
  auto t = g->second.find(type);
  if (t == g->second.end())
    return std::nullopt;
  auto c = t->second.find(count);
  if (c == t->second.end())
    return std::nullopt;
  return c->second;
}

std::vector<std::string> GavelThroughputs::types_on(const std::string& gpu) const
{
  std::vector<std::string> out;
  auto g = alone.find(gpu);
  if (g != alone.end())
    for (const auto& [type, counts] : g->second)
      if (counts.count(1))
        out.push_back(type);
  return out; // std::map: sorted
}

GavelThroughputs read_gavel_throughputs(const std::string& file)
{
  GavelThroughputs t;
  t.file   = file;
  auto doc = json::load(file);
  auto top = doc.object();
  for (const auto& gpu : top.take_all_keys()) {
    auto kinds = top.required(gpu).object();
    for (const auto& key : kinds.take_all_keys()) {
      // "('ResNet-18 (batch size 16)', 1)": a Python tuple of the type's name and its GPU count
      auto v = kinds.required(key);
      if (key.size() < 8 || key.compare(0, 2, "('") != 0 || key.back() != ')')
        v.fail("a key is ('job type', GPU count), got " + quote(key));
      auto close = key.rfind("', ");
      if (close == std::string::npos || close < 2)
        v.fail("a key is ('job type', GPU count), got " + quote(key));
      std::string type  = key.substr(2, close - 2);
      std::string count = key.substr(close + 3, key.size() - close - 4);
      uint32_t n        = 0;
      auto [p, ec]      = std::from_chars(count.data(), count.data() + count.size(), n);
      if (ec != std::errc() || p != count.data() + count.size() || n == 0)
        v.fail("a key is ('job type', GPU count), got " + quote(key));
      auto entry = v.object();
      for (const auto& other : entry.take_all_keys()) {
        if (other != "null")
          continue; // co-located with another type (space sharing): not used
        // 0: the job did not run there (Gavel's measurements: out of the GPU's memory), as if absent
        double thr = entry.required("null").non_negative();
        if (thr > 0)
          t.alone[gpu][type][n] = thr;
      }
    }
  }
  if (t.alone.empty())
    throw InputError(file, "at /", "no throughput: expected Gavel's {gpu: {\"('type', count)\": {\"null\": steps/s}}}");
  return t;
}

Workload gavel_to_workload(const std::string& file, const GavelThroughputs& throughputs, const GavelOptions& options,
                           GpuTraceReport* report)
{
  GpuTraceReport local;
  GpuTraceReport& r = report ? *report : local;
  if (throughputs.alone.count(options.gpu) == 0)
    throw InputError(throughputs.file, "at /", "no throughputs for GPU " + quote(options.gpu));
  static const std::vector<std::string> msr      = {"job type",    "command", "steps argument", "needs data",
                                                    "total steps", "arrival", "scale factor"};
  static const std::vector<std::string> physical = {"job type",   "command",     "working directory", "steps argument",
                                                    "needs data", "total steps", "scale factor",      "priority weight",
                                                    "SLO",        "arrival"};
  Workload w;
  std::ifstream in = open_input(file);
  std::string line;
  uint64_t line_no = 0;
  while (std::getline(in, line)) {
    line_no++;
    if (line.empty() || line == "\r")
      continue;
    Row row;
    row.file   = &file;
    row.line   = line_no;
    row.fields = split(line, '\t');
    bool seven = row.fields.size() == msr.size();
    if (not seven && row.fields.size() != physical.size())
      throw InputError(file, "line " + std::to_string(line_no),
                       std::to_string(row.fields.size()) +
                           " tab-separated fields: Gavel's traces have 7 (job type, command, steps argument, needs "
                           "data, total steps, arrival, scale factor) or 10 (physical_cluster)");
    row.names = seven ? &msr : &physical;
    r.rows++;
    const std::string& type = row.text(0);
    if (type.empty())
      row.fail(0, "is missing: expected the job type");
    size_t steps_col = seven ? 4 : 5, arrival_col = seven ? 5 : 9, scale_col = seven ? 6 : 6;
    uint64_t steps    = row.whole(steps_col, 1);
    double arrival    = row.seconds(arrival_col);
    auto gpus         = static_cast<uint32_t>(row.whole(scale_col, 1, 1u << 20));
    std::string model = gavel_model(type);
    auto grad         = gradient_gavel(model);
    auto thr          = throughputs.get(options.gpu, type, gpus);
    auto thr1         = throughputs.get(options.gpu, type, 1);
    if (not thr && (not thr1 || not grad))
      row.fail(
          0, std::string("has no ") + options.gpu + " throughput at " + std::to_string(gpus) + " GPUs in " +
                 throughputs.file +
                 (thr1 ? " and sgai knows no gradient size for model " + quote(model) : " and none at one GPU either"));
    Profile& p               = add_job(w, std::to_string(r.jobs), arrival, gpus, r);
    p.model                  = type;
    p.iterations             = steps;
    p.gradient_bytes         = grad ? grad->bytes : 0;
    w.jobs.back().extra_json = extra({{"measured_on", catalogue_gpu(options.gpu)}});
    if (thr)
      p.iteration_s = 1 / *thr;
    else {
      p.compute_s = 1 / *thr1;
      r.note("no throughput alone at the job's GPU count: the one-GPU time plus the simulated all-reduce");
    }
    if (gpus > 1 && not grad)
      r.note("no gradient size for model " + model + ": its iterations move no bytes");
    if (static_cast<double>(steps) * p.iteration_s.value_or(p.compute_s.value_or(0)) > max_time_s)
      row.fail(steps_col, std::string("steps at this throughput last more than ") + max_time_text);
  }
  if (line_no == 0)
    throw InputError(file, "line 1", "the trace is empty");
  finish(w, file);
  return w;
}

Workload alibaba_to_workload(const std::string& file, const GavelThroughputs& throughputs,
                             const AlibabaOptions& options, GpuTraceReport* report)
{
  GpuTraceReport local;
  GpuTraceReport& r = report ? *report : local;
  const auto types  = throughputs.types_on(options.gpu);
  if (types.empty())
    throw InputError(throughputs.file, "at /", "no one-GPU throughput for GPU " + quote(options.gpu));
  struct Pod {
    std::string name, qos, phase;
    uint32_t gpus  = 0;
    double created = 0, scheduled = 0, deleted = 0;
  };
  std::vector<Pod> pods;
  double last_deletion = 0;
  std::set<std::string> names;
  read_csv(file,
           {"name", "num_gpu", "gpu_milli", "qos", "pod_phase", "creation_time", "deletion_time", "scheduled_time"},
           [&](const Row& row) {
             r.rows++;
             if (row.text(0).empty())
               row.fail(0, "is missing: expected the pod's name");
             if (not names.insert(row.text(0)).second)
               row.fail(0, "names a pod already read");
             auto gpus      = static_cast<uint32_t>(row.whole(1, 0, 1u << 20));
             uint64_t milli = row.whole(2, 0, 1000);
             double created = row.seconds(5);
             double deleted = row.seconds(6);
             last_deletion  = std::max(last_deletion, deleted);
             if (gpus == 0)
               return r.skip("no GPU (num_gpu 0)");
             if (milli < 1000)
               return r.skip("a fraction of a GPU (gpu_milli below 1000)");
             if (row.text(7).empty())
               return r.skip("never scheduled (no scheduled_time): never ran");
             double scheduled = row.seconds(7);
             if (not options.qos.empty() && row.text(3) != options.qos)
               return r.skip("qos " + row.text(3) + ", not " + options.qos);
             if (options.day && std::floor(created / 86400) != static_cast<double>(*options.day))
               return r.skip("created on another day than day " + std::to_string(*options.day));
             if (scheduled < created)
               row.fail(7, "is before the pod's creation_time " + format_number(created));
             if (deleted <= scheduled)
               row.fail(6, "is not after the pod's scheduled_time " + format_number(scheduled) +
                               ": a job that ran needs a positive duration");
             pods.push_back({row.text(0), row.text(3), row.text(4), gpus, created, scheduled, deleted});
           });
  Workload w;
  for (const auto& pod : pods) {
    double duration  = pod.deleted - pod.scheduled;
    bool censored    = pod.phase == "Running" && pod.deleted == last_deletion;
    const auto& type = types[seeded_hash(options.seed, pod.name) % types.size()];
    auto thr         = throughputs.get(options.gpu, type, pod.gpus);
    double thr1      = *throughputs.get(options.gpu, type, 1);
    auto grad        = gradient_gavel(gavel_model(type));
    double shift     = options.day ? 86400.0 * static_cast<double>(*options.day) : 0;
    Profile& p       = add_job(w, pod.name, pod.created - shift, pod.gpus, r);
    p.model          = type;
    p.gradient_bytes = grad ? grad->bytes : 0;
    if (thr) {
      p.iteration_s = 1 / *thr;
      p.iterations  = std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(duration * *thr)));
    } else {
      p.compute_s  = 1 / thr1;
      p.iterations = std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(duration * thr1)));
      r.note("no throughput alone at the pod's GPU count: iterations from the one-GPU throughput, each adding "
             "the simulated all-reduce");
    }
    if (censored)
      r.note("still running at the trace's end (censored: its duration is a lower bound)");
    if (options.day)
      r.note("created on day " + std::to_string(*options.day) + ": submitted at its time from that day's start");
    nlohmann::ordered_json x = {{"qos", pod.qos},
                                {"pod_phase", pod.phase},
                                {"duration", duration},
                                {"measured_on", catalogue_gpu(options.gpu)}};
    if (censored)
      x["censored"] = true;
    w.jobs.back().extra_json = extra(x);
  }
  finish(w, file);
  return w;
}

} // namespace sgai::workload
