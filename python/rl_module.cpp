/* sgai._rl: the learning environment (core/rl/environment.hpp) for Python, wrapped by sgai.rl
 * (python/sgai/rl.py) in Gymnasium's API. Observations come as NumPy float32 arrays. */
#include "core/foundation/error.hpp"
#include "core/rl/environment.hpp"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;
using namespace sgai;

namespace {

py::array_t<float> array(const std::vector<double>& v)
{
  py::array_t<float> a(static_cast<py::ssize_t>(v.size()));
  auto m = a.mutable_unchecked<1>();
  for (size_t i = 0; i < v.size(); i++)
    m(static_cast<py::ssize_t>(i)) = static_cast<float>(v[i]);
  return a;
}

py::dict info(const rl::StepResult& r)
{
  py::dict d;
  d["time"]       = r.info.time_s;
  d["steps"]      = r.info.steps;
  d["jobs_done"]  = r.info.jobs_done;
  d["jobs_total"] = r.info.jobs_total;
  if (r.truncated)
    d["jobs_left"] = r.info.jobs_left;
  if (r.terminated) {
    d["makespan"]              = r.info.makespan_s;
    d["mean_bounded_slowdown"] = r.info.mean_bounded_slowdown;
    d["mean_waiting_time"]     = r.info.mean_waiting_s;
    d["mean_turnaround_time"]  = r.info.mean_turnaround_s;
    d["energy"]                = r.info.energy_j;
  }
  return d;
}

std::vector<rl::Action> actions_of(const py::object& spec)
{
  if (py::isinstance<py::str>(spec))
    return rl::actions_named(spec.cast<std::string>());
  return rl::actions_from_names(spec.cast<std::vector<std::string>>());
}

} // namespace

PYBIND11_MODULE(_rl, m)
{
  m.doc() = "sgai's learning environment (HDeepRM's, on sgai's workload manager); use sgai.rl";
  py::register_exception<InputError>(m, "InputError", PyExc_ValueError);
  py::register_exception<RunError>(m, "RunError", PyExc_RuntimeError);
  m.attr("observation_names") = rl::observation_names();
  m.attr("reward_names")      = rl::reward_names();
  py::class_<rl::Environment>(m, "Environment")
      .def(py::init([](const std::string& platform, const std::string& workload, const py::object& actions,
                       const std::string& observation, const std::string& reward, double sensitivity,
                       uint32_t max_voids, uint32_t max_resources) {
             rl::EnvironmentOptions o;
             o.platform          = platform;
             o.workload          = workload;
             o.actions           = actions_of(actions);
             o.observation       = rl::observation_from_string(observation);
             o.reward            = rl::reward_from_string(reward);
             o.queue_sensitivity = sensitivity;
             o.max_voids         = max_voids;
             o.max_resources     = max_resources;
             return std::make_unique<rl::Environment>(o);
           }),
           py::arg("platform"), py::arg("workload"), py::arg("actions") = "thesis", py::arg("observation") = "normal",
           py::arg("reward") = "makespan", py::arg("queue_sensitivity") = 0.01, py::arg("max_voids") = 1000,
           py::arg("max_resources") = 0)
      .def_property_readonly("observation_size", &rl::Environment::observation_size)
      .def_property_readonly("action_count", &rl::Environment::action_count)
      .def_property_readonly("action_names",
                             [](const rl::Environment& e) {
                               std::vector<std::string> n;
                               for (const auto& a : e.options().actions)
                                 n.push_back(a.name());
                               return n;
                             })
      .def(
          "reset",
          [](rl::Environment& e, std::optional<uint64_t> seed) {
            auto r          = e.reset(seed);
            py::dict d      = info(r);
            d["terminated"] = r.terminated;
            return py::make_tuple(array(r.observation), d);
          },
          py::arg("seed") = py::none())
      .def("step", [](rl::Environment& e, int64_t action) {
        if (action < 0 || static_cast<uint64_t>(action) >= e.action_count())
          throw py::value_error("action " + std::to_string(action) + " is not one of the " +
                                std::to_string(e.action_count()) + " actions (0 to " +
                                std::to_string(e.action_count() - 1) + ")");
        auto r = e.step(static_cast<size_t>(action));
        return py::make_tuple(array(r.observation), r.reward, r.terminated, r.truncated, info(r));
      });
}
