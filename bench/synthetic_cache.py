#!/usr/bin/env python3
"""synthetic_cache.py - a Kernel Tuner cache of N configurations for timing
replays (bench/bench_replay.c, docs/SEARCH.md "Replaying a recording file").

    python3 bench/synthetic_cache.py OUT.json [N]

N (default 20,000) configurations drawn without repeats from 7 parameters
(36,864 combinations), seeded, written as Kernel Tuner writes a cache: about
3% InvalidConfig, 2% RuntimeFailedConfig, the rest a time with 32
repetitions, a compile time and a timestamp each."""
import itertools
import json
import random
import sys

out = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
random.seed(1)
params = {"bx": [16 * i for i in range(1, 17)], "by": [1, 2, 4, 8, 16, 32],
          "tx": [1, 2, 3, 4], "ty": [1, 2, 3, 4], "u": [0, 1], "v": [1, 2, 4, 8],
          "w": [0, 1, 2]}
keys = list(params)
configs = list(itertools.product(*params.values()))
random.shuffle(configs)
cache = {}
for c in sorted(configs[:n]):
    entry = dict(zip(keys, c))
    t = 1 + random.random() * 10
    r = random.random()
    if r < 0.03:
        entry["time"] = "InvalidConfig"
    elif r < 0.05:
        entry["time"] = "RuntimeFailedConfig"
    else:
        entry["time"] = t
        entry["times"] = [t * (1 + random.random() * 0.01) for _ in range(32)]
        entry["compile_time"] = random.random() * 1000
    entry["timestamp"] = "2023-12-22 09:54:05.502007+00:00"
    cache[",".join(map(str, c))] = entry
doc = {"device_name": "SYN GPU", "kernel_name": "syn", "problem_size": [4096, 4096],
       "tune_params_keys": keys, "tune_params": params, "objective": "time",
       "cache": cache}
with open(out, "w") as f:
    json.dump(doc, f)
