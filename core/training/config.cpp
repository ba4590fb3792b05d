#include "core/training/config.hpp"

#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "core/foundation/json.hpp"
#include "core/foundation/numbers.hpp"
#include "core/foundation/yaml_document.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <sstream>
#include <tuple>

namespace sgai::training {

namespace {

[[noreturn]] void fail(const Setting& s, const std::string& message);

/** Megatron-Core's pipeline-model-parallel-layout ("Et*3|(tt|)*29,m|L": stages separated by "|",
 *  each a run of E (the embedding), t (a decoder layer), m (multi-token prediction) and L (the loss);
 *  "(...)*n" and "x*n" repeat, commas are cosmetic), checked as its PipelineParallelLayerLayout does:
 *  PP x VP stages in Megatron's order (virtual stage v of rank r at v PP + r), the embedding first
 *  and the loss last once each, num-layers decoder layers and mtp-num-layers MTP layers after them,
 *  all of these in the last virtual stage of one rank. Sets the layers of each virtual stage, the
 *  virtual stages and MTP's rank. */
void check_layout(TrainingConfig& c, const Setting& s, const std::map<std::string, Setting>& by)
{
  for (const char* key : {"decoder-first-pipeline-num-layers", "decoder-last-pipeline-num-layers",
                          "account-for-embedding-in-pipeline-split", "account-for-loss-in-pipeline-split",
                          "num-layers-per-virtual-pipeline-stage"})
    if (auto it = by.find(key); it != by.end() && it->second.value != "0" && it->second.value != "false")
      fail(it->second, "pipeline-model-parallel-layout places the layers itself: leave it out");
  std::vector<std::string> stages;
  try {
    stages = unroll_layout(s.value);
  } catch (const std::invalid_argument& e) {
    fail(s, e.what());
  }
  std::string all;
  for (const std::string& st : stages)
    all += st;
  const uint32_t pp = c.pipeline_model_parallel_size;
  if (stages.size() % pp != 0)
    fail(s, "lists " + std::to_string(stages.size()) + " stages, not a multiple of pipeline-model-parallel-size " +
                std::to_string(pp));
  const uint32_t vp = uint32_t(stages.size() / pp);
  if (pp == 1 && vp > 1)
    fail(s, "lists " + std::to_string(vp) + " stages: interleaving needs pipeline-model-parallel-size above 1");
  if (c.num_virtual_stages_per_pipeline_rank > 0 && c.num_virtual_stages_per_pipeline_rank != vp)
    fail(by.at("num-virtual-stages-per-pipeline-rank"),
         "the layout has " + std::to_string(vp) + " virtual stages per pipeline rank");
  auto count = [&](char ch) { return uint64_t(std::count(all.begin(), all.end(), ch)); };
  if (stages.front().empty() || stages.front()[0] != 'E' || count('E') != 1)
    fail(s, "the embedding (E) must come first, once");
  if (stages.back().empty() || stages.back().back() != 'L' || count('L') != 1)
    fail(s, "the loss (L) must come last, once");
  if (count('t') != c.num_layers)
    fail(s,
         "places " + std::to_string(count('t')) + " decoder layers (t), num-layers is " + std::to_string(c.num_layers));
  if (count('m') != c.mtp_num_layers)
    fail(s, "places " + std::to_string(count('m')) + " MTP layers (m), mtp-num-layers is " +
                std::to_string(c.mtp_num_layers));
  if (count('m') > 0 && all.find('t', all.find('m')) != std::string::npos)
    fail(s, "decoder layers (t) must come before the MTP layers (m)");
  c.layout_layers.assign(stages.size(), 0);
  c.mtp_rank = pp - 1;
  for (size_t i = 0; i < stages.size(); ++i) {
    c.layout_layers[i] = uint32_t(std::count(stages[i].begin(), stages[i].end(), 't'));
    const uint64_t m   = std::count(stages[i].begin(), stages[i].end(), 'm');
    if (m == 0)
      continue;
    if (m != c.mtp_num_layers || i / pp + 1 != vp || (i % pp == 0 && pp > 1))
      fail(s, "the MTP layers (m) go together in the last virtual stage of a pipeline rank other than the first");
    c.mtp_rank = uint32_t(i % pp);
  }
  c.num_virtual_stages_per_pipeline_rank = vp > 1 ? vp : 0;
}

/** The pipeline's layers as Megatron-LM checks them: PP dividing the layers, or with uneven first
 *  or last stages the other stages sharing the rest evenly; the virtual stages dividing every
 *  stage's layers (given with num-virtual-stages-per-pipeline-rank when the stages are uneven). */
void check_stages(const TrainingConfig& c, const std::function<Setting(const std::string&)>& at)
{
  const uint32_t pp = c.pipeline_model_parallel_size, first = c.decoder_first_pipeline_num_layers,
                 last = c.decoder_last_pipeline_num_layers, split = c.split_layers();
  const bool uneven    = first > 0 || last > 0;
  const bool accounted = c.account_for_embedding_in_pipeline_split || c.account_for_loss_in_pipeline_split;
  if (accounted && pp == 1)
    fail(at(c.account_for_embedding_in_pipeline_split ? "account-for-embedding-in-pipeline-split"
                                                      : "account-for-loss-in-pipeline-split"),
         "counting the embedding or the loss in the pipeline split needs pipeline-model-parallel-size above 1");
  const std::string counted = accounted ? " (num-layers " + std::to_string(c.num_layers) +
                                              " with the embedding or "
                                              "the loss counted: " +
                                              std::to_string(split) + ")"
                                        : std::string();
  if (uneven) {
    const Setting u = at(first > 0 ? "decoder-first-pipeline-num-layers" : "decoder-last-pipeline-num-layers");
    if (pp == 1)
      fail(u, "uneven pipeline stages need pipeline-model-parallel-size above 1");
    if (uint64_t(first) + last > split)
      fail(u, "the first and last stages would hold more than the " + std::to_string(split) + " layers" + counted);
    const uint32_t left = pp - (first > 0 ? 1 : 0) - (last > 0 ? 1 : 0);
    const uint64_t rest = uint64_t(split) - first - last;
    if (left == 0 ? rest != 0 : (rest == 0 || rest % left != 0))
      fail(at("pipeline-model-parallel-size"), "the other " + std::to_string(left) + " stages cannot share the " +
                                                   std::to_string(rest) + " remaining layers evenly");
    if (c.num_layers_per_virtual_pipeline_stage > 0)
      fail(at("num-layers-per-virtual-pipeline-stage"),
           "with uneven first or last stages give num-virtual-stages-per-pipeline-rank instead (as Megatron-LM)");
  } else if (split % pp != 0)
    fail(at("pipeline-model-parallel-size"), "does not divide num-layers " + std::to_string(c.num_layers) + counted);
  if (c.num_virtual_stages_per_pipeline_rank > 0 && c.num_layers_per_virtual_pipeline_stage > 0)
    fail(at("num-virtual-stages-per-pipeline-rank"), "num-layers-per-virtual-pipeline-stage is given too: one of them");
  const char* vkey       = c.num_virtual_stages_per_pipeline_rank > 0 ? "num-virtual-stages-per-pipeline-rank"
                                                                      : "num-layers-per-virtual-pipeline-stage";
  const bool interleaved = c.num_virtual_stages_per_pipeline_rank > 0 || c.num_layers_per_virtual_pipeline_stage > 0;
  if (interleaved && pp == 1)
    fail(at(vkey), "interleaving needs pipeline-model-parallel-size above 1");
  if (c.num_layers_per_virtual_pipeline_stage > 0 && (split / pp) % c.num_layers_per_virtual_pipeline_stage != 0)
    fail(at(vkey), "does not divide the " + std::to_string(split / pp) + " layers of a pipeline stage" + counted);
  const uint32_t v = c.virtual_stages();
  for (uint32_t r = 0; r < pp; ++r)
    if (c.stage_slots(r) % v != 0)
      fail(at(vkey), "does not divide the " + std::to_string(c.stage_slots(r)) + " layers of pipeline stage " +
                         std::to_string(r) + counted);
  // the embedding or the loss takes a layer's place in its chunk: the chunk needs one
  if (c.account_for_embedding_in_pipeline_split && c.stage_slots(0) / v == 0)
    fail(at("account-for-embedding-in-pipeline-split"), "the first stage's first chunk holds no layer to give up");
  if (c.account_for_loss_in_pipeline_split && c.stage_slots(pp - 1) / v == 0)
    fail(at("account-for-loss-in-pipeline-split"), "the last stage's last chunk holds no layer to give up");
}

[[noreturn]] void fail(const Setting& s, const std::string& message)
{
  std::string what = s.key + " " + quote(s.value) + ": " + message;
  if (s.file.empty())
    throw UsageError(s.place + " " + quote(s.value) + ": " + message);
  throw InputError(s.file, s.place, what);
}

uint64_t whole(const Setting& s, uint64_t min, uint64_t max);

/** moe-layer-freq as Megatron-LM reads it: N, every N-th layer from the first a MoE layer, or a
 *  Python list expression of 0 and 1 (terms "[1,0]" or "[0]*3" joined by "+", in parentheses or
 *  not), one entry a layer. */
std::vector<bool> layer_pattern(const Setting& s, uint32_t layers)
{
  std::string v;
  for (char ch : s.value)
    if (ch != ' ' && ch != '\t')
      v += ch;
  const std::string bad = "neither a layer frequency nor a list of 0 and 1 such as ([0]+[1]*15)";
  if (not v.empty() && std::all_of(v.begin(), v.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
    const uint64_t n = whole(s, 1, layers);
    std::vector<bool> out(layers);
    for (uint32_t i = 0; i < layers; ++i)
      out[i] = i % n == 0;
    return out;
  }
  if (v.size() >= 2 && v.front() == '(' && v.back() == ')')
    v = v.substr(1, v.size() - 2);
  std::vector<bool> out;
  size_t i = 0;
  while (i < v.size()) {
    if (v[i] != '[')
      fail(s, bad);
    std::vector<bool> term;
    for (++i; i < v.size() && v[i] != ']'; ++i) {
      if (v[i] == '0' || v[i] == '1')
        term.push_back(v[i] == '1');
      else if (v[i] != ',')
        fail(s, bad);
    }
    if (i >= v.size() || term.empty())
      fail(s, bad);
    ++i;
    uint64_t times = 1;
    if (i < v.size() && v[i] == '*') {
      size_t j = ++i;
      while (j < v.size() && v[j] >= '0' && v[j] <= '9')
        ++j;
      if (j == i || j - i > 6)
        fail(s, bad);
      times = std::stoull(v.substr(i, j - i));
      i     = j;
    }
    for (uint64_t k = 0; k < times && out.size() <= layers; ++k)
      out.insert(out.end(), term.begin(), term.end());
    if (out.size() > layers)
      fail(s, "lists more layers than num-layers " + std::to_string(layers));
    if (i < v.size() && v[i++] != '+')
      fail(s, bad);
  }
  if (v.empty() || v.back() == '+')
    fail(s, bad);
  if (out.size() != layers)
    fail(s, "lists " + std::to_string(out.size()) + " layers, num-layers is " + std::to_string(layers));
  if (std::find(out.begin(), out.end(), true) == out.end())
    fail(s, "makes no layer a MoE layer");
  return out;
}

uint64_t whole(const Setting& s, uint64_t min, uint64_t max)
{
  const std::string& v = s.value;
  bool digits =
      not v.empty() && v.size() <= 19 && std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; });
  uint64_t n = digits ? std::strtoull(v.c_str(), nullptr, 10) : 0;
  if (not digits || n < min || n > max)
    fail(s, "expected a whole number from " + std::to_string(min) + " to " + std::to_string(max));
  return n;
}

double real(const Setting& s, double min, double max)
{
  char* end = nullptr;
  errno     = 0;
  double x  = s.value.empty() ? std::nan("") : std::strtod(s.value.c_str(), &end);
  if (s.value.empty() || *end != '\0' || errno != 0 || not std::isfinite(x) || x < min || x > max)
    fail(s, "expected a number from " + format_number(min) + " to " + format_number(max));
  return x;
}

bool flag(const Setting& s)
{
  if (s.value == "true")
    return true;
  if (s.value == "false")
    return false;
  fail(s, "expected true or false");
}

std::string choice(const Setting& s, const std::vector<std::string>& allowed)
{
  if (std::find(allowed.begin(), allowed.end(), s.value) == allowed.end())
    fail(s, "expected one of " + json::list_names(allowed));
  return s.value;
}

/** An Adam moment's bytes under the precision-aware optimizer. */
double moment_bytes(const Setting& s)
{
  const std::string t = choice(s, {"fp32", "fp16", "bf16", "fp8"});
  return t == "fp32" ? 4 : t == "fp8" ? 1 : 2;
}

/** Megatron-Core's recompute-modules: names separated by spaces or commas, each a module sgai
 *  models (RecomputeModule); Megatron's others belong to layers sgai does not describe. */
uint32_t recompute_modules(const Setting& s)
{
  static const std::vector<std::pair<std::string, uint32_t>> names = {
      {"core_attn", kCoreAttn},          {"moe_act", kMoeAct}, {"layernorm", kLayernorm},
      {"mla_up_proj", kMlaUpProj},       {"mlp", kMlp},        {"moe", kMoe},
      {"shared_experts", kSharedExperts}};
  uint32_t bits   = 0;
  std::string all = s.value, word;
  std::replace(all.begin(), all.end(), ',', ' ');
  std::istringstream words(all);
  while (words >> word) {
    auto it = std::find_if(names.begin(), names.end(), [&](const auto& n) { return n.first == word; });
    if (it == names.end()) {
      std::vector<std::string> allowed;
      for (const auto& n : names)
        allowed.push_back(n.first);
      fail(s, quote(word) + " is not a module sgai recomputes (" + json::list_names(allowed) + ")");
    }
    bits |= it->second;
  }
  if (bits == 0)
    fail(s, "names no module");
  return bits;
}

/** cp-comm-type: one type for every layer (Megatron-Core also takes a type a layer, which sgai
 *  does not model). */
CpComm cp_comm(const Setting& s)
{
  std::string all = s.value, word, first;
  std::replace(all.begin(), all.end(), ',', ' ');
  std::istringstream words(all);
  while (words >> word) {
    if (word != "p2p" && word != "allgather" && word != "a2a" && word != "a2a+p2p")
      fail(s, quote(word) + ": expected one of p2p, allgather, a2a, a2a+p2p");
    if (not first.empty() && word != first)
      fail(s, "one type for every layer (" + first + " and " + word + "): a type a layer is not modelled");
    first = word;
  }
  if (first.empty())
    fail(s, "names no type");
  return first == "p2p"         ? CpComm::p2p
         : first == "allgather" ? CpComm::all_gather
         : first == "a2a"       ? CpComm::a2a
                                : CpComm::a2a_p2p;
}

/** hierarchical-context-parallel-sizes: the all-to-all groups' size, then the ring's (two levels,
 *  as Transformer Engine's a2a+p2p takes them). */
std::pair<uint32_t, uint32_t> cp_levels(const Setting& s)
{
  std::string all = s.value;
  std::replace(all.begin(), all.end(), ',', ' ');
  std::istringstream words(all);
  std::vector<uint32_t> sizes;
  std::string word;
  while (words >> word) {
    char* end    = nullptr;
    errno        = 0;
    const long v = std::strtol(word.c_str(), &end, 10);
    if (end == word.c_str() || *end != '\0' || errno != 0 || v < 1 || v > (1L << 24))
      fail(s, quote(word) + " is not a size (a whole number from 1)");
    sizes.push_back(uint32_t(v));
  }
  if (sizes.size() != 2)
    fail(s, "expected two sizes (the all-to-all groups', then the ring's), not " + std::to_string(sizes.size()));
  return {sizes[0], sizes[1]};
}

/** position-embedding-type: whether it is learned_absolute (a table of parameters). Megatron's
 *  older switches, use-rotary-position-embeddings and no-position-embedding, override it wherever
 *  they are written (check_config). */
bool learned(const Setting& s)
{
  return choice(s, {"learned_absolute", "rope", "yarn", "mrope", "relative", "none"}) == "learned_absolute";
}

constexpr uint64_t kMaxCount = 1u << 24; // layers, heads, GPUs per dimension, batch sizes
constexpr uint64_t kMaxWidth = 1u << 24; // hidden, FFN and vocabulary sizes, sequence length

using Apply = std::function<void(TrainingConfig&, const Setting&)>;

/** Every key, in docs/training.md's order, with how it sets the description. */
const std::vector<std::pair<std::string, Apply>>& keys()
{
  static const std::vector<std::pair<std::string, Apply>> table = {
      {"num-layers", [](TrainingConfig& c, const Setting& s) { c.num_layers = uint32_t(whole(s, 1, kMaxCount)); }},
      {"hidden-size", [](TrainingConfig& c, const Setting& s) { c.hidden_size = whole(s, 1, kMaxWidth); }},
      {"ffn-hidden-size", [](TrainingConfig& c, const Setting& s) { c.ffn_hidden_size = whole(s, 1, kMaxWidth); }},
      {"num-attention-heads",
       [](TrainingConfig& c, const Setting& s) { c.num_attention_heads = uint32_t(whole(s, 1, kMaxCount)); }},
      {"num-query-groups",
       [](TrainingConfig& c, const Setting& s) { c.num_query_groups = uint32_t(whole(s, 1, kMaxCount)); }},
      {"kv-channels", [](TrainingConfig& c, const Setting& s) { c.kv_channels = whole(s, 1, kMaxWidth); }},
      {"multi-latent-attention", [](TrainingConfig& c, const Setting& s) { c.multi_latent_attention = flag(s); }},
      {"q-lora-rank", [](TrainingConfig& c, const Setting& s) { c.q_lora_rank = whole(s, 1, kMaxWidth); }},
      {"kv-lora-rank", [](TrainingConfig& c, const Setting& s) { c.kv_lora_rank = whole(s, 1, kMaxWidth); }},
      {"qk-head-dim", [](TrainingConfig& c, const Setting& s) { c.qk_head_dim = whole(s, 1, kMaxWidth); }},
      {"qk-pos-emb-head-dim",
       [](TrainingConfig& c, const Setting& s) { c.qk_pos_emb_head_dim = whole(s, 0, kMaxWidth); }},
      {"v-head-dim", [](TrainingConfig& c, const Setting& s) { c.v_head_dim = whole(s, 1, kMaxWidth); }},
      {"seq-length", [](TrainingConfig& c, const Setting& s) { c.seq_length = whole(s, 1, kMaxWidth); }},
      {"vocab-size", [](TrainingConfig& c, const Setting& s) { c.vocab_size = whole(s, 1, kMaxWidth); }},
      {"padded-vocab-size", [](TrainingConfig& c, const Setting& s) { c.padded_vocab_size = whole(s, 1, kMaxWidth); }},
      {"make-vocab-size-divisible-by",
       [](TrainingConfig& c, const Setting& s) { c.make_vocab_size_divisible_by = uint32_t(whole(s, 1, kMaxCount)); }},
      {"swiglu", [](TrainingConfig& c, const Setting& s) { c.swiglu = flag(s); }},
      {"normalization",
       [](TrainingConfig& c, const Setting& s) {
         c.rms_norm = choice(s, {"LayerNorm", "RMSNorm"}) == "RMSNorm";
       }},
      {"hidden-dropout", [](TrainingConfig& c, const Setting& s) { c.hidden_dropout = real(s, 0, 1); }},
      {"attention-dropout", [](TrainingConfig& c, const Setting& s) { c.attention_dropout = real(s, 0, 1); }},
      {"attention-backend",
       [](TrainingConfig& c, const Setting& s) {
         auto b            = choice(s, {"auto", "flash", "fused", "unfused", "local"});
         c.fused_attention = b != "unfused" && b != "local";
       }},
      {"untie-embeddings-and-output-weights",
       [](TrainingConfig& c, const Setting& s) { c.untie_embeddings_and_output_weights = flag(s); }},
      {"position-embedding-type", [](TrainingConfig& c, const Setting& s) { c.learned_positions = learned(s); }},
      {"use-rotary-position-embeddings", [](TrainingConfig&, const Setting& s) { flag(s); }},
      {"no-position-embedding", [](TrainingConfig&, const Setting& s) { flag(s); }},
      {"max-position-embeddings",
       [](TrainingConfig& c, const Setting& s) { c.max_position_embeddings = whole(s, 1, kMaxWidth); }},
      {"num-experts", [](TrainingConfig& c, const Setting& s) { c.num_experts = uint32_t(whole(s, 1, kMaxCount)); }},
      {"moe-router-topk",
       [](TrainingConfig& c, const Setting& s) { c.moe_router_topk = uint32_t(whole(s, 1, kMaxCount)); }},
      {"moe-ffn-hidden-size",
       [](TrainingConfig& c, const Setting& s) { c.moe_ffn_hidden_size = whole(s, 1, kMaxWidth); }},
      {"moe-load-imbalance", [](TrainingConfig& c, const Setting& s) { c.moe_load_imbalance = real(s, 1, 1e6); }},
      {"moe-layer-freq", [](TrainingConfig&, const Setting&) {}}, // (checked with num-layers, below)
      {"moe-expert-capacity-factor",
       [](TrainingConfig& c, const Setting& s) { c.moe_expert_capacity_factor = real(s, 1e-3, 1e6); }},
      {"moe-pad-expert-input-to-capacity",
       [](TrainingConfig& c, const Setting& s) { c.moe_pad_expert_input_to_capacity = flag(s); }},
      {"mtp-num-layers",
       [](TrainingConfig& c, const Setting& s) { c.mtp_num_layers = uint32_t(whole(s, 0, 1u << 10)); }},
      {"expert-tensor-parallel-size",
       [](TrainingConfig& c, const Setting& s) { c.expert_tensor_parallel_size = uint32_t(whole(s, 1, kMaxCount)); }},
      {"ddp-bucket-size", [](TrainingConfig& c, const Setting& s) { c.ddp_bucket_size = whole(s, 1, kMaxWidth); }},
      {"moe-shared-expert-intermediate-size",
       [](TrainingConfig& c, const Setting& s) { c.moe_shared_expert_intermediate_size = whole(s, 1, kMaxWidth); }},
      {"micro-batch-size",
       [](TrainingConfig& c, const Setting& s) { c.micro_batch_size = uint32_t(whole(s, 1, kMaxCount)); }},
      {"global-batch-size",
       [](TrainingConfig& c, const Setting& s) { c.global_batch_size = uint32_t(whole(s, 1, kMaxCount)); }},
      {"tensor-model-parallel-size",
       [](TrainingConfig& c, const Setting& s) { c.tensor_model_parallel_size = uint32_t(whole(s, 1, kMaxCount)); }},
      {"pipeline-model-parallel-size",
       [](TrainingConfig& c, const Setting& s) { c.pipeline_model_parallel_size = uint32_t(whole(s, 1, kMaxCount)); }},
      {"context-parallel-size",
       [](TrainingConfig& c, const Setting& s) { c.context_parallel_size = uint32_t(whole(s, 1, kMaxCount)); }},
      {"expert-model-parallel-size",
       [](TrainingConfig& c, const Setting& s) { c.expert_model_parallel_size = uint32_t(whole(s, 1, kMaxCount)); }},
      {"data-parallel-size",
       [](TrainingConfig& c, const Setting& s) { c.data_parallel_size = uint32_t(whole(s, 1, kMaxCount)); }},
      {"sequence-parallel", [](TrainingConfig& c, const Setting& s) { c.sequence_parallel = flag(s); }},
      {"num-layers-per-virtual-pipeline-stage",
       [](TrainingConfig& c, const Setting& s) {
         c.num_layers_per_virtual_pipeline_stage = uint32_t(whole(s, 1, kMaxCount));
       }},
      {"num-virtual-stages-per-pipeline-rank",
       [](TrainingConfig& c, const Setting& s) {
         c.num_virtual_stages_per_pipeline_rank = uint32_t(whole(s, 1, kMaxCount));
       }},
      {"pipeline-model-parallel-layout", [](TrainingConfig&, const Setting&) {}}, // (check_layout)
      {"decoder-first-pipeline-num-layers",
       [](TrainingConfig& c, const Setting& s) {
         c.decoder_first_pipeline_num_layers = uint32_t(whole(s, 1, kMaxCount));
       }},
      {"decoder-last-pipeline-num-layers",
       [](TrainingConfig& c, const Setting& s) {
         c.decoder_last_pipeline_num_layers = uint32_t(whole(s, 1, kMaxCount));
       }},
      {"account-for-embedding-in-pipeline-split",
       [](TrainingConfig& c, const Setting& s) { c.account_for_embedding_in_pipeline_split = flag(s); }},
      {"account-for-loss-in-pipeline-split",
       [](TrainingConfig& c, const Setting& s) { c.account_for_loss_in_pipeline_split = flag(s); }},
      {"use-distributed-optimizer", [](TrainingConfig& c, const Setting& s) { c.use_distributed_optimizer = flag(s); }},
      {"use-torch-fsdp2", [](TrainingConfig& c, const Setting& s) { c.use_torch_fsdp2 = flag(s); }},
      {"overlap-grad-reduce", [](TrainingConfig& c, const Setting& s) { c.overlap_grad_reduce = flag(s); }},
      // Megatron-LM before 2023: PyTorch's DistributedDataParallel (all-reduces bucket by bucket
      // during the backward) or Megatron's own (all-reduces after it)
      {"DDP-impl",
       [](TrainingConfig&, const Setting& s) {
         choice(s, {"local", "torch"});
       }},
      {"overlap-param-gather", [](TrainingConfig& c, const Setting& s) { c.overlap_param_gather = flag(s); }},
      {"tp-comm-overlap", [](TrainingConfig& c, const Setting& s) { c.tp_comm_overlap = flag(s); }},
      {"recompute-granularity",
       [](TrainingConfig& c, const Setting& s) {
         c.recompute_granularity = choice(s, {"full", "selective"}) == "full" ? Recompute::full : Recompute::selective;
       }},
      {"recompute-method",
       [](TrainingConfig&, const Setting& s) {
         choice(s, {"uniform", "block"});
       }},
      {"recompute-num-layers",
       [](TrainingConfig& c, const Setting& s) { c.recompute_num_layers = uint32_t(whole(s, 1, kMaxCount)); }},
      {"recompute-modules", [](TrainingConfig& c, const Setting& s) { c.recompute_modules = recompute_modules(s); }},
      {"cp-comm-type", [](TrainingConfig& c, const Setting& s) { c.cp_comm_type = cp_comm(s); }},
      {"hierarchical-context-parallel-sizes",
       [](TrainingConfig& c, const Setting& s) { std::tie(c.cp_a2a_size, c.cp_ring_size) = cp_levels(s); }},
      {"bf16",
       [](TrainingConfig& c, const Setting& s) {
         if (flag(s))
           c.precision = Precision::bf16;
       }},
      {"fp16",
       [](TrainingConfig& c, const Setting& s) {
         if (flag(s))
           c.precision = Precision::fp16;
       }},
      {"fp8-format",
       [](TrainingConfig& c, const Setting& s) {
         choice(s, {"e4m3", "hybrid"});
         c.precision = Precision::fp8;
       }},
      {"grad-reduce-in-bf16", [](TrainingConfig& c, const Setting& s) { c.grad_reduce_in_bf16 = flag(s); }},
      {"fp8-param-gather", [](TrainingConfig& c, const Setting& s) { c.fp8_param_gather = flag(s); }},
      {"use-precision-aware-optimizer",
       [](TrainingConfig& c, const Setting& s) { c.precision_aware_optimizer = flag(s); }},
      {"main-grads-dtype",
       [](TrainingConfig& c, const Setting& s) { c.main_grads_bytes = choice(s, {"fp32", "bf16"}) == "fp32" ? 4 : 2; }},
      {"main-params-dtype",
       [](TrainingConfig& c, const Setting& s) { c.main_params_bytes = choice(s, {"fp32", "fp16"}) == "fp32" ? 4 : 2; }},
      {"exp-avg-dtype", [](TrainingConfig& c, const Setting& s) { c.exp_avg_bytes = moment_bytes(s); }},
      {"exp-avg-sq-dtype", [](TrainingConfig& c, const Setting& s) { c.exp_avg_sq_bytes = moment_bytes(s); }},
      {"accumulate-allreduce-grads-in-fp32",
       [](TrainingConfig& c, const Setting& s) { c.accumulate_allreduce_grads_in_fp32 = flag(s); }},
  };
  return table;
}

/** An alias's setting as the known keys it stands for (none when a switch is off). */
std::vector<Setting> unalias(const Setting& s)
{
  auto as = [&](const std::string& key, const std::string& value) { return Setting{key, value, s.file, s.place}; };
  if (s.key == "checkpoint-activations")
    return flag(s) ? std::vector<Setting>{as("recompute-granularity", "full"), as("recompute-method", "uniform")}
                   : std::vector<Setting>{};
  if (s.key == "activations-checkpoint-method")
    return {as("recompute-granularity", "full"), as("recompute-method", s.value)};
  if (s.key == "activations-checkpoint-num-layers")
    return {as("recompute-num-layers", s.value)};
  if (s.key == "recompute-activations")
    return flag(s) ? std::vector<Setting>{as("recompute-granularity", "selective")} : std::vector<Setting>{};
  if (s.key == "use-flash-attn")
    return flag(s) ? std::vector<Setting>{as("attention-backend", "flash")} : std::vector<Setting>{};
  return {s};
}

bool listed(const std::vector<std::pair<std::string, int>>& table, const std::string& key)
{
  return std::any_of(table.begin(), table.end(), [&](const auto& e) { return e.first == key; });
}

/** "num_layers" and "--num-layers" -> "num-layers". */
std::string normal_key(std::string k)
{
  if (k.rfind("--", 0) == 0)
    k = k.substr(2);
  std::replace(k.begin(), k.end(), '_', '-');
  return k;
}

std::string line_of(const YAML::Mark& m)
{
  return m.is_null() ? std::string() : "line " + std::to_string(m.line + 1);
}

std::vector<Setting> yaml_settings(const std::string& file, const std::string& text)
{
  YAML::Node root = load_yaml(file, text);
  if (not root.IsMap())
    throw InputError(file, "", "expected a mapping of Megatron-LM arguments (num-layers: 24, ...)");
  std::vector<Setting> out;
  for (const auto& kv : root) {
    if (not kv.first.IsScalar())
      throw InputError(file, line_of(kv.first.Mark()), "a key must be a name");
    const bool unmodelled = listed(unmodelled_keys(), normal_key(kv.first.Scalar()));
    if (kv.second.IsSequence() && is_list_key(normal_key(kv.first.Scalar()))) { // recompute-modules: [mlp, moe]
      std::string joined;
      for (const auto& item : kv.second) {
        if (not item.IsScalar())
          throw InputError(file, line_of(item.Mark()), quote(kv.first.Scalar()) + " lists names, not lists");
        joined += (joined.empty() ? "" : " ") + item.Scalar();
      }
      out.push_back({kv.first.Scalar(), joined, file, line_of(kv.first.Mark())});
      continue;
    }
    if (kv.second.IsNull()) { // (`key: ~` or `key:`): not set, as JSON's null
      out.push_back({kv.first.Scalar(), "", file, line_of(kv.first.Mark()), true});
      continue;
    }
    if (not kv.second.IsScalar() && not unmodelled) // (a data-path may list several)
      throw InputError(file, line_of(kv.second.Mark()),
                       quote(kv.first.Scalar()) + " must be a single value, not a list or a mapping");
    out.push_back({kv.first.Scalar(), kv.second.IsScalar() ? kv.second.Scalar() : std::string("(several)"), file,
                   line_of(kv.first.Mark())});
  }
  return out;
}

std::vector<Setting> json_settings(const std::string& file, const std::string& text)
{
  json::Document d = json::parse(text, file);
  json::Object o   = d.object();
  std::vector<Setting> out;
  for (const std::string& key : o.take_all_keys()) {
    const std::optional<json::Value> given = o.optional(key);
    const std::string where                = "at " + json::child_pointer(o.pointer(), key);
    if (not given) { // null: not set (a dump of Megatron-LM's arguments holds many)
      if (key == "sgai_training")
        throw InputError(file, where, "sgai_training null: this sgai reads version 1");
      out.push_back({key, "", file, where, true});
      continue;
    }
    const json::Value& v = *given;
    if (v.is_array() && is_list_key(normal_key(key))) { // recompute-modules: ["mlp", "moe"]
      std::string joined;
      for (const json::Value& item : v.array()) {
        if (not item.is_string() && not item.is_integer()) // (hierarchical-context-parallel-sizes: [8, 2])
          throw InputError(file, "at " + item.pointer(), quote(key) + " lists names or whole numbers");
        joined += (joined.empty() ? "" : " ") + (item.is_string() ? item.string() : item.dump());
      }
      out.push_back({key, joined, file, where});
      continue;
    }
    if ((v.is_object() || v.is_array()) && not listed(unmodelled_keys(), normal_key(key)))
      throw InputError(file, where, quote(key) + " must be a single value, not a list or an object");
    if (v.is_object() || v.is_array()) { // (a data-path may list several)
      out.push_back({key, "(several)", file, where});
      continue;
    }
    if (key == "sgai_training") {
      if (v.dump() != "1")
        throw InputError(file, where, "sgai_training " + v.dump() + ": this sgai reads version 1");
      continue;
    }
    out.push_back({key, v.is_string() ? v.string() : v.dump(), file, where});
  }
  return out;
}

/** The mixture of experts' settings, as Megatron-LM checks them; the MoE layers' pattern. */
void check_experts(TrainingConfig& c, const std::function<Setting(const std::string&)>& at,
                   const std::map<std::string, Setting>& by)
{
  const uint32_t ep = c.expert_model_parallel_size, cp = c.context_parallel_size;
  if (c.num_experts > 0) {
    if (c.moe_router_topk > c.num_experts)
      fail(at("moe-router-topk"), "more than the " + std::to_string(c.num_experts) + " experts");
    if (c.num_experts % ep != 0)
      fail(at("expert-model-parallel-size"), "does not divide num-experts " + std::to_string(c.num_experts));
    // Megatron-Core's expert groups: ETP x EP ranks among a stage's TP x CP x DP
    const uint64_t ranks = uint64_t(c.tensor_model_parallel_size) * cp * c.data_parallel_size;
    if (ranks % (uint64_t(c.etp()) * ep) != 0) {
      if (c.expert_tensor_parallel_size == 0)
        fail(at("expert-model-parallel-size"),
             "does not divide data x context parallel = " + std::to_string(uint64_t(c.data_parallel_size) * cp));
      fail(at("expert-tensor-parallel-size"),
           "x expert-model-parallel-size " + std::to_string(ep) + " = " + std::to_string(uint64_t(c.etp()) * ep) +
               " ranks, which do not divide tensor x context x data parallel = " + std::to_string(ranks));
    }
    if (c.moe_ffn_hidden_size % c.etp() != 0)
      fail(at(c.expert_tensor_parallel_size > 0 ? "expert-tensor-parallel-size" : "tensor-model-parallel-size"),
           "does not divide moe-ffn-hidden-size " + std::to_string(c.moe_ffn_hidden_size));
  } else if (ep > 1) {
    fail(at("expert-model-parallel-size"), "expert parallelism needs num-experts");
  } else if (c.expert_tensor_parallel_size > 0) {
    fail(at("expert-tensor-parallel-size"), "expert tensor parallelism needs num-experts");
  } else if (c.moe_shared_expert_intermediate_size > 0) {
    fail(at("moe-shared-expert-intermediate-size"), "shared experts need num-experts");
  }

  if (c.moe_pad_expert_input_to_capacity && c.moe_expert_capacity_factor <= 0)
    fail(at("moe-pad-expert-input-to-capacity"), "padding to the capacity needs moe-expert-capacity-factor");
  if (c.moe_expert_capacity_factor > 0 && c.num_experts == 0)
    fail(at("moe-expert-capacity-factor"), "an expert capacity needs num-experts");
  if (auto it = by.find("moe-layer-freq"); it != by.end()) {
    if (c.num_experts == 0)
      fail(it->second, "MoE layers need num-experts");
    c.moe_layer_pattern = layer_pattern(it->second, c.num_layers);
  }
}

/** Learned positions unless Megatron's older switches say otherwise (wherever they are written);
 *  the table's rows, seq-length unless given, and not fewer (Megatron's check). */
void check_positions(TrainingConfig& c, const std::map<std::string, Setting>& by)
{
  for (const char* key : {"use-rotary-position-embeddings", "no-position-embedding"})
    if (by.count(key) && flag(by.at(key)))
      c.learned_positions = false;
  if (c.max_position_embeddings == 0)
    c.max_position_embeddings = c.seq_length;
  else if (c.max_position_embeddings < c.seq_length)
    fail(by.at("max-position-embeddings"), "is below seq-length " + std::to_string(c.seq_length));
}

/** Context parallelism: the chunks, and how the CP ranks exchange (cp-comm-type's groups). */
void check_context(const TrainingConfig& c, const std::function<Setting(const std::string&)>& at,
                   const std::map<std::string, Setting>& by)
{
  const uint32_t tp = c.tensor_model_parallel_size, cp = c.context_parallel_size;
  if (cp > 1 && c.seq_length % (2 * uint64_t(cp)) != 0)
    fail(at("context-parallel-size"), "twice it does not divide seq-length " + std::to_string(c.seq_length) +
                                          " (each CP rank holds two chunks, for causal balance)");

  if (c.cp_comm_type == CpComm::a2a_p2p) {
    if (not by.count("hierarchical-context-parallel-sizes"))
      fail(at("cp-comm-type"), "needs hierarchical-context-parallel-sizes (the all-to-all groups' size, the ring's)");
    if (uint64_t(c.cp_a2a_size) * c.cp_ring_size != cp)
      fail(by.at("hierarchical-context-parallel-sizes"), "multiplies to " +
                                                             std::to_string(uint64_t(c.cp_a2a_size) * c.cp_ring_size) +
                                                             ", not context-parallel-size " + std::to_string(cp));
  }
  if (const uint32_t a = c.cp_a2a();
      cp > 1 && a > 1 && (c.num_attention_heads / tp % a != 0 || c.num_query_groups / tp % a != 0))
    fail(at(c.cp_comm_type == CpComm::a2a ? "cp-comm-type" : "hierarchical-context-parallel-sizes"),
         "the all-to-alls split each TP rank's " + std::to_string(c.num_attention_heads / tp) + " heads and " +
             std::to_string(c.num_query_groups / tp) + " query groups over " + std::to_string(a) +
             " CP ranks: they must divide both");
}

/** The checks and defaults that need several keys (Megatron-LM's arguments.py asserts most). */
void check_config(TrainingConfig& c, const std::map<std::string, Setting>& by, uint64_t gpus, const std::string& file)
{
  // (file: where a message points when the key was not given, the description as a whole)
  auto at = [&](const std::string& key) {
    auto it = by.find(key);
    return it != by.end() ? it->second : Setting{key, "(default)", file, ""};
  };
  auto missing = [&](const std::string& what) {
    if (file.empty())
      throw UsageError("missing --" + what + " (a training description needs it)");
    throw InputError(file, "", "missing " + what + " (a training description needs it)");
  };
  for (const char* key :
       {"num-layers", "hidden-size", "num-attention-heads", "seq-length", "micro-batch-size", "global-batch-size"})
    if (not by.count(key))
      missing(key);
  if (not by.count("vocab-size") && not by.count("padded-vocab-size")) {
    // Megatron-LM takes the vocabulary from its tokenizer's files, which sgai does not open: a
    // merge file is GPT-2's BPE (GPT2BPETokenizer, the only one that reads one), 50,257 tokens;
    // Llama2Tokenizer is Llama 2's SentencePiece model, 32,000 tokens (Touvron et al. 2023)
    const auto tokenizer = by.find("tokenizer-type");
    if (tokenizer != by.end() && tokenizer->second.value == "Llama2Tokenizer") {
      c.vocab_size = 32000;
      c.notes.push_back("vocab-size 32000: Llama2Tokenizer is Llama 2's vocabulary (give vocab-size for another)");
    } else if (std::find(c.unmodelled.begin(), c.unmodelled.end(), "merge-file") != c.unmodelled.end()) {
      c.vocab_size = 50257;
      c.notes.push_back("vocab-size 50257: a merge-file is GPT-2's BPE vocabulary (give vocab-size for another)");
    } else if (tokenizer != by.end()) {
      const std::string why = "vocab-size (sgai does not open the files of tokenizer-type " + tokenizer->second.value +
                              ": give the vocabulary's size)";
      if (file.empty())
        throw UsageError("missing --" + why);
      throw InputError(file, "", "missing " + why);
    } else {
      missing("vocab-size");
    }
  }
  if (by.count("bf16") && by.count("fp16") && flag(by.at("bf16")) && flag(by.at("fp16")))
    fail(by.at("fp16"), "bf16 is true too: one precision");

  const uint32_t tp = c.tensor_model_parallel_size, pp = c.pipeline_model_parallel_size;
  const uint32_t cp = c.context_parallel_size;
  if (c.ffn_hidden_size == 0)
    c.ffn_hidden_size = 4 * c.hidden_size;
  if (c.moe_ffn_hidden_size == 0)
    c.moe_ffn_hidden_size = c.ffn_hidden_size;
  if (c.multi_latent_attention && c.num_query_groups != 0 && c.num_query_groups != c.num_attention_heads)
    fail(at("num-query-groups"), "multi-latent attention has no query groups");
  for (const char* key : {"q-lora-rank", "kv-lora-rank", "qk-head-dim", "qk-pos-emb-head-dim", "v-head-dim"})
    if (by.count(key) && not c.multi_latent_attention)
      fail(by.at(key), "needs multi-latent-attention");
  if (c.num_query_groups == 0)
    c.num_query_groups = c.num_attention_heads;
  if (c.num_query_groups > c.num_attention_heads || c.num_attention_heads % c.num_query_groups != 0)
    fail(at("num-query-groups"), "does not divide num-attention-heads " + std::to_string(c.num_attention_heads));
  if (c.kv_channels == 0) {
    if (c.hidden_size % c.num_attention_heads != 0)
      fail(at("num-attention-heads"), "does not divide hidden-size " + std::to_string(c.hidden_size) +
                                          " (give kv-channels for another head size)");
    c.kv_channels = c.hidden_size / c.num_attention_heads;
  }
  if (c.num_attention_heads % tp != 0)
    fail(at("tensor-model-parallel-size"),
         "does not divide num-attention-heads " + std::to_string(c.num_attention_heads));
  if (c.num_query_groups % tp != 0)
    fail(at("tensor-model-parallel-size"), "does not divide num-query-groups " + std::to_string(c.num_query_groups));
  if (auto it = by.find("pipeline-model-parallel-layout"); it != by.end())
    check_layout(c, it->second, by);
  else
    check_stages(c, at);
  if (c.layout_layers.empty())
    c.mtp_rank = pp - 1;
  if (c.padded_vocab_size == 0) { // Megatron's padding: a multiple of make-vocab-size-divisible-by x TP
    uint64_t m          = uint64_t(c.make_vocab_size_divisible_by) * tp;
    c.padded_vocab_size = (c.vocab_size + m - 1) / m * m;
  } else if (c.padded_vocab_size % tp != 0)
    fail(at("padded-vocab-size"), "not a multiple of tensor-model-parallel-size " + std::to_string(tp));
  check_positions(c, by);
  check_context(c, at, by);

  uint64_t model        = uint64_t(tp) * pp * cp;
  const char* model_key = pp > 1   ? "pipeline-model-parallel-size"
                          : tp > 1 ? "tensor-model-parallel-size"
                                   : "context-parallel-size";
  if (gpus > 0) {
    if (gpus % model != 0)
      fail(at(model_key), "tensor x pipeline x context parallel = " + std::to_string(model) + " does not divide the " +
                              std::to_string(gpus) + " GPUs");
    if (c.data_parallel_size > 0 && c.data_parallel_size * model != gpus)
      fail(at("data-parallel-size"),
           "tensor x pipeline x context x data parallel = " + std::to_string(c.data_parallel_size * model) +
               ", not the " + std::to_string(gpus) + " GPUs");
    c.data_parallel_size = uint32_t(gpus / model);
  } else if (c.data_parallel_size == 0) {
    if (file.empty())
      throw UsageError("no GPU count: give --gpus (or --data-parallel-size)");
    throw InputError(file, "", "no GPU count: give --gpus, or data-parallel-size in the description");
  }
  uint64_t per_step = uint64_t(c.micro_batch_size) * c.data_parallel_size;
  if (c.global_batch_size % per_step != 0)
    fail(at("global-batch-size"),
         "not a multiple of micro-batch-size x data-parallel-size = " + std::to_string(per_step));
  if (c.num_layers_per_virtual_pipeline_stage > 0 && c.microbatches() % pp != 0)
    fail(at("num-layers-per-virtual-pipeline-stage"),
         "the interleaved schedule needs the " + std::to_string(c.microbatches()) +
             " micro-batches per replica to be a multiple of pipeline-model-parallel-size " + std::to_string(pp));
  // the schedule sgai prices: every pass of every pipeline rank (a typo in the batch must not run
  // for hours)
  const uint64_t passes = uint64_t(c.microbatches()) * pp * c.virtual_stages();
  if (passes > kMaxPipelinePasses)
    fail(at("global-batch-size"), "makes " + std::to_string(c.microbatches()) + " micro-batches per replica, x " +
                                      std::to_string(pp) + " pipeline stages x " + std::to_string(c.virtual_stages()) +
                                      " virtual stages = " + std::to_string(passes) +
                                      " forward passes to schedule, above " + std::to_string(kMaxPipelinePasses) +
                                      " (sgai's bound)");

  check_experts(c, at, by);
  if (tp == 1)
    c.sequence_parallel = false; // as Megatron-LM: nothing to split
  if (c.tp_comm_overlap && not c.sequence_parallel)
    fail(at("tp-comm-overlap"), "overlapping TP communication needs sequence-parallel (and TP above 1)");
  if ((c.recompute_modules & kMlaUpProj) != 0 && not c.multi_latent_attention)
    fail(at("recompute-modules"), "mla_up_proj needs multi-latent-attention");
  if (c.overlap_param_gather && not c.use_distributed_optimizer)
    fail(at("overlap-param-gather"), "needs use-distributed-optimizer");
  for (const char* key : {"main-grads-dtype", "main-params-dtype", "exp-avg-dtype", "exp-avg-sq-dtype"})
    if (by.count(key) && by.at(key).value != "fp32" && not c.precision_aware_optimizer)
      fail(by.at(key), "needs use-precision-aware-optimizer");
  if (c.precision_aware_optimizer && not c.use_distributed_optimizer)
    fail(at("use-precision-aware-optimizer"), "needs use-distributed-optimizer");
  if (c.fp8_param_gather && c.precision != Precision::fp8)
    fail(at("fp8-param-gather"), "FP8 parameters need fp8-format");
  if (c.use_torch_fsdp2 && c.use_distributed_optimizer)
    fail(at("use-torch-fsdp2"), "FSDP shards the optimizer itself: leave use-distributed-optimizer out");
  uint32_t fewest = c.num_layers;
  for (uint32_t r = 0; r < pp; ++r)
    fewest = std::min(fewest, c.stage_layers(r));
  if (c.recompute_granularity == Recompute::full && c.recompute_num_layers > fewest)
    fail(at("recompute-num-layers"), "more than the " + std::to_string(fewest) + " layers of a stage");
}

} // namespace

