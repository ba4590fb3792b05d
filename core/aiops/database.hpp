/* The database of an AI-ops run (SQLite, schema version 1, docs/aiops.md): pipelines, tasks, model
 * versions, model-metric samples and hourly summaries per resource, written by one extra thread in
 * batched transactions while the simulation (single-threaded) goes on, indexed at the end; and the
 * five dashboard queries. Pure code: rows are plain structs, SQLite is reached only through
 * sgai::sqlite. */
#ifndef SGAI_CORE_AIOPS_DATABASE_HPP
#define SGAI_CORE_AIOPS_DATABASE_HPP

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <filesystem>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

namespace sgai::aiops {

constexpr int64_t kSchemaVersion = 1;

struct TaskRow {
  int64_t pipeline = 0;
  int32_t task = 0, kind = 0, resource = 0, slot = 0;
  double ready = 0, start = 0, end = 0; ///< queued at ready, ran from start (read, compute, write) to end
  double compute_s  = 0;
  double bytes_read = 0, bytes_written = 0;
};

enum class Origin : int32_t { arrival = 0, threshold, schedule, new_data };
const char* to_string(Origin o);
enum class Status : int32_t { done = 0, gated };

struct PipelineRow {
  int64_t id       = 0;
  int32_t pipeline = 0, origin = 0, status = 0, framework = 0;
  int64_t model = -1, version = -1; ///< a deployed model it retrained and the version it made (-1: none)
  int64_t parent = -1;              ///< the pipeline whose model it started from (-1: none)
  double arrival = 0, end = 0, wait = 0;
  double rows = 0, columns = 0, bytes = 0, model_bytes = 0, metric = 0;
};

struct VersionRow {
  int64_t model = 0, version = 0, pipeline = -1;
  int32_t drift   = 0;
  double deployed = 0, retired = 0, metric = 0, mean_staleness = 0;
};

enum class SampleEvent : int32_t { deployed = 0, triggered, retired };
struct SampleRow {
  double time   = 0;
  int64_t model = 0, version = 0;
  int32_t event = 0;
  double metric = 0, staleness = 0;
};

/** One hour of one resource: busy slot-seconds, its capacity, tasks started and their queue wait,
 *  bytes the store sent and received. */
struct HourRow {
  int32_t resource = 0;
  int64_t hour     = 0;
  double busy_s = 0, capacity_s = 0, queued_s = 0;
  int64_t started   = 0;
  double bytes_read = 0, bytes_written = 0;
};

struct ArrivalHourRow {
  int64_t hour = 0, arrivals = 0, triggered = 0;
  double mean_staleness = 0; ///< over the deployed models (0 without them)
};

/** Names behind the integer columns. */
struct Names {
  std::vector<std::string> pipelines, kinds, frameworks;
  struct Resource {
    std::string name, kind; ///< kind: pool or store
    int64_t slots = 0;
  };
  std::vector<Resource> resources;
};

/** Writes rows to `file` from its own thread. The file is created under a temporary name and
 *  renamed to `file` by finish(); destroyed without finish() (an error), it removes it. */
class DatabaseWriter {
public:
  DatabaseWriter(std::filesystem::path file, const Names& names, std::vector<std::pair<std::string, std::string>> run);
  DatabaseWriter(const DatabaseWriter&)            = delete;
  DatabaseWriter& operator=(const DatabaseWriter&) = delete;
  ~DatabaseWriter();

  void add(const TaskRow& r);
  void add(const PipelineRow& r);
  void add(const VersionRow& r);
  void add(const SampleRow& r);
  void add(const HourRow& r);
  /** The hourly arrivals, the indexes, the rename. RunError when the writer thread failed. */
  void finish(const std::vector<ArrivalHourRow>& arrivals);

private:
  struct Batch {
    std::vector<TaskRow> tasks;
    std::vector<PipelineRow> pipelines;
    std::vector<VersionRow> versions;
    std::vector<SampleRow> samples;
    std::vector<HourRow> hours;
    size_t size() const { return tasks.size() + pipelines.size() + versions.size() + samples.size() + hours.size(); }
  };
  void hand_over();
  void loop();
  void check_failure();

  std::filesystem::path file_, partial_;
  struct Impl;
  std::unique_ptr<Impl> impl_;
  Batch current_;
  std::mutex mutex_;
  std::condition_variable ready_, room_;
  std::deque<Batch> queue_;
  bool closing_ = false;
  std::exception_ptr failure_;
  std::thread thread_;
  bool finished_ = false;
};

/** The dashboard queries (docs/aiops.md), each printed as CSV:
 *  - utilisation WEEK: utilisation per resource per hour in week WEEK (0-based)
 *  - arrivals: pipelines arriving per hour of the week, summed over the run
 *  - waits: p50 and p95 pipeline wait per day of arrival
 *  - store DAY: bytes the store read and wrote per hour of day DAY (0-based)
 *  - pipeline ID: one pipeline's tasks, and the model versions it made or started from
 *  InputError for an unknown name or a database of another schema. */
void run_query(const std::filesystem::path& db, const std::string& name, int64_t argument, std::ostream& out);
const std::vector<std::string>& query_names();

} // namespace sgai::aiops

#endif
