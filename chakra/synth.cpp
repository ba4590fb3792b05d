#include "chakra/synth.hpp"

#include "chakra/builder.hpp"
#include "chakra/et_io.hpp"
#include "core/foundation/error.hpp"
#include "core/foundation/json.hpp"
#include "core/foundation/json_writer.hpp"

#include "core/foundation/numbers.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <sstream>
#include <stdexcept>

namespace sgai::chakra {

namespace {

constexpr double kMinStddev    = 1e-6;             // density floor of a collapsed component (a repeated value)
constexpr double kMaxLog2      = 62;               // a model file's largest max_log2 (draws stay below 2^63)
constexpr int64_t kMaxSequence = int64_t{1} << 20; // a model file's longest sequence of collectives per rank

double log_normal_pdf(double x, double mean, double stddev)
{
  double s = std::max(stddev, kMinStddev);
  double z = (x - mean) / s;
  return -0.5 * z * z - std::log(s) - 0.5 * std::log(2 * std::numbers::pi);
}

/** EM for K components from quantile starting points; components that lose all their weight go. */
Mixture em(const std::vector<double>& sorted, size_t k)
{
  const size_t n = sorted.size();
  double mean    = 0;
  for (double x : sorted)
    mean += x;
  mean /= static_cast<double>(n);
  double var = 0;
  for (double x : sorted)
    var += (x - mean) * (x - mean);
  double sd = std::sqrt(var / static_cast<double>(n));
  if (sd < kMinStddev)
    sd = 1;

  // Starting means at quantiles of the distinct values, so that repeated values (message sizes
  // often take a few values only) never start two components at the same place.
  std::vector<double> distinct(sorted);
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  Mixture m;
  for (size_t c = 0; c < k; c++) {
    size_t at =
        std::min(distinct.size() - 1, static_cast<size_t>((static_cast<double>(c) + 0.5) / static_cast<double>(k) *
                                                          static_cast<double>(distinct.size())));
    m.components.push_back({1.0 / static_cast<double>(k), distinct[at], sd});
  }
  // Each starts no wider than half the distance to its neighbours: close values stay apart.
  for (size_t c = 0; c < k; c++) {
    double gap = std::numeric_limits<double>::infinity();
    if (c > 0)
      gap = std::min(gap, m.components[c].mean - m.components[c - 1].mean);
    if (c + 1 < k)
      gap = std::min(gap, m.components[c + 1].mean - m.components[c].mean);
    m.components[c].stddev = std::max(kMinStddev, std::min(sd / static_cast<double>(k), gap / 2));
  }
  std::vector<std::vector<double>> resp(k, std::vector<double>(n));
  std::vector<double> logs(k);
  double previous = -std::numeric_limits<double>::infinity();
  for (int iteration = 0; iteration < 500; iteration++) {
    const size_t kc = m.components.size();
    double ll       = 0;
    for (size_t i = 0; i < n; i++) {
      logs.resize(kc);
      for (size_t c = 0; c < kc; c++)
        logs[c] =
            std::log(m.components[c].weight) + log_normal_pdf(sorted[i], m.components[c].mean, m.components[c].stddev);
      double total = log_sum_exp(logs);
      ll += total;
      for (size_t c = 0; c < kc; c++)
        resp[c][i] = std::exp(logs[c] - total);
    }
    std::vector<Mixture::Component> next;
    std::vector<std::vector<double>> next_resp;
    for (size_t c = 0; c < kc; c++) {
      double nk = 0, sum = 0;
      for (size_t i = 0; i < n; i++) {
        nk += resp[c][i];
        sum += resp[c][i] * sorted[i];
      }
      if (nk < 1e-9)
        continue;
      double mu = sum / nk, v = 0;
      for (size_t i = 0; i < n; i++)
        v += resp[c][i] * (sorted[i] - mu) * (sorted[i] - mu);
      next.push_back({nk / static_cast<double>(n), mu, std::max(std::sqrt(v / nk), kMinStddev)});
      next_resp.push_back(std::move(resp[c]));
    }
    m.components = std::move(next);
    resp         = std::move(next_resp);
    if (std::abs(ll - previous) <= 1e-10 * std::max(1.0, std::abs(ll)))
      break;
    previous = ll;
  }
  return m;
}

double uniform(std::mt19937_64& rng)
{
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

uint64_t bytes_of(double log2_value)
{
  double b = std::round(std::exp2(log2_value) - 1);
  return b < 0 ? 0 : static_cast<uint64_t>(b);
}

std::string lower(std::string s)
{
  for (auto& c : s)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

} // namespace

Mixture Mixture::fit(std::vector<double> data, uint32_t max_components)
{
  Mixture best;
  if (data.empty())
    return best;
  std::sort(data.begin(), data.end());
  auto copy         = data;
  size_t distinct   = static_cast<size_t>(std::unique(copy.begin(), copy.end()) - copy.begin());
  size_t kmax       = std::min<size_t>(std::max<uint32_t>(max_components, 1), distinct);
  double best_bic   = std::numeric_limits<double>::infinity();
  const double ln_n = std::log(static_cast<double>(data.size()));
  for (size_t k = 1; k <= kmax; k++) {
    Mixture m  = em(data, k);
    double bic = -2 * m.log_likelihood(data) + static_cast<double>(3 * m.components.size() - 1) * ln_n;
    if (bic < best_bic - 1e-9) {
      best_bic = bic;
      best     = std::move(m);
    }
  }
  best.lo = data.front();
  best.hi = data.back();
  std::sort(best.components.begin(), best.components.end(),
            [](const Component& a, const Component& b) { return a.mean < b.mean; });
  return best;
}

double Mixture::log_likelihood(const std::vector<double>& data) const
{
  double ll = 0;
  std::vector<double> logs(components.size());
  for (double x : data) {
    for (size_t c = 0; c < components.size(); c++)
      logs[c] = std::log(components[c].weight) + log_normal_pdf(x, components[c].mean, components[c].stddev);
    ll += log_sum_exp(logs);
  }
  return ll;
}

double Mixture::sample(double u1, double u2, double u3) const
{
  if (components.empty())
    return 0;
  const Component* c = &components.back();
  double acc         = 0;
  for (const auto& comp : components) {
    acc += comp.weight;
    if (u1 < acc) {
      c = &comp;
      break;
    }
  }
  if (c->stddev < kPointMass)
    return c->mean;
  double z = std::sqrt(-2 * std::log(1 - u2)) * std::cos(2 * std::numbers::pi * u3);
  // Tails stay within a factor 2 of the sizes seen.
  return std::clamp(c->mean + c->stddev * z, lo - 1, hi + 1);
}

SynthModel fit_synth_model(const std::vector<std::filesystem::path>& files, const SynthFitOptions& options)
{
  SynthModel model;
  std::map<CollectiveType, std::vector<double>> logs;
  std::vector<double> gaps;
  std::vector<uint64_t> lengths;
  double ops = 0, op_micros = 0;
  uint64_t total = 0;
  for (const auto& file : files) {
    EtReader reader(file);
    Node node;
    uint64_t length = 0, gap = 0;
    std::optional<CollectiveType> previous;
    while (reader.next(node)) {
      if (node.type == NodeType::comp) {
        gap += node.duration_micros;
        if (auto n = node.num_ops(); n && node.duration_micros > 0) {
          ops += *n;
          op_micros += static_cast<double>(node.duration_micros);
        }
        continue;
      }
      if (node.type != NodeType::comm_coll)
        continue;
      auto type = node.collective();
      auto size = node.comm_size();
      if (not type || not size) {
        model.skipped_collectives++;
        continue;
      }
      logs[*type].push_back(std::log2(1 + static_cast<double>(*size)));
      model.observed_sizes[*type].push_back(*size);
      gaps.push_back(std::log2(1 + static_cast<double>(gap)));
      gap = 0;
      if (previous)
        model.transitions[*previous][*type]++;
      else
        model.first[*type]++;
      previous = type;
      length++;
      total++;
    }
    lengths.push_back(length);
    model.inputs.push_back(file.string());
  }
  model.input_ranks = static_cast<uint32_t>(files.size());
  if (total == 0)
    throw InputError(files.empty() ? std::string("(no input)") : files.front().string(), "",
                     "no collective with a known comm_type and a comm_size in " + std::to_string(files.size()) +
                         " trace(s): nothing to fit");
  for (auto& [type, values] : logs) {
    model.composition[type] = static_cast<double>(values.size()) / static_cast<double>(total);
    model.sizes[type]       = Mixture::fit(values, options.max_components);
  }
  double sum = 0, sq = 0;
  for (uint64_t l : lengths)
    sum += static_cast<double>(l);
  model.length_mean = sum / static_cast<double>(lengths.size());
  for (uint64_t l : lengths)
    sq += (static_cast<double>(l) - model.length_mean) * (static_cast<double>(l) - model.length_mean);
  model.length_stddev = std::sqrt(sq / static_cast<double>(lengths.size()));
  model.length_min    = *std::min_element(lengths.begin(), lengths.end());
  model.length_max    = *std::max_element(lengths.begin(), lengths.end());
  if (std::any_of(gaps.begin(), gaps.end(), [](double g) { return g > 0; }))
    model.compute_gap = Mixture::fit(gaps, options.max_components);
  model.ops_per_micro = op_micros > 0 ? ops / op_micros : 0;
  return model;
}

namespace {

template <typename Map>
CollectiveType draw(const Map& weights, double u)
{
  double total = 0;
  for (const auto& [t, w] : weights)
    total += static_cast<double>(w);
  double acc = 0;
  for (const auto& [t, w] : weights) {
    acc += static_cast<double>(w) / total;
    if (u < acc)
      return t;
  }
  return weights.rbegin()->first;
}

} // namespace

SynthOutput sample_synth(const SynthModel& model, const SynthSampleOptions& o)
{
  if (o.ranks == 0)
    throw std::invalid_argument("the rank count must be at least 1");
  uint32_t group_size = o.group_size == 0 ? o.ranks : o.group_size;
  if (o.ranks % group_size != 0)
    throw std::invalid_argument("a group size of " + std::to_string(group_size) + " does not divide " +
                                std::to_string(o.ranks) + " ranks");
  if (o.markov_order > 1)
    throw std::invalid_argument("the Markov order must be 0 or 1, not " + std::to_string(o.markov_order));
  if (model.composition.empty())
    throw std::invalid_argument("the model has no collective type");

  SynthOutput out;
  out.ranks.resize(o.ranks);
  std::mt19937_64 rng(o.seed);
  struct Step {
    uint64_t gap_micros;
    CollectiveType type;
    uint64_t bytes;
  };
  for (uint32_t g = 0; g < o.ranks / group_size; g++) {
    std::string id = std::to_string(g);
    auto& members  = out.groups[id];
    for (uint32_t r = 0; r < group_size; r++)
      members.push_back(g * group_size + r);

    // One sequence per group, issued identically by every member.
    double u1 = uniform(rng), u2 = uniform(rng);
    double z    = std::sqrt(-2 * std::log(1 - u1)) * std::cos(2 * std::numbers::pi * u2);
    double l    = std::round(model.length_mean + model.length_stddev * z);
    auto length = static_cast<uint64_t>(std::clamp(l, static_cast<double>(std::max<uint64_t>(model.length_min, 1)),
                                                   static_cast<double>(std::max<uint64_t>(model.length_max, 1))));
    std::vector<Step> steps;
    std::optional<CollectiveType> previous;
    for (uint64_t i = 0; i < length; i++) {
      CollectiveType type;
      double u = uniform(rng);
      if (o.markov_order == 0)
        type = draw(model.composition, u);
      else if (not previous)
        type = model.first.empty() ? draw(model.composition, u) : draw(model.first, u);
      else if (auto t = model.transitions.find(*previous); t != model.transitions.end() && not t->second.empty())
        type = draw(t->second, u);
      else
        type = draw(model.composition, u);
      previous        = type;
      const auto& mix = model.sizes.at(type);
      double a = uniform(rng), b = uniform(rng), c = uniform(rng);
      uint64_t bytes = bytes_of(mix.sample(a, b, c));
      a = uniform(rng), b = uniform(rng), c = uniform(rng);
      uint64_t gap = model.compute_gap.components.empty() ? 0 : bytes_of(model.compute_gap.sample(a, b, c));
      steps.push_back({gap, type, bytes});
      out.sampled_sizes[type].push_back(bytes);
      out.sampled_collectives++;
    }
    for (uint32_t r : members) {
      TraceBuilder b;
      b.metadata().attrs.push_back(Attribute::of_string("generator", "sgai chakra synth"));
      std::vector<uint64_t> deps;
      for (size_t i = 0; i < steps.size(); i++) {
        const auto& s = steps[i];
        if (s.gap_micros > 0) {
          auto ops = static_cast<uint64_t>(std::llround(static_cast<double>(s.gap_micros) * model.ops_per_micro));
          deps     = {b.compute("compute_" + std::to_string(i), ops, 0, deps, s.gap_micros)};
        }
        deps = {b.collective(lower(to_string(s.type)) + "_" + std::to_string(i), s.type, s.bytes, deps, id)};
      }
      out.ranks[r] = b.take();
    }
  }
  return out;
}

double ks_statistic(std::vector<uint64_t> a, std::vector<uint64_t> b)
{
  if (a.empty() || b.empty())
    return 0;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  size_t i = 0, j = 0;
  double d = 0;
  while (i < a.size() && j < b.size()) {
    uint64_t x = std::min(a[i], b[j]);
    while (i < a.size() && a[i] == x)
      i++;
    while (j < b.size() && b[j] == x)
      j++;
    d = std::max(d, std::abs(static_cast<double>(i) / static_cast<double>(a.size()) -
                             static_cast<double>(j) / static_cast<double>(b.size())));
  }
  return d;
}

namespace {

void write_mixture(json::Writer& w, const Mixture& m)
{
  w.begin_object();
  w.field("min_log2", m.lo).field("max_log2", m.hi);
  w.key("components").begin_array();
  for (const auto& c : m.components) {
    w.begin_object(true);
    w.field("weight", c.weight).field("mean_log2", c.mean).field("stddev_log2", c.stddev);
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

template <typename Map>
void write_counts(json::Writer& w, const Map& m)
{
  w.begin_object(true);
  for (const auto& [t, n] : m)
    w.field(to_string(t), n);
  w.end_object();
}

Mixture read_mixture(json::Object o)
{
  Mixture m;
  // log2(1 + bytes or microseconds): draws reach hi + 1, which must stay below 2^64
  m.lo = o.required("min_log2").number();
  m.hi = o.required("max_log2").number();
  if (not(m.lo >= 0))
    o.fail_at("min_log2", "min_log2 " + std::to_string(m.lo) + " is negative");
  if (not(m.hi <= kMaxLog2))
    o.fail_at("max_log2", "max_log2 " + std::to_string(m.hi) + " is above " + std::to_string(kMaxLog2));
  if (m.hi < m.lo)
    o.fail_at("max_log2", "max_log2 " + std::to_string(m.hi) + " is below min_log2 " + std::to_string(m.lo));
  auto comps = o.required("components");
  double sum = 0;
  for (auto& v : comps.array()) {
    auto c = v.object();
    Mixture::Component k;
    k.weight  = c.required("weight").positive();
    auto mean = c.required("mean_log2");
    k.mean    = mean.number();
    if (not(k.mean >= m.lo - 1 && k.mean <= m.hi + 1)) // the range draws are clamped to
      mean.fail("mean_log2 " + mean.shown() + " is outside [min_log2 - 1, max_log2 + 1]");
    k.stddev = c.required("stddev_log2").non_negative();
    c.finish();
    sum += k.weight;
    m.components.push_back(k);
  }
  if (m.components.empty() || std::abs(sum - 1) > 1e-6)
    comps.fail("expected components whose weights add up to 1");
  o.finish();
  return m;
}

CollectiveType type_key(const json::Object& o, const std::string& key)
{
  auto t = collective_from_string(key);
  if (not t)
    o.fail_at(key, "unknown collective type " + quote(key) +
                       " (known: ALL_REDUCE, REDUCE, ALL_GATHER, GATHER, SCATTER, BROADCAST, ALL_TO_ALL, "
                       "REDUCE_SCATTER, REDUCE_SCATTER_BLOCK, BARRIER)");
  return *t;
}

std::map<CollectiveType, uint64_t> read_counts(json::Object o)
{
  std::map<CollectiveType, uint64_t> m;
  for (const auto& k : o.take_all_keys())
    m[type_key(o, k)] = static_cast<uint64_t>(o.required(k).integer(0));
  return m;
}

} // namespace

std::string synth_model_json(const SynthModel& model)
{
  std::ostringstream s;
  json::Writer w(s);
  w.begin_object();
  w.field("sgai_synth_model", 1);
  w.key("inputs").begin_array(true);
  for (const auto& i : model.inputs)
    w.value(i);
  w.end_array();
  w.field("input_ranks", model.input_ranks).field("skipped_collectives", model.skipped_collectives);
  w.key("sequence_length").begin_object(true);
  w.field("mean", model.length_mean).field("stddev", model.length_stddev);
  w.field("min", model.length_min).field("max", model.length_max);
  w.end_object();
  w.key("composition").begin_object(true);
  for (const auto& [t, f] : model.composition)
    w.field(to_string(t), f);
  w.end_object();
  w.key("first");
  write_counts(w, model.first);
  w.key("transitions").begin_object();
  for (const auto& [t, next] : model.transitions) {
    w.key(to_string(t));
    write_counts(w, next);
  }
  w.end_object();
  w.key("sizes").begin_object();
  for (const auto& [t, m] : model.sizes) {
    w.key(to_string(t));
    write_mixture(w, m);
  }
  w.end_object();
  if (not model.compute_gap.components.empty()) {
    w.key("compute_gap");
    write_mixture(w, model.compute_gap);
  }
  w.field("ops_per_micro", model.ops_per_micro);
  w.end_object();
  s << "\n";
  return s.str();
}

SynthModel read_synth_model(const std::filesystem::path& file)
{
  auto doc = json::load(file);
  auto o   = doc.object();
  SynthModel m;
  if (o.required("sgai_synth_model").integer() != 1)
    o.fail_at("sgai_synth_model", "expected version 1");
  for (auto& v : o.required("inputs").array())
    m.inputs.push_back(v.string());
  m.input_ranks         = static_cast<uint32_t>(o.required("input_ranks").integer(0, UINT32_MAX));
  m.skipped_collectives = static_cast<uint64_t>(o.required("skipped_collectives").integer(0));
  {
    auto l          = o.required("sequence_length").object();
    m.length_mean   = l.required("mean").non_negative();
    m.length_stddev = l.required("stddev").non_negative();
    m.length_min    = static_cast<uint64_t>(l.required("min").integer(0, kMaxSequence));
    m.length_max    = static_cast<uint64_t>(l.required("max").integer(0, kMaxSequence));
    if (m.length_max < m.length_min)
      l.fail_at("max", "the longest sequence is shorter than the shortest");
    l.finish();
  }
  {
    auto c = o.required("composition").object();
    for (const auto& k : c.take_all_keys())
      m.composition[type_key(c, k)] = c.required(k).positive();
    if (m.composition.empty())
      c.fail("expected at least one collective type");
  }
  m.first = read_counts(o.required("first").object());
  {
    auto t = o.required("transitions").object();
    for (const auto& k : t.take_all_keys())
      m.transitions[type_key(t, k)] = read_counts(t.required(k).object());
  }
  {
    auto s = o.required("sizes").object();
    for (const auto& k : s.take_all_keys())
      m.sizes[type_key(s, k)] = read_mixture(s.required(k).object());
    for (const auto& [t, f] : m.composition)
      if (not m.sizes.count(t))
        s.fail(std::string("no size distribution for ") + to_string(t) + ", which the composition names");
  }
  // Every type a sample can reach needs a size distribution.
  auto check_known = [&](const json::Object& where, CollectiveType t) {
    if (not m.sizes.count(t))
      where.fail(std::string("no size distribution for ") + to_string(t));
  };
  for (const auto& [t, n] : m.first)
    check_known(o, t);
  for (const auto& [t, next] : m.transitions)
    for (const auto& [u, n] : next)
      check_known(o, u);
  if (auto g = o.optional("compute_gap"))
    m.compute_gap = read_mixture(g->object());
  m.ops_per_micro = o.required("ops_per_micro").non_negative();
  o.finish();
  return m;
}

std::string comm_groups_json(const std::map<std::string, std::vector<uint32_t>>& groups)
{
  std::ostringstream s;
  json::Writer w(s);
  w.begin_object();
  for (const auto& [id, ranks] : groups) {
    w.key(id).begin_array(true);
    for (uint32_t r : ranks)
      w.value(r);
    w.end_array();
  }
  w.end_object();
  s << "\n";
  return s.str();
}

} // namespace sgai::chakra
