/* Synthetic Chakra traces: ASTRA-sim-style collective microbenchmarks, training iterations under
 * data, model, pipeline and hybrid parallelism, and large random DAGs for benchmarks. */
#ifndef SGAI_CHAKRA_GENERATE_HPP
#define SGAI_CHAKRA_GENERATE_HPP

#include "chakra/trace.hpp"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace sgai::chakra {

class EtWriter;

/** "all_reduce", "all_gather", ... (the lower-case names ASTRA-sim's file names use). */
std::string collective_file_name(CollectiveType t);
/** 1048576 -> "1MB", 4096 -> "4KB", 1536 -> "1536B". */
std::string size_label(uint64_t bytes);

/** One trace per rank, each a single COMM_COLL node numbered by its rank and named
 *  "<collective>_<N>npus_<size>": the structure of ASTRA-sim's examples/workload/microbenchmarks.
 *  count > 1: that many collectives per rank, each depending on the one before (a chain, for
 *  benchmarks); one gives ASTRA-sim's files byte for byte. */
std::vector<Trace> microbenchmark(CollectiveType type, uint32_t ranks, uint64_t bytes, uint32_t count = 1);

/** A layered random DAG of `nodes` compute nodes streamed to `out` (nothing kept in memory): node i
 *  depends on 1 to 3 nodes among the previous `width`; durations 1-100 us, num_ops 1e6-1e9. */
void random_dag(EtWriter& out, uint64_t nodes, uint32_t width, uint64_t seed);

/** Writes one ET per rank, "<prefix>.<rank>.et", in `dir`; returns the paths. */
std::vector<std::filesystem::path> write_workload(const std::filesystem::path& dir, const std::string& prefix,
                                                  const std::vector<Trace>& ranks);

} // namespace sgai::chakra

#endif
