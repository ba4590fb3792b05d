/* The workload manager and job submitters as a SimGrid deployment file starts them
 * (load_deployment), in SimGrid's plugin style:
 *
 *   sgai_batch_register_actors();          // once the Engine exists, before load_platform
 *   engine.load_platform("platform.xml");
 *   engine.load_deployment("deployment.xml");
 *   engine.run();
 *
 * with, in the deployment file:
 *
 *   <actor host="node_0" function="sgai_workload_manager">
 *     <argument value="workload=jobs.json"/>      <!-- Batsim JSON or SWF, relative to the folder run in -->
 *     <argument value="out=results/batch"/>       <!-- the outputs of sgai batch run, written at the end -->
 *     <argument value="backfill=easy"/>           <!-- none, easy or conservative -->
 *   </actor>
 *
 * Arguments are key=value: workload (required unless submitters > 0), out (default
 * results/workload_manager), backfill (easy), job_policy (first), resource_policy (first; names
 * registered with register_job_policy / register_resource_policy included), max_resources (0:
 * every core of the platform, or the workload's nb_res), seed (1), name (workload_manager: what
 * submitters name it), submitters (0: the jobs that come from other actors, see below). The
 * manager schedules the compute hosts of the loaded platform (resources_from_engine); it runs in
 * its own actor, this one returns at once.
 *
 * Jobs from other actors, as Batsim's job submitters send them: a manager given submitters=N
 * waits for N submitters to end their submissions (its own workload= is then optional), and
 *
 *   <actor host="node_0" function="sgai_job_submitter">
 *     <argument value="workload=more_jobs.json"/> <!-- submitted each at its submission time -->
 *     <argument value="manager=workload_manager"/><!-- the manager's name= (this default) -->
 *   </actor>
 *
 * submits the jobs of its workload at their dates (jobs.csv names the submitter's workload in
 * workload_name). A program's own actors submit with deployed_workload_manager(name)->submit(...)
 * and end with end_submissions() (manager.hpp); a submitter starts no earlier than its manager.
 *
 * An argument or input an actor cannot use stops the simulation (every actor killed) and is kept
 * as sgai::sim::deployment_error() (plugins/sim/deployment.hpp): a program checks it after Engine::run
 * (sgai run exits 1 with it); the files written are sgai::sim::deployment_outputs(). */
#ifndef SGAI_PLUGINS_BATCH_DEPLOYMENT_HPP
#define SGAI_PLUGINS_BATCH_DEPLOYMENT_HPP

#include <xbt/base.h> // SG_BEGIN_DECL / SG_END_DECL: C linkage, as SimGrid's plugin headers declare it

#include <string>
#include <vector>

SG_BEGIN_DECL
/** Registers the functions "sgai_workload_manager" and "sgai_job_submitter" on the Engine (create
 *  it first) and turns on SimGrid's host energy plugin, which the manager's energy accounting
 *  reads: call it before loading the platform, as the plugin asks. */
void sgai_batch_register_actors(void);
SG_END_DECL

namespace sgai::batch {

/** The body of "sgai_workload_manager": `args` as SimGrid passes them (args[0] is the function's
 *  name). */
void workload_manager_actor(std::vector<std::string> args);
/** The body of "sgai_job_submitter". */
void job_submitter_actor(std::vector<std::string> args);

class WorkloadManager;
/** The workload manager a deployment file started under `name` (its name= argument), while the
 *  simulation runs; null when none is. */
WorkloadManager* deployed_workload_manager(const std::string& name);

} // namespace sgai::batch

#endif
