#!/usr/bin/env python3
"""Trains a PyTorch actor-critic on the HDeepRM thesis' 5.4 scenario through sgai.rl, as the thesis
trains its agents: one step per episode, makespan reward (6, 6.6 or 8.4 Gflop/s in use), Adam.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/train_5_4.py --episodes 350 --seed 1

Prints every 50th episode's reward and the policy at the end; writes nothing.
"""
import argparse
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

import sgai.rl

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HDEEPRM = os.path.join(ROOT, "..", "shared", "data", "platforms", "hdeeprm")


class ActorCritic(nn.Module):
    """A shared input layer; actor and critic of three hidden layers each (HDeepRM's example)."""

    def __init__(self, observations, actions, hidden):
        super().__init__()
        self.input = nn.Linear(observations, hidden)
        self.actor = nn.ModuleList([nn.Linear(hidden, hidden) for _ in range(3)] + [nn.Linear(hidden, actions)])
        self.critic = nn.ModuleList([nn.Linear(hidden, hidden) for _ in range(3)] + [nn.Linear(hidden, 1)])

    def forward(self, x):
        t = F.leaky_relu(self.input(x))
        a, c = t, t
        for layer in self.actor[:-1]:
            a = F.leaky_relu(layer(a))
        for layer in self.critic[:-1]:
            c = F.leaky_relu(layer(c))
        return F.softmax(self.actor[-1](a), dim=1), self.critic[-1](c)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--episodes", type=int, default=350)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--hidden", type=int, default=16)
    p.add_argument("--lr", type=float, default=0.005)
    a = p.parse_args()
    torch.manual_seed(a.seed)
    env = sgai.rl.HDeepRMEnv(os.path.join(ROOT, "platforms", "learning.json"),
                             os.path.join(HDEEPRM, "workload_examples", "learning.json"),
                             actions=os.path.join(HDEEPRM, "thesis_experiments", "learning", "options.json"),
                             observation="minimal", reward="makespan", queue_sensitivity=0.05)
    model = ActorCritic(env.observation_space.shape[0], env.action_space.n, a.hidden)
    adam = torch.optim.Adam(model.parameters(), lr=a.lr)
    rewards = []
    for episode in range(1, a.episodes + 1):
        obs, info = env.reset(seed=a.seed * 1000 + episode)
        log_probs, values, got = [], [], []
        terminated = truncated = False
        while not (terminated or truncated):
            probs, value = model(torch.from_numpy(obs).unsqueeze(0))
            dist = torch.distributions.Categorical(probs)
            action = dist.sample()
            log_probs.append(dist.log_prob(action))
            values.append(value.squeeze())
            obs, reward, terminated, truncated, info = env.step(action.item())
            got.append(reward)
        returns, g = [], 0.0
        for r in reversed(got):
            g = r + 0.99 * g
            returns.insert(0, g)
        returns = torch.tensor(returns)
        if len(returns) > 1:
            returns = (returns - returns.mean()) / (returns.std() + np.finfo(np.float32).eps.item())
        loss = sum(-lp * (ret - v.item()) + F.smooth_l1_loss(v, ret) for lp, v, ret in zip(log_probs, values, returns))
        adam.zero_grad()
        loss.backward()
        adam.step()
        rewards.append(got[-1])
        if episode % 50 == 0 or episode == a.episodes:
            print(f"episode {episode}: reward {got[-1]:g}, makespan {info['makespan']:g} s")
    obs, _ = env.reset(seed=0)
    probs, _ = model(torch.from_numpy(obs).unsqueeze(0))
    for name, pr in zip(env.action_names, probs.squeeze().tolist()):
        print(f"{name:24s} {pr:.3f}")
    print("rewards:", " ".join(f"{r:g}" for r in rewards))


if __name__ == "__main__":
    main()
