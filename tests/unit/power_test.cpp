/* batsched's energy policies as decisions (no SimGrid): sleep_pstates, the options file, the ensured
 * sleep time, the liquid load horizon, the inertial shutdown's growing steps, the subpart sleeper. */
#include "core/foundation/error.hpp"
#include "core/foundation/numbers.hpp"
#include "core/scheduling/power.hpp"
#include "test_paths.hpp"

#include <gtest/gtest.h>

#include <fstream>

using namespace sgai::scheduling;
using sgai::kInf;

namespace {

PowerOptions options(const std::string& variant = "energy_bf_monitoring_inertial")
{
  PowerOptions o;
  o.variant           = variant;
  o.monitoring_period = 60;
  o.power_sleep       = 9.75;
  o.power_idle        = 95;
  o.power_compute     = 190.738;
  o.energy_switch_on  = 19030;
  o.energy_switch_off = 620;
  o.time_switch_on    = 152;
  o.time_switch_off   = 6.1;
  o.pstate_sleep      = 13;
  o.pstate_compute    = 0;
  return o;
}

std::vector<MachineView> idle(uint32_t n)
{
  return std::vector<MachineView>(n);
}

std::filesystem::path write(const std::string& name, const std::string& text)
{
  auto f = sgai::test::temp_dir() / name;
  std::ofstream(f) << text;
  return f;
}

} // namespace

TEST(Power, SleepPStates)
{
  auto t = parse_sleep_pstates("13:14:15");
  ASSERT_EQ(t.size(), 1U);
  EXPECT_EQ(t[0].sleep, 13);
  EXPECT_EQ(t[0].off, 14);
  EXPECT_EQ(t[0].on, 15);
  EXPECT_EQ(parse_sleep_pstates("3:4:5, 6:7:8").size(), 2U);
  for (const char* bad : {"", "13:14", "13:14:15:16", "a:b:c", "13:13:15", "-1:2:3", "1:2:3,"})
    EXPECT_THROW(parse_sleep_pstates(bad), std::invalid_argument) << bad;
}

TEST(Power, EnsuredSleepTimeIsTheBreakEven)
{
  // ((6.1 + 152 + 2 x 5) x 95 - 620 - 19030) / (9.75 - 95) = 43.173 s (batsched's test numbers)
  auto o = options();
  EXPECT_NEAR(ensured_sleep_time(o), (168.1 * 95 - 19650) / (9.75 - 95), 1e-12);
  EXPECT_NEAR(ensured_sleep_time(o), 43.173, 1e-3);
  o.ensured_sleep_time_upper_bound = 0; // Batsim's medium_late runs
  EXPECT_EQ(ensured_sleep_time(o), 0);
}

TEST(Power, ReadsBatschedsOptionsFiles)
{
  auto o = read_power_options("deploy/energy/inertial.json", "energy_bf_monitoring_inertial");
  EXPECT_EQ(o.monitoring_period, 60);
  EXPECT_EQ(o.alteration, 'x');
  EXPECT_EQ(o.alteration_k, 2);
  EXPECT_EQ(o.upper_llh_threshold, 1e5);
  EXPECT_EQ(o.idle_time_to_sedate, 1e18);
  EXPECT_TRUE(o.sedate_idle_on_classical_events);
  auto s = read_power_options("deploy/energy/subpart.json", "energy_bf_subpart_sleeper");
  EXPECT_EQ(s.fraction_of_machines_to_let_awake, 0.5);
  // the inertial file names no fraction: an unknown key for the subpart sleeper
  try {
    read_power_options("deploy/energy/inertial.json", "energy_bf_subpart_sleeper");
    FAIL();
  } catch (const sgai::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("missing field 'fraction_of_machines_to_let_awake'"), std::string::npos)
        << e.what();
  }
  auto bad = write("bad_alteration.json", R"({"inertial_alteration": "y2", "monitoring_period": 60,
    "power_sleep": 9.75, "power_idle": 95, "power_compute": 190, "energy_switch_on": 1, "energy_switch_off": 1,
    "time_switch_on": 1, "time_switch_off": 1, "pstate_sleep": 13, "pstate_compute": 0})");
  try {
    read_power_options(bad, "energy_bf_monitoring_inertial");
    FAIL();
  } catch (const sgai::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("at /inertial_alteration: inertial_alteration 'y2' is not 'x' or 'p'"),
              std::string::npos)
        << e.what();
  }
  auto sleepy = write("sleepy.json", R"({"monitoring_period": 60,
    "power_sleep": 100, "power_idle": 95, "power_compute": 190, "energy_switch_on": 1, "energy_switch_off": 1,
    "time_switch_on": 1, "time_switch_off": 1, "pstate_sleep": 13, "pstate_compute": 0, "bogus": 1})");
  EXPECT_THROW(read_power_options(sleepy, "energy_bf_monitoring_inertial"), sgai::InputError);
}

