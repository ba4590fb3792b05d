/* What the SWF fuzz target checks for one input, shared with the corpus replay test: a log (plain
 * text, or gzip when the bytes start with its magic) is read, selected and converted as
 * `sgai workload swf2json` does, or rejected with an InputError. A plain log is also compressed
 * here and read again through the gzip path, which must give the same jobs. */
#ifndef SGAI_TESTS_FUZZ_SWF_CHECK_HPP
#define SGAI_TESTS_FUZZ_SWF_CHECK_HPP

#include "core/foundation/error.hpp"
#include "fuzz_input.hpp"
#include "generators/workload/batsim.hpp"
#include "generators/workload/swf.hpp"
#include "workload_roundtrip.hpp"

#include <zlib.h>

#include <string>

namespace sgai::test {

/** The bytes as a gzip stream (zlib, one member). */
inline std::string gzip_bytes(const std::string& bytes)
{
  z_stream z{};
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error("deflateInit2 failed");
  std::string out(deflateBound(&z, static_cast<uLong>(bytes.size())) + 32, '\0');
  z.next_in   = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in  = static_cast<uInt>(bytes.size());
  z.next_out  = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  int rc      = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (rc != Z_STREAM_END)
    throw std::runtime_error("deflate failed");
  return out;
}

/** True when the log is accepted (and converted), false when rejected with an InputError; a
 *  FuzzBug or any other exception is a bug. */
inline bool check_swf_bytes(const std::string& bytes)
{
  const bool gz =
      bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f && static_cast<unsigned char>(bytes[1]) == 0x8b;
  workload::SwfLog log;
  try {
    log = workload::read_swf(write_input(gz ? "fuzz.swf.gz" : "fuzz.swf", bytes));
  } catch (const InputError&) {
    return false;
  }
  if (not gz) {
    workload::SwfLog again;
    try {
      again = workload::read_swf(write_input("fuzz-compressed.swf.gz", gzip_bytes(bytes)));
    } catch (const InputError& e) {
      throw FuzzBug(std::string("the gzip-compressed copy of an accepted log is rejected: ") + e.what());
    }
    if (again.records.size() != log.records.size() || again.header != log.header)
      throw FuzzBug("the gzip-compressed copy of a log reads as other jobs");
  }
  try {
    for (bool clean : {true, false}) {
      workload::SwfSelection sel;
      sel.clean = clean;
      if (not clean) {
        sel.offset = 1;
        sel.count  = 3;
      }
      auto selected = workload::select_swf(log, sel);
      workload::SwfConversion conv;
      conv.walltime = not clean;
      workload::SwfConversionReport report;
      auto w = workload::swf_to_workload(log, selected, conv, &report);
      check_batsim_roundtrip(w);
    }
  } catch (const InputError&) {
    return false; // values the conversion refuses (reported with the line)
  }
  return true;
}

} // namespace sgai::test

#endif
