/* Component "batch" built in code: the workload manager on a workload, for an experiment::Spec
 * (experiment.hpp). An experiment file's "batch" component reads the same from its options. */
#ifndef SGAI_PLUGINS_EXPERIMENT_BATCH_COMPONENT_HPP
#define SGAI_PLUGINS_EXPERIMENT_BATCH_COMPONENT_HPP

#include "generators/workload/workload.hpp"
#include "plugins/batch/manager.hpp"
#include "plugins/experiment/component.hpp"

#include <memory>
#include <string>

namespace sgai::experiment {

/** What the component runs. */
struct BatchSetup {
  workload::Workload workload;
  /** The manager's configuration; the component sets the scheduler's seed (the experiment's), the
   *  platform file, the series' folder (the component's output folder) and, when max_resources is
   *  0, the cores a Batsim workload was made for (nb_res). */
  batch::ManagerConfig config;
  /** Where config.max_resources was given (file, place): an InputError there when it is more
   *  than the platform's cores. */
  std::string max_resources_file, max_resources_place;
};

/** Says once on standard error what of slurm.conf sgai does not model, and the workload's users
 *  without an association (their fair-share factor is 0). */
void warn_slurm(const scheduling::SlurmConf& conf, const scheduling::SlurmAssociations* associations,
                const workload::Workload& w);

/** The component, configured: it uses the platform's first max_resources cores when given, else
 *  the first nb_res of a Batsim workload, else all. */
std::unique_ptr<Component> make_batch_component(BatchSetup setup);

} // namespace sgai::experiment

#endif
