#include "core/sweep/store.hpp"

#include "core/foundation/error.hpp"
#include "core/sqlite/sqlite.hpp"

#include <cmath>

namespace sgai::sweep {

namespace {

const char* kSchema = R"(
CREATE TABLE campaign(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE parameters(id INTEGER PRIMARY KEY, name TEXT NOT NULL, pointer TEXT NOT NULL, size INTEGER NOT NULL);
CREATE TABLE parameter_values(parameter INTEGER NOT NULL, idx INTEGER NOT NULL, value TEXT NOT NULL,
  PRIMARY KEY(parameter, idx));
CREATE TABLE runs(id INTEGER PRIMARY KEY, point INTEGER NOT NULL UNIQUE, origin TEXT NOT NULL,
  status TEXT NOT NULL CHECK(status IN ('queued', 'running', 'done', 'failed')), attempts INTEGER NOT NULL,
  queued_at REAL NOT NULL, started_at REAL, ended_at REAL, wall_s REAL, objective REAL, exit_status INTEGER,
  runner TEXT, job TEXT, lost INTEGER NOT NULL DEFAULT 0);
CREATE TABLE run_values(run INTEGER NOT NULL, parameter INTEGER NOT NULL, idx INTEGER NOT NULL,
  PRIMARY KEY(run, parameter));
CREATE INDEX runs_by_status ON runs(status);
CREATE TABLE suggestions(id INTEGER PRIMARY KEY, point INTEGER NOT NULL UNIQUE, made_at REAL NOT NULL,
  exploitation REAL NOT NULL, inside INTEGER NOT NULL);
)";

/** Version 1 had no runner columns and no suggestions. */
const char* kFromVersion1 = R"(
ALTER TABLE runs ADD COLUMN runner TEXT;
ALTER TABLE runs ADD COLUMN job TEXT;
ALTER TABLE runs ADD COLUMN lost INTEGER NOT NULL DEFAULT 0;
CREATE TABLE suggestions(id INTEGER PRIMARY KEY, point INTEGER NOT NULL UNIQUE, made_at REAL NOT NULL,
  exploitation REAL NOT NULL, inside INTEGER NOT NULL);
)";

/** What identifies a campaign in its database: its file and its space. */
std::string identity(const Campaign& c)
{
  std::string s = std::filesystem::absolute(c.file).lexically_normal().string();
  for (const auto& p : c.parameters) {
    s += "\n" + p.name + " " + p.pointer;
    for (const auto& v : p.values)
      s += " " + v;
    for (const auto& [pointer, values] : p.with) {
      s += " with " + pointer;
      for (const auto& v : values)
        s += " " + v;
    }
  }
  return s;
}

} // namespace

void CampaignStore::create(const std::filesystem::path& file, const Campaign& c, double now)
{
  std::error_code ec;
  if (std::filesystem::exists(file, ec))
    throw InputError(file.string(), "", "a campaign database is there already (sgai sweep run resumes it)");
  std::filesystem::path partial = file.string() + ".partial";
  {
    sqlite::Database db(partial, sqlite::Database::Mode::create);
    db.exec(kSchema);
    db.set_schema_version(kCampaignSchema);
    sqlite::Database::Transaction t(db);
    auto k = db.prepare("INSERT INTO campaign VALUES(?, ?)");
    k.bind(1, std::string_view("identity")).bind(2, identity(c)).run();
    k.bind(1, std::string_view("name")).bind(2, c.name).run();
    k.bind(1, std::string_view("experiment")).bind(2, c.experiment.string()).run();
    k.bind(1, std::string_view("objective")).bind(2, c.objective).run();
    k.bind(1, std::string_view("goal")).bind(2, std::string_view(c.minimise ? "minimise" : "maximise")).run();
    k.bind(1, std::string_view("created")).bind(2, std::to_string(now)).run();
    auto p = db.prepare("INSERT INTO parameters VALUES(?, ?, ?, ?)");
    auto v = db.prepare("INSERT INTO parameter_values VALUES(?, ?, ?)");
    for (size_t i = 0; i < c.parameters.size(); ++i) {
      const auto& x = c.parameters[i];
      p.bind(1, int64_t(i)).bind(2, x.name).bind(3, x.pointer).bind(4, int64_t(x.values.size())).run();
      for (size_t j = 0; j < x.values.size(); ++j)
        v.bind(1, int64_t(i)).bind(2, int64_t(j)).bind(3, x.values[j]).run();
    }
    t.commit();
  }
  std::filesystem::rename(partial, file);
}

