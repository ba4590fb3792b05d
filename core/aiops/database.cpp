#include "core/aiops/database.hpp"

#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "core/foundation/signals.hpp"
#include "core/sqlite/sqlite.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace sgai::aiops {

const char* to_string(Origin o)
{
  switch (o) {
  case Origin::arrival:
    return "arrival";
  case Origin::threshold:
    return "threshold";
  case Origin::schedule:
    return "schedule";
  case Origin::new_data:
    return "new_data";
  }
  return "?";
}

namespace {

constexpr size_t kBatchRows   = 20000;
constexpr size_t kMaxInFlight = 4; ///< batches queued before the simulation waits for the writer

const char* kSchema = R"(
CREATE TABLE run(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE pipeline_names(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE kinds(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE frameworks(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE origins(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE statuses(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE resources(id INTEGER PRIMARY KEY, name TEXT NOT NULL, kind TEXT NOT NULL, slots INTEGER NOT NULL);
CREATE TABLE pipelines(id INTEGER PRIMARY KEY, pipeline INTEGER NOT NULL, origin INTEGER NOT NULL,
  status INTEGER NOT NULL, framework INTEGER NOT NULL, model INTEGER, version INTEGER, parent INTEGER,
  arrival REAL NOT NULL, day INTEGER NOT NULL, end REAL NOT NULL, wait REAL NOT NULL, rows REAL, columns REAL,
  bytes REAL, model_bytes REAL, metric REAL);
CREATE TABLE tasks(pipeline INTEGER NOT NULL, task INTEGER NOT NULL, kind INTEGER NOT NULL,
  resource INTEGER NOT NULL, slot INTEGER NOT NULL, ready REAL NOT NULL, start REAL NOT NULL, end REAL NOT NULL,
  compute_s REAL NOT NULL, bytes_read REAL NOT NULL, bytes_written REAL NOT NULL);
CREATE TABLE versions(model INTEGER NOT NULL, version INTEGER NOT NULL, pipeline INTEGER, drift TEXT NOT NULL,
  deployed REAL NOT NULL, retired REAL NOT NULL, metric REAL NOT NULL, mean_staleness REAL NOT NULL,
  PRIMARY KEY(model, version));
CREATE TABLE samples(time REAL NOT NULL, model INTEGER NOT NULL, version INTEGER NOT NULL, event TEXT NOT NULL,
  metric REAL NOT NULL, staleness REAL NOT NULL);
CREATE TABLE hourly(resource INTEGER NOT NULL, hour INTEGER NOT NULL, busy_s REAL NOT NULL,
  capacity_s REAL NOT NULL, utilisation REAL NOT NULL, started INTEGER NOT NULL, queued_s REAL NOT NULL,
  bytes_read REAL NOT NULL, bytes_written REAL NOT NULL, PRIMARY KEY(resource, hour)) WITHOUT ROWID;
CREATE TABLE hourly_arrivals(hour INTEGER PRIMARY KEY, arrivals INTEGER NOT NULL, triggered INTEGER NOT NULL,
  mean_staleness REAL NOT NULL);
)";

const char* kIndexes = R"(
CREATE INDEX tasks_by_pipeline ON tasks(pipeline);
CREATE INDEX pipelines_by_day_wait ON pipelines(day, wait);
CREATE INDEX versions_by_pipeline ON versions(pipeline);
CREATE INDEX samples_by_model ON samples(model, time);
)";

const char* kDriftNames[] = {"gradual", "sudden", "recurring"};
const char* kEventNames[] = {"deployed", "triggered", "retired"};

void bind_id(sqlite::Statement& s, int i, int64_t v)
{
  if (v < 0)
    s.bind_null(i);
  else
    s.bind(i, v);
}

} // namespace

struct DatabaseWriter::Impl {
  sqlite::Database db;
  sqlite::Statement task, pipeline, version, sample, hour;
  explicit Impl(const std::filesystem::path& f)
      : db(f, sqlite::Database::Mode::create)
      , task((db.exec(kSchema), db.prepare("INSERT INTO tasks VALUES(?,?,?,?,?,?,?,?,?,?,?)")))
      , pipeline(db.prepare("INSERT INTO pipelines VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"))
      , version(db.prepare("INSERT INTO versions VALUES(?,?,?,?,?,?,?,?)"))
      , sample(db.prepare("INSERT INTO samples VALUES(?,?,?,?,?,?)"))
      , hour(db.prepare("INSERT INTO hourly VALUES(?,?,?,?,?,?,?,?,?)"))
  {
  }
};

DatabaseWriter::DatabaseWriter(std::filesystem::path file, const Names& names,
                               std::vector<std::pair<std::string, std::string>> run)
    : file_(std::move(file))
    , partial_(file_.string() + ".partial")
{
  impl_ = std::make_unique<Impl>(partial_);
  register_cleanup(partial_);
  auto& db = impl_->db;
  db.set_schema_version(kSchemaVersion);
  {
    sqlite::Database::Transaction t(db);
    auto names_of = [&db](const char* table, const std::vector<std::string>& v) {
      auto s = db.prepare(std::string("INSERT INTO ") + table + " VALUES(?,?)");
      for (size_t i = 0; i < v.size(); ++i)
        s.bind(1, int64_t(i)).bind(2, v[i]).run();
    };
    names_of("pipeline_names", names.pipelines);
    names_of("kinds", names.kinds);
    names_of("frameworks", names.frameworks);
    names_of("origins", {"arrival", "threshold", "schedule", "new_data"});
    names_of("statuses", {"done", "gated"});
    auto r = db.prepare("INSERT INTO resources VALUES(?,?,?,?)");
    for (size_t i = 0; i < names.resources.size(); ++i)
      r.bind(1, int64_t(i))
          .bind(2, names.resources[i].name)
          .bind(3, names.resources[i].kind)
          .bind(4, names.resources[i].slots)
          .run();
    auto k = db.prepare("INSERT INTO run VALUES(?,?)");
    for (const auto& [key, value] : run)
      k.bind(1, key).bind(2, value).run();
    t.commit();
  }
  thread_ = std::thread([this] { loop(); });
}

DatabaseWriter::~DatabaseWriter()
{
  if (thread_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      closing_ = true;
      queue_.clear();
    }
    ready_.notify_all();
    thread_.join();
  }
  if (not finished_) {
    impl_.reset();
    std::error_code ec;
    std::filesystem::remove(partial_, ec);
    unregister_cleanup(partial_);
  }
}

void DatabaseWriter::check_failure()
{
  std::lock_guard<std::mutex> lock(mutex_);
  if (failure_)
    std::rethrow_exception(failure_);
}

void DatabaseWriter::hand_over()
{
  std::unique_lock<std::mutex> lock(mutex_);
  room_.wait(lock, [this] { return queue_.size() < kMaxInFlight || failure_; });
  if (failure_)
    std::rethrow_exception(failure_);
  queue_.push_back(std::move(current_));
  current_ = Batch{};
  lock.unlock();
  ready_.notify_one();
}

void DatabaseWriter::add(const TaskRow& r)
{
  current_.tasks.push_back(r);
  if (current_.size() >= kBatchRows)
    hand_over();
}
void DatabaseWriter::add(const PipelineRow& r)
{
  current_.pipelines.push_back(r);
  if (current_.size() >= kBatchRows)
    hand_over();
}
void DatabaseWriter::add(const VersionRow& r)
{
  current_.versions.push_back(r);
  if (current_.size() >= kBatchRows)
    hand_over();
}
void DatabaseWriter::add(const SampleRow& r)
{
  current_.samples.push_back(r);
  if (current_.size() >= kBatchRows)
    hand_over();
}
void DatabaseWriter::add(const HourRow& r)
{
  current_.hours.push_back(r);
  if (current_.size() >= kBatchRows)
    hand_over();
}

void DatabaseWriter::loop()
{
  for (;;) {
    Batch b;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      ready_.wait(lock, [this] { return closing_ || not queue_.empty(); });
      if (queue_.empty())
        return;
      b = std::move(queue_.front());
      queue_.pop_front();
    }
    try {
      auto& db = impl_->db;
      sqlite::Database::Transaction t(db);
      for (const TaskRow& r : b.tasks)
        impl_->task.bind(1, r.pipeline)
            .bind(2, int64_t(r.task))
            .bind(3, int64_t(r.kind))
            .bind(4, int64_t(r.resource))
            .bind(5, int64_t(r.slot))
            .bind(6, r.ready)
            .bind(7, r.start)
            .bind(8, r.end)
            .bind(9, r.compute_s)
            .bind(10, r.bytes_read)
            .bind(11, r.bytes_written)
            .run();
      for (const PipelineRow& r : b.pipelines) {
        auto& s = impl_->pipeline;
        s.bind(1, r.id).bind(2, int64_t(r.pipeline)).bind(3, int64_t(r.origin)).bind(4, int64_t(r.status));
        s.bind(5, int64_t(r.framework));
        bind_id(s, 6, r.model);
        bind_id(s, 7, r.version);
        bind_id(s, 8, r.parent);
        s.bind(9, r.arrival).bind(10, int64_t(std::floor(r.arrival / 86400))).bind(11, r.end).bind(12, r.wait);
        s.bind(13, r.rows).bind(14, r.columns).bind(15, r.bytes).bind(16, r.model_bytes).bind(17, r.metric);
        s.run();
      }
      for (const VersionRow& r : b.versions) {
        auto& s = impl_->version;
        s.bind(1, r.model).bind(2, r.version);
        bind_id(s, 3, r.pipeline);
        s.bind(4, kDriftNames[r.drift]).bind(5, r.deployed).bind(6, r.retired).bind(7, r.metric);
        s.bind(8, r.mean_staleness).run();
      }
      for (const SampleRow& r : b.samples)
        impl_->sample.bind(1, r.time)
            .bind(2, r.model)
            .bind(3, r.version)
            .bind(4, kEventNames[r.event])
            .bind(5, r.metric)
            .bind(6, r.staleness)
            .run();
      for (const HourRow& r : b.hours)
        impl_->hour.bind(1, int64_t(r.resource))
            .bind(2, r.hour)
            .bind(3, r.busy_s)
            .bind(4, r.capacity_s)
            .bind(5, r.capacity_s > 0 ? r.busy_s / r.capacity_s : 0.0)
            .bind(6, r.started)
            .bind(7, r.queued_s)
            .bind(8, r.bytes_read)
            .bind(9, r.bytes_written)
            .run();
      t.commit();
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      failure_ = std::current_exception();
      queue_.clear();
      room_.notify_all();
      return;
    }
    room_.notify_one();
  }
}

void DatabaseWriter::finish(const std::vector<ArrivalHourRow>& arrivals)
{
  if (current_.size() > 0)
    hand_over();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closing_ = true;
  }
  ready_.notify_all();
  thread_.join();
  check_failure();
  auto& db = impl_->db;
  {
    sqlite::Database::Transaction t(db);
    auto a = db.prepare("INSERT INTO hourly_arrivals VALUES(?,?,?,?)");
    for (const ArrivalHourRow& r : arrivals)
      a.bind(1, r.hour).bind(2, r.arrivals).bind(3, r.triggered).bind(4, r.mean_staleness).run();
    t.commit();
  }
  db.exec(kIndexes);
  impl_.reset(); // closes the file
  std::filesystem::rename(partial_, file_);
  unregister_cleanup(partial_);
  finished_ = true;
}

// ------------------------------------------------------------------------------------ queries

const std::vector<std::string>& query_names()
{
  static const std::vector<std::string> names{"utilisation", "arrivals", "waits", "store", "pipeline"};
  return names;
}

namespace {

std::string number(double v)
{
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

/** Nearest-rank percentile of sorted values. */
double percentile(const std::vector<double>& sorted, double p)
{
  if (sorted.empty())
    return 0;
  size_t rank = size_t(std::ceil(p * double(sorted.size())));
  return sorted[std::min(sorted.size(), std::max<size_t>(rank, 1)) - 1];
}

} // namespace

void run_query(const std::filesystem::path& file, const std::string& name, int64_t argument, std::ostream& out)
{
  sqlite::Database db(file, sqlite::Database::Mode::read);
  if (db.schema_version() != kSchemaVersion)
    throw InputError(file.string(), "",
                     "an AI-ops database of schema version " + std::to_string(kSchemaVersion) + " is expected, not " +
                         std::to_string(db.schema_version()));
  if (name == "utilisation") {
    out << "resource,hour,utilisation\n";
    auto s = db.prepare("SELECT r.name, h.hour, h.utilisation FROM hourly h JOIN resources r ON r.id = h.resource "
                        "WHERE r.kind = 'pool' AND h.hour >= ? AND h.hour < ? ORDER BY h.resource, h.hour");
    s.bind(1, argument * 168).bind(2, (argument + 1) * 168);
    while (s.step())
      out << s.text(0) << ',' << s.integer(1) << ',' << number(s.real(2)) << '\n';
  } else if (name == "arrivals") {
    int64_t origin = 0;
    auto o         = db.prepare("SELECT value FROM run WHERE key = 'origin_hour'");
    if (o.step())
      origin = std::stoll(o.text(0));
    out << "hour_of_week,arrivals\n";
    auto s = db.prepare("SELECT (hour + ?) % 168 AS how, SUM(arrivals) FROM hourly_arrivals GROUP BY how ORDER BY how");
    s.bind(1, origin);
    while (s.step())
      out << s.integer(0) << ',' << s.integer(1) << '\n';
  } else if (name == "waits") {
    out << "day,pipelines,p50_wait_s,p95_wait_s\n";
    auto s = db.prepare("SELECT day, wait FROM pipelines ORDER BY day, wait");
    std::vector<double> waits;
    int64_t day = -1;
    auto flush  = [&]() {
      if (not waits.empty())
        out << day << ',' << waits.size() << ',' << number(percentile(waits, 0.5)) << ','
            << number(percentile(waits, 0.95)) << '\n';
      waits.clear();
    };
    while (s.step()) {
      int64_t d = s.integer(0);
      if (d != day) {
        flush();
        day = d;
      }
      waits.push_back(s.real(1));
    }
    flush();
  } else if (name == "store") {
    out << "hour_of_day,bytes_read,bytes_written\n";
    auto s = db.prepare("SELECT h.hour, h.bytes_read, h.bytes_written FROM hourly h JOIN resources r ON "
                        "r.id = h.resource WHERE r.kind = 'store' AND h.hour >= ? AND h.hour < ? ORDER BY h.hour");
    s.bind(1, argument * 24).bind(2, (argument + 1) * 24);
    while (s.step())
      out << s.integer(0) - argument * 24 << ',' << number(s.real(1)) << ',' << number(s.real(2)) << '\n';
  } else if (name == "pipeline") {
    auto p = db.prepare("SELECT n.name, o.name, st.name, p.arrival, p.end, p.wait, p.model, p.version, p.parent "
                        "FROM pipelines p JOIN pipeline_names n ON n.id = p.pipeline JOIN origins o ON o.id = p.origin "
                        "JOIN statuses st ON st.id = p.status WHERE p.id = ?");
    p.bind(1, argument);
    if (not p.step())
      throw InputError(file.string(), "", "no pipeline " + std::to_string(argument) + " in this database");
    auto id_or_empty = [&p](int c) { return p.is_null(c) ? std::string() : std::to_string(p.integer(c)); };
    out << "pipeline,name,origin,status,arrival,end,wait_s,model,version,parent\n";
    out << argument << ',' << p.text(0) << ',' << p.text(1) << ',' << p.text(2) << ',' << number(p.real(3)) << ','
        << number(p.real(4)) << ',' << number(p.real(5)) << ',' << id_or_empty(6) << ',' << id_or_empty(7) << ','
        << id_or_empty(8) << '\n';
    out << "task,kind,resource,slot,ready,start,end,compute_s,bytes_read,bytes_written\n";
    auto t = db.prepare("SELECT t.task, k.name, r.name, t.slot, t.ready, t.start, t.end, t.compute_s, t.bytes_read, "
                        "t.bytes_written FROM tasks t JOIN kinds k ON k.id = t.kind JOIN resources r ON "
                        "r.id = t.resource WHERE t.pipeline = ? ORDER BY t.start, t.task");
    t.bind(1, argument);
    while (t.step())
      out << t.integer(0) << ',' << t.text(1) << ',' << t.text(2) << ',' << t.integer(3) << ',' << number(t.real(4))
          << ',' << number(t.real(5)) << ',' << number(t.real(6)) << ',' << number(t.real(7)) << ','
          << number(t.real(8)) << ',' << number(t.real(9)) << '\n';
    out << "model,version,made_by,drift,deployed,retired,metric,mean_staleness\n";
    auto v = db.prepare("SELECT model, version, pipeline, drift, deployed, retired, metric, mean_staleness FROM "
                        "versions WHERE pipeline = ? OR pipeline = (SELECT parent FROM pipelines WHERE id = ?) "
                        "ORDER BY model, version");
    v.bind(1, argument).bind(2, argument);
    while (v.step())
      out << v.integer(0) << ',' << v.integer(1) << ',' << (v.is_null(2) ? std::string() : std::to_string(v.integer(2)))
          << ',' << v.text(3) << ',' << number(v.real(4)) << ',' << number(v.real(5)) << ',' << number(v.real(6)) << ','
          << number(v.real(7)) << '\n';
  } else {
    std::string known;
    for (const auto& n : query_names())
      known += (known.empty() ? "" : ", ") + n;
    throw UsageError("unknown query " + quote(name) + " (known: " + known + ")");
  }
}

} // namespace sgai::aiops
