#!/usr/bin/env python3
"""Writes deploy/aiops/default-model.json: sgai's default AI-ops model, every number with where it
comes from. PipeSim (IBM, 2020) gives the framework mix, two median training times, the mean
interarrival with its family, the daily peak and the asset mixture's set-up; everything else is
marked "assumed". Run from the repository root: tools/aiops/default_model.py"""
import json
import math

PAPER = "PipeSim (IBM, 2020), ../shared/papers/pipesim.txt"

# Interarrivals: exponentiated Weibull (paper, V-A3) with a mean of 44 s (paper, VI). Its shape is not
# printed: a and k assumed (those sgai fits to Alibaba's openb pods, deploy/aiops/openb-arrivals.json);
# the scale is set so that the weekly mean gap is 44 s.
A, K = 1.2052, 0.6348

def expweibull_mean(a, k, scale):
    # E[X] = integral over (0, 1) of the quantile scale * (-ln(1 - u^(1/a)))^(1/k), midpoints on a
    # grid dense at both ends (smoothstep)
    n, s = 200000, 0.0
    for i in range(n):
        v = (i + 0.5) / n
        u = v * v * (3 - 2 * v)
        q = scale * (-math.log1p(-u ** (1 / a))) ** (1 / k)
        s += q * 6 * v * (1 - v) / n
    return s

unit_mean = expweibull_mean(A, K, 1.0)
# the daily peak around 16:00 (paper, V-A3, Figure 10: drawn only, relative): an assumed rate
# 1 + 0.5 cos(2 pi (h - 16) / 24) of the mean, every day alike; the mean gap of hour h is 44 / rate
hours = []
for h in range(168):
    rate = 1 + 0.5 * math.cos(2 * math.pi * ((h % 24) - 16) / 24)
    mean_gap = 44.0 / rate
    hours.append({"hour": h, "family": "expweibull", "params": [A, K, mean_gap / unit_mean], "gaps": 0})
overall = {"family": "expweibull", "params": [A, K, 44.0 / unit_mean]}

def lognormal(median, sigma):
    return {"components": [{"weight": 1.0, "mean": [math.log(median)], "covariance": [[sigma * sigma]]}]}

model = {
    "sgai_aiops_model": 1,
    "arrivals": {
        "provenance": PAPER + ": exponentiated Weibull interarrivals, mean 44 s, daily peak around 16:00; "
                      "assumed: the shapes a = 1.2052, k = 0.6348 (sgai's openb fit), the peak's form "
                      "1 + 0.5 cos(2 pi (h - 16) / 24), every weekday alike; hour 0 = Monday 00:00",
        "origin_hour": 0, "factor": 1.0, "overall": overall, "hours": hours},
    "assets": {
        "provenance": PAPER + ": a Gaussian mixture on log rows, columns and bytes, assets under 50 rows or "
                      "2 columns dropped (its 50 components' parameters are not printed); assumed: the three "
                      "components below (small, medium and large tabular data sets)",
        "min_rows": 50, "min_columns": 2,
        "log_rows_columns_bytes": {"components": [
            {"weight": 0.5, "mean": [math.log(5e3), math.log(15), math.log(5e3 * 15 * 8)],
             "covariance": [[1.0, 0.1, 0.9], [0.1, 0.3, 0.35], [0.9, 0.35, 1.3]]},
            {"weight": 0.35, "mean": [math.log(2e5), math.log(40), math.log(2e5 * 40 * 8)],
             "covariance": [[1.0, 0.0, 0.9], [0.0, 0.4, 0.35], [0.9, 0.35, 1.4]]},
            {"weight": 0.15, "mean": [math.log(2e6), math.log(60), math.log(2e6 * 60 * 8)],
             "covariance": [[0.8, 0.0, 0.75], [0.0, 0.3, 0.3], [0.75, 0.3, 1.1]]}]}},
    "training": {
        "provenance": PAPER + ": the framework mix (63% SparkML, 32% TensorFlow, 3% PyTorch, 1% Caffe, "
                      "1% other) and the median training times of TensorFlow (180 s) and SparkML (10 s); "
                      "assumed: log-normal times with sigma 1.2, PyTorch, Caffe and other at TensorFlow's "
                      "median",
        "frameworks": {
            "sparkml": {"share": 0.63, "log_seconds": lognormal(10, 1.2)},
            "tensorflow": {"share": 0.32, "log_seconds": lognormal(180, 1.2)},
            "pytorch": {"share": 0.03, "log_seconds": lognormal(180, 1.2)},
            "caffe": {"share": 0.01, "log_seconds": lognormal(180, 1.2)},
            "other": {"share": 0.01, "log_seconds": lognormal(180, 1.2)}}},
    "preprocess": {
        "provenance": "assumed: seconds = 5 exp(5e-11 x bytes) x LogNormal(0, 0.5), e times longer every 20 GB "
                      "(PipeSim fits an exponential curve with log-normal noise to its data, parameters not printed)",
        "a": 5.0, "b": 5e-11, "sigma": 0.5},
    "tasks": {
        "provenance": PAPER + ": evaluation times from a Gaussian mixture on raw compute times (its parameters "
                      "not printed), compression as long as training plus Gaussian noise (section V-A2); assumed: "
                      "log-normal evaluate (median 30 s), validate (20 s) and deploy (15 s) times, and the noise's "
                      "standard deviation 0.1",
        "compress_noise": 0.1,
        "log_seconds": {"evaluate": lognormal(30, 1.0), "validate": lognormal(20, 1.0),
                        "deploy": lognormal(15, 0.5)}},
    "models": {
        "provenance": PAPER + ", Table I (GoogleNet and ResNet50 on Food101, Caffe, 40% pruned): compression keeps "
                      "0.6037 of a model's size (20.9 / 42.5 MB and 65.2 / 91.1 MB, mean) and 0.9926 of its "
                      "accuracy (80.0 / 80.7% and 80.8 / 81.3%, mean); assumed: model sizes log-normal with median "
                      "5 MB and sigma 2, the metric N(0.85, 0.05), training from a parent's model taking 0.25 of "
                      "the time, tests reading 0.2 of the data set",
        "log_bytes": lognormal(5e6, 2.0),
        "metric": {"mean": 0.85, "sd": 0.05},
        "compress_size": round((20.9 / 42.5 + 65.2 / 91.1) / 2, 6),
        "compress_metric": round((80.0 / 80.7 + 80.8 / 81.3) / 2, 6),
        "transfer": 0.25, "test_fraction": 0.2},
}

with open("deploy/aiops/default-model.json", "w") as f:
    json.dump(model, f, indent=1)
    f.write("\n")
