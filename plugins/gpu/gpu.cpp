#include "plugins/gpu/gpu.hpp"

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <xbt/Extendable.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace sgai::gpu {

namespace {

/** The GPU model as a host extension (xbt::Extendable). */
struct GpuExtension {
  static simgrid::xbt::Extension<simgrid::s4u::Host, GpuExtension> EXTENSION_ID;
  GpuModel model;
};
simgrid::xbt::Extension<simgrid::s4u::Host, GpuExtension> GpuExtension::EXTENSION_ID;

double number_property(const simgrid::s4u::Host* host, const char* name)
{
  const char* v = host->get_property(name);
  return v ? std::strtod(v, nullptr) : 0;
}

/** A whole positive number (strtod's form) or nothing. */
bool positive(const std::string& text, double& value)
{
  const char* begin = text.c_str();
  char* end         = nullptr;
  value             = std::strtod(begin, &end);
  return end != begin && *end == '\0' && std::isfinite(value) && value > 0;
}

[[noreturn]] void bad_property(const simgrid::s4u::Host* host, const std::string& key, const std::string& value,
                               const char* what)
{
  throw std::invalid_argument("host " + host->get_name() + ": property " + key + "='" + value + "' is not " + what);
}

} // namespace

bool GpuModel::described(const simgrid::s4u::Host* host)
{
  if (const auto* props = host->get_properties())
    for (const auto& [key, value] : *props)
      if (key == "sgai_gpu_type" || key.rfind("sgai_peak_flops_", 0) == 0 || key == "sgai_memory_bandwidth_Bps")
        return true;
  return false;
}

void GpuModel::check_properties(const simgrid::s4u::Host* host)
{
  const auto* props = host->get_properties();
  if (props == nullptr)
    return;
  double v = 0;
  for (const auto& [key, value] : *props) {
    if (key.rfind("sgai_peak_flops_", 0) == 0 || key == "sgai_memory_bandwidth_Bps" || key == "sgai_memory_bytes") {
      if (not positive(value, v))
        bad_property(host, key, value, "a positive number");
    } else if (key == "sgai_pstate_memory_speeds") {
      size_t from = 0;
      while (true) {
        size_t comma     = value.find(',', from);
        std::string item = value.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
        if (not positive(item, v) || v > 1)
          bad_property(host, key, value, "a comma-separated list of fractions in (0, 1]");
        if (comma == std::string::npos)
          break;
        from = comma + 1;
      }
    }
  }
}

double GpuModel::peak(const std::string& p) const
{
  if (auto it = peak_flops.find(p.empty() ? precision : p); it != peak_flops.end())
    return it->second;
  if (auto it = peak_flops.find(precision); it != peak_flops.end())
    return it->second;
  return peak_flops.empty() ? 0 : peak_flops.begin()->second;
}

const GpuModel& GpuModel::of(simgrid::s4u::Host* host)
{
  if (not GpuExtension::EXTENSION_ID.valid())
    GpuExtension::EXTENSION_ID = simgrid::s4u::Host::extension_create<GpuExtension>();
  if (auto* e = host->extension<GpuExtension>())
    return e->model;
  auto* e     = new GpuExtension();
  GpuModel& m = e->model;
  if (const char* t = host->get_property("sgai_gpu_type"))
    m.type = t;
  if (const char* p = host->get_property("sgai_gpu_precision"))
    m.precision = p;
  if (const auto* props = host->get_properties())
    for (const auto& [key, value] : *props)
      if (key.rfind("sgai_peak_flops_", 0) == 0)
        m.peak_flops[key.substr(std::strlen("sgai_peak_flops_"))] = std::strtod(value.c_str(), nullptr);
  if (m.peak_flops.empty()) {
    m.precision          = "host";
    m.peak_flops["host"] = host->get_pstate_speed(0) * host->get_core_count();
  }
  m.mem_bw_Bps   = number_property(host, "sgai_memory_bandwidth_Bps");
  m.memory_bytes = number_property(host, "sgai_memory_bytes");
  if (const char* v = host->get_property("sgai_pstate_memory_speeds")) {
    const char* p = v;
    while (*p != '\0') {
      char* end = nullptr;
      m.memory_speeds.push_back(std::strtod(p, &end));
      if (end == p)
        break;
      p = *end == ',' ? end + 1 : end;
    }
  }
  host->extension_set(e);
  return m;
}

double GpuModel::compute_speed(const simgrid::s4u::Host* host, unsigned long p)
{
  double base = host->get_pstate_speed(0);
  return base > 0 ? host->get_pstate_speed(p) / base : 1;
}

double GpuModel::memory_speed(unsigned long p) const
{
  return p < memory_speeds.size() && memory_speeds[p] > 0 ? memory_speeds[p] : 1;
}

} // namespace sgai::gpu

extern "C" void sgai_gpu_plugin_init(void)
{
  static bool on = false;
  if (on)
    return;
  on = true;
  simgrid::s4u::Engine::on_platform_created_cb([]() {
    for (auto* host : simgrid::s4u::Engine::get_instance()->get_all_hosts())
      if (sgai::gpu::GpuModel::described(host)) {
        sgai::gpu::GpuModel::check_properties(host);
        sgai::gpu::GpuModel::of(host);
      }
  });
}