CampaignStore::CampaignStore(const std::filesystem::path& file, const Campaign& c)
    : db_(std::make_unique<sqlite::Database>(file, sqlite::Database::Mode::update))
{
  int64_t version = db_->schema_version();
  if (version != kCampaignSchema && version != 1)
    throw InputError(file.string(), "", "not a campaign database of schema version " + std::to_string(kCampaignSchema));
  std::string id;
  try {
    auto s = db_->prepare("SELECT key, value FROM campaign");
    while (s.step()) {
      if (s.text(0) == "identity")
        id = s.text(1);
      else if (s.text(0) == "created")
        created_ = std::stod(s.text(1));
    }
  } catch (const RunError&) {
    throw InputError(file.string(), "", "not a campaign database");
  }
  if (id != identity(c))
    throw InputError(file.string(), "",
                     "another campaign's database (made for another campaign file, or other parameters and values "
                     "than " +
                         c.file.string() + "'s)");
  if (version == 1) { // its campaign's: brought to the current version
    sqlite::Database::Transaction t(*db_);
    db_->exec(kFromVersion1);
    db_->set_schema_version(kCampaignSchema);
    t.commit();
  }
}

CampaignStore::~CampaignStore() = default;

std::vector<RunRecord> CampaignStore::runs() const
{
  auto s = db_->prepare("SELECT id, point, origin, status, attempts, queued_at, started_at, ended_at, wall_s, "
                        "objective, exit_status, runner, job, lost FROM runs ORDER BY id");
  std::vector<RunRecord> out;
  while (s.step()) {
    RunRecord r;
    r.id          = s.integer(0);
    r.point       = uint64_t(s.integer(1));
    r.origin      = s.text(2);
    r.status      = s.text(3);
    r.attempts    = s.integer(4);
    r.queued_at   = s.real(5);
    r.started_at  = s.is_null(6) ? 0 : s.real(6);
    r.ended_at    = s.is_null(7) ? 0 : s.real(7);
    r.wall_s      = s.is_null(8) ? 0 : s.real(8);
    r.objective   = s.is_null(9) ? std::nan("") : s.real(9);
    r.exit_status = s.is_null(10) ? -1 : s.integer(10);
    r.runner      = s.is_null(11) ? std::string() : s.text(11);
    r.job         = s.is_null(12) ? std::string() : s.text(12);
    r.lost        = s.integer(13);
    out.push_back(std::move(r));
  }
  return out;
}

int64_t CampaignStore::queue(uint64_t point, const std::string& origin, double now)
{
  sqlite::Database::Transaction t(*db_);
  auto q = db_->prepare("SELECT id FROM runs WHERE point = ?");
  q.bind(1, int64_t(point));
  if (q.step())
    return -1;
  auto s = db_->prepare("INSERT INTO runs(point, origin, status, attempts, queued_at) VALUES(?, ?, 'queued', 0, ?)");
  s.bind(1, int64_t(point)).bind(2, origin).bind(3, now).run();
  auto id = db_->prepare("SELECT last_insert_rowid()");
  id.step();
  int64_t run = id.integer(0);
  t.commit();
  return run;
}

void CampaignStore::start(int64_t id, double now, const std::string& runner, const std::string& job)
{
  start(std::vector<Started>{{id, job}}, now, runner);
}

void CampaignStore::start(const std::vector<Started>& runs, double now, const std::string& runner)
{
  sqlite::Database::Transaction t(*db_);
  auto s = db_->prepare(
      "UPDATE runs SET status = 'running', started_at = ?, attempts = attempts + 1, runner = ?, job = ? WHERE id = ?");
  for (const auto& r : runs) {
    s.bind(1, now).bind(2, runner);
    if (r.job.empty())
      s.bind_null(3);
    else
      s.bind(3, r.job);
    s.bind(4, r.id).run();
  }
  t.commit();
}

