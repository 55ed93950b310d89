"""harness.py - one configuration of a ktune kernel timed two ways on the
GPU machine: by ktune itself (its C worker: `ktune tune` on a spec pinned
to the configuration) and from Python through timing.py (the CUBIN ktune
compiled for it, loaded with CuPy and launched with the spec's grid, block
and shared memory), so that the Python method that times the baselines can
be shown to give ktune's own figure for ktune's own kernel.

Used by baselines.py (the rounds of the table) and harness_check.py."""
import json
import math
import os
import struct
import subprocess

import cupy
import numpy as np
import torch

DTYPES = {"float": torch.float32, "half": torch.float16, "bfloat16": torch.bfloat16, "int32": torch.int32,
          "float8_e4m3": torch.float8_e4m3fn}
SCALARS = {"int": np.int32, "int32": np.int32, "float": np.float32}
CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8


def pin(spec_path, key):
    """A copy of the spec beside it whose space is the one configuration
    (as pin_config.py); its path."""
    spec = json.load(open(spec_path))
    values = dict(kv.split("=") for kv in key.split(","))
    for p in spec["ConfigurationSpace"]["TuningParameters"]:
        p["Values"] = f"[{values[p['Name']]}]"
        p["Default"] = int(values[p["Name"]])
    spec["General"]["BenchmarkName"] += "-pinned"
    base = os.path.splitext(spec_path)[0]
    path = f"{base}-pinned-{abs(hash(key)) % 10**8}.json"
    json.dump(spec, open(path, "w"), indent=1)
    return path


def ktune_c(kt, spec_path, problem, key, work):
    """ktune's own timing of the configuration, measured now (a pinned tune
    into a new database, energy off, its compile cache in work/cache): the
    tune's JSON 'best' entry."""
    os.makedirs(work, exist_ok=True)
    db = f"{work}/pinned.db"
    if os.path.exists(db):
        os.remove(db)  # else ktune answers from it: each call must measure
    pinned = pin(spec_path, key)
    try:
        out = subprocess.run([kt, "tune", pinned, "--problem", problem, "--db",
                              db, "--cache", f"{work}/cache",
                              "--energy-window", "0", "--timeout", "60", "--json"],
                             capture_output=True, text=True, check=False)
    finally:
        os.remove(pinned)
    try:
        best = json.loads(out.stdout)["best"]
    except (ValueError, KeyError, TypeError):
        raise RuntimeError(f"ktune tune {spec_path} {key}: {out.stderr.strip()[-300:]}")
    if not best:
        raise RuntimeError(f"ktune tune {spec_path} {key}: no result: {out.stdout[-300:]}")
    return best


def read_ktcubin(path):
    """ktune's cache file (src/backend/nvrtc.c, kt_cubin_pack): 'KTCUBIN1',
    the name's length and the CUBIN's offset (u32, little-endian), the
    lowered kernel name, the CUBIN."""
    data = open(path, "rb").read()
    if data[:8] != b"KTCUBIN1":
        raise RuntimeError(f"{path}: not a ktune CUBIN")
    nlen, off = struct.unpack_from("<II", data, 8)
    return data[16:16 + nlen].decode(), data[off:]


def find_cubin(cache, name):
    """The cached CUBIN whose lowered name is the kernel name (extern "C")
    or mangles it (C++: the name's length before it)."""
    for f in sorted(os.listdir(cache)):
        if f.endswith(".ktcubin"):
            lowered, cubin = read_ktcubin(os.path.join(cache, f))
            if lowered == name or f"{len(name)}{name}" in lowered:
                return lowered, cubin
    raise RuntimeError(f"no CUBIN of '{name}' in {cache}")


def evaluate(expr, names):
    """A spec expression (Python syntax) with the configuration's and the
    problem's values."""
    env = dict(names, ceil=math.ceil, floor=math.floor, min=min, max=max)
    return eval(expr, {"__builtins__": {}}, env)  # noqa: S307 - our own spec files


class Launch:
    """The pinned configuration's CUBIN loaded in this process, with its
    arguments: inputs uniform in [-1, 1), outputs zeroed."""

    def __init__(self, spec_path, problem, key, cache):
        spec = json.load(open(spec_path))
        ks = spec["KernelSpecification"]
        names = {k: int(v) for k, v in (kv.split("=") for kv in problem.split(","))}
        names.update({k: int(v) for k, v in (kv.split("=") for kv in key.split(","))})
        lowered, cubin = find_cubin(cache, ks["KernelName"])
        self.module = cupy.cuda.function.Module()
        self.module.load(cubin)
        self.fn = self.module.get_function(lowered)
        dims = "XYZ"
        block = tuple(int(evaluate(ks["LocalSize"].get(d, "1"), names)) for d in dims)
        glob = [int(evaluate(ks["GlobalSize"].get(d, "1"), names)) for d in dims]
        if ks.get("GlobalSizeType") == "CUDA":
            self.grid = tuple(glob)
        else:
            self.grid = tuple(-(-g // b) for g, b in zip(glob, block))
        self.block = block
        self.shared = int(evaluate(ks.get("SharedMemory", "0"), names))
        if self.shared > 48 * 1024:
            cupy.cuda.driver.funcSetAttribute(
                self.fn.ptr, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, self.shared)
        self.flops = evaluate(ks["FlopCount"], names) if "FlopCount" in ks else None
        self.tensors, self.args = {}, []
        for a in ks["Arguments"]:
            if a["MemoryType"] == "Scalar":
                self.args.append(SCALARS[a["Type"]](evaluate(a["FillValue"], names)))
                continue
            n = int(evaluate(a["Size"], names))
            if a.get("AccessType") == "ReadOnly":
                t = (torch.rand(n, device="cuda") * 2 - 1).to(DTYPES[a["Type"]])
            else:
                t = torch.zeros(n, device="cuda", dtype=DTYPES[a["Type"]])
            self.tensors[a["Name"]] = t
            self.args.append(np.uint64(t.data_ptr()))

    def __call__(self):
        self.fn(self.grid, self.block, tuple(self.args), shared_mem=self.shared)

    def gemm_error(self, m, n, k):
        """The GEMM's relative error against a float64 product (C = A B,
        row-major), after one call."""
        self()
        torch.cuda.synchronize()
        a = self.tensors["A"].double().view(m, k)
        b = self.tensors["B"].double().view(k, n)
        c = self.tensors["C"].double().view(m, n)
        ref = a @ b
        return ((c - ref).norm() / ref.norm()).item()
