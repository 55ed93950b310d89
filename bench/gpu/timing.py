"""timing.py - how the GPU baselines (baselines.py, conv_cudnn.py) time a
call: 5 warm-up calls, then CUDA events around each of reps calls, median in
milliseconds.  before() runs ahead of each timed call, outside the events
(an L2 flush, say)."""
import torch


def median_ms(fn, reps=50, before=None):
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        if before:
            before()
        s = torch.cuda.Event(enable_timing=True)
        e = torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e))
    times.sort()
    return times[len(times) // 2]
