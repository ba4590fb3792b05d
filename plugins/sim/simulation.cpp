#include "plugins/sim/simulation.hpp"

#include "generators/platform/legacy_xml.hpp"
#include "generators/platform/sim/builder.hpp"
#include "generators/util/error.hpp"
#include "generators/util/files.hpp"

#include <simgrid/plugins/energy.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <xbt/log.h>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <unistd.h>

XBT_LOG_NEW_CATEGORY(sgai, "sgai: simulation of HPC and AI machines");
XBT_LOG_NEW_DEFAULT_SUBCATEGORY(sgai_sim, sgai, "sgai engine set-up");

namespace sgai::sim {

namespace {

/** SimGrid aborts on some XML errors (xbt_assert); while loading a user's XML, an abort becomes
 *  one error line and exit status 1 instead of a core dump. */
const char* g_loading_file = nullptr;

void abort_while_loading(int)
{
  const char* prefix = "sgai: error: SimGrid rejected the platform file ";
  ssize_t ignored    = ::write(2, prefix, std::strlen(prefix));
  if (g_loading_file)
    ignored = ::write(2, g_loading_file, std::strlen(g_loading_file));
  const char* suffix = " (see SimGrid's message above)\n";
  ignored            = ::write(2, suffix, std::strlen(suffix));
  (void)ignored;
  ::_exit(1);
}

class AbortGuard {
public:
  explicit AbortGuard(const std::string& file)
      : file_(file)
  {
    g_loading_file = file_.c_str();
    struct sigaction sa {};
    sa.sa_handler = abort_while_loading;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGABRT, &sa, &previous_);
  }
  AbortGuard(const AbortGuard&)            = delete;
  AbortGuard& operator=(const AbortGuard&) = delete;
  ~AbortGuard()
  {
    sigaction(SIGABRT, &previous_, nullptr);
    g_loading_file = nullptr;
  }

private:
  std::string file_;
  struct sigaction previous_ {};
};

/** SimGrid aborts on unknown model names when the platform is built; check them up front. The
 *  Constant and ns-3 network models are not usable with Debian's SimGrid 3.32. */
void check_models(const std::vector<std::string>& args)
{
  const std::vector<std::pair<std::string, std::vector<std::string>>> allowed = {
      {"network/model", {"LV08", "CM02", "SMPI", "IB"}},
      {"cpu/model", {"Cas01"}},
      {"host/model", {"default", "compound", "ptask_L07"}}};
  for (const auto& a : args) {
    if (a.rfind("--cfg=", 0) != 0)
      continue;
    auto colon = a.find(':');
    if (colon == std::string::npos)
      continue;
    std::string key = a.substr(6, colon - 6);
    std::string val = a.substr(colon + 1);
    for (const auto& [k, values] : allowed) {
      if (k != key)
        continue;
      bool ok = false;
      std::string list;
      for (const auto& v : values) {
        ok = ok || v == val;
        list += (list.empty() ? "" : ", ") + v;
      }
      if (not ok)
        throw InputError("command line", "",
                         "unknown " + key + " " + quote(val) + " in " + quote(a) + " (expected one of: " + list + ")");
    }
  }
}

} // namespace

bool is_xml_platform(const std::filesystem::path& file)
{
  auto ext = file.extension().string();
  if (ext == ".xml")
    return true;
  if (ext == ".json")
    return false;
  std::ifstream in(file);
  char c = 0;
  while (in.get(c))
    if (not std::isspace(static_cast<unsigned char>(c)))
      return c == '<';
  return false;
}

/** SimGrid aborts on a malformed --log; sgai checks the syntax first (category.option:value). */
static void check_log_setting(const std::string& setting)
{
  static const std::set<std::string> options    = {"thres", "threshold", "add", "additivity",
                                                   "app",   "appender",  "fmt", "format"};
  static const std::set<std::string> priorities = {"trace", "debug", "verbose", "info", "warning", "error", "critical"};
  std::istringstream in(setting);
  std::string token;
  bool any = false;
  while (in >> token) {
    any         = true;
    auto colon  = token.find(':');
    auto dot    = token.substr(0, colon).rfind('.');
    auto reject = [&](const std::string& why) {
      throw InputError("command line", "",
                       "bad --log setting " + quote(token) + ": " + why +
                           " (expected category.thres:priority, e.g. sgai_batch.thres:debug)");
    };
    if (colon == std::string::npos || dot == std::string::npos || dot == 0 || colon + 1 == token.size())
      reject("not of the form category.option:value");
    std::string option = token.substr(dot + 1, colon - dot - 1);
    if (options.count(option) == 0)
      reject("unknown option " + quote(option));
    if (option.rfind("thres", 0) == 0) {
      std::string value = token.substr(colon + 1);
      std::transform(value.begin(), value.end(), value.begin(), [](unsigned char c) { return std::tolower(c); });
      if (priorities.count(value) == 0)
        reject("unknown priority (trace, debug, verbose, info, warning, error, critical)");
    }
  }
  if (not any)
    throw InputError("command line", "", "empty --log setting");
}

