"""cublas_shape.py M N K - cuBLAS FP32 (no TF32) at one M x N x K, timed as baselines.py times
(timing.Timer: L2 evicted before each sample, events, the GPU kept busy while Python enqueues),
three rounds; for shapes baselines.py (square only) does not take."""
import os
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch
from timing import Timer
torch.backends.cuda.matmul.allow_tf32 = False
m, n, k = (int(x) for x in sys.argv[1:4])
a = torch.rand(m, k, device="cuda") * 2 - 1
b = torch.rand(k, n, device="cuda") * 2 - 1
t = Timer(busy=True)
for r in range(3):
    st = t.time(lambda: a @ b)
    print(f"cublas fp32 M={m},N={n},K={k} {st['ms']:.4f} ms {2 * m * n * k / st['ms'] / 1e9:.1f} TFLOP/s round={r + 1}")
