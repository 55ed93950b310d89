"""timing.py - how the Python side of the GPU benchmarks (baselines.py,
conv_cudnn.py, harness.py) times a call: as ktune's C worker does
(src/backend/cuda.c, src/measure/worker_child.c), with no host work inside
the measured interval.

What ktune does, and this does too: each sample is a 128 MiB memset of the
flush buffer (value: the sample's number), which evicts the 50 MB L2, then
an event, `inner` back-to-back calls, an event; inner is 1 for calls of
0.05 ms or more, else enough calls to last 0.05 ms (from one first call);
samples come in batches of 5 until there are 5 or more over 0.2 s or more
with a spread (p75 - p25) / median of 5% or less, or 200 samples, or 3 s;
the figure is the median sample over inner.

Why samples are enqueued back to back, and checked: ktune's C launcher
enqueues memset, event, launch and event in a few microseconds while the
GPU is still writing the 128 MiB (about 50 us), so the start event fires
when the kernel is already queued.  A Python call (torch.matmul, a Triton
launch, cuDNN through PyTorch) takes tens of microseconds of host time to
enqueue, longer than the flush: with an idle GPU the start event fires,
then the GPU waits for the host, and that wait is timed (Triton's FP16
4096^3 read 466 TFLOP/s that way, 716 without).  So a batch of samples is
enqueued without waiting in between, and after enqueueing sample i the
host asks whether the GPU has finished sample i - 1 (the first: a short
torch.cuda._sleep ahead of the batch): if not, sample i was wholly queued
before the GPU reached it, and no host time can lie between its events.
Samples that fail the check are dropped and the sleep doubled (calls
shorter than their enqueueing need it to cover the batch).  A fixed long
sleep before every sample would also hide the host, but it idles the GPU
between samples, and at the 700 W power limit (16-bit 8192^3 GEMMs) that
lets the clock rise: ktune's own BF16 kernel read 12% faster that way than
in ktune's C timing (bench/gpu/logs/fair-2026-11-24-1.txt).  Back to back,
the GPU works as it does under ktune's C loop.

Why not a CUDA graph of N x (flush + call): graph nodes are launched by the
graph, not as ktune's stream launches, and cudnn.benchmark's and Triton's
searches must stay outside a capture; the check needs neither, and proves
every sample clean rather than trusting the method."""
import torch

try:
    import cupy
except ImportError:
    cupy = None

FLUSH_BYTES = 128 << 20
MIN_SAMPLE_MS = 0.05
SLEEP_CYCLES = 1 << 15  # about 17 us at 1.98 GHz; doubled while too short
BATCH = 5  # samples enqueued together, and between two looks at the stopping rule


class Timer:
    """Times callables on the current CUDA device.  busy=False is the old
    method (an idle GPU while the host enqueues), kept to show the
    difference."""

    def __init__(self, busy=True):
        self.busy = busy
        self.flush = torch.empty(FLUSH_BYTES, dtype=torch.uint8, device="cuda")
        self.sleep = SLEEP_CYCLES
        self.retried = 0  # samples dropped: the GPU had caught up with the host

    def _memset(self, value):
        """cudaMemsetAsync on PyTorch's stream, as ktune's cuMemsetD8 (a
        fill kernel where CuPy is missing: the same bytes written)."""
        if cupy is None:
            self.flush.fill_(value & 0xFF)
            return
        cupy.cuda.runtime.memsetAsync(self.flush.data_ptr(), value & 0xFF, FLUSH_BYTES,
                                      torch.cuda.current_stream().cuda_stream)

    def _idle_sample(self, fn, inner, rep):
        """The old method: an idle GPU while the host enqueues."""
        s = torch.cuda.Event(enable_timing=True)
        e = torch.cuda.Event(enable_timing=True)
        self._memset(rep)
        s.record()
        for _ in range(inner):
            fn()
        e.record()
        e.synchronize()
        return s.elapsed_time(e) / inner

    def batch(self, fn, inner, k, rep):
        """k samples enqueued back to back: the milliseconds per call of
        those that passed the check (see above)."""
        if not self.busy:
            return [self._idle_sample(fn, inner, rep + i) for i in range(k)]
        torch.cuda._sleep(self.sleep)
        prev = torch.cuda.Event()
        prev.record()
        events, clean = [], []
        for i in range(k):
            s = torch.cuda.Event(enable_timing=True)
            e = torch.cuda.Event(enable_timing=True)
            self._memset(rep + i)
            s.record()
            for _ in range(inner):
                fn()
            e.record()
            clean.append(not prev.query())
            events.append((s, e))
            prev = e
        prev.synchronize()
        if not all(clean):
            self.retried += clean.count(False)
            if self.sleep >= 1 << 31:
                raise RuntimeError("the host cannot keep ahead of the GPU even after a "
                                   "1 s sleep")
            self.sleep *= 2
        return [s.elapsed_time(e) / inner for (s, e), ok in zip(events, clean) if ok]

    def time(self, fn, min_reps=5, max_reps=200, min_time_s=0.2, max_time_s=3.0,
             max_spread=0.05):
        """ktune's stopping rule; a dict: ms (median), min, spread, reps,
        inner."""
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        warm = []
        while not warm:
            warm = self.batch(fn, 1, 1, 0)
        inner = 1 if warm[0] >= MIN_SAMPLE_MS else (
            10000 if warm[0] <= MIN_SAMPLE_MS / 10000 else -(-MIN_SAMPLE_MS // warm[0]))
        inner = int(inner)
        times = []
        while True:
            times += self.batch(fn, inner, min(BATCH, max_reps - len(times)), len(times))
            if not times:
                continue
            st = summarize(times)
            total_ms = sum(times) * inner
            enough = len(times) >= min_reps and total_ms >= min_time_s * 1e3
            if (len(times) >= max_reps or total_ms >= max_time_s * 1e3
                    or (enough and st["spread"] <= max_spread)):
                st.update(reps=len(times), inner=inner)
                return st


def summarize(samples):
    """ktune's kt_summarize (src/measure/stats.c): median, min and
    quartiles by linear interpolation between the closest ranks."""
    s = sorted(samples)
    n = len(s)

    def q(f):
        pos = f * (n - 1)
        lo = int(pos)
        hi = min(lo + 1, n - 1)
        return s[lo] + (s[hi] - s[lo]) * (pos - lo)

    med = q(0.5)
    return {"ms": med, "min": s[0], "spread": (q(0.75) - q(0.25)) / med if med > 0 else 0.0}
