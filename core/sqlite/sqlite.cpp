#include "core/sqlite/sqlite.hpp"

#include "core/foundation/error.hpp"

#include <sqlite3.h>

#include <system_error>
#include <utility>

namespace sgai::sqlite {

namespace {

sqlite3* db_of(void* h)
{
  return static_cast<sqlite3*>(h);
}

sqlite3_stmt* st_of(void* h)
{
  return static_cast<sqlite3_stmt*>(h);
}

} // namespace

// ------------------------------------------------------------------------------------ Database

Database::Database(const std::filesystem::path& file, Mode mode)
    : file_(file)
    , mode_(mode)
{
  sqlite3* db = nullptr;
  int flags   = SQLITE_OPEN_NOMUTEX;
  if (mode == Mode::create) {
    std::error_code ec;
    std::filesystem::remove(file, ec);
    flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  } else if (mode == Mode::update) {
    flags |= SQLITE_OPEN_READWRITE;
  } else {
    flags |= SQLITE_OPEN_READONLY;
  }
  int rc  = sqlite3_open_v2(file.c_str(), &db, flags, nullptr);
  handle_ = db;
  if (rc != SQLITE_OK) {
    std::string message = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    handle_ = nullptr;
    if (mode != Mode::create)
      throw InputError(file.string(), "", "cannot open the database: " + message);
    throw RunError(file.string() + ": cannot create the database: " + message);
  }
  sqlite3_extended_result_codes(db, 1);
  if (mode != Mode::create) {
    // a file that is no database fails on its first read
    try {
      schema_version();
    } catch (...) {
      sqlite3_close(db);
      handle_ = nullptr;
      throw;
    }
    if (mode == Mode::update)
      exec("PRAGMA journal_mode=DELETE; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=5000;");
  } else {
    // outputs are written once, by one process: no journal on disk, synchronous writes off
    exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;");
  }
}

Database::Database(Database&& o) noexcept
    : file_(std::move(o.file_))
    , mode_(o.mode_)
    , handle_(std::exchange(o.handle_, nullptr))
{
}

Database& Database::operator=(Database&& o) noexcept
{
  if (this != &o) {
    if (handle_)
      sqlite3_close(db_of(handle_));
    file_   = std::move(o.file_);
    mode_   = o.mode_;
    handle_ = std::exchange(o.handle_, nullptr);
  }
  return *this;
}

Database::~Database()
{
  if (handle_)
    sqlite3_close(db_of(handle_));
}

void Database::fail(const std::string& what) const
{
  std::string message = handle_ ? sqlite3_errmsg(db_of(handle_)) : "no database";
  if (mode_ == Mode::read)
    throw InputError(file_.string(), "", what + ": " + message);
  throw RunError(file_.string() + ": " + what + ": " + message);
}

void Database::exec(const std::string& sql)
{
  char* error = nullptr;
  if (sqlite3_exec(db_of(handle_), sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    std::string m = error ? error : "error";
    sqlite3_free(error);
    if (mode_ == Mode::read)
      throw InputError(file_.string(), "", "SQL failed: " + m);
    throw RunError(file_.string() + ": SQL failed: " + m);
  }
}

Statement Database::prepare(const std::string& sql)
{
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db_of(handle_), sql.c_str(), int(sql.size()), &st, nullptr) != SQLITE_OK)
    fail("cannot prepare " + sql.substr(0, 60));
  return Statement(*this, st);
}

int64_t Database::schema_version()
{
  Statement s = prepare("PRAGMA user_version");
  if (not s.step())
    fail("no schema version");
  return s.integer(0);
}

void Database::set_schema_version(int64_t version)
{
  exec("PRAGMA user_version = " + std::to_string(version));
}

Database::Transaction::Transaction(Database& db)
    : db_(db)
{
  db_.exec("BEGIN");
}

Database::Transaction::~Transaction()
{
  if (not done_)
    sqlite3_exec(db_of(db_.handle_), "ROLLBACK", nullptr, nullptr, nullptr);
}

void Database::Transaction::commit()
{
  db_.exec("COMMIT");
  done_ = true;
}

// ------------------------------------------------------------------------------------ Statement

Statement::Statement(Database& db, void* handle)
    : db_(&db)
    , handle_(handle)
{
}

Statement::Statement(Statement&& o) noexcept
    : db_(o.db_)
    , handle_(std::exchange(o.handle_, nullptr))
{
}

Statement& Statement::operator=(Statement&& o) noexcept
{
  if (this != &o) {
    if (handle_)
      sqlite3_finalize(st_of(handle_));
    db_     = o.db_;
    handle_ = std::exchange(o.handle_, nullptr);
  }
  return *this;
}

Statement::~Statement()
{
  if (handle_)
    sqlite3_finalize(st_of(handle_));
}

Statement& Statement::bind(int index, int64_t value)
{
  if (sqlite3_bind_int64(st_of(handle_), index, value) != SQLITE_OK)
    db_->fail("cannot bind parameter " + std::to_string(index));
  return *this;
}

Statement& Statement::bind(int index, double value)
{
  if (sqlite3_bind_double(st_of(handle_), index, value) != SQLITE_OK)
    db_->fail("cannot bind parameter " + std::to_string(index));
  return *this;
}

Statement& Statement::bind(int index, std::string_view value)
{
  if (sqlite3_bind_text(st_of(handle_), index, value.data(), int(value.size()), SQLITE_TRANSIENT) != SQLITE_OK)
    db_->fail("cannot bind parameter " + std::to_string(index));
  return *this;
}

Statement& Statement::bind_null(int index)
{
  if (sqlite3_bind_null(st_of(handle_), index) != SQLITE_OK)
    db_->fail("cannot bind parameter " + std::to_string(index));
  return *this;
}

bool Statement::step()
{
  int rc = sqlite3_step(st_of(handle_));
  if (rc == SQLITE_ROW)
    return true;
  if (rc == SQLITE_DONE)
    return false;
  db_->fail("a statement failed");
}

void Statement::run()
{
  while (step()) {
  }
  reset();
}

void Statement::reset()
{
  sqlite3_reset(st_of(handle_));
}

int Statement::columns() const
{
  return sqlite3_column_count(st_of(handle_));
}

bool Statement::is_null(int column) const
{
  return sqlite3_column_type(st_of(handle_), column) == SQLITE_NULL;
}

int64_t Statement::integer(int column) const
{
  return sqlite3_column_int64(st_of(handle_), column);
}

double Statement::real(int column) const
{
  return sqlite3_column_double(st_of(handle_), column);
}

std::string Statement::text(int column) const
{
  const unsigned char* t = sqlite3_column_text(st_of(handle_), column);
  return t ? std::string(reinterpret_cast<const char*>(t), size_t(sqlite3_column_bytes(st_of(handle_), column)))
           : std::string();
}

} // namespace sgai::sqlite
