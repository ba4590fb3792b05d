/* The configuration search: candidates enumerated, checked by make_config, weighed by
 * memory_per_stage, predicted by predict_iteration on worker threads, ranked. */
#include "core/training/search.hpp"

#include "core/foundation/error.hpp"
#include "core/training/flops.hpp"
#include "core/training/memory.hpp"
#include "generators/platform/catalogue.hpp"

#include <algorithm>
#include <atomic>
#include <set>
#include <stdexcept>
#include <thread>

namespace sgai::training {

namespace {

/** The keys the search sets itself: taken out of the description's settings. */
const std::set<std::string>& varied_keys()
{
  static const std::set<std::string> keys = {"tensor-model-parallel-size",
                                             "pipeline-model-parallel-size",
                                             "num-layers-per-virtual-pipeline-stage",
                                             "num-virtual-stages-per-pipeline-rank",
                                             "decoder-first-pipeline-num-layers",
                                             "decoder-last-pipeline-num-layers",
                                             "context-parallel-size",
                                             "expert-model-parallel-size",
                                             "data-parallel-size",
                                             "micro-batch-size",
                                             "recompute-granularity",
                                             "recompute-method",
                                             "recompute-num-layers",
                                             "sequence-parallel",
                                             "tp-comm-overlap"};
  return keys;
}

std::vector<uint32_t> divisors(uint64_t n, uint64_t most)
{
  std::vector<uint32_t> out;
  for (uint64_t d = 1; d <= n && d <= most; d++)
    if (n % d == 0)
      out.push_back(uint32_t(d));
  return out;
}

/** Layers per virtual stage to try for `per_stage` layers a pipeline stage (0: no interleaving). */
std::vector<uint32_t> virtual_options(uint32_t per_stage, bool interleave)
{
  std::vector<uint32_t> out = {0};
  if (not interleave || per_stage < 2)
    return out;
  for (uint32_t parts : {2U, 4U})
    if (per_stage % parts == 0 && per_stage / parts > 1)
      out.push_back(per_stage / parts);
  out.push_back(1);
  return out;
}

const char* recompute_name(Recompute r)
{
  return r == Recompute::full ? "full" : r == Recompute::selective ? "selective" : "none";
}

struct Candidate {
  std::vector<Setting> settings;
};

/** Every combination of the options, as settings over the description's (their validity is
 *  make_config's to say). */
std::vector<Candidate> enumerate(const std::vector<Setting>& base, const TrainingConfig& model, const SearchOptions& o,
                                 bool tp_overlap)
{
  std::vector<Candidate> out;
  const uint64_t gpus       = o.gpus;
  std::vector<uint32_t> cps = {1};
  if (o.context && model.seq_length >= 8192)
    for (uint32_t cp : {2U, 4U, 8U, 16U})
      cps.push_back(cp);
  std::vector<uint32_t> eps = {1};
  if (model.num_experts > 0)
    eps = divisors(model.num_experts, 64);
  auto set = [](std::vector<Setting>& s, const std::string& k, const std::string& v) {
    s.push_back({k, v, "", "search"});
  };
  for (uint32_t tp : o.tensor)
    for (uint32_t pp : divisors(model.num_layers, o.max_pipeline))
      for (uint32_t cp : cps) {
        uint64_t per_replica = uint64_t(tp) * pp * cp;
        if (per_replica > gpus || gpus % per_replica != 0)
          continue;
        for (uint32_t vps : virtual_options(pp > 1 ? model.num_layers / pp : 0, o.interleave))
          for (uint32_t ep : eps)
            for (uint32_t mbs : o.micro_batch)
              for (Recompute r : o.recompute) {
                Candidate c{base};
                set(c.settings, "tensor-model-parallel-size", std::to_string(tp));
                set(c.settings, "pipeline-model-parallel-size", std::to_string(pp));
                if (vps > 0)
                  set(c.settings, "num-layers-per-virtual-pipeline-stage", std::to_string(vps));
                set(c.settings, "context-parallel-size", std::to_string(cp));
                set(c.settings, "expert-model-parallel-size", std::to_string(ep));
                set(c.settings, "micro-batch-size", std::to_string(mbs));
                set(c.settings, "sequence-parallel", tp > 1 ? "true" : "false");
                set(c.settings, "tp-comm-overlap", tp > 1 && tp_overlap ? "true" : "false");
                if (r != Recompute::none)
                  set(c.settings, "recompute-granularity", recompute_name(r));
                out.push_back(std::move(c));
              }
      }
  return out;
}

} // namespace

std::string describe_parallelism(const TrainingConfig& c)
{
  std::string v = c.virtual_stages() > 1 ? " (v " + std::to_string(c.virtual_stages()) + ")" : "";
  return "TP " + std::to_string(c.tensor_model_parallel_size) + ", PP " +
         std::to_string(c.pipeline_model_parallel_size) + v + ", CP " + std::to_string(c.context_parallel_size) +
         ", EP " + std::to_string(c.expert_model_parallel_size) + ", DP " + std::to_string(c.data_parallel_size) +
         ", micro-batch " + std::to_string(c.micro_batch_size) + ", recompute " +
         recompute_name(c.recompute_granularity);
}

TrainingConfig model_alone(const std::vector<Setting>& base)
{
  std::vector<Setting> alone;
  for (const auto& s : base)
    if (not varied_keys().count(s.key))
      alone.push_back(s);
  for (const char* k : {"data-parallel-size", "micro-batch-size", "global-batch-size"})
    alone.push_back({k, "1", "", "search"});
  return make_config(alone, 0);
}

SearchResult search_configurations(const std::vector<Setting>& base, const PlatformInputs& in, const SearchOptions& o)
{
  std::vector<Setting> kept;
  bool tp_overlap = false;
  for (const auto& s : base) {
    if (s.key == "tp-comm-overlap")
      tp_overlap = s.value == "true" || s.value == "1";
    if (not varied_keys().count(s.key))
      kept.push_back(s);
  }
  const TrainingConfig model        = model_alone(kept);
  std::vector<Candidate> candidates = enumerate(kept, model, o, tp_overlap);

  SearchResult result;
  result.tried = candidates.size();
  std::vector<SearchRow> rows(candidates.size());
  std::vector<char> valid(candidates.size(), 0);
  std::atomic<size_t> next{0};
  auto work = [&]() {
    for (size_t i = next++; i < candidates.size(); i = next++) {
      SearchRow& row = rows[i];
      try {
        row.config = make_config(candidates[i].settings, o.gpus);
      } catch (const std::exception&) { // InputError, UsageError: not a configuration Megatron runs
        continue;
      }
      valid[i] = 1;
      for (const auto& st : memory_per_stage(row.config))
        if (st.total_bytes > row.worst_bytes) {
          row.worst_bytes = st.total_bytes;
          row.worst_stage = st.stage;
        }
      row.fits = row.worst_bytes + o.reserve_bytes <= in.type->memory_bytes;
      if (not row.fits)
        continue;
      Prediction p;
      try {
        p = predict_iteration(row.config, in.gpu, in.fabric, false);
      } catch (const std::invalid_argument&) { // (NCCL_ALGO / NCCL_PROTO forced: a collective NCCL would refuse)
        if (not in.fabric.algo && not in.fabric.proto)
          throw;
        row.runs = false;
        continue;
      }
      row.iteration_s        = p.iteration_s;
      row.tokens_per_s       = p.tokens_per_s;
      row.tflops_per_gpu     = p.tflops_per_gpu;
      row.mfu                = p.mfu;
      row.breakdown          = p.breakdown;
      const Energy e         = iteration_energy(row.config, p, in.fabric.gpus_per_node, in.gpu_busy_w, in.gpu_idle_w,
                                                in.node_cpu_w, in.nic_idle_w, in.nic_busy_w);
      row.energy_per_token_j = e.total() / tokens_per_iteration(row.config);
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < std::max(1U, o.threads); t++)
    pool.emplace_back(work);
  work();
  for (auto& t : pool)
    t.join();

  std::vector<size_t> order;
  for (size_t i = 0; i < rows.size(); i++) {
    if (not valid[i]) {
      result.invalid++;
      continue;
    }
    order.push_back(i);
  }
  auto replica = [&](size_t i) {
    const auto& c = rows[i].config;
    return uint64_t(c.tensor_model_parallel_size) * c.pipeline_model_parallel_size * c.context_parallel_size;
  };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const SearchRow &x = rows[a], &y = rows[b];
    if (x.runs != y.runs)
      return x.runs;
    if (x.fits != y.fits)
      return x.fits;
    if (not x.fits)
      return x.worst_bytes < y.worst_bytes;
    if (x.tokens_per_s != y.tokens_per_s)
      return x.tokens_per_s > y.tokens_per_s;
    return replica(a) < replica(b);
  });
  for (size_t i : order) {
    result.fitting += rows[i].fits && rows[i].runs ? 1 : 0;
    result.unrunnable += rows[i].runs ? 0 : 1;
    result.rows.push_back(std::move(rows[i]));
  }
  return result;
}

} // namespace sgai::training
