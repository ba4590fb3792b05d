/* The one way sgai reaches SQLite (its own target, sgai::sqlite): a database file opened for
 * writing or reading, its schema version (PRAGMA user_version), transactions, prepared statements.
 * Every error names the file and what SQLite said: InputError when opening or reading a file the
 * user gave, RunError for a failure while writing. No SQLite header leaks out of sqlite.cpp. */
#ifndef SGAI_CORE_SQLITE_SQLITE_HPP
#define SGAI_CORE_SQLITE_SQLITE_HPP

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace sgai::sqlite {

class Database;

/** A prepared statement: bind parameters (1-based), step through rows, read columns (0-based). */
class Statement {
public:
  Statement(Statement&&) noexcept;
  Statement& operator=(Statement&&) noexcept;
  Statement(const Statement&)            = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  Statement& bind(int index, int64_t value);
  Statement& bind(int index, double value);
  Statement& bind(int index, std::string_view value);
  Statement& bind_null(int index);
  /** Runs it one step: true while a row is there to read, false when done. */
  bool step();
  /** Runs a statement that returns no row (an insert), then resets it for the next bindings. */
  void run();
  /** Back to the start, bindings kept. */
  void reset();

  int columns() const;
  bool is_null(int column) const;
  int64_t integer(int column) const;
  double real(int column) const;
  std::string text(int column) const;

private:
  friend class Database;
  Statement(Database& db, void* handle);
  Database* db_ = nullptr;
  void* handle_ = nullptr;
};

class Database {
public:
  enum class Mode { create, read, update };
  /** create: a new file (an existing one is replaced: callers write to a temporary name and rename
   *  it when complete); read: an existing file, read-only; update: an existing file kept across
   *  runs (a campaign's), read and written with SQLite's rollback journal, so that a process killed
   *  in a transaction leaves the file as it was before it. */
  Database(const std::filesystem::path& file, Mode mode);
  Database(Database&&) noexcept;
  Database& operator=(Database&&) noexcept;
  Database(const Database&)            = delete;
  Database& operator=(const Database&) = delete;
  ~Database();

  const std::filesystem::path& file() const { return file_; }

  /** Runs SQL that returns no rows (several statements allowed). */
  void exec(const std::string& sql);
  Statement prepare(const std::string& sql);
  /** The schema version stored in the file (PRAGMA user_version). */
  int64_t schema_version();
  void set_schema_version(int64_t version);

  /** BEGIN ... COMMIT; destroyed without commit() (an error was thrown), it rolls back. */
  class Transaction {
  public:
    explicit Transaction(Database& db);
    Transaction(const Transaction&)            = delete;
    Transaction& operator=(const Transaction&) = delete;
    ~Transaction();
    void commit();

  private:
    Database& db_;
    bool done_ = false;
  };

  /** The error of the last failed call, for messages ("<file>: <what>: <SQLite's message>"). */
  [[noreturn]] void fail(const std::string& what) const;

private:
  friend class Statement;
  std::filesystem::path file_;
  Mode mode_    = Mode::read;
  void* handle_ = nullptr;
};

} // namespace sgai::sqlite

#endif
