"""nvml_steps.py - how often NVML's total-energy counter moves on this GPU,
the fact the worker's energy span (src/measure/energy.c) is built on: a
FP16 GEMM loop keeps the GPU busy while the host polls the counter for
SECONDS (default 2) and prints the intervals between its steps and the
power each step implies."""
import sys
import time

import pynvml
import torch

secs = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
pynvml.nvmlInit()
dev = pynvml.nvmlDeviceGetHandleByIndex(0)
a = torch.rand(8192, 8192, device="cuda", dtype=torch.float16)
for _ in range(int(secs * 1000 / 1.6) + 50):  # about 1.6 ms a product
    a @ a
steps, last = [], pynvml.nvmlDeviceGetTotalEnergyConsumption(dev)
t_end = time.perf_counter() + secs
while time.perf_counter() < t_end:
    e = pynvml.nvmlDeviceGetTotalEnergyConsumption(dev)
    if e != last:
        steps.append((time.perf_counter(), e))
        last = e
torch.cuda.synchronize()
gaps = sorted(b[0] - a[0] for a, b in zip(steps, steps[1:]))
watts = sorted((b[1] - a[1]) * 1e-3 / (b[0] - a[0]) for a, b in zip(steps, steps[1:]))
if gaps:
    mid = len(gaps) // 2
    print(f"nvml counter: {len(steps)} steps in {secs:.1f} s; interval min {gaps[0] * 1e3:.1f} "
          f"median {gaps[mid] * 1e3:.1f} max {gaps[-1] * 1e3:.1f} ms; power per step min "
          f"{watts[0]:.0f} median {watts[mid]:.0f} max {watts[-1]:.0f} W; over all "
          f"{(steps[-1][1] - steps[0][1]) * 1e-3 / (steps[-1][0] - steps[0][0]):.0f} W")
else:
    print(f"nvml counter: {len(steps)} steps in {secs:.1f} s")
