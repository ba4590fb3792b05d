#include "core/aiops/synth.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace sgai::aiops {

Synthesizer::Synthesizer(Model m)
    : model_(std::move(m))
{
  const char* missing = not model_.arrivals     ? "arrivals"
                        : not model_.assets     ? "assets"
                        : not model_.training   ? "training"
                        : not model_.preprocess ? "preprocess"
                        : not model_.models     ? "models"
                                                : nullptr;
  if (missing != nullptr)
    throw std::invalid_argument(std::string("the model files give no \"") + missing +
                                "\" section, which a run needs (deploy/aiops/default-model.json has them all)");
  double total = 0;
  for (const auto& [name, f] : model_.training->frameworks) {
    names_.push_back(name);
    total += f.share;
    cumulative_.push_back(total);
  }
  for (double& c : cumulative_)
    c /= total;
}

Asset Synthesizer::asset(std::mt19937_64& rng) const
{
  const AssetModel& a = *model_.assets;
  Asset x;
  for (int tries = 0; tries < 1000; ++tries) {
    auto v    = a.mixture.sample(rng);
    x.rows    = std::round(std::exp(v[0]));
    x.columns = std::round(std::exp(v[1]));
    x.bytes   = std::round(std::exp(v[2]));
    if (x.rows >= a.min_rows && x.columns >= a.min_columns && x.bytes >= 1 && x.bytes <= 1e15)
      return x;
  }
  // a mixture whose mass lies below the bounds: keep the last draw at the bounds
  x.rows    = std::max(x.rows, a.min_rows);
  x.columns = std::max(x.columns, a.min_columns);
  x.bytes   = std::clamp(x.bytes, 1.0, 1e15);
  return x;
}

size_t Synthesizer::framework(std::mt19937_64& rng) const
{
  double u = std::uniform_real_distribution<double>(0, 1)(rng);
  auto it  = std::upper_bound(cumulative_.begin(), cumulative_.end(), u);
  return std::min(size_t(it - cumulative_.begin()), cumulative_.size() - 1);
}

double Synthesizer::train_seconds(size_t framework, std::mt19937_64& rng) const
{
  return std::exp(model_.training->frameworks.at(names_.at(framework)).log_seconds.sample(rng)[0]);
}

double Synthesizer::preprocess_seconds(double bytes, std::mt19937_64& rng) const
{
  const PreprocessModel& p = *model_.preprocess;
  double noise             = p.sigma > 0 ? std::lognormal_distribution<double>(0, p.sigma)(rng) : 1.0;
  // a curve that overflows for huge assets is capped at a year
  return std::min(p.a * std::exp(p.b * bytes), 365 * 86400.0) * noise;
}

double Synthesizer::compress_seconds(double train_seconds, std::mt19937_64& rng) const
{
  double noise = model_.tasks ? model_.tasks->compress_noise : 0.1;
  double f     = noise > 0 ? std::normal_distribution<double>(1, noise)(rng) : 1.0;
  return train_seconds * std::max(0.1, f);
}

bool Synthesizer::knows(const std::string& kind) const
{
  return kind == "preprocess" || kind == "train" || kind == "compress" ||
         (model_.tasks && model_.tasks->log_seconds.count(kind) > 0);
}

double Synthesizer::kind_seconds(const std::string& kind, std::mt19937_64& rng) const
{
  return std::exp(model_.tasks->log_seconds.at(kind).sample(rng)[0]);
}

double Synthesizer::model_bytes(std::mt19937_64& rng) const
{
  return std::round(std::exp(model_.models->log_bytes.sample(rng)[0]));
}

double Synthesizer::metric(std::mt19937_64& rng) const
{
  const ModelAssetModel& m = *model_.models;
  double v = m.metric_sd > 0 ? std::normal_distribution<double>(m.metric_mean, m.metric_sd)(rng) : m.metric_mean;
  return std::clamp(v, 0.0, 1.0);
}

} // namespace sgai::aiops
