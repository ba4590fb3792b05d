#include "plugins/sim/simulation.hpp"

#include "core/foundation/child.hpp"

#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "core/foundation/signals.hpp"
#include "generators/platform/legacy_xml.hpp"
#include "plugins/platform_sim/builder.hpp"

#include <simgrid/plugins/energy.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <xbt/config.hpp>
#include <xbt/log.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

XBT_LOG_NEW_CATEGORY(sgai, "sgai: simulation of HPC and AI machines");
XBT_LOG_NEW_DEFAULT_SUBCATEGORY(sgai_sim, sgai, "sgai engine set-up");

namespace sgai::sim {

namespace {

/** SimGrid aborts on some XML errors (xbt_assert); while loading a user's XML, an abort becomes
 *  one error line and exit status 1 instead of a core dump. */
const char* g_loading_file = nullptr;
const char* g_loading_what = "platform";

void abort_while_loading(int)
{
  const char* prefix = "sgai: error: SimGrid rejected the ";
  ssize_t ignored    = ::write(2, prefix, std::strlen(prefix));
  ignored            = ::write(2, g_loading_what, std::strlen(g_loading_what));
  ignored            = ::write(2, " file ", 6);
  if (g_loading_file)
    ignored = ::write(2, g_loading_file, std::strlen(g_loading_file));
  const char* suffix = " (see SimGrid's message above)\n";
  sgai::cleanup_registered(); // staging folders and temporary files of this run
  ignored = ::write(2, suffix, std::strlen(suffix));
  (void)ignored;
  ::_exit(1);
}

class AbortGuard {
public:
  explicit AbortGuard(const std::string& file, const char* what = "platform")
      : file_(file)
  {
    g_loading_file = file_.c_str();
    g_loading_what = what;
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

/** A rejected SimGrid option: bad input when it came from a file, a usage error (exit 2) when it
 *  came from the command line. */
[[noreturn]] void reject_option(const SimulationOptions& o, size_t index, const std::string& message)
{
  const std::string hint = " (sgai --cfg=help lists SimGrid's options)";
  if (index < o.file_args)
    throw InputError(o.args_file, "at /simgrid",
                     "SimGrid option " + quote(o.simgrid_args[index]) + ": " + message + hint);
  throw UsageError("command line: " + o.simgrid_args[index] + ": " + message + hint);
}

std::string cfg_key(const std::string& arg)
{
  auto body = arg.substr(6);
  return body.substr(0, body.find(':'));
}

/** The form name:value, and the model names SimGrid aborts on (the Constant and ns-3 network
 *  models are not usable with Debian's SimGrid 3.32), checked without SimGrid. */
void check_cfg_forms(const SimulationOptions& o)
{
  const std::vector<std::pair<std::string, std::vector<std::string>>> allowed = {
      {"network/model", {"LV08", "CM02", "SMPI", "IB"}},
      {"cpu/model", {"Cas01"}},
      {"host/model", {"default", "compound", "ptask_L07"}}};
  for (size_t i = 0; i < o.simgrid_args.size(); i++) {
    const auto& a = o.simgrid_args[i];
    if (a.rfind("--cfg=", 0) != 0)
      continue;
    auto colon = a.find(':');
    if (colon == std::string::npos || colon == 6 || colon + 1 == a.size())
      reject_option(o, i, "expected --cfg=name:value");
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
        reject_option(o, i, "unknown " + key + " " + quote(val) + " (expected one of: " + list + ")");
    }
  }
}

/** Runs `body` in a forked child with its standard output and error captured (SimGrid reports a
 *  bad option by aborting the process, so options are tried there first). Returns the child's
 *  output, followed by an "sgai-exception: " line with its exception's text when it threw; `ok`
 *  says whether it exited 0. No output when no child could be made. */
std::string in_child(const std::function<void()>& body, bool& ok)
{
  ok = false;
  ChildOptions options;
  options.capture_output = true;
  options.default_abort  = true;
  options.what           = "a SimGrid check";
  ChildResult r;
  try {
    r = run_in_child(
        [&body]() {
          body();
          return std::string();
        },
        options);
  } catch (const RunError&) {
    return "";
  }
  ok = r.exited_ok();
  if (r.threw())
    r.output += "\nsgai-exception: " + r.error_what() + "\n";
  return r.output;
}

/** SimGrid's words without its decoration: the text of CRITICAL lines (and the lines of a
 *  multi-line message after them), no backtrace, no time stamps. */
std::string simgrid_message(const std::string& output)
{
  std::istringstream in(output);
  std::string line, message;
  auto thrown = output.rfind("sgai-exception: "); // SimGrid threw: its exception's text
  if (thrown != std::string::npos) {
    message = output.substr(thrown + 16);
    return message.substr(0, message.find('\n'));
  }
  bool inside = false;
  while (std::getline(in, line)) {
    if (line.rfind("Backtrace", 0) == 0 || line.find("->") != std::string::npos)
      break;
    auto crit = line.find("CRITICAL] ");
    if (crit != std::string::npos) {
      inside = true;
      line   = line.substr(crit + 10);
    } else if (not inside)
      continue;
    if (not line.empty())
      message += (message.empty() ? "" : " ") + line;
  }
  if (message.empty()) { // an exception's text, the last non-INFO line
    std::istringstream again(output);
    while (std::getline(again, line))
      if (not line.empty() && line.find("/INFO]") == std::string::npos)
        message = line;
  }
  return message;
}

/** Tries the --cfg options in a child Engine and reports the first SimGrid rejects, naming it. */
void check_cfg_in_child(const SimulationOptions& o)
{
  std::vector<std::string> args = {"sgai"};
  std::vector<size_t> index;
  for (size_t i = 0; i < o.simgrid_args.size(); i++)
    if (o.simgrid_args[i].rfind("--cfg=", 0) == 0) {
      args.push_back(o.simgrid_args[i]);
      index.push_back(i);
    }
  if (index.empty())
    return;
  bool ok    = false;
  auto words = in_child(
      [&args]() {
        std::vector<char*> argv;
        for (auto& a : args)
          argv.push_back(a.data());
        argv.push_back(nullptr);
        int argc = static_cast<int>(args.size());
        simgrid::s4u::Engine e(&argc, argv.data());
      },
      ok);
  if (ok)
    return;
  // The failing option: the last one SimGrid said it was setting, else the one its message names.
  size_t failing = index.back();
  size_t best    = std::string::npos;
  for (size_t k = 0; k < index.size(); k++) {
    auto key = cfg_key(o.simgrid_args[index[k]]);
    if (words.find("Set '" + key + "'") != std::string::npos) {
      auto at = words.rfind("Set '" + key + "'");
      if (best == std::string::npos || at > best) {
        best    = at;
        failing = index[k];
      }
    }
  }
  if (best == std::string::npos)
    for (size_t k = 0; k < index.size(); k++)
      if (words.find("'" + cfg_key(o.simgrid_args[index[k]]) + "'") != std::string::npos) {
        failing = index[k];
        break;
      }
  auto message = simgrid_message(words);
  reject_option(o, failing, "SimGrid rejects it" + (message.empty() ? std::string() : ": " + message));
}

/** SimGrid's XML loader recurses once per nested element and overflows its stack past a few
 *  thousand levels (a crash, not an error); real platforms nest fewer than ten. */
void check_xml_nesting(const std::string& text, const std::string& file)
{
  constexpr int most = 200;
  int depth = 0, line = 1;
  for (size_t i = 0; i < text.size(); i++) {
    if (text[i] == '\n')
      line++;
    if (text[i] != '<' || i + 1 >= text.size())
      continue;
    char next = text[i + 1];
    if (next == '/') {
      depth--;
      continue;
    }
    if (next == '?' || next == '!')
      continue;
    auto close = text.find('>', i);
    if (close == std::string::npos)
      return; // malformed: SimGrid's parser reports it
    if (text[close - 1] != '/' && ++depth > most)
      throw InputError(file, "line " + std::to_string(line),
                       "elements nested more than " + std::to_string(most) +
                           " deep: SimGrid's loader would overflow its stack (real platforms nest a few levels)");
  }
}

/** The place of the option SimGrid's message names ("Bad config key: K", the option of a <config>
 *  element SimGrid does not have): "line N" of its first id="K" in the text; empty otherwise. */
std::string option_place(const std::string& message, const std::string& text)
{
  const std::string marker = "Bad config key: ";
  auto at                  = message.find(marker);
  if (at == std::string::npos)
    return "";
  auto key = message.substr(at + marker.size());
  key      = key.substr(0, key.find_first_of(" '\"\n"));
  if (key.empty())
    return "";
  for (const char* q : {"\"", "'"}) {
    auto pos = text.find(std::string("id=") + q + key + q);
    if (pos != std::string::npos)
      return "line " +
             std::to_string(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(pos), '\n') + 1);
  }
  return "";
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

namespace {

/** Whether a log category exists: sgai's own, or one SimGrid's library defines (each is a symbol
 *  _simgrid_log_category__NAME there). SimGrid silently keeps settings of unknown categories. */
bool known_log_category(const std::string& name)
{
  static const std::set<std::string> ours = {"root",      "sgai",        "sgai_batch", "sgai_experiment",
                                             "sgai_jobs", "sgai_replay", "sgai_sim",   "sgai_gpu_manager"};
  if (ours.count(name) > 0)
    return true;
  std::string symbol = "_simgrid_log_category__" + name;
  return ::dlsym(RTLD_DEFAULT, symbol.c_str()) != nullptr;
}

} // namespace

void check_log_setting(const std::string& setting)
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
      throw UsageError("command line: bad --log setting " + quote(token) + ": " + why +
                       " (expected category.thres:priority, e.g. sgai_batch.thres:debug)");
    };
    if (colon == std::string::npos || dot == std::string::npos || dot == 0 || colon + 1 == token.size())
      reject("not of the form category.option:value");
    std::string option = token.substr(dot + 1, colon - dot - 1);
    if (not known_log_category(token.substr(0, dot)))
      reject("unknown category " + quote(token.substr(0, dot)) +
             " (sgai's: sgai, sgai_batch, sgai_experiment, "
             "sgai_gpu_manager, sgai_jobs, sgai_replay, sgai_sim; or one of SimGrid's)");
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
    throw UsageError("command line: empty --log setting");
}

void print_simgrid_options()
{
  bool ok    = false;
  auto words = in_child(
      []() {
        std::string name = "sgai";
        char* argv[]     = {name.data(), nullptr};
        int argc         = 1;
        simgrid::s4u::Engine e(&argc, argv);
        simgrid::config::help();
      },
      ok);
  std::cout << words;
  if (not ok)
    throw RunError("SimGrid could not list its options");
}

Simulation::Simulation(const SimulationOptions& options)
{
  check_cfg_forms(options);
  check_cfg_in_child(options);
  host_energy_ = options.host_energy;
  argv_storage_.emplace_back("sgai");
  // The energy plugins report every host and link at the end at INFO level; sgai writes these
  // figures to files instead. Users can turn the reports back on with --log=host_energy.thres:info.
  // SimGrid parses --log only when the first engine of a process starts, so sgai applies them
  // itself (the settings stay for the process, as in SimGrid).
  // Hosts without wattage_per_state get one warning each from the plugin (512 lines on Batsim's
  // cluster512.xml); sgai says it once in the run's summary instead, so warnings are off too.
  std::vector<std::string> logs = {"host_energy.thres:error", "link_energy.thres:error"};
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
  } catch (const std::exception& e) { // tried in a child already: only if that could not run
    std::string what = e.what();
    throw UsageError("command line: bad SimGrid option: " + what.substr(0, what.find('\n')) +
                     " (sgai --cfg=help lists SimGrid's options)");
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
    auto text = read_text_file(file);
    check_xml_nesting(text, file.string());
    if (host_energy_)
      platform::check_xml_wattage(text, file.string());
    auto translated =
        platform::translate_legacy_xml(text, notes, [this](const std::string& key) { return user_sets(key); });
    if (translated) {
      to_load = std::filesystem::temp_directory_path() /
                ("sgai-" + std::to_string(::getpid()) + "-" + file.filename().string());
      register_cleanup(to_load); // removed on interruption or SimGrid's abort too
      write_file_atomically(to_load, *translated);
      // what the translation changed, and apart what the run's own options override
      std::string said, kept;
      for (const auto& n : notes) {
        std::string& to = n.rfind("kept the run's own ", 0) == 0 ? kept : said;
        to += (to.empty() ? "" : "; ") + n;
      }
      if (not said.empty())
        XBT_INFO("%s: translated for SimGrid 3.32: %s", file.string().c_str(), said.c_str());
      if (not kept.empty())
        XBT_INFO("%s: its <config>: %s", file.string().c_str(), kept.c_str());
    }
    AbortGuard guard(file.string());
    struct Cleanup {
      std::filesystem::path path;
      bool active;
      ~Cleanup()
      {
        std::error_code ec;
        if (active) {
          std::filesystem::remove(path, ec);
          unregister_cleanup(path);
        }
      }
    } cleanup{to_load, translated.has_value()};
    // SimGrid aborts on some XML errors after printing a backtrace: the file is loaded in a forked
    // child first, and what makes it abort or throw there becomes one error line here (without the
    // warnings SimGrid printed on the way, such as those of Batsim's graphene.xml).
    load_checked(file.string(), text, "platform", [&]() { engine_->load_platform(to_load.string()); });
    return std::nullopt;
  }
  platform::Platform p = platform::generate(file, options);
  build_platform(p);
  return p;
}

