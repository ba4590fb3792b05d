#include "plugins/experiment/component.hpp"

#include "core/foundation/error.hpp"

namespace sgai::experiment {

void ComponentRegistry::add(const std::string& type, const std::string& description, ComponentFactory factory)
{
  entries_[type] = Entry{description, std::move(factory)};
}

std::unique_ptr<Component> ComponentRegistry::create(const json::Value& type, json::Object& options,
                                                     const RunContext& ctx) const
{
  std::string name = type.string();
  auto it          = entries_.find(name);
  if (it == entries_.end()) {
    std::vector<std::string> known;
    for (const auto& [k, v] : entries_)
      known.push_back(k);
    type.fail("unknown component type " + type.shown() + " (known: " + json::list_names(known) + ")");
  }
  return it->second.factory(options, ctx);
}

std::vector<std::pair<std::string, std::string>> ComponentRegistry::describe() const
{
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [k, v] : entries_)
    out.emplace_back(k, v.description);
  return out;
}

const ComponentRegistry& builtin_components()
{
  static const ComponentRegistry registry = [] {
    ComponentRegistry r;
    register_jobs_component(r);
    register_batch_component(r);
    register_replay_component(r);
    register_gpu_cluster_component(r);
    register_aiops_component(r);
    register_training_component(r);
    return r;
  }();
  return registry;
}

} // namespace sgai::experiment