TEST(Power, LiquidLoadHorizon)
{
  // As batsched computes it: the waiting jobs' load, machines x (requested time + 5 s), poured into
  // the machines free over time as planned (a computing machine at its jobs' planned end + 5 s,
  // never one asleep), the first job's reservation holding its machines (and counted in the load).
  // 4 machines: 2 idle, one computing until 100 (free at 105), one asleep.
  PowerPolicy p(options(), 4);
  auto m       = idle(4);
  m[2].state   = MachineState::computing;
  m[2].free_at = 100;
  m[3].state   = MachineState::sleeping;
  // 3 x 40 + 1 x 20 = 140 machine-seconds; the first job (3 machines) is reserved from 105, after
  // the 2 idle machines hold the 140 by t = 70: 70 s
  EXPECT_NEAR(p.liquid_load_horizon(0, {{3, 35}, {1, 15}}, m), 70, 1e-9);
  // 2 x 40 + 1 x 20 = 100; the first job (2 machines) takes the idle ones over [0, 40): nothing is
  // free until 40, then 2 machines until 105 hold 100 by t = 90
  EXPECT_NEAR(p.liquid_load_horizon(0, {{2, 35}, {1, 15}}, m), 90, 1e-9);
  // 400 machine-seconds and a first job that can never be reserved (4 machines, one asleep): 210
  // by t = 105, then 3 machines: 105 + 190 / 3
  EXPECT_NEAR(p.liquid_load_horizon(0, {{4, 95}}, m), 105 + 190.0 / 3, 1e-9);
  EXPECT_EQ(p.liquid_load_horizon(0, {}, m), 0);
  m[0].state = m[1].state = MachineState::sleeping;
  m[2].free_at            = kInf; // no machine will ever be free: batsched's infinite horizon
  EXPECT_EQ(p.liquid_load_horizon(0, {{1, 10}}, m), 1e19);
}

TEST(Power, InertialShutdownDoublesWhileTheLoadFalls)
{
  // 16 idle machines, nothing waiting: the horizon is 0, its integral never grows. Stage 1 only
  // starts (awakening); stage 2 sees no growth: it turns to sedating, without acting; then 1, 2,
  // 4, 8 machines are put to sleep, the lowest-numbered idle ones first.
  PowerPolicy p(options(), 16);
  p.first_submission(0);
  EXPECT_EQ(p.next_stage(), 60);
  auto m = idle(16);
  std::vector<size_t> sedated;
  for (int stage = 1; stage <= 6; stage++) {
    double now = 60.0 * stage;
    auto d     = p.stage(now, {}, m, false);
    EXPECT_TRUE(d.switch_on.empty());
    for (uint32_t i : d.switch_off) {
      EXPECT_EQ(m[i].state, MachineState::idle);
      m[i].state = MachineState::sleeping;
    }
    sedated.push_back(d.switch_off.size());
    EXPECT_EQ(p.next_stage(), now + 60);
  }
  EXPECT_EQ(sedated, (std::vector<size_t>{0, 0, 1, 2, 4, 8}));
  EXPECT_EQ(m[0].state, MachineState::sleeping);
  EXPECT_EQ(m[14].state, MachineState::sleeping);
  EXPECT_EQ(m[15].state, MachineState::idle); // 1 + 2 + 4 + 8 = 15 asleep
}

TEST(Power, TheFirstJobWakesWhatItNeeds)
{
  // 4 machines, 3 asleep (wakable), 1 idle; a job of 3 machines waits: 2 are switched on now.
  PowerPolicy p(options(), 4);
  p.first_submission(0);
  auto m = idle(4);
  for (int i = 1; i < 4; i++)
    m[i].state = MachineState::sleeping;
  auto d = p.after_step(10, {{3, 100}}, m);
  EXPECT_EQ(d.switch_on, (std::vector<uint32_t>{1, 2}));
  EXPECT_TRUE(d.switch_off.empty());
  // not yet wakable (inside its ensured sleep): promised, switched on once it can be
  PowerPolicy q(options(), 2);
  auto n          = idle(2);
  n[1].state      = MachineState::sleeping;
  n[1].wakable_at = 50;
  EXPECT_TRUE(q.after_step(10, {{2, 100}}, n).switch_on.empty());
  EXPECT_TRUE(q.promised(49, {{2, 100}}, n).switch_on.empty());
  EXPECT_EQ(q.promised(50, {{2, 100}}, n).switch_on, (std::vector<uint32_t>{1}));
}

TEST(Power, SubpartSleeperKeepsAFraction)
{
  // fraction 0.5 of 8 machines: 4 stay awake; the 2 computing machines that end first are
  // promised to sleep once free (switched off by promised()), after the 2 idle ones.
  auto o                              = options("energy_bf_subpart_sleeper");
  o.fraction_of_machines_to_let_awake = 0.5;
  PowerPolicy p(o, 8);
  p.first_submission(0);
  auto m = idle(8);
  for (uint32_t i = 2; i < 8; i++) {
    m[i].state   = MachineState::computing;
    m[i].free_at = 100.0 + (8 - i);
  }
  auto d = p.stage(60, {}, m, false);
  EXPECT_EQ(d.switch_off, (std::vector<uint32_t>{0, 1}));
  EXPECT_TRUE(p.reserved_for_sleep(7) && p.reserved_for_sleep(6));
  EXPECT_FALSE(p.reserved_for_sleep(5));
  m[0].state = m[1].state = MachineState::sleeping;
  m[7].state              = MachineState::idle; // its job is over
  EXPECT_EQ(p.promised(101, {}, m).switch_off, (std::vector<uint32_t>{7}));
}