Simulation::Simulation(const SimulationOptions& options)
{
  check_models(options.simgrid_args);
  argv_storage_.emplace_back("sgai");
  // The energy plugins report every host and link at the end at INFO level; sgai writes these
  // figures to files instead. Users can turn the reports back on with --log=host_energy.thres:info.
  // SimGrid parses --log only when the first engine of a process starts, so sgai applies them
  // itself (the settings stay for the process, as in SimGrid).
  std::vector<std::string> logs = {"host_energy.thres:warning", "link_energy.thres:warning"};
  for (const auto& a : options.simgrid_args) {
    if (a.rfind("--log=", 0) == 0) {
      check_log_setting(a.substr(6));
      logs.push_back(a.substr(6));
    } else
      argv_storage_.push_back(a);
  }
  for (auto& s : argv_storage_)
    argv_.push_back(s.data());
  argv_.push_back(nullptr);
  argc_ = static_cast<int>(argv_storage_.size());
  try {
    engine_ = std::make_unique<simgrid::s4u::Engine>(&argc_, argv_.data());
  } catch (const std::exception& e) {
    std::string what = e.what();
    throw InputError("command line", "",
                     "bad SimGrid option: " + what.substr(0, what.find('\n')) +
                         " (sgai ... --cfg=help lists SimGrid's options)");
  }
  if (argc_ > 1)
    throw InputError("command line", "", std::string("unknown SimGrid argument ") + quote(argv_[1]));
  for (const auto& l : logs)
    xbt_log_control_set(l.c_str());
  if (options.host_energy)
    sg_host_energy_plugin_init();
  if (options.link_energy)
    sg_link_energy_plugin_init();
  simgrid::s4u::Engine::on_deadlock_cb([this]() { deadlock_ = true; });
}

Simulation::~Simulation()
{
  if (broken_)
    (void)engine_.release(); // destroying a half-loaded Engine crashes SimGrid 3.32; the process is ending
}

simgrid::s4u::Engine& Simulation::engine()
{
  return *engine_;
}

std::optional<platform::Platform> Simulation::load_platform(const std::filesystem::path& file,
                                                            const platform::LoadOptions& options)
{
  std::error_code ec;
  if (not std::filesystem::exists(file, ec))
    throw InputError(file.string(), "", "no such platform file");
  if (is_xml_platform(file)) {
    // Older Batsim/SimGrid XML is translated to a temporary file first.
    std::filesystem::path to_load = file;
    std::vector<std::string> notes;
    auto translated = platform::translate_legacy_xml(read_text_file(file), notes);
    if (translated) {
      to_load = std::filesystem::temp_directory_path() /
                ("sgai-" + std::to_string(::getpid()) + "-" + file.filename().string());
      write_file_atomically(to_load, *translated);
      for (const auto& n : notes)
        XBT_INFO("%s: legacy XML translated: %s", file.string().c_str(), n.c_str());
    }
    AbortGuard guard(file.string());
    struct Cleanup {
      std::filesystem::path path;
      bool active;
      ~Cleanup()
      {
        std::error_code ec;
        if (active)
          std::filesystem::remove(path, ec);
      }
    } cleanup{to_load, translated.has_value()};
    try {
      engine_->load_platform(to_load.string());
    } catch (const std::exception& e) {
      broken_          = true; // SimGrid's state is half-built: do not tear it down
      std::string what = e.what();
      throw InputError(file.string(), "", "SimGrid cannot load this platform: " + what.substr(0, what.find('\n')));
    }
    return std::nullopt;
  }
  platform::Platform p = platform::generate(file, options);
  build_platform(p);
  return p;
}

void Simulation::build_platform(const platform::Platform& p)
{
  AbortGuard guard(p.source_file);
  platform::build(p);
}

double Simulation::run()
{
  engine_->run();
  if (deadlock_)
    throw RunError("the simulation deadlocked: some actors are still blocked (see SimGrid's report above)");
  return simgrid::s4u::Engine::get_clock();
}

} // namespace sgai::sim
