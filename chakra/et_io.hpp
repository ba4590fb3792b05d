/* Reading and writing Chakra ET files: a varint32 length before every message; one GlobalMetadata,
 * then Nodes. Reading streams the file (one message in memory at a time); writing goes to a
 * temporary name renamed on commit(). Bad input throws InputError naming the file, the byte
 * offset (or node id) and what was wrong. */
#ifndef SGAI_CHAKRA_ET_IO_HPP
#define SGAI_CHAKRA_ET_IO_HPP

#include "chakra/trace.hpp"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace sgai::chakra {

class EtReader {
public:
  /** Opens the file and reads its GlobalMetadata. */
  explicit EtReader(const std::filesystem::path& file);
  /** Reads from bytes in memory (`name` appears in error messages). */
  EtReader(std::string bytes, std::string name);
  ~EtReader();
  EtReader(EtReader&&) noexcept;
  EtReader& operator=(EtReader&&) noexcept;

  const GlobalMetadata& metadata() const;
  /** Reads the next node into `node`; false at the end of the file. */
  bool next(Node& node);
  /** Byte offset of the next message's length prefix. */
  uint64_t offset() const;
  uint64_t nodes_read() const;
  uint64_t size_bytes() const;
  const std::string& name() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

class EtWriter {
public:
  EtWriter(const std::filesystem::path& file, const GlobalMetadata& metadata);
  ~EtWriter();
  EtWriter(const EtWriter&)            = delete;
  EtWriter& operator=(const EtWriter&) = delete;

  void write(const Node& node);
  /** Flushes and renames the file to its name; without it the file never appears. */
  void commit();
  uint64_t nodes_written() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/** Serialized forms, for tests and the JSON tools. */
std::string encode_metadata(const GlobalMetadata& m);
std::string encode_node(const Node& n);

/** The ET files a user names: a file; a folder (its *.et); or a workload prefix "dir/name" for
 *  dir/name.0.et, dir/name.1.et, ... Sorted by rank where names have one. InputError when none. */
std::vector<std::filesystem::path> workload_files(const std::string& arg);

/** The whole trace in memory; duplicate node ids are an error. */
Trace read_trace(const std::filesystem::path& file);
void write_trace(const std::filesystem::path& file, const Trace& trace);

} // namespace sgai::chakra

#endif
