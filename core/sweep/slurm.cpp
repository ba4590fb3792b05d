#include "core/sweep/slurm.hpp"

#include "core/foundation/error.hpp"
#include "core/foundation/json.hpp"

#include <set>
#include <sstream>

namespace sgai::sweep::slurm {

namespace {

std::string trim(const std::string& s)
{
  size_t a = s.find_first_not_of(" \t\r\n");
  if (a == std::string::npos)
    return "";
  size_t b = s.find_last_not_of(" \t\r\n");
  return s.substr(a, b - a + 1);
}

/** A word for sh in single quotes. */
std::string sh_quote(const std::string& s)
{
  std::string out = "'";
  for (char c : s)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

} // namespace

std::optional<std::string> config_value(const std::string& text, const std::string& key)
{
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    size_t eq = line.find('=');
    if (eq == std::string::npos)
      continue;
    if (trim(line.substr(0, eq)) == key)
      return trim(line.substr(eq + 1));
  }
  return std::nullopt;
}

std::optional<std::string> parsable_job_id(const std::string& out)
{
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    std::string id = trim(line.substr(0, line.find(';')));
    if (not id.empty() && id.find_first_not_of("0123456789") == std::string::npos)
      return id;
  }
  return std::nullopt;
}

std::map<std::string, std::string> queue_states(const std::string& out)
{
  std::map<std::string, std::string> states;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string id, state, extra;
    if (words >> id >> state && not(words >> extra))
      states[id] = state;
  }
  return states;
}

std::map<std::string, std::string> job_states(const std::string& out)
{
  std::map<std::string, std::string> states;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string word, array_job, task, state;
    while (words >> word) {
      size_t eq = word.find('=');
      if (eq == std::string::npos)
        continue;
      std::string k = word.substr(0, eq), v = word.substr(eq + 1);
      if (k == "ArrayJobId")
        array_job = v;
      else if (k == "ArrayTaskId")
        task = v;
      else if (k == "JobState")
        state = v;
    }
    if (not array_job.empty() && not task.empty() && not state.empty())
      states[array_job + "_" + task] = state;
  }
  return states;
}

bool in_flight(const std::string& state)
{
  static const std::set<std::string> live{"PENDING",   "RUNNING",      "CONFIGURING", "COMPLETING",
                                          "SUSPENDED", "REQUEUED",     "RESIZING",    "SIGNALING",
                                          "STAGE_OUT", "REQUEUE_HOLD", "REQUEUE_FED"};
  return live.count(state) != 0;
}

std::string wrapper_script(const std::string& sgai, const std::string& runs_dir, const std::string& base_dir)
{
  std::string s = "#!/bin/sh\n"
                  "# sgai sweep's Slurm array task (written by sgai sweep run --runner slurm): runs line\n"
                  "# SLURM_ARRAY_TASK_ID+1 of the chunk file given, then writes its result.json whole.\n";
  s += "SGAI=" + sh_quote(sgai) + "\nRUNS=" + sh_quote(runs_dir) + "\nBASE=" + sh_quote(base_dir) + "\n";
  s += R"SH(id=$(sed -n "$((SLURM_ARRAY_TASK_ID + 1))p" "$1")
case "$id" in ''|*[!0-9]*) echo "sgai task: no run on line $((SLURM_ARRAY_TASK_ID + 1)) of $1" >&2; exit 2 ;; esac
dir="$RUNS/$id"
started=$(date +%s.%N)
"$SGAI" run "$dir/experiment.json" --out "$dir/out" --base-dir "$BASE" >"$dir/log.txt" 2>&1
status=$?
ended=$(date +%s.%N)
tmp="$dir/.result.json.$SLURM_JOB_ID"
printf '{"exit_status": %d, "task": "%s_%s", "host": "%s", "started": %s, "ended": %s}\n' \
  "$status" "$SLURM_ARRAY_JOB_ID" "$SLURM_ARRAY_TASK_ID" "$(hostname)" "$started" "$ended" >"$tmp" &&
  mv -f "$tmp" "$dir/result.json"
)SH";
  return s;
}

std::optional<TaskResult> parse_result(const std::string& text)
{
  try {
    auto doc = json::parse(text, "result.json");
    if (not doc.value().is_object())
      return std::nullopt;
    auto o      = doc.object();
    auto status = o.optional("exit_status");
    if (not status || not status->is_integer())
      return std::nullopt;
    TaskResult r;
    r.exit_status = status->integer();
    if (auto v = o.optional("task"); v && v->is_string())
      r.task = v->string();
    if (auto v = o.optional("started"); v && v->is_number())
      r.started = v->number();
    if (auto v = o.optional("ended"); v && v->is_number())
      r.ended = v->number();
    return r;
  } catch (const InputError&) { // not JSON: a task that died while writing it, or no sgai task's
    return std::nullopt;
  }
}

} // namespace sgai::sweep::slurm
