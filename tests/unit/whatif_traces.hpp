/* The shared Kineto traces the what-if tests take as baselines (GPU activity, every GPU event with
 * its launch), under ../shared/data. */
#ifndef SGAI_TESTS_UNIT_WHATIF_TRACES_HPP
#define SGAI_TESTS_UNIT_WHATIF_TRACES_HPP

#include <filesystem>
#include <vector>

namespace sgai::test {

inline std::vector<std::filesystem::path> whatif_baseline_traces(const std::filesystem::path& data)
{
  const std::filesystem::path h = data / "kineto/hta";
  return {data / "kineto/kineto/worker0.1623143089861.pt.trace.json.gz",
          h / "ns_resolution_trace",
          h / "nccl_parser_config",
          h / "df_index_resolver",
          h / "trace_diff/control",
          h / "trace_filter/sampled_rank-0.json.gz",
          h / "trace_filter/sampled_rank-1.json.gz",
          h / "amd_trace",
          h / "critical_path/simple_add",
          h / "critical_path/alexnet",
          h / "critical_path/cuda_event_sync",
          h / "critical_path/cuda_event_sync_multi_stream",
          h / "execution_trace/benchmark_simple_add_trace.json.gz",
          data / "pytorch-et/param/resnet_kineto.json.gz",
          data / "pytorch-et/param/linear_kineto.json.gz"};
}

} // namespace sgai::test

#endif