void CampaignStore::requeue(int64_t id)
{
  sqlite::Database::Transaction t(*db_);
  auto s = db_->prepare("UPDATE runs SET status = 'queued', started_at = NULL, job = NULL WHERE id = ?");
  s.bind(1, id).run();
  t.commit();
}

void CampaignStore::lost(int64_t id)
{
  sqlite::Database::Transaction t(*db_);
  auto s =
      db_->prepare("UPDATE runs SET status = 'queued', started_at = NULL, job = NULL, lost = lost + 1 WHERE id = ?");
  s.bind(1, id).run();
  t.commit();
}

std::vector<Suggested> CampaignStore::suggestions() const
{
  auto s = db_->prepare("SELECT id, point, made_at, exploitation, inside FROM suggestions ORDER BY id");
  std::vector<Suggested> out;
  while (s.step())
    out.push_back({s.integer(0), uint64_t(s.integer(1)), s.real(2), s.real(3), s.integer(4) != 0});
  return out;
}

void CampaignStore::set_suggestions(const std::vector<Suggested>& points)
{
  sqlite::Database::Transaction t(*db_);
  db_->exec("DELETE FROM suggestions");
  auto s = db_->prepare("INSERT INTO suggestions(point, made_at, exploitation, inside) VALUES(?, ?, ?, ?)");
  for (const auto& p : points)
    s.bind(1, int64_t(p.point)).bind(2, p.made_at).bind(3, p.exploitation).bind(4, int64_t(p.inside ? 1 : 0)).run();
  t.commit();
}

std::vector<int64_t> CampaignStore::accept(const std::vector<uint64_t>& points, double now)
{
  sqlite::Database::Transaction t(*db_);
  auto has = db_->prepare("SELECT id FROM runs WHERE point = ?");
  auto ins = db_->prepare("INSERT INTO runs(point, origin, status, attempts, queued_at) VALUES(?, 'suggestion', "
                          "'queued', 0, ?)");
  auto del = db_->prepare("DELETE FROM suggestions WHERE point = ?");
  auto id  = db_->prepare("SELECT last_insert_rowid()");
  std::vector<int64_t> out;
  for (uint64_t p : points) {
    del.bind(1, int64_t(p)).run();
    has.bind(1, int64_t(p));
    bool taken = has.step();
    has.reset();
    if (taken)
      continue;
    ins.bind(1, int64_t(p)).bind(2, now).run();
    id.step();
    out.push_back(id.integer(0));
    id.reset();
  }
  t.commit();
  return out;
}

void CampaignStore::finish(int64_t id, double now, double objective, int64_t exit_status, bool done, double wall_s)
{
  sqlite::Database::Transaction t(*db_);
  auto s = db_->prepare("UPDATE runs SET status = ?, ended_at = ?, wall_s = COALESCE(?, ? - started_at), "
                        "objective = ?, exit_status = ? WHERE id = ?");
  s.bind(1, std::string_view(done ? "done" : "failed")).bind(2, now);
  if (std::isfinite(wall_s))
    s.bind(3, wall_s);
  else
    s.bind_null(3);
  s.bind(4, now);
  if (std::isfinite(objective))
    s.bind(5, objective);
  else
    s.bind_null(5);
  s.bind(6, exit_status).bind(7, id).run();
  t.commit();
}

int64_t CampaignStore::requeue_running()
{
  int64_t n = count("running");
  sqlite::Database::Transaction t(*db_);
  db_->exec("UPDATE runs SET status = 'queued', started_at = NULL, job = NULL WHERE status = 'running'");
  t.commit();
  return n;
}

int64_t CampaignStore::count(const std::string& status) const
{
  auto s = db_->prepare("SELECT COUNT(*) FROM runs WHERE status = ?");
  s.bind(1, status);
  s.step();
  return s.integer(0);
}

} // namespace sgai::sweep
