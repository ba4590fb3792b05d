/* Workloads as the simulators see them: jobs (submission time, requested resources, walltime)
 * running profiles (a delay, parallel computation and communication, I/O with a storage host, a
 * sequence of other profiles, or a trace to replay), with HDeepRM's extra fields (requested time
 * and operations, memory, memory bandwidth). Plain C++ data. */
#ifndef SGAI_GENERATORS_WORKLOAD_WORKLOAD_HPP
#define SGAI_GENERATORS_WORKLOAD_WORKLOAD_HPP

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace sgai::workload {

/** What a profile does. Named (to_string) as Batsim 3 and 4 name the types; read_batsim also takes
 *  Batsim 5's names (DelayProfile, ...) and the older ones (msg_par, ...). */
enum class ProfileType {
  delay,                      ///< delay_s
  parallel_homogeneous,       ///< cpu on each resource, com between each ordered pair
  parallel_homogeneous_total, ///< cpu and com are totals: cpu / n on each of n resources, com / (n (n - 1)) per pair
  parallel,                   ///< cpu_vector, com_matrix (n x n, n = the job's resources)
  composed,                   ///< the profiles of `sequence` in turn, `repeat` times
  parallel_homogeneous_pfs,   ///< bytes_to_read from and bytes_to_write to the `storage` host, on each resource
  smpi,                       ///< replay of the SMPI time-independent trace trace_path
  usage_trace,                ///< replay of Batsim's usage trace (FractionalComputation) trace_path
  training,                   ///< training on GPUs: iterations (compute and a gradient all-reduce, or Chakra traces)
  custom,                     ///< a type registered from outside (register_profile_type): custom_type, custom_fields
};
/** The type's stable name: "delay", "parallel_homogeneous", "parallel_homogeneous_total", "parallel",
 *  "composed", "parallel_homogeneous_pfs", "smpi", "usage_trace", "training". */
const char* to_string(ProfileType t);

struct Profile {
  std::string name;
  ProfileType type = ProfileType::delay;
  double delay_s   = 0; ///< delay: how long the job occupies its resources
  double cpu       = 0; ///< parallel_homogeneous: flops on each resource (_total: in all)
  double com       = 0; ///< parallel_homogeneous: bytes between each ordered pair of resources (_total: in all)
  std::vector<double> cpu_vector;   ///< parallel: flops per resource (n >= 1 entries)
  std::vector<double> com_matrix;   ///< parallel: bytes from resource i to j at [i * n + j]; empty: none
  std::vector<uint32_t> sequence;   ///< composed: indices in Workload::profiles, run in this order
  uint32_t repeat       = 1;        ///< composed: how many times the sequence runs (>= 1)
  double bytes_to_read  = 0;        ///< parallel_homogeneous_pfs: bytes from the storage to each resource
  double bytes_to_write = 0;        ///< parallel_homogeneous_pfs: bytes from each resource to the storage
  bool bytes_total      = false;    ///< parallel_homogeneous_pfs: the bytes are totals, spread over the n resources
  std::string storage   = "pfs";    ///< parallel_homogeneous_pfs: the storage label (Batsim's storage mapping)
  std::string trace_file;           ///< smpi, usage_trace: the trace as the workload names it
  std::filesystem::path trace_path; ///< smpi, usage_trace: trace_file from the workload file's folder (not read)
  // training: a data-parallel job on Job::resources GPUs; each iteration computes, then all-reduces
  // its gradients over the job's GPUs (sgai's GPU-cluster workloads, docs/workloads.md)
  std::string model;                 ///< training: the model's name (as the trace names it)
  uint64_t iterations = 0;           ///< training: iterations to run (>= 1)
  std::optional<double> iteration_s; ///< training: measured iteration time alone, communication included
  std::optional<double> compute_s;   ///< training: compute time of an iteration, communication excluded
  double gradient_bytes = 0;         ///< training: bytes all-reduced per iteration (0: no communication)
  std::string gpu_type;              ///< training: the GPU type the job must run on (empty: any)
  std::optional<uint32_t> pstate;    ///< training: the P-state (power cap) of its GPUs while it runs
  /** training from Chakra execution traces, one per rank, each an iteration: as the workload names
   *  them (an ET prefix dir/name for dir/name.N.et, or a folder) and from its folder (not read). */
  std::string traces;
  std::filesystem::path traces_path;
  std::string comm_groups; ///< training: the traces' communicator-group file (ASTRA-sim's), optional
  std::filesystem::path comm_groups_path;
  /** training from a generated iteration (chakra::training_iteration): a GPT-style decoder under
   *  data, tensor and pipeline parallelism, one rank per GPU. */
  struct Generated {
    uint32_t layers = 0;
    uint64_t hidden = 0, sequence = 0, batch = 0;
    uint32_t bytes_per_element = 2;
    uint32_t data = 1, tensor = 1, pipeline = 1, microbatches = 1;
    uint64_t bucket_bytes = 25 << 20;
    uint64_t ranks() const { return uint64_t{data} * tensor * pipeline; }
  };
  std::optional<Generated> generated;
  /** training from a description in Megatron-LM's argument names (docs/training.md, `megatron`:
   *  its file, relative to the workload's folder): the iteration sgai train predict prices on the
   *  cluster's GPUs, replayed as sgai train chakra writes it, one rank per GPU. */
  std::string megatron;
  std::filesystem::path megatron_path;
  uint64_t megatron_gpus = 0; ///< its GPUs (TP x PP x CP x DP, data-parallel-size given)
  /** training: its iterations replay Chakra traces (`traces`, `generated` or `megatron`) rather
   *  than a compute time and a gradient all-reduce. */
  bool replays_traces() const { return not traces.empty() || generated.has_value() || not megatron.empty(); }
  // HDeepRM's fields (absent in plain Batsim workloads)
  std::optional<double> req_time_s;  ///< the user's requested time
  std::optional<double> req_ops;     ///< operations the user asked for (requested time x reference speed)
  std::optional<double> mem_mb;      ///< memory per resource (core), MB
  std::optional<double> mem_bw_gbps; ///< memory bandwidth per resource (core), GB/s
  std::string extra_json;            ///< other fields of the profile, verbatim (JSON object text)
  /** custom: the registered type's name, and its fields (every key but req_time, req_ops, mem,
   *  mem_bw and the kept ones) as JSON text, in file order. */
  std::string custom_type;
  std::vector<std::pair<std::string, std::string>> custom_fields;
  /** custom: the field `key` as a number; std::invalid_argument naming the profile when it is
   *  absent or no number. */
  double custom_number(const std::string& key) const;
  /** custom: the field `key` as a string (a JSON string's text); std::invalid_argument likewise. */
  std::string custom_string(const std::string& key) const;
};

/** Makes the Batsim reader accept profiles of type `name` (ProfileType::custom, their fields kept
 *  in custom_fields): a job profile of one's own, which a workload manager runs once a kind is
 *  registered for it (sgai::batch::register_profile_kind does both). std::invalid_argument when
 *  the name is empty or one of Batsim's. */
void register_profile_type(const std::string& name);
bool is_registered_profile_type(const std::string& name);

struct Job {
  std::string id; ///< as in the input (Batsim ids may be numbers or strings)
  double submit_s    = 0;
  uint32_t resources = 1;
  std::optional<double> walltime_s; ///< jobs running longer are killed; none: no limit
  uint32_t profile = 0;             ///< index in Workload::profiles
  /** Who submitted it and where, for workload managers that rank by them (Slurm's fair-share,
   *  partitions, QOS): optional keys user, group, partition and qos; empty when absent. */
  std::string user, group, partition, qos;
  std::string extra_json; ///< extra_data and the other fields kept verbatim (JSON object text)
};

struct Workload {
  std::string name;               ///< workload name in outputs (the file's stem)
  std::string source;             ///< the file read
  std::optional<uint64_t> nb_res; ///< the resources the workload was made for (Batsim: its first nb_res machines)
  std::vector<Profile> profiles;
  std::vector<Job> jobs;       ///< in submission order (stable for equal times)
  std::string job_limits_json; ///< HDeepRM's job limits, verbatim, may be empty

  const Profile& profile_of(const Job& j) const { return profiles[j.profile]; }
};

/** The distinct profile types the jobs run, composed profiles' parts included, in the order of
 *  first use (jobs in order, a composed profile before its parts), as to_string names them. */
std::vector<std::string> profile_types_used(const Workload& w);

/** The requested time the schedulers see: HDeepRM's req_time, else the walltime, else nothing. */
std::optional<double> requested_time(const Workload& w, const Job& j);

} // namespace sgai::workload

#endif