void Simulation::load_deployment(const std::filesystem::path& file)
{
  std::error_code ec;
  if (not std::filesystem::is_regular_file(file, ec))
    throw InputError(file.string(), "", "no such deployment file");
  auto text = read_text_file(file);
  check_xml_nesting(text, file.string());
  AbortGuard guard(file.string(), "deployment");
  // SimGrid aborts on an unknown host or function: tried in a forked child first, as platforms are
  load_checked(file.string(), text, "deployment", [&]() { engine_->load_deployment(file.string()); });
}

void Simulation::load_checked(const std::string& file, const std::string& text, const char* what,
                              const std::function<void()>& load)
{
  bool loads = false;
  auto words = in_child(load, loads);
  if (not loads && not words.empty()) { // (no words: the child could not run; load here)
    auto message = simgrid_message(words);
    throw InputError(file, option_place(message, text),
                     std::string("SimGrid cannot load this ") + what +
                         (message.empty() ? std::string() : ": " + message));
  }
  try {
    load();
  } catch (const std::exception& e) {
    broken_       = true; // SimGrid's state is half-built: do not tear it down
    std::string w = e.what();
    w             = w.substr(0, w.find('\n'));
    throw InputError(file, option_place(w, text), std::string("SimGrid cannot load this ") + what + ": " + w);
  }
}

bool Simulation::user_sets(const std::string& key) const
{
  for (const auto& a : argv_storage_)
    if (a.rfind("--cfg=" + key + ":", 0) == 0)
      return true;
  return false;
}

void Simulation::build_platform(const platform::Platform& p)
{
  AbortGuard guard(p.source_file);
  if (not p.gpus.empty() && not user_sets("network/model")) {
    // (set_value, not set_config: no "Configuration change" line for a default)
    simgrid::config::set_value<std::string>("network/model", "CM02");
    if (not user_sets("network/crosstraffic"))
      simgrid::config::set_value<bool>("network/crosstraffic", false);
  }
  platform_sim::build(p);
}

std::string Simulation::network_model() const
{
  return simgrid::config::get_value<std::string>("network/model");
}

double Simulation::run()
{
  engine_->run();
  if (deadlock_)
    throw RunError("the simulation deadlocked: some actors are still blocked (see SimGrid's report above)");
  return simgrid::s4u::Engine::get_clock();
}

} // namespace sgai::sim
