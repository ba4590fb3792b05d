#include "plugins/batch/history.hpp"

#include "core/foundation/files.hpp"
#include "core/foundation/json_writer.hpp"
#include "core/foundation/numbers.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

namespace sgai::batch {

namespace {

constexpr double kNoFigure = std::numeric_limits<double>::quiet_NaN(); ///< an energy figure that cannot be had

std::string csv_field(const std::string& s)
{
  if (s.find_first_of(",\"\n") == std::string::npos)
    return s;
  std::string out = "\"";
  for (char c : s)
    out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

} // namespace

std::vector<std::pair<std::string, double>> schedule_figures(const History& m, const workload::Workload& w,
                                                             const scheduling::Resources& res)
{
  std::map<FinalState, double> by_state;
  double makespan_end = 0, wait_sum = 0, wait_max = 0, turn_sum = 0, turn_max = 0, slow_sum = 0, slow_max = 0;
  double bsld_sum = 0, busy_core_seconds = 0, jobs_energy = 0;
  size_t finished = 0;
  for (size_t i = 0; i < m.records.size(); i++) {
    const auto& r = m.records[i];
    by_state[r.state]++;
    if (r.state == FinalState::rejected || r.start_s < 0)
      continue;
    const auto& j     = w.jobs[i];
    double wait       = r.start_s - j.submit_s;
    double exec       = r.finish_s - r.start_s;
    double turnaround = r.finish_s - j.submit_s;
    double slowdown   = exec > 0 ? turnaround / exec : 1;
    double bsld       = std::max(1.0, turnaround / std::max(exec, 10.0));
    finished++;
    makespan_end = std::max(makespan_end, r.finish_s);
    wait_sum += wait;
    wait_max = std::max(wait_max, wait);
    turn_sum += turnaround;
    turn_max = std::max(turn_max, turnaround);
    slow_sum += slowdown;
    slow_max = std::max(slow_max, slowdown);
    bsld_sum += bsld;
    busy_core_seconds += exec * static_cast<double>(r.cores.size());
    jobs_energy += r.energy_j;
  }
  double first                                  = m.first_submit == kInf ? 0 : m.first_submit;
  double makespan                               = finished ? makespan_end - first : 0;
  double nf                                     = finished ? static_cast<double>(finished) : 1;
  std::vector<std::pair<std::string, double>> f = {
      {"jobs", static_cast<double>(m.records.size())},
      {"jobs_finished", static_cast<double>(finished)},
      {"jobs_success", by_state[FinalState::success]},
      {"jobs_walltime_reached", by_state[FinalState::walltime_reached]},
      {"jobs_failed", by_state[FinalState::failed]},
      {"jobs_rejected", by_state[FinalState::rejected]},
      {"cores", static_cast<double>(res.core_count())},
      {"makespan_s", makespan},
      {"mean_waiting_time_s", wait_sum / nf},
      {"max_waiting_time_s", wait_max},
      {"mean_turnaround_time_s", turn_sum / nf},
      {"max_turnaround_time_s", turn_max},
      {"mean_slowdown", slow_sum / nf},
      {"max_slowdown", slow_max},
      {"mean_bounded_slowdown", bsld_sum / nf},
      {"utilization", makespan > 0 ? busy_core_seconds / (makespan * res.core_count()) : 0},
      {"energy_j", m.energy ? m.plugin_total : kNoFigure},
      {"jobs_energy_j", m.energy ? jobs_energy : kNoFigure},
      {"idle_energy_j", m.energy ? m.idle_energy : kNoFigure},
      {"pstate_changes", static_cast<double>(m.series ? m.series->pstate_changes() : 0)},
      {"overutilization_spans", static_cast<double>(m.series ? m.series->spans() : 0)},
      // Batsim's machine figures: machines (hosts that run jobs), switches, machine-seconds per
      // state over the intervals that ended (each machine's last one is left out, as in Batsim)
      {"nb_computing_machines", static_cast<double>(m.machine_count)},
      {"nb_machine_switches", static_cast<double>(m.machine_switches)},
      {"nb_grouped_switches", static_cast<double>(m.grouped_switches)},
  };
  for (size_t k = 0; k < m.time_in_state.size(); k++)
    f.emplace_back(std::string("time_") + to_string(static_cast<scheduling::MachineState>(k)), m.time_in_state[k]);
  if (m.scheduler_requests > 0) { // an external scheduler decided
    f.emplace_back("jobs_killed", by_state[FinalState::killed]);
    f.emplace_back("scheduler_requests", static_cast<double>(m.scheduler_requests));
    f.emplace_back("scheduler_events", static_cast<double>(m.scheduler_events));
  }
  return f;
}

std::vector<std::pair<std::string, std::string>> write_history(History& m, const workload::Workload& w,
                                                               const scheduling::Resources& res,
                                                               const std::filesystem::path& dir)
{
  std::vector<std::pair<std::string, std::string>> out;
  ensure_directory(dir);
  {
    AtomicFile f(dir / "jobs.csv");
    auto& o = f.stream();
    o << "job_id,workload_name,profile,submission_time,requested_number_of_resources,requested_time,success,"
         "final_state,starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,"
         "allocated_resources,consumed_energy,metadata\n";
    std::string line; // (a line at a time: one stream write each)
    for (size_t i = 0; i < m.records.size(); i++) {
      const auto& r           = m.records[i];
      const auto& j           = w.jobs[i];
      auto req                = workload::requested_time(w, j);
      bool started            = r.start_s >= 0;
      double exec             = started ? r.finish_s - r.start_s : 0;
      double turn             = started ? r.finish_s - j.submit_s : 0;
      const std::string& from = i < m.first_submitted ? w.name : m.submitted_from[i - m.first_submitted];
      line.clear();
      for (const std::string& field :
           {csv_field(j.id), csv_field(from), csv_field(w.profile_of(j).name), format_plain(j.submit_s),
            std::to_string(j.resources), req ? format_plain(*req) : "-1",
            std::string(r.state == FinalState::success ? "1" : "0"), std::string(to_string(r.state)),
            started ? format_plain(r.start_s) : "-1", format_plain(exec), started ? format_plain(r.finish_s) : "-1",
            started ? format_plain(r.start_s - j.submit_s) : "-1", format_plain(turn),
            exec > 0 ? format_plain(turn / exec) : "-1", format_intervals(r.cores),
            m.energy ? format_plain(r.energy_j) : ""}) {
        line += field;
        line += ',';
      }
      if (not r.metadata.empty())
        line += csv_field(r.metadata);
      line += '\n';
      o << line;
    }
    f.commit();
    out.emplace_back((dir / "jobs.csv").string(), "one line per job, Batsim v4 out_jobs.csv columns");
  }
  auto figures = schedule_figures(m, w, res);
  {
    std::ostringstream ss;
    json::Writer jw(ss);
    jw.begin_object();
    for (const auto& [k, v] : figures) {
      if (v == std::floor(v) && std::fabs(v) < 9007199254740992.0)
        jw.field(k, static_cast<int64_t>(v)); // counts read as counts
      else
        jw.field(k, v);
    }
    jw.end_object();
    write_file_atomically(dir / "schedule.json", ss.str());
    std::string header, row;
    for (const auto& [k, v] : figures) {
      header += (header.empty() ? "" : ",") + k;
      row += (row.empty() ? "" : ",") + format_plain(v);
    }
    write_file_atomically(dir / "schedule.csv", header + "\n" + row + "\n");
    out.emplace_back((dir / "schedule.json").string(), "schedule summary (also schedule.csv, one row)");
  }
  if (m.series)
    for (auto& f : m.series->commit(dir))
      out.push_back(std::move(f));
  return out;
}

// ----------------------------------------------------------------------------------- time series

unsigned parse_series(const std::string& list)
{
  if (list == "all")
    return series_all;
  if (list == "none")
    return 0;
  static const std::vector<std::string> names = {"machine_states", "energy", "pstate_changes", "overutilization"};
  unsigned bits                               = 0;
  std::stringstream ss(list);
  for (std::string word; std::getline(ss, word, ',');) {
    auto it = std::find(names.begin(), names.end(), word);
    if (it == names.end())
      throw std::invalid_argument("unknown time series '" + word +
                                  "' (known: all, none, machine_states, energy, pstate_changes, overutilization)");
    bits |= 1U << (it - names.begin());
  }
  if (bits == 0)
    throw std::invalid_argument("no time series named in '" + list + "'");
  return bits;
}

namespace {
struct SeriesFile {
  const char* name;
  const char* header;
  const char* what;
};
const SeriesFile kSeries[4] = {
    {"machine_states.csv",
     "time,flops_in_use,busy_cores,idle_cores,queued_jobs,running_jobs,nb_sleeping,nb_switching_on,nb_switching_off,"
     "nb_idle,nb_computing\n",
     "cores in use, queue size and machines in each state after every event"},
    {"energy.csv", "time,energy_j\n", "energy consumed by the cores' hosts over time"},
    {"pstate_changes.csv", "time,host,new_pstate,pstate_name\n", "host P-state changes"},
    {"overutilization.csv", "processor,first_core,start,end,peak_demand_gbps,capacity_gbps\n",
     "memory-bandwidth over-utilization spans per processor"},
};
} // namespace

/** One series: an atomic file in the output folder, or a buffer until the folder is known. */
struct SeriesWriter::File {
  std::unique_ptr<AtomicFile> file;
  std::ostringstream buffer;
  std::ostream& stream() { return file ? file->stream() : buffer; }
};

SeriesWriter::SeriesWriter(unsigned which, const std::filesystem::path& dir)
    : which_(which)
    , dir_(dir)
{
  for (size_t k = 0; k < 4; k++) {
    files_.push_back(nullptr);
    if ((which_ & (1U << k)) == 0)
      continue;
    files_[k] = std::make_unique<File>();
    if (not dir_.empty()) {
      ensure_directory(dir_);
      files_[k]->file = std::make_unique<AtomicFile>(dir_ / kSeries[k].name);
    }
    files_[k]->stream() << kSeries[k].header;
  }
}

SeriesWriter::~SeriesWriter() = default;

std::ostream& SeriesWriter::out(size_t k)
{
  return files_[k]->stream();
}

void SeriesWriter::flush_machine()
{
  if (not machine_pending_)
    return;
  const auto& s = machine_last_;
  using S       = scheduling::MachineState;
  auto n        = [&s](S k) { return s.machines[static_cast<size_t>(k)]; };
  out(0) << format_plain(s.t) << "," << format_plain(s.flops_in_use) << "," << s.busy_cores << "," << s.free_cores
         << "," << s.queued << "," << s.running << "," << n(S::sleeping) << "," << n(S::switching_on) << ","
         << n(S::switching_off) << "," << n(S::idle) << "," << n(S::computing) << "\n";
  machine_pending_ = false;
}

void SeriesWriter::machine(const MachineSample& s)
{
  if (not wants(series_machine_states))
    return;
  if (machine_pending_ && machine_last_.t != s.t)
    flush_machine();
  machine_last_    = s;
  machine_pending_ = true;
}

void SeriesWriter::flush_energy()
{
  if (not energy_pending_)
    return;
  out(1) << format_plain(energy_last_.t) << "," << format_plain(energy_last_.joules) << "\n";
  energy_pending_ = false;
}

void SeriesWriter::energy(double t, double joules)
{
  if (not wants(series_energy))
    return;
  if (energy_pending_ && energy_last_.t != t)
    flush_energy();
  energy_last_    = {t, joules};
  energy_pending_ = true;
}

void SeriesWriter::pstate(double t, const std::string& host, int pstate, const std::string& name)
{
  pstate_count_++;
  if (wants(series_pstate_changes))
    out(2) << format_plain(t) << "," << host << "," << pstate << "," << name << "\n";
}

void SeriesWriter::span(const Span& s, uint32_t first_core, double capacity_gbps)
{
  span_count_++;
  if (wants(series_overutilization))
    out(3) << s.processor << "," << first_core << "," << format_plain(s.start) << "," << format_plain(s.end) << ","
           << format_plain(s.peak_demand_gbps) << "," << format_plain(capacity_gbps) << "\n";
}

std::vector<std::pair<std::string, std::string>> SeriesWriter::commit(const std::filesystem::path& dir)
{
  std::vector<std::pair<std::string, std::string>> out;
  if (committed_)
    return out;
  committed_ = true;
  flush_machine();
  flush_energy();
  for (size_t k = 0; k < 4; k++) {
    if (not files_[k])
      continue;
    auto path = (dir_.empty() ? dir : dir_) / kSeries[k].name;
    if (files_[k]->file)
      files_[k]->file->commit();
    else
      write_file_atomically(path, files_[k]->buffer.str());
    out.emplace_back(path.string(), kSeries[k].what);
  }
  return out;
}

} // namespace sgai::batch
