#!/usr/bin/env python3
"""The Python package sgai.rl: Gymnasium's API by shape, 5.4's rewards, the same rewards as the C++
environment (sgai rl evaluate) for the same seed and actions on 500 KTH jobs, bad actions as
ValueError, two environments side by side, the PyTorch example training a few episodes.
Run by ctest (python.rl) with PYTHONPATH=<build>/python and SGAI=<build>/tools/sgai; exit 77: skipped."""
import csv
import os
import subprocess
import sys
import tempfile

if not os.path.isdir("../shared/data"):
    print("no ../shared/data: skipped")
    sys.exit(77)

import sgai.rl  # noqa: E402

HDEEPRM = "../shared/data/platforms/hdeeprm"
LEARN = dict(platform="platforms/learning.json", workload=f"{HDEEPRM}/workload_examples/learning.json",
             actions=f"{HDEEPRM}/thesis_experiments/learning/options.json", observation="minimal",
             reward="makespan", queue_sensitivity=0.05)
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


# the spaces, by Gymnasium's shape
env = sgai.rl.HDeepRMEnv(**LEARN)
check(env.observation_space.shape == (21,), f"observation space {env.observation_space}")
check(env.action_space.n == 5, f"action space {env.action_space}")
check(env.action_space.contains(env.action_space.sample()), "a sample outside the action space")
obs, info = env.reset(seed=1)
check(env.observation_space.contains(obs), f"observation {obs} outside its space")
check(str(obs.dtype) == "float32", f"observation dtype {obs.dtype}")

# 5.4: each action's reward
for a, want in enumerate([6.6, 8.4, 6.0, 6.6, 8.4]):
    env.reset(seed=a)
    obs, reward, terminated, truncated, info = env.step(a)
    check(abs(reward - want) < 1e-9 and terminated and not truncated, f"action {a}: reward {reward}, expected {want}")

# bad actions: ValueError naming the index and the count
env.reset(seed=3)
for bad in (5, -1):
    try:
        env.step(bad)
        check(False, f"no error for action {bad}")
    except ValueError as e:
        check(str(e) == f"action {bad} is not one of the 5 actions (0 to 4)", f"message: {e}")

# two environments side by side
other = sgai.rl.HDeepRMEnv(**LEARN)
other.reset(seed=2)
env.reset(seed=2)
check(abs(other.step(1)[1] - 8.4) < 1e-9 and abs(env.step(2)[1] - 6.0) < 1e-9, "two environments interfere")

# the same rewards as the C++ environment: sgai rl evaluate's fixed actions on 500 KTH jobs
sgai_bin = os.environ.get("SGAI", "build/tools/sgai")
kth = dict(platform="platforms/gaia.json", workload="workloads/kth-sp2-first500.json")
with tempfile.TemporaryDirectory() as tmp:
    common = ["--platform", kth["platform"], "--workload", kth["workload"]]
    subprocess.run([sgai_bin, "rl", "train", *common, "--actions", "pairs", "--observation", "minimal", "--reward",
                    "slowdown", "--episodes", "1", "--out", f"{tmp}/t"], check=True, stdout=subprocess.DEVNULL)
    subprocess.run([sgai_bin, "rl", "evaluate", "--model", f"{tmp}/t/model.pt", *common, "--seed", "7", "--out",
                    f"{tmp}/e"], check=True, stdout=subprocess.DEVNULL)
    with open(f"{tmp}/e/evaluation.csv") as f:
        rows = {r["policy"]: r for r in csv.DictReader(f)}
kenv = sgai.rl.HDeepRMEnv(**kth, actions="pairs", observation="minimal", reward="slowdown")
for a in (0, 13, 35):
    name = kenv.action_names[a]
    obs, info = kenv.reset(seed=7)
    total, steps, done = 0.0, 0, False
    while not done:
        obs, reward, terminated, truncated, info = kenv.step(a)
        total += reward
        steps += 1
        done = terminated or truncated
    want = float(rows[name]["reward_sum"])
    check(abs(total - want) <= 1e-9 * abs(want) and steps == int(rows[name]["steps"]),
          f"{name}: Python {total} in {steps} steps, C++ {want} in {rows[name]['steps']}")
    check(abs(info["mean_bounded_slowdown"] - float(rows[name]["mean_bounded_slowdown"])) < 1e-9,
          f"{name}: slowdown differs")

# installed: the package and the server under a prefix (cmake --install), found without the build tree
build = os.path.dirname(os.environ["PYTHONPATH"].split(os.pathsep)[0].rstrip("/"))
with tempfile.TemporaryDirectory() as prefix:
    subprocess.run(["cmake", "--install", build, "--prefix", prefix], check=True, stdout=subprocess.DEVNULL)
    env_vars = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SGAI_RL_ENV")}
    env_vars["PYTHONPATH"] = os.path.join(prefix, "lib", "python3", "dist-packages")
    code = ("import os, sgai.rl; e = sgai.rl.HDeepRMEnv(**%r); e.reset(seed=1); "
            "print(os.environ['SGAI_RL_ENV'], e.step(1)[1])" % LEARN)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env_vars)
    check(r.returncode == 0 and r.stdout.split() == [os.path.join(prefix, "libexec", "sgai", "sgai-rl-env"), "8.4"],
          f"installed package: {r.stdout} {r.stderr[-300:]}")

# the PyTorch example trains a few episodes
r = subprocess.run([sys.executable, "examples/python/train_5_4.py", "--episodes", "20", "--seed", "2"],
                   capture_output=True, text=True)
check(r.returncode == 0, f"the example failed: {r.stderr[-500:]}")
rewards = [float(x) for line in r.stdout.splitlines() if line.startswith("rewards:") for x in line.split()[1:]]
check(len(rewards) == 20 and all(x in (6.0, 6.6, 8.4) for x in rewards), f"the example's rewards: {rewards}")

print("FAILED" if failures else "ok")
sys.exit(1 if failures else 0)
