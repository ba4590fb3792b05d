"""HDeepRM's learning environment on sgai's workload manager, in Gymnasium's API (docs/rl.md).

    import sgai.rl
    env = sgai.rl.HDeepRMEnv("platforms/learning.json", "learning.json", actions="options.json",
                             observation="minimal", reward="makespan", queue_sensitivity=0.05)
    obs, info = env.reset(seed=1)
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())

Each step is a decision point of the workload manager (jobs submitted or ended, some waiting); an
action is a pair of job and resource policies (or void); the reward is computed on the state the
action leaves. The simulation runs in a server process (sgai-rl-env) that forks a child per
episode. HDeepRMEnv subclasses gymnasium.Env when Gymnasium is importable (it is not packaged in
Debian 12); its spaces follow Gymnasium's by shape either way.
"""
import os

import numpy as np

# the simulation server installed beside the package (PREFIX/lib/python3/dist-packages/sgai ->
# PREFIX/libexec/sgai/sgai-rl-env), unless SGAI_RL_ENV names one
_server = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..",
                                        "libexec", "sgai", "sgai-rl-env"))
if "SGAI_RL_ENV" not in os.environ and os.access(_server, os.X_OK):
    os.environ["SGAI_RL_ENV"] = _server

from sgai import _rl  # noqa: E402

InputError = _rl.InputError
RunError = _rl.RunError

try:  # Gymnasium's base class when it is there
    import gymnasium as _gym

    _Base = _gym.Env
    _spaces = _gym.spaces
except ImportError:  # Debian 12 has no Gymnasium: spaces of the same shape
    _Base = object
    _spaces = None


class Box:
    """A box of float32 values in [low, high] (Gymnasium's Box by shape)."""

    def __init__(self, low, high, shape, dtype=np.float32, seed=None):
        self.low = np.full(shape, low, dtype=dtype)
        self.high = np.full(shape, high, dtype=dtype)
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self._rng = np.random.default_rng(seed)

    def sample(self):
        return self._rng.uniform(self.low, self.high).astype(self.dtype)

    def contains(self, x):
        x = np.asarray(x)
        return x.shape == self.shape and bool(np.all(x >= self.low)) and bool(np.all(x <= self.high))

    def seed(self, seed=None):
        self._rng = np.random.default_rng(seed)

    def __repr__(self):
        return f"Box(0.0, 1.0, {self.shape}, {self.dtype})"


class Discrete:
    """Actions 0 to n - 1 (Gymnasium's Discrete by shape)."""

    def __init__(self, n, seed=None):
        self.n = int(n)
        self.shape = ()
        self.dtype = np.dtype(np.int64)
        self._rng = np.random.default_rng(seed)

    def sample(self):
        return int(self._rng.integers(self.n))

    def contains(self, x):
        return isinstance(x, (int, np.integer)) and 0 <= int(x) < self.n

    def seed(self, seed=None):
        self._rng = np.random.default_rng(seed)

    def __repr__(self):
        return f"Discrete({self.n})"


class HDeepRMEnv(_Base):
    """The environment: platform and workload files, the action set ("thesis": the 37; "pairs": the
    36 without void; an HDeepRM options file; or a list of "job:resource" and "void"), the
    observation ("normal", "small", "minimal"), the reward ("slowdown", "completion",
    "utilization", "makespan", "energy"), the queue sensitivity, the voids in a row at one instant
    before truncation, the cores used (0: all)."""

    metadata = {"render_modes": []}

    def __init__(self, platform, workload, actions="thesis", observation="normal", reward="makespan",
                 queue_sensitivity=0.01, max_voids=1000, max_resources=0):
        self._env = _rl.Environment(str(platform), str(workload), actions, observation, reward,
                                    float(queue_sensitivity), int(max_voids), int(max_resources))
        n = self._env.observation_size
        if _spaces is not None:
            self.observation_space = _spaces.Box(0.0, 1.0, (n,), np.float32)
            self.action_space = _spaces.Discrete(self._env.action_count)
        else:
            self.observation_space = Box(0.0, 1.0, (n,))
            self.action_space = Discrete(self._env.action_count)
        self.action_names = self._env.action_names
        self.render_mode = None

    def reset(self, seed=None, options=None):
        """Starts an episode (its policies' draws from `seed`); returns (observation, info)."""
        if seed is not None:
            self.action_space.seed(seed)
            self.observation_space.seed(seed)
        return self._env.reset(seed)

    def step(self, action):
        """Applies the action; returns (observation, reward, terminated, truncated, info). An action
        outside the set is a ValueError naming it and the count."""
        return self._env.step(int(action))

    def close(self):
        self._env = None
