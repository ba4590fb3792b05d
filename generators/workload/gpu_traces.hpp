/* Public GPU-cluster traces -> workloads of training jobs (ProfileType::training, one profile per
 * job), as docs/workloads.md describes: Tiresias' job traces (SymbioticLab/Tiresias, NSDI'19),
 * Gavel's traces (stanford-futuredata/gavel, OSDI'20: the Philly-derived msr ones and the
 * physical_cluster ones) with its measured throughputs, and Alibaba's 2023 GPU pod list
 * (alibaba/clusterdata, FGD, ATC'23). Each converter says what it kept, skipped and why.
 * Plain C++ data, no SimGrid. */
#ifndef SGAI_GENERATORS_WORKLOAD_GPU_TRACES_HPP
#define SGAI_GENERATORS_WORKLOAD_GPU_TRACES_HPP

#include "generators/workload/workload.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sgai::workload {

/** What a conversion kept and skipped. */
struct GpuTraceReport {
  uint64_t rows = 0; ///< data rows read
  uint64_t jobs = 0; ///< jobs written
  uint64_t gpus = 0; ///< GPUs the jobs ask for, in all
  /** Rows left out, by reason, in the order the reasons were first met. */
  std::vector<std::pair<std::string, uint64_t>> skipped;
  /** Rules applied to some rows, with how many ("googlenet: inception3's tensors, as Tiresias"). */
  std::vector<std::pair<std::string, uint64_t>> notes;
  void skip(const std::string& why);
  void note(const std::string& what);
};

/** A model's gradient: the bytes one data-parallel iteration all-reduces (fp32 parameters) and
 *  where the figure comes from. */
struct ModelGradient {
  double bytes       = 0;
  const char* source = "";
};
/** Tiresias' models (simulator/models.py: the sums of its tensor sizes, MiB); googlenet is absent
 *  there and Tiresias falls back to inception3, which gradient_tiresias does too (with_fallback). */
std::optional<ModelGradient> gradient_tiresias(const std::string& model, bool* fell_back = nullptr);
/** Gavel's job types, by model (the type's name without " (batch size N)"). */
std::optional<ModelGradient> gradient_gavel(const std::string& model);

/** Tiresias' trace CSV (job_id, num_gpu, submit_time, iterations, model_name, duration, interval):
 *  a job per row, iteration_time = duration / iterations (measured alone on the testbed's P100s:
 *  extra_data measured_on), its model's gradient; no gpu_type (a requirement the user may add). InputError naming the
 * file, line and column for a missing, malformed or out-of-range field. */
Workload tiresias_to_workload(const std::string& file, GpuTraceReport* report = nullptr);

/** Gavel's measured throughputs (simulation_throughputs.json / physical_cluster_throughputs.json):
 *  steps per second of a job type at a GPU count, alone ("null"), per GPU kind. */
struct GavelThroughputs {
  std::string file;
  /** [gpu kind]["type name"][gpu count] = steps/s alone. */
  std::map<std::string, std::map<std::string, std::map<uint32_t, double>>> alone;
  std::optional<double> get(const std::string& gpu, const std::string& type, uint32_t count) const;
  /** The job types that have a throughput alone on `gpu` at one GPU, sorted. */
  std::vector<std::string> types_on(const std::string& gpu) const;
};
GavelThroughputs read_gavel_throughputs(const std::string& file);

struct GavelOptions {
  std::string gpu = "v100"; ///< the GPU kind whose throughputs time the jobs
};
/** Gavel's trace (tab-separated; 7 fields, the msr traces: job type, command, steps argument,
 *  needs-data flag, total steps, arrival, scale factor (GPUs); 10 fields, physical_cluster: job
 *  type, command, working directory, steps argument, needs-data flag, total steps, scale factor,
 *  priority weight, SLO, arrival). A job per row: iterations = total steps; iteration_time =
 *  1 / the throughput alone at its GPU count where measured, else compute_time = 1 / the one-GPU
 *  throughput with the model's gradient all-reduced by the simulation. InputError for a bad field
 *  or a type with neither (naming the file, line and type). */
Workload gavel_to_workload(const std::string& file, const GavelThroughputs& throughputs, const GavelOptions& options,
                           GpuTraceReport* report = nullptr);

struct AlibabaOptions {
  std::string qos;          ///< keep only this qos (LS, BE, Burstable, Guaranteed); empty: all
  uint64_t seed   = 0;      ///< the model of each job: a Gavel job type by a seeded hash of the pod name
  std::string gpu = "v100"; ///< the GPU kind whose throughputs give the iterations
  /** Keep only the pods created on this day of the trace (creation_time in [86,400 d, 86,400 (d + 1))),
   *  their times counted from that day's start. */
  std::optional<uint64_t> day;
};
/** Alibaba's 2023 pod list (name, cpu_milli, memory_mib, num_gpu, gpu_milli, gpu_spec, qos,
 *  pod_phase, creation_time, deletion_time, scheduled_time): a job for each pod with num_gpu >= 1,
 *  gpu_milli = 1000 and a scheduled_time; arrival = creation_time, duration = deletion_time -
 *  scheduled_time, censored when the pod was still running at the trace's end (its last
 *  deletion_time); qos and pod_phase kept in the job's extra data; failed pods kept (they held their
 *  GPUs). Model: a Gavel job type by a seeded hash of the pod name; iterations = duration x its
 *  throughput at that GPU count (else at one GPU, then the all-reduce adds to each iteration).
 *  Skipped and counted: pods without GPU, fractional pods, pods never scheduled, other qos. */
Workload alibaba_to_workload(const std::string& file, const GavelThroughputs& throughputs,
                             const AlibabaOptions& options, GpuTraceReport* report = nullptr);

} // namespace sgai::workload

#endif