const std::vector<std::string>& known_keys()
{
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& [k, apply] : keys())
      n.push_back(k);
    return n;
  }();
  return names;
}

std::vector<Setting> read_settings(const std::filesystem::path& path)
{
  std::string file = path.string();
  std::string text = read_text_file(path);
  auto ext         = path.extension().string();
  bool json =
      ext == ".json" || (ext != ".yaml" && ext != ".yml" && text.find_first_not_of(" \t\r\n") != std::string::npos &&
                         text[text.find_first_not_of(" \t\r\n")] == '{');
  auto settings = json ? json_settings(file, text) : yaml_settings(file, text);
  if (settings.empty()) // (what is missing is then said of the file, not of the command line)
    throw InputError(file, "", "holds no Megatron-LM arguments (num-layers: 24, ...)");
  return settings;
}

TrainingConfig make_config(const std::vector<Setting>& given, uint64_t gpus)
{
  // the last setting of a key wins (the command line's come after the file's); a key twice in one
  // file is an error
  std::map<std::string, Setting> by_key;
  std::vector<std::string> unmodelled;
  std::string old_name; // a recomputation argument of Megatron-LM 2021
  for (const Setting& raw : given) {
    Setting named = raw;
    named.key     = normal_key(named.key);
    if (named.key == "checkpoint-activations" || named.key == "activations-checkpoint-method" ||
        named.key == "activations-checkpoint-num-layers")
      old_name = named.key;
    if (listed(unmodelled_keys(), named.key)) {
      if (std::find(unmodelled.begin(), unmodelled.end(), named.key) == unmodelled.end())
        unmodelled.push_back(named.key);
      if (named.key == "tokenizer-type" && not named.unset) // (its vocabulary, when vocab-size is not given)
        by_key[named.key] = named;
      continue;
    }
    const auto& known = known_keys();
    if (not listed(alias_keys(), named.key) && std::find(known.begin(), known.end(), named.key) == known.end()) {
      std::string message = "unknown key " + quote(raw.key) + " (known: " + json::list_names(known, 60) + ")";
      if (named.file.empty())
        throw UsageError(message);
      throw InputError(named.file, named.place, message);
    }
    if (named.unset)
      continue; // (a known key, not set)
    for (const Setting& s : unalias(named)) {
      auto it = by_key.find(s.key);
      if (it != by_key.end() && not s.file.empty() && it->second.file == s.file)
        throw InputError(s.file, s.place, s.key + " is given twice (also " + it->second.place + ")");
      by_key[s.key] = s;
    }
  }
  TrainingConfig c;
  c.unmodelled = unmodelled;
  for (const auto& [key, apply] : keys())
    if (auto it = by_key.find(key); it != by_key.end())
      apply(c, it->second);
  if (auto it = by_key.find("DDP-impl");
      it != by_key.end() && it->second.value == "torch" && not by_key.count("overlap-grad-reduce"))
    c.overlap_grad_reduce = true;
  // PyTorch's FSDP2 reduce-scatters each unit's gradients during the backward, on a stream of its
  // own, whatever Megatron-LM's overlap-grad-reduce says (its DDP's flag)
  if (c.use_torch_fsdp2 && not by_key.count("overlap-grad-reduce"))
    c.overlap_grad_reduce = true;
  // the description's file, even when it holds only arguments sgai does not model
  std::string file;
  for (const Setting& s : given)
    if (not s.file.empty())
      file = s.file;
  check_config(c, by_key, gpus, file);
  // Megatron-LM renamed these in 2022 (recompute-*); FlashAttention reached it in 2023
  // (use-flash-attn): a script that names them ran Megatron-LM's unfused attention
  if (not old_name.empty() && not by_key.count("attention-backend")) {
    c.fused_attention = false;
    c.notes.push_back("attention-backend unfused: " + old_name +
                      " is Megatron-LM 2021's name, whose attention was unfused (give attention-backend for another)");
  }
  return c;
}

} // namespace sgai::training
