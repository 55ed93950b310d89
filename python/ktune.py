"""ktune.py - a Python binding of libktune (include/ktune.h) through ctypes.

No compiled extension: the module loads libktune.so ($KTUNE_LIB, else the
one the dynamic linker finds, libktune.so.0) and mirrors the public structs
it passes by pointer.  Every options struct starts with its size, filled by
the library's own _init function, so a module and a library that disagree
about a struct fail with an error instead of misreading memory.

Errors: a negative KTUNE_E* code becomes a KtuneError whose .code is the
code, .name its name ("ENOTFOUND") and str() the library's one-line
diagnostic.

    import ktune
    spec = ktune.Spec("kernels/gemm/gemm-c.json")
    run = ktune.tune(spec, problem="M=256,N=256,K=256", budget=20, db="k.db")
    print(run.best_config, run.best_ms)
    with ktune.Selector("k.db", spec) as sel:
        print(sel.select("M=256,N=256,K=256").config)

Every KTUNE_API function of include/ktune.h is reached from here
(tests/pkg/python.sh checks that none is left out).  Warnings go to a
`warn` callable given one line (str); without one they are dropped, as the
C API does with a NULL callback.  Results that hold no library memory come
back as plain Python objects (dicts, lists, types.SimpleNamespace).
"""

import ctypes
import ctypes.util
import math
import os
from types import SimpleNamespace

__all__ = ["KtuneError", "version", "data_path", "dependencies", "devices",
           "status_name", "status_parse", "strategies", "strategy", "objectives",
           "methods", "targets", "blas_set_threads", "Spec", "Problem", "Space",
           "validate", "tune", "Run", "MPI", "Database", "Model", "benchmark",
           "Transfer", "transfer_benchmark", "Selector", "Choice", "Online"]

# --------------------------------------------------------------- library

def _load():
    path = os.environ.get("KTUNE_LIB") or ctypes.util.find_library("ktune") \
        or "libktune.so.0"
    return ctypes.CDLL(path)


_lib = _load()

_c = ctypes
_p = _c.c_char_p
_vp = _c.c_void_p
_sz = _c.c_size_t
_u64 = _c.c_uint64
_dbl = _c.c_double
_int = _c.c_int
_bool = _c.c_bool

# The codes of KTUNE_ERRORS, by value.
_ERRORS = {-1: "ENOMEM", -2: "EINVAL", -3: "ESYNTAX", -4: "ESPEC", -5: "EIO",
           -6: "EDB", -7: "ENOTFOUND", -8: "EDOMAIN", -9: "ECOMPILE",
           -10: "EWORKER", -11: "EBACKEND", -12: "EDONE", -13: "ERANGE",
           -14: "EEMPTY", -15: "EFORMAT", -16: "ECANCELED"}
_STATUSES = ["ok", "compile_error", "crash", "timeout", "wrong_result",
             "runtime_error", "invalid"]


class KtuneError(Exception):
    """A libktune call failed: .code (negative), .name, and the message."""

    def __init__(self, code, message):
        self.code = code
        self.name = _ERRORS.get(code, "E?")
        super().__init__(message)


class _Diag(_c.Structure):
    _fields_ = [("msg", _c.c_char * 512)]


def _fn(name, restype, *argtypes):
    """The library's function name, or None when this build lacks it."""
    f = getattr(_lib, name, None)
    if f is not None:
        f.restype = restype
        f.argtypes = list(argtypes)
    return f


def _need(f, name):
    if f is None:
        raise KtuneError(-11, "this libktune has no %s" % name)
    return f


def _check(rc, diag):
    if rc < 0:
        msg = diag.msg.decode(errors="replace") if diag is not None else ""
        raise KtuneError(rc, msg or _strerror(rc).decode())
    return rc


def _s(text):
    return None if text is None else str(text).encode()


def _str(b):
    return None if b is None else b.decode(errors="replace")


_strerror = _fn("ktune_strerror", _p, _int)
_version = _fn("ktune_version", _p)


def version():
    """The version of the library loaded ("0.5.0")."""
    return _version().decode()


def _opts(struct_type, init):
    o = struct_type()
    _need(init, struct_type.__name__ + " init")(_c.byref(o))
    if o.size != _c.sizeof(struct_type):  # this file and the library disagree
        raise RuntimeError("%s: the library's struct has %d bytes, this binding's %d"
                           % (struct_type.__name__, o.size, _c.sizeof(struct_type)))
    return o


def _set(o, fields, keep):
    """Set the fields of an options struct that are not None; strings are
    encoded and kept in keep, which must live through the call."""
    for k, v in fields.items():
        if v is None:
            continue
        if not hasattr(o, k):
            raise TypeError("unknown option '%s'" % k)
        if isinstance(v, (str, os.PathLike)):
            v = _s(os.fspath(v))
            keep.append(v)
        setattr(o, k, v)


def _strings(items, keep):
    """A C array of the strings items (paths accepted), and its length."""
    items = [_s(os.fspath(x)) for x in items]
    arr = (_p * len(items))(*items)
    keep.append(arr)
    return arr, len(items)


def _doubles(items, keep):
    arr = (_dbl * len(items))(*items)
    keep.append(arr)
    return arr, len(items)


# Receives a warning: (user, one line); msg lives for the call only.
_WARN = _c.CFUNCTYPE(None, _vp, _p)


def _warner(warn):
    """warn (a callable taking str, or None) as a ktune_warn_fn."""
    if warn is None:
        return _WARN()
    return _WARN(lambda user, msg: warn(msg.decode(errors="replace")))


def _struct_dict(s, skip=()):
    """A ctypes struct's scalar fields as a dict (bytes decoded)."""
    d = {}
    for k, _ in s._fields_:
        if k == "size" or k in skip:
            continue
        v = getattr(s, k)
        d[k] = _str(v) if isinstance(v, bytes) else v
    return d


_data_path = _fn("ktune_data_path", _int, _p, _c.c_char_p, _sz)
_dependency = _fn("ktune_dependency", _int, _sz, _c.POINTER(_p), _c.c_char_p, _sz)
_free = _fn("ktune_free", None, _vp)
_status_name = _fn("ktune_status_name", _p, _int)
_status_parse = _fn("ktune_status_parse", _int, _p, _c.POINTER(_int))
_blas_threads = _fn("ktune_blas_set_threads", None, _int)


def data_path(name):
    """The path of name ("kernels/gemm/gemm-c.json") among the data ktune
    installs (PREFIX/share/ktune), as found from the program and from
    libktune.so, else in the current folder; KtuneError ENOTFOUND when it
    is nowhere."""
    buf = _c.create_string_buffer(4096)
    rc = _need(_data_path, "ktune_data_path")(_s(name), buf, len(buf))
    if rc < 0:
        raise KtuneError(rc, "'%s' is not among ktune's data (%s)"
                         % (name, _strerror(rc).decode()))
    return buf.value.decode()


def dependencies():
    """The libraries this libktune uses, as [(name, version linked)]."""
    out = []
    name = _p()
    ver = _c.create_string_buffer(128)
    while _need(_dependency, "ktune_dependency")(len(out), _c.byref(name), ver,
                                                 len(ver)) == 0:
        out.append((_str(name.value), ver.value.decode(errors="replace")))
    return out


def status_name(status):
    """The database text of a status number ("ok", "crash", ...)."""
    return _str(_need(_status_name, "ktune_status_name")(status))


def status_parse(text):
    """The number of the status text names; KtuneError ENOTFOUND."""
    v = _int()
    rc = _need(_status_parse, "ktune_status_parse")(_s(text), _c.byref(v))
    if rc < 0:
        raise KtuneError(rc, "unknown status '%s'" % text)
    return v.value


class _Device(_c.Structure):
    _fields_ = [("backend", _c.c_char * 16), ("platform", _c.c_char * 128),
                ("version", _c.c_char * 128), ("ordinal", _int), ("name", _c.c_char * 128),
                ("note", _c.c_char * 192)]


_devices = _fn("ktune_devices", _int, _c.POINTER(_Device), _sz, _c.POINTER(_sz),
               _c.POINTER(_Diag))


def devices():
    """The devices of every GPU backend here, as dicts (backend, platform,
    version, ordinal, name, note); a backend without one is an entry of
    ordinal -1 whose note says why."""
    n = _sz()
    d = _Diag()
    _check(_need(_devices, "ktune_devices")(None, 0, _c.byref(n), d), d)
    arr = (_Device * max(n.value, 1))()
    _check(_devices(arr, len(arr), _c.byref(n), d), d)
    return [_struct_dict(x) for x in arr[:n.value]]


def blas_set_threads(n):
    """Have the BLAS library behind the sequence models use n threads; it
    holds for the whole process (ktune.h says why one is the default)."""
    _need(_blas_threads, "ktune_blas_set_threads")(n)


# ------------------------------------------------------------- results

class _Result(_c.Structure):
    _fields_ = [("status", _int), ("signal", _int), ("detail", _c.c_char * 256),
                ("time_ms", _dbl), ("min_ms", _dbl), ("spread", _dbl), ("reps", _int),
                ("compile_ms", _dbl), ("energy_j", _dbl), ("power_w", _dbl),
                ("sm_clock_mhz", _dbl), ("max_error", _dbl)]

    def as_dict(self):
        d = {k: getattr(self, k) for k, _ in self._fields_}
        d["status"] = _STATUSES[self.status] if 0 <= self.status < len(_STATUSES) \
            else "unknown"
        d["detail"] = self.detail.decode(errors="replace")
        return d


# ------------------------------------------------------ spec and problem

_spec_load = _fn("ktune_spec_load", _int, _p, _WARN, _vp, _c.POINTER(_vp),
                 _c.POINTER(_Diag))
_spec_load_space = _fn("ktune_spec_load_space", _int, _p, _WARN, _vp, _c.POINTER(_vp),
                       _c.POINTER(_Diag))
_spec_free = _fn("ktune_spec_free", None, _vp)
_spec_name = _fn("ktune_spec_name", _p, _vp)
_spec_nparams = _fn("ktune_spec_nparams", _sz, _vp)
_spec_param_name = _fn("ktune_spec_param_name", _p, _vp, _sz)
_spec_nproblem = _fn("ktune_spec_nproblem", _sz, _vp)
_spec_problem_name = _fn("ktune_spec_problem_name", _p, _vp, _sz)
_spec_problem_default = _fn("ktune_spec_problem_default", _dbl, _vp, _sz)
_problem_parse = _fn("ktune_problem_parse", _int, _vp, _p, _c.c_uint,
                     _c.POINTER(_vp), _c.POINTER(_Diag))
_problem_free = _fn("ktune_problem_free", None, _vp)
_problem_key = _fn("ktune_problem_key", _p, _vp)


class _Handle:
    """An owned library handle, released by close() or at the end of with."""

    _free = None

    @property
    def h(self):
        """The library's handle; KtuneError EINVAL once closed (the library
        would read freed memory)."""
        if not getattr(self, "_h", None):
            raise KtuneError(-2, "this %s is closed" % type(self).__name__)
        return self._h

    def close(self):
        if getattr(self, "_h", None):
            type(self)._free(self._h)
            self._h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()


class Spec(_Handle):
    """A tuning spec (T1 JSON) loaded from path; warn (a callable) gets
    each of its warnings.  space_only=True accepts a file without a kernel
    (BAT's space-only specs), whose space alone may then be used."""

    def __init__(self, path, warn=None, space_only=False):
        self._h = None
        self.path = os.fspath(path)
        h = _vp()
        d = _Diag()
        load = (_spec_load_space, "ktune_spec_load_space") if space_only \
            else (_spec_load, "ktune_spec_load")
        _check(_need(*load)(_s(self.path), _warner(warn), None, _c.byref(h), d), d)
        self._h = h.value

    @staticmethod
    def _free(h):
        _spec_free(h)

    @property
    def name(self):
        return _str(_spec_name(self.h))

    @property
    def params(self):
        return [_str(_spec_param_name(self.h, i)) for i in range(_spec_nparams(self.h))]

    @property
    def problem_names(self):
        return [_str(_spec_problem_name(self.h, i))
                for i in range(_spec_nproblem(self.h))]

    @property
    def problem_defaults(self):
        """{problem parameter: its default value}, in spec order."""
        return {_str(_spec_problem_name(self.h, i)): _spec_problem_default(self.h, i)
                for i in range(_spec_nproblem(self.h))}


class Problem(_Handle):
    """A problem of a spec: "M=1024,N=1024,K=512" (every problem parameter,
    unless partial=True, which leaves the others at the spec's defaults)."""

    def __init__(self, spec, text=None, partial=False):
        self._h = None
        self.spec = spec  # kept alive: the problem belongs to it
        h = _vp()
        d = _Diag()
        _check(_need(_problem_parse, "ktune_problem_parse")(
            spec.h, _s(text), 1 if partial else 0, _c.byref(h), d), d)
        self._h = h.value

    @staticmethod
    def _free(h):
        _problem_free(h)

    @property
    def key(self):
        return _str(_problem_key(self.h))


class _SpaceOpts(_c.Structure):
    _fields_ = [("size", _sz), ("max_evals", _u64), ("cancel", _vp), ("progress", _vp),
                ("user", _vp)]


class _SpaceStats(_c.Structure):
    _fields_ = [("nodes", _u64), ("evals", _u64), ("valid", _u64)]


_CONFIG_FN = _c.CFUNCTYPE(_int, _vp, _p)
_space_opts_init = _fn("ktune_space_opts_init", None, _c.POINTER(_SpaceOpts))
_space_new = _fn("ktune_space_new", _int, _vp, _vp, _c.POINTER(_SpaceOpts),
                 _c.POINTER(_vp), _c.POINTER(_Diag))
_space_free = _fn("ktune_space_free", None, _vp)
_space_count = _fn("ktune_space_count", _int, _vp, _c.POINTER(_vp),
                   _c.POINTER(_SpaceStats), _c.POINTER(_Diag))
_space_list = _fn("ktune_space_list", _int, _vp, _CONFIG_FN, _vp,
                  _c.POINTER(_SpaceStats), _c.POINTER(_Diag))
_space_sample = _fn("ktune_space_sample", _int, _vp, _u64, _u64, _CONFIG_FN, _vp,
                    _c.POINTER(_Diag))
_space_cartesian = _fn("ktune_space_cartesian", None, _vp, _c.c_char_p, _sz)
_space_ngroups = _fn("ktune_space_ngroups", _sz, _vp)


class Space(_Handle):
    """The valid configurations of spec for problem (a Problem, or its text;
    None: the spec's defaults).  max_evals bounds the condition evaluations
    of one count or listing (KtuneError ERANGE past it)."""

    def __init__(self, spec, problem=None, max_evals=None):
        self._h = None
        if not isinstance(problem, Problem):
            problem = Problem(spec, problem, partial=problem is None)
        self.spec, self.problem = spec, problem  # both must outlive the space
        o = _opts(_SpaceOpts, _space_opts_init)
        if max_evals is not None:
            o.max_evals = max_evals
        h = _vp()
        d = _Diag()
        _check(_need(_space_new, "ktune_space_new")(spec.h, problem.h, _c.byref(o),
                                                    _c.byref(h), d), d)
        self._h = h.value

    @staticmethod
    def _free(h):
        _space_free(h)

    def count(self):
        """The number of valid configurations (exact, a Python int)."""
        text = _vp()
        d = _Diag()
        _check(_space_count(self.h, _c.byref(text), None, d), d)
        try:
            return int(_c.string_at(text.value).decode())
        finally:
            _free(text)

    def configs(self, limit=None):
        """The valid configurations' keys, in order (the first limit)."""
        out = []

        def take(user, config):
            out.append(config.decode())
            return 1 if limit is not None and len(out) >= limit else 0

        d = _Diag()
        _check(_space_list(self.h, _CONFIG_FN(take), None, None, d), d)
        return out

    def sample(self, n, seed=1):
        """n distinct valid configurations drawn uniformly (fewer when the
        draws find fewer), for spaces too large to list."""
        out = []
        d = _Diag()
        cb = _CONFIG_FN(lambda user, config: out.append(config.decode()) or 0)
        _check(_space_sample(self.h, n, seed, cb, None, d), d)
        return out

    @property
    def cartesian(self):
        """Every combination of values, in decimal (exact below 2^64)."""
        buf = _c.create_string_buffer(64)
        _space_cartesian(self.h, buf, len(buf))
        return buf.value.decode()

    @property
    def ngroups(self):
        """The groups of parameters linked by conditions, counted apart."""
        return _space_ngroups(self.h)


_validate = _fn("ktune_spec_validate", _int, _p, _WARN, _vp, _c.POINTER(_vp),
                _c.POINTER(_Diag))
_validation_free = _fn("ktune_validation_free", None, _vp)
_validation_count = _fn("ktune_validation_count", _sz, _vp)
_validation_problem = _fn("ktune_validation_problem", _p, _vp, _sz)
_validation_space = _fn("ktune_validation_space", _p, _vp)
_validation_space_problem = _fn("ktune_validation_space_problem", _p, _vp)


def validate(path, warn=None):
    """Check the spec at path completely (`ktune validate`): .problems (one
    line each, empty for a valid spec), .space (the number of valid
    configurations as text, None when not counted) and .space_problem (why
    not, or None)."""
    h = _vp()
    d = _Diag()
    _check(_need(_validate, "ktune_spec_validate")(_s(os.fspath(path)), _warner(warn),
                                                    None, _c.byref(h), d), d)
    try:
        return SimpleNamespace(
            problems=[_str(_validation_problem(h, i))
                      for i in range(_validation_count(h))],
            space=_str(_validation_space(h)),
            space_problem=_str(_validation_space_problem(h)))
    finally:
        _validation_free(h)


# ---------------------------------------------------------------- tuning

class _StrategyInfo(_c.Structure):
    _fields_ = [("name", _p), ("summary", _p), ("exhaustive", _bool),
                ("implies_map", _bool), ("needs_model", _bool), ("searches", _bool)]


_strategy_at = _fn("ktune_strategy_at", _int, _sz, _c.POINTER(_StrategyInfo))
_strategy_find = _fn("ktune_strategy_find", _int, _p, _c.POINTER(_StrategyInfo),
                     _c.POINTER(_Diag))
_objective_name = _fn("ktune_objective_name", _p, _int)
_objective_parse = _fn("ktune_objective_parse", _int, _p, _c.POINTER(_int))


def _table(at, struct_type):
    """Every entry of a library table read with at(i, &out) until it fails,
    as dicts."""
    out = []
    s = struct_type()
    while at(len(out), _c.byref(s)) == 0:
        out.append(_struct_dict(s))
    return out


def strategies():
    """The strategies tune() accepts, as dicts: name, summary, exhaustive,
    implies_map, needs_model, searches."""
    return _table(_need(_strategy_at, "ktune_strategy_at"), _StrategyInfo)


def strategy(name):
    """The strategy called name, as strategies() gives it; KtuneError
    ENOTFOUND for an unknown one."""
    s = _StrategyInfo()
    d = _Diag()
    _check(_need(_strategy_find, "ktune_strategy_find")(_s(name), _c.byref(s), d), d)
    return _struct_dict(s)


def _names(name_fn):
    out = []
    while name_fn(len(out)) is not None:
        out.append(_str(name_fn(len(out))))
    return out


def objectives():
    """What a run may minimise: ["time", "energy", "edp", "pareto"]."""
    return _names(_need(_objective_name, "ktune_objective_name"))


def _enum(parse, name, what):
    """The library's number for name, through its parse function."""
    v = _int()
    rc = _need(parse, what + " parse")(_s(name), _c.byref(v))
    if rc < 0:
        raise KtuneError(rc, "unknown %s '%s'" % (what, name))
    return v.value


class _Progress(_c.Structure):
    pass


_PROGRESS = _c.CFUNCTYPE(None, _vp, _c.POINTER(_Progress))


class _TuneOpts(_c.Structure):
    _fields_ = [("size", _sz), ("problem", _p), ("strategy", _p), ("budget_kind", _int),
                ("budget", _dbl), ("time_limit_s", _dbl), ("seed", _u64),
                ("db_path", _p), ("cache_dir", _p), ("jobs", _int), ("timeout_s", _dbl),
                ("max_memory", _u64), ("energy_window_s", _dbl),
                ("retry_failed", _bool), ("no_overlap", _bool), ("replay", _p),
                ("device", _p), ("kernel", _p), ("warm", _sz), ("model", _p),
                ("top", _sz), ("map", _bool), ("objective", _int),
                ("progress", _PROGRESS), ("user", _vp), ("cancel", _vp),
                ("transfer", _vp), ("warn", _WARN), ("warn_user", _vp),
                ("shard", _c.c_uint), ("shards", _c.c_uint),
                ("devices", _c.POINTER(_int)), ("ndevices", _sz), ("platform", _p),
                ("mpi", _vp), ("rank_timeout_s", _dbl), ("energy_warmup_s", _dbl),
                ("hang_factor", _dbl)]


class _RunInfo(_c.Structure):
    _fields_ = [("kernel", _p), ("problem", _p), ("device", _p), ("space_size", _u64),
                ("space_sampled", _bool), ("measured", _u64), ("cached", _u64),
                ("by_status", _u64 * len(_STATUSES)), ("warm_starts", _sz),
                ("default_skipped", _bool), ("seconds", _dbl), ("flops", _dbl),
                ("no_energy", _u64), ("energy_window_s", _dbl)]


_Progress._fields_ = [("done", _u64), ("total", _u64), ("measured", _u64),
                      ("cached", _u64), ("failed", _u64), ("best_ms", _dbl),
                      ("elapsed_s", _dbl), ("eta_s", _dbl), ("config", _p),
                      ("result", _c.POINTER(_Result))]


class _MapInfo(_c.Structure):
    _fields_ = [("ndims", _sz), ("ncells", _u64), ("nfilled", _sz), ("fallback", _bool),
                ("unplaced", _sz)]


class _MapElite(_c.Structure):
    _fields_ = [("cell", _u64), ("bins", _c.POINTER(_sz)), ("config", _p),
                ("time_ms", _dbl), ("energy_j", _dbl)]


_KEY_RESULT = (_c.POINTER(_p), _c.POINTER(_Result))
_tune_opts_init = _fn("ktune_tune_opts_init", None, _c.POINTER(_TuneOpts))
_tune = _fn("ktune_tune", _int, _vp, _c.POINTER(_TuneOpts), _c.POINTER(_vp),
            _c.POINTER(_Diag))
_run_free = _fn("ktune_run_free", None, _vp)
_run_summary = _fn("ktune_run_summary", _c.POINTER(_RunInfo), _vp)
_run_best = _fn("ktune_run_best", _int, _vp, *_KEY_RESULT)
_run_default = _fn("ktune_run_default", _int, _vp, *_KEY_RESULT)
_run_speedup = _fn("ktune_run_speedup", _dbl, _vp)
_run_phase = _fn("ktune_run_phase", _int, _vp, _sz, _c.POINTER(_p), _c.POINTER(_dbl))
_run_count = _fn("ktune_run_count", _sz, _vp)
_run_evaluated = _fn("ktune_run_evaluated", _int, _vp, _sz, *_KEY_RESULT)
_run_front_count = _fn("ktune_run_front_count", _sz, _vp)
_run_front = _fn("ktune_run_front", _int, _vp, _sz, *_KEY_RESULT)
_run_map = _fn("ktune_run_map", _vp, _vp)
_map_describe = _fn("ktune_map_describe", _int, _vp, _c.POINTER(_MapInfo))
_map_dim_name = _fn("ktune_map_dim_name", _p, _vp, _sz)
_map_dim_bins = _fn("ktune_map_dim_bins", _sz, _vp, _sz)
_map_dim_measured = _fn("ktune_map_dim_measured", _p, _vp, _sz)
_map_bin = _fn("ktune_map_bin", _int, _vp, _sz, _sz, _c.POINTER(_dbl), _c.POINTER(_dbl))
_map_elite_at = _fn("ktune_map_elite_at", _int, _vp, _sz, _c.POINTER(_MapElite))

_BUDGETS = {"spec": 0, "count": 1, "fraction": 2, "seconds": 3}


def _key_result(f, *args):
    """(config, result dict) from f(*args, &config, &result): None when it
    fails, (config, None) when it names a configuration all the same."""
    cfg = _p()
    res = _Result()
    if f(*args, _c.byref(cfg), _c.byref(res)) == 0:
        return _str(cfg.value), res.as_dict()
    return (_str(cfg.value), None) if cfg.value else None


def _map(m):
    """A run's map as a SimpleNamespace: ndims, ncells, nfilled, fallback,
    unplaced, dims [(name, [(lo, hi) per bin])], measured [what each
    dimension measures: "energy", "power", "time", or None], elites [(cell,
    bins, config, time_ms, energy_j)], each cell's best by the run's
    objective (energy_j None where not read)."""
    info = _MapInfo()
    _check(_map_describe(m, _c.byref(info)), None)
    lo, hi = _dbl(), _dbl()
    dims = []
    for d in range(info.ndims):
        bins = []
        for b in range(_map_dim_bins(m, d)):
            _check(_map_bin(m, d, b, _c.byref(lo), _c.byref(hi)), None)
            bins.append((lo.value, hi.value))
        dims.append((_str(_map_dim_name(m, d)), bins))
    elites = []
    e = _MapElite()
    for i in range(info.nfilled):
        _check(_map_elite_at(m, i, _c.byref(e)), None)
        elites.append((e.cell, [e.bins[k] for k in range(info.ndims)], _str(e.config),
                       e.time_ms, None if math.isnan(e.energy_j) else e.energy_j))
    measured = [_str(_map_dim_measured(m, d)) for d in range(info.ndims)]
    return SimpleNamespace(dims=dims, measured=measured, elites=elites, **_struct_dict(info))


class Run:
    """A finished tuning run's figures (a plain object; nothing to free):
    kernel, problem, device, space_size, measured, cached, by_status,
    energy_window_s (the window it measured with; 0 for a replay), the
    best (best_config, best_ms, best: its result as a dict) and the default
    (default_config, default), speedup, phases {name: seconds}, evaluated
    and front [(config, result)], map (None without one)."""

    def __init__(self, h):
        info = _run_summary(h).contents
        for k, v in _struct_dict(info, skip=("by_status",)).items():
            setattr(self, k, v)
        self.by_status = {s: info.by_status[i] for i, s in enumerate(_STATUSES)}
        best = _key_result(_run_best, h)
        self.best_config, self.best = best if best else (None, None)
        self.best_ms = self.best["time_ms"] if self.best else None
        dflt = _key_result(_run_default, h)
        self.default_config, self.default = dflt if dflt else (None, None)
        self.speedup = _run_speedup(h)
        self.phases = {}
        name, sec = _p(), _dbl()
        while _run_phase(h, len(self.phases), _c.byref(name), _c.byref(sec)) == 0:
            self.phases[_str(name.value)] = sec.value
        self.evaluated = [_key_result(_run_evaluated, h, i) for i in range(_run_count(h))]
        self.front = [_key_result(_run_front, h, i) for i in range(_run_front_count(h))]
        m = _run_map(h)
        self.map = _map(m) if m else None

    def __repr__(self):
        return "Run(%s %s: best %s in %s ms)" % (self.kernel, self.problem,
                                                  self.best_config, self.best_ms)


_mpi_open = _fn("ktune_mpi_open", _int, _c.POINTER(_vp), _c.POINTER(_Diag))
_mpi_close = _fn("ktune_mpi_close", None, _vp)
_mpi_rank = _fn("ktune_mpi_rank", _int, _vp)
_mpi_size = _fn("ktune_mpi_size", _int, _vp)


class MPI(_Handle):
    """The MPI job this process was started in (ktune_mpi_open; once per
    process), for tune(mpi=): its rank and size.  Outside mpirun, or with
    one rank, there is no job: rank 0, size 1, and a run is measured here
    alone."""

    def __init__(self):
        self._h = None
        h = _vp()
        d = _Diag()
        _check(_need(_mpi_open, "ktune_mpi_open")(_c.byref(h), d), d)
        self._h = h.value

    @staticmethod
    def _free(h):
        _mpi_close(h)

    @property
    def rank(self):
        return _mpi_rank(self._h)  # NULL (no job) is rank 0

    @property
    def size(self):
        return _mpi_size(self._h)


def _progress_fn(progress):
    """progress (a callable taking a dict) as a ktune_progress_fn."""
    if progress is None:
        return _PROGRESS()

    def call(user, p):
        p = p.contents
        d = {k: getattr(p, k) for k in ("done", "total", "measured", "cached", "failed",
                                        "best_ms", "elapsed_s", "eta_s")}
        d["config"] = _str(p.config)
        d["result"] = p.result.contents.as_dict() if p.result else None
        progress(d)

    return _PROGRESS(call)


def tune(spec, problem=None, strategy=None, budget=None, budget_kind="count",
         db=None, cache_dir=None, seed=None, time_limit_s=None, model=None, top=None,
         objective=None, transfer=None, warn=None, progress=None, devices=None,
         mpi=None, **extra):
    """Tune spec (None with replay=: the recording's own space) for problem
    ("M=..,N=..") and return the Run.  objective: a name of objectives();
    transfer: a Transfer whose best configurations are measured first;
    warn: a callable getting each warning of the run; progress: a callable
    getting a dict after each evaluation; devices: device ordinals, one
    measurement worker each; mpi: an MPI job whose ranks measure.  Every other field of ktune_tune_opts may be
    given by name (extra: replay, device, map, shard, shards, platform,
    ...); None keeps the library's default."""
    o = _opts(_TuneOpts, _tune_opts_init)
    fields = dict(problem=problem, strategy=strategy, db_path=db, cache_dir=cache_dir,
                  seed=seed, time_limit_s=time_limit_s, model=model, top=top, **extra)
    if budget is not None:
        fields.update(budget=float(budget), budget_kind=_BUDGETS[budget_kind])
    if objective is not None:
        fields["objective"] = _enum(_objective_parse, objective, "objective")
    keep = []  # the encoded strings must live through the call
    _set(o, fields, keep)
    if devices is not None:
        arr = (_int * len(devices))(*devices)
        keep.append(arr)
        o.devices, o.ndevices = arr, len(devices)
    o.warn, o.progress = _warner(warn), _progress_fn(progress)
    o.transfer = transfer.h if transfer is not None else None
    o.mpi = mpi._h if mpi is not None else None
    h = _vp()
    d = _Diag()
    _check(_need(_tune, "ktune_tune")(spec.h if spec is not None else None, _c.byref(o),
                                      _c.byref(h), d), d)
    try:
        return Run(h.value)
    finally:
        _run_free(h.value)


# ------------------------------------------------------ results database

class _Query(_c.Structure):
    _fields_ = [("size", _sz), ("kernel", _p), ("problem", _p), ("device", _p),
                ("ok_only", _bool), ("best", _bool), ("front", _bool)]


class _Row(_c.Structure):
    _fields_ = [("device", _p), ("kernel", _p), ("source_hash", _p), ("problem", _p),
                ("config", _p), ("created", _p), ("result", _Result)]


_ROW_FN = _c.CFUNCTYPE(_int, _vp, _c.POINTER(_Row))
_db_open = _fn("ktune_db_open", _int, _p, _c.c_uint, _c.POINTER(_vp), _c.POINTER(_Diag))
_db_close = _fn("ktune_db_close", None, _vp)
_query_init = _fn("ktune_query_init", None, _c.POINTER(_Query))
_db_query = _fn("ktune_db_query", _int, _vp, _c.POINTER(_Query), _ROW_FN, _vp,
                _c.POINTER(_u64), _c.POINTER(_Diag))
_export_parse = _fn("ktune_export_format_parse", _int, _p, _c.POINTER(_int))
_db_export = _fn("ktune_db_export", _int, _vp, _int, _c.POINTER(_Query), _vp,
                 _c.POINTER(_u64), _c.POINTER(_Diag))


class _ImportOpts(_c.Structure):
    _fields_ = [("size", _sz), ("device", _p), ("kernel", _p), ("problem", _p),
                ("spec_dir", _p), ("warn", _WARN), ("warn_user", _vp)]


class _ImportStats(_c.Structure):
    _fields_ = [("rows", _u64), ("added", _u64), ("ok", _u64), ("solvers", _u64),
                ("named", _u64), ("rejected", _u64), ("rejects", _c.c_char * 400),
                ("device", _c.c_char * 128), ("kernel", _c.c_char * 128),
                ("problem", _c.c_char * 256)]


_import_parse = _fn("ktune_import_format_parse", _int, _p, _c.POINTER(_int))
_import_opts_init = _fn("ktune_import_opts_init", None, _c.POINTER(_ImportOpts))
_db_import = _fn("ktune_db_import", _int, _vp, _int, _p, _c.POINTER(_ImportOpts),
                 _c.POINTER(_ImportStats), _c.POINTER(_Diag))


class _MergeStats(_c.Structure):
    _fields_ = [("rows", _u64), ("added", _u64), ("replaced", _u64)]


_db_merge = _fn("ktune_db_merge", _int, _vp, _p, _c.POINTER(_MergeStats),
                _c.POINTER(_Diag))


class _MeanStats(_c.Structure):
    _fields_ = [("averaged", _u64), ("readings", _u64), ("versions", _u64)]


_db_merge_mean = _fn("ktune_db_merge_mean", _int, _vp, _c.POINTER(_p), _sz,
                     _c.POINTER(_MergeStats), _c.POINTER(_MeanStats), _c.POINTER(_Diag))


class _RetestStat(_c.Structure):
    _fields_ = [("pairs", _u64), ("rms", _dbl), ("offset", _dbl), ("spread", _dbl),
                ("r2_ceiling", _dbl)]


class _Retest(_c.Structure):
    _fields_ = [("time", _RetestStat), ("energy", _RetestStat), ("power", _RetestStat)]


_db_retest = _fn("ktune_db_retest", _int, _vp, _vp, _c.POINTER(_Query), _c.POINTER(_Retest),
                 _c.POINTER(_Diag))


def _libc():
    c = _c.CDLL(_c.util.find_library("c"))
    c.open_memstream.restype = _vp
    c.open_memstream.argtypes = [_c.POINTER(_vp), _c.POINTER(_sz)]
    c.fclose.argtypes = [_vp]
    c.free.argtypes = [_vp]
    return c


_libc = _libc()


def _to_text(write):
    """What write(FILE *) writes, as str: through open_memstream, so that
    the library's FILE-writing calls need no file."""
    buf, size = _vp(), _sz()
    f = _libc.open_memstream(_c.byref(buf), _c.byref(size))
    if not f:
        raise KtuneError(-1, "open_memstream failed")
    try:
        write(f)
    finally:
        _libc.fclose(f)
        text = _c.string_at(buf.value, size.value).decode(errors="replace") \
            if buf.value else ""
        _libc.free(buf)
    return text


def _query(kernel=None, problem=None, device=None, ok_only=False, best=False,
           front=False):
    """A ktune_query and the encoded strings it borrows."""
    q = _opts(_Query, _query_init)
    keep = [_s(kernel), _s(problem), _s(device)]
    q.kernel, q.problem, q.device = keep
    q.ok_only, q.best, q.front = ok_only, best, front
    return q, keep


class Database(_Handle):
    """A ktune results database (create=True makes one where there is none)."""

    def __init__(self, path, create=False):
        self._h = None
        h = _vp()
        d = _Diag()
        _check(_need(_db_open, "ktune_db_open")(_s(os.fspath(path)), 1 if create else 0,
                                                _c.byref(h), d), d)
        self._h = h.value

    @staticmethod
    def _free(h):
        _db_close(h)

    def query(self, kernel=None, problem=None, device=None, ok_only=False, best=False,
              front=False):
        """Rows as dicts (device, kernel, source_hash, problem, config, created,
        and the result's fields), oldest first; best=True: the fastest ok row
        of each device, kernel and problem; front=True: the time/energy front
        a pareto run stored for each, fastest first."""
        q, keep = _query(kernel, problem, device, ok_only, best, front)
        rows = []

        def take(user, row):
            r = row.contents
            d = {k: _str(getattr(r, k)) for k in ("device", "kernel", "source_hash",
                                                  "problem", "config", "created")}
            d.update(r.result.as_dict())
            rows.append(d)
            return 0

        d = _Diag()
        n = _u64()
        _check(_need(_db_query, "ktune_db_query")(self.h, _c.byref(q), _ROW_FN(take),
                                                  None, _c.byref(n), d), d)
        return rows

    def export(self, fmt="csv", kernel=None, problem=None, device=None, ok_only=False,
               best=False, front=False):
        """The rows the filters select (as query()) in format fmt ("csv",
        "json", "t4", "t4-metadata", "kerneltuner"), as text."""
        f = _enum(_export_parse, fmt, "export format")
        q, keep = _query(kernel, problem, device, ok_only, best, front)
        d = _Diag()
        _need(_db_export, "ktune_db_export")
        return _to_text(lambda out: _check(_db_export(self.h, f, _c.byref(q), out, None,
                                                      d), d))

    def import_(self, fmt, path, device=None, kernel=None, problem=None, spec_dir=None,
                warn=None):
        """Store every row of the recording at path, format fmt ("csv",
        "miopen", "kerneltuner", "t4"), in one transaction; returns what was
        read as a dict (rows, added, ok, solvers, named, rejected, rejects,
        device, kernel, problem).  warn gets the warnings of the specs in
        spec_dir (miopen)."""
        f = _enum(_import_parse, fmt, "import format")
        o = _opts(_ImportOpts, _import_opts_init)
        keep = []
        _set(o, dict(device=device, kernel=kernel, problem=problem, spec_dir=spec_dir),
             keep)
        o.warn = cb = _warner(warn)
        st = _ImportStats()
        d = _Diag()
        _check(_need(_db_import, "ktune_db_import")(self.h, f, _s(os.fspath(path)),
                                                    _c.byref(o), _c.byref(st), d), d)
        del cb
        return _struct_dict(st)

    def merge(self, path):
        """Merge the ktune database at path into this one, in one
        transaction (a success replaces a failure; else what this one holds
        is kept): a dict of rows, added, replaced."""
        st = _MergeStats()
        d = _Diag()
        _check(_need(_db_merge, "ktune_db_merge")(self.h, _s(os.fspath(path)),
                                                  _c.byref(st), d), d)
        return _struct_dict(st)

    def merge_mean(self, paths):
        """Merge the ktune databases at paths into this one as merge() does,
        then store each configuration's successful readings (this one's row
        and each input's) as their mean: repeated runs of a space average
        out a noisy reading (energy).  Every path is checked before anything
        is written.  A dict: inputs (merge()'s dict for each path),
        averaged (configurations now a mean of 2+ readings), readings, and
        versions (configurations under 2+ source versions of their kernel:
        other code, kept apart)."""
        keep = [_s(os.fspath(p)) for p in paths]
        arr = (_p * max(len(keep), 1))(*keep)
        st = (_MergeStats * max(len(keep), 1))()
        mean = _MeanStats()
        d = _Diag()
        _check(_need(_db_merge_mean, "ktune_db_merge_mean")(self.h, arr, len(keep), st,
                                                            _c.byref(mean), d), d)
        return dict(inputs=[_struct_dict(x) for x in st[:len(keep)]], **_struct_dict(mean))

    def retest(self, other, kernel=None, problem=None, device=None):
        """This database's readings against other's (a Database) of the same
        configurations (`ktune db retest`): {"time", "energy", "power"}, each
        a dict of pairs, rms, offset, spread and r2_ceiling (NaN where
        undefined)."""
        q, keep = _query(kernel, problem, device)
        r = _Retest()
        d = _Diag()
        _check(_need(_db_retest, "ktune_db_retest")(self.h, other.h, _c.byref(q),
                                                    _c.byref(r), d), d)
        return {k: _struct_dict(getattr(r, k)) for k in ("time", "energy", "power")}

    def train(self, kernel, progress=None, **opts):
        """Train a model of kernel's results (`ktune train`) and return it
        (a Model, to save()).  opts: the fields of ktune_train_opts (method,
        where, holdout, seed, split_ignore, k, hidden, epochs, patience,
        batch, lr, dropout, seconds, paper_decoder); progress(epoch,
        train_loss, val_loss, seconds) after each epoch."""
        o = _opts(_TrainOpts, _train_opts_init)
        keep = []
        _set(o, opts, keep)
        o.progress = cb = _TRAIN_PROGRESS() if progress is None else _TRAIN_PROGRESS(
            lambda user, e, tl, vl, s: progress(e, tl, vl, s))
        h = _vp()
        d = _Diag()
        _check(_need(_model_train, "ktune_model_train")(self.h, _s(kernel), _c.byref(o),
                                                        _c.byref(h), d), d)
        del cb
        return Model._wrap(h.value)

    def analyze(self, kernel, device=None, problem=None, targets=None, **opts):
        """What makes kernel fast and frugal (`ktune analyze`): an Analysis.
        targets: names of targets() that must be modelled (None: time, and
        energy and power where the rows have them); opts: the other fields
        of ktune_analyze_opts (folds, rounds, depth, shap_rows,
        interaction_rows, top, seed, threads, derived, weights,
        reading_noise, repeats)."""
        o = _opts(_AnalyzeOpts, _analyze_opts_init)
        keep = []
        _set(o, dict(kernel=kernel, device=device, problem=problem, **opts), keep)
        for t in targets or ():
            o.targets |= 1 << _enum(_target_parse, t, "target")
        h = _vp()
        d = _Diag()
        _check(_need(_analyze, "ktune_analyze")(self.h, _c.byref(o), _c.byref(h), d), d)
        try:
            return Analysis(h.value)
        finally:
            _analysis_free(h.value)

    def report(self, kernel=None, title=None, source=None, specs=(), max_runs=None,
               no_script=False, no_analysis=False):
        """The database as one self-contained HTML page (`ktune report`):
        a SimpleNamespace of html and what it holds (measurements,
        kernels, runs, figures).  specs: Spec objects of the kernels, for
        the roofline and the maps."""
        o = _opts(_ReportOpts, _report_opts_init)
        keep = []
        _set(o, dict(kernel=kernel, title=title, source=source, max_runs=max_runs,
                     no_script=no_script, no_analysis=no_analysis), keep)
        if specs:
            arr = (_vp * len(specs))(*[s.h for s in specs])
            o.specs, o.nspecs = _c.cast(arr, _c.POINTER(_vp)), len(specs)
        info = _ReportInfo()
        d = _Diag()
        _need(_report_write, "ktune_report_write")
        html = _to_text(lambda out: _check(_report_write(self.h, _c.byref(o), out,
                                                         _c.byref(info), d), d))
        return SimpleNamespace(html=html, **_struct_dict(info))


# ----------------------------------------------------------------- models

class _MethodInfo(_c.Structure):
    _fields_ = [("name", _p), ("every_measurement", _bool)]


_TRAIN_PROGRESS = _c.CFUNCTYPE(None, _vp, _int, _dbl, _dbl, _dbl)


class _TrainOpts(_c.Structure):
    _fields_ = [("size", _sz), ("method", _p), ("where", _p), ("holdout", _dbl),
                ("seed", _u64), ("split_ignore", _p), ("k", _int), ("hidden", _int),
                ("epochs", _int), ("patience", _int), ("batch", _int), ("lr", _dbl),
                ("dropout", _dbl), ("seconds", _dbl), ("paper_decoder", _bool),
                ("progress", _TRAIN_PROGRESS), ("user", _vp)]


class _ModelInfo(_c.Structure):
    _fields_ = [("method", _p), ("kernel", _p), ("where", _p), ("ninputs", _sz),
                ("noutputs", _sz), ("ntrain", _sz), ("ntest", _sz), ("nvalidation", _sz)]


class _Candidate(_c.Structure):
    _fields_ = [("method", _p), ("top1", _dbl), ("top10", _dbl), ("chosen", _bool),
                ("pooled", _bool), ("loglik", _dbl)]


_MAX_WIDTHS = 16


class _EvalOpts(_c.Structure):
    _fields_ = [("size", _sz), ("widths", _sz * _MAX_WIDTHS), ("nwidths", _sz),
                ("limit", _sz), ("unconstrained", _bool), ("spec_path", _p),
                ("warn", _WARN), ("warn_user", _vp)]


class _EvalReport(_c.Structure):
    _fields_ = [("samples", _sz), ("kmax", _sz), ("avg_accuracy", _dbl),
                ("perfect", _dbl * _MAX_WIDTHS), ("valid", _dbl), ("ms_per_query", _dbl)]


_method_at = _fn("ktune_method_at", _int, _sz, _c.POINTER(_MethodInfo))
_train_opts_init = _fn("ktune_train_opts_init", None, _c.POINTER(_TrainOpts))
_model_train = _fn("ktune_model_train", _int, _vp, _p, _c.POINTER(_TrainOpts),
                   _c.POINTER(_vp), _c.POINTER(_Diag))
_model_save = _fn("ktune_model_save", _int, _vp, _p, _c.POINTER(_Diag))
_model_load = _fn("ktune_model_load", _int, _p, _c.POINTER(_vp), _c.POINTER(_Diag))
_model_free = _fn("ktune_model_free", None, _vp)
_model_describe = _fn("ktune_model_describe", _int, _vp, _c.POINTER(_ModelInfo))
_model_input_name = _fn("ktune_model_input_name", _p, _vp, _sz)
_model_output_name = _fn("ktune_model_output_name", _p, _vp, _sz)
_model_candidate_at = _fn("ktune_model_candidate_at", _int, _vp, _sz,
                          _c.POINTER(_Candidate))
_model_predict = _fn("ktune_model_predict", _int, _vp, _p, _sz, _p, _c.POINTER(_vp),
                     _c.POINTER(_Diag))
_pred_free = _fn("ktune_predictions_free", None, _vp)
_pred_count = _fn("ktune_predictions_count", _sz, _vp)
_pred_config = _fn("ktune_predictions_config", _p, _vp, _sz)
_pred_logp = _fn("ktune_predictions_log_prob", _dbl, _vp, _sz)
_eval_opts_init = _fn("ktune_eval_opts_init", None, _c.POINTER(_EvalOpts))
_model_evaluate = _fn("ktune_model_evaluate", _int, _vp, _c.POINTER(_EvalOpts),
                      _c.POINTER(_EvalReport), _c.POINTER(_Diag))


def methods():
    """The training methods, as dicts: name, every_measurement."""
    return _table(_need(_method_at, "ktune_method_at"), _MethodInfo)


class Model(_Handle):
    """A trained model (`ktune train`, or Database.train) loaded from path."""

    def __init__(self, path):
        self._h = None
        h = _vp()
        d = _Diag()
        _check(_need(_model_load, "ktune_model_load")(_s(os.fspath(path)), _c.byref(h),
                                                      d), d)
        self._h = h.value

    @classmethod
    def _wrap(cls, h):
        m = cls.__new__(cls)
        m._h = h
        return m

    @staticmethod
    def _free(h):
        _model_free(h)

    @property
    def info(self):
        """What the model is: method, kernel, where, ninputs, noutputs,
        ntrain, ntest, nvalidation, and inputs (descriptor fields) and
        outputs (tuning parameters) by name."""
        i = _ModelInfo()
        _check(_model_describe(self.h, _c.byref(i)), None)
        return SimpleNamespace(
            inputs=[_str(_model_input_name(self.h, k)) for k in range(i.ninputs)],
            outputs=[_str(_model_output_name(self.h, k)) for k in range(i.noutputs)],
            **_struct_dict(i))

    @property
    def candidates(self):
        """The methods tried when training chose the method, as dicts
        (method, top1, top10, chosen, pooled, loglik); [] when the method was
        given."""
        return _table(lambda i, out: _model_candidate_at(self.h, i, out), _Candidate)

    def save(self, path):
        """Write the model to path (a checksummed, versioned file)."""
        d = _Diag()
        _check(_model_save(self.h, _s(os.fspath(path)), d), d)

    def predict(self, problem, k=1, spec=None):
        """The k most likely configurations for problem (a key) as
        [(config, log_prob)], best first; with spec (a path), valid ones
        of that spec only."""
        h = _vp()
        d = _Diag()
        _check(_need(_model_predict, "ktune_model_predict")(
            self.h, _s(problem), k, _s(spec and os.fspath(spec)), _c.byref(h), d), d)
        try:
            return [(_str(_pred_config(h, i)), _pred_logp(h, i))
                    for i in range(_pred_count(h))]
        finally:
            _pred_free(h)

    def evaluate(self, widths=None, limit=None, unconstrained=False, spec=None,
                 warn=None):
        """Score the held-out problems (`ktune evaluate`): samples, kmax,
        avg_accuracy, perfect {width: %}, valid (NaN without spec),
        ms_per_query.  spec: the kernel's spec path, which the constrained
        search needs (else unconstrained=True); warn gets its warnings."""
        o = _opts(_EvalOpts, _eval_opts_init)
        if widths is not None:
            o.nwidths = len(widths)
            o.widths[:len(widths)] = list(widths)
        keep = []
        _set(o, dict(limit=limit, unconstrained=unconstrained, spec_path=spec), keep)
        o.warn = cb = _warner(warn)
        r = _EvalReport()
        d = _Diag()
        _check(_model_evaluate(self.h, _c.byref(o), _c.byref(r), d), d)
        del cb
        out = _struct_dict(r, skip=("perfect",))
        out["perfect"] = {o.widths[w]: r.perfect[w] for w in range(o.nwidths)}
        return SimpleNamespace(**out)


# ------------------------------------------------------------- analysis

class _AnalyzeOpts(_c.Structure):
    _fields_ = [("size", _sz), ("kernel", _p), ("device", _p), ("problem", _p),
                ("targets", _c.c_uint), ("folds", _c.c_uint), ("rounds", _c.c_uint),
                ("depth", _c.c_uint), ("shap_rows", _sz), ("interaction_rows", _sz),
                ("top", _sz), ("seed", _u64), ("threads", _c.c_uint),
                ("derived", _sz), ("weights", _c.c_bool), ("reading_noise", _dbl),
                ("repeats", _c.c_uint)]


class _AnalysisInfo(_c.Structure):
    _fields_ = [("kernel", _p), ("device", _p), ("rows", _sz), ("problems", _sz),
                ("features", _sz), ("tuning", _sz), ("targets", _c.c_uint),
                ("folds", _c.c_uint), ("reading_noise", _dbl), ("repeats", _c.c_uint)]


class _Fit(_c.Structure):
    _fields_ = [("rows", _sz), ("r2", _dbl), ("r2_log", _dbl), ("mape", _dbl),
                ("spearman", _dbl), ("seconds", _dbl), ("r2_sd", _dbl)]


class _Importance(_c.Structure):
    _fields_ = [("feature", _sz), ("range", _dbl), ("mean_abs", _dbl), ("share", _dbl),
                ("cost", _dbl), ("cost_sd", _dbl), ("worst", _p)]


class _Interaction(_c.Structure):
    _fields_ = [("a", _sz), ("b", _sz), ("mean_abs", _dbl)]


class _Dependence(_c.Structure):
    _fields_ = [("value", _p), ("mean", _dbl)]


class _Ablation(_c.Structure):
    _fields_ = [("feature", _sz), ("worst", _p), ("cost", _dbl), ("sd", _dbl),
                ("check", _int)]


_target_name = _fn("ktune_target_name", _p, _int)
_target_parse = _fn("ktune_target_parse", _int, _p, _c.POINTER(_int))
_analyze_opts_init = _fn("ktune_analyze_opts_init", None, _c.POINTER(_AnalyzeOpts))
_analyze = _fn("ktune_analyze", _int, _vp, _c.POINTER(_AnalyzeOpts), _c.POINTER(_vp),
               _c.POINTER(_Diag))
_analysis_free = _fn("ktune_analysis_free", None, _vp)
_analysis_describe = _fn("ktune_analysis_describe", None, _vp,
                         _c.POINTER(_AnalysisInfo))
_analysis_feature = _fn("ktune_analysis_feature", _p, _vp, _sz)
_analysis_fit = _fn("ktune_analysis_fit", _int, _vp, _int, _c.POINTER(_Fit))
_analysis_importance = _fn("ktune_analysis_importance", _sz, _vp, _int,
                           _c.POINTER(_Importance), _sz)
_analysis_interactions = _fn("ktune_analysis_interactions", _sz, _vp, _int,
                             _c.POINTER(_Interaction), _sz)
_analysis_dependence = _fn("ktune_analysis_dependence", _sz, _vp, _int, _sz,
                           _c.POINTER(_Dependence), _sz)
_analysis_ablation = _fn("ktune_analysis_ablation", _sz, _vp, _c.POINTER(_Ablation),
                         _sz, _c.POINTER(_bool))
_analysis_check = _fn("ktune_analysis_check", _int, _vp)
_check_name = _fn("ktune_check_name", _p, _int)


def targets():
    """What an analysis models: ["time", "energy", "power"]."""
    out = []
    while _need(_target_name, "ktune_target_name")(len(out)) != b"unknown":
        out.append(_str(_target_name(len(out))))
    return out


def _array(f, t, *args):
    """Every entry f(*args, out, cap) writes (it gives at most cap): cap
    grows until some room is left."""
    cap = 64
    while True:
        arr = (t * cap)()
        n = f(*args, arr, cap)
        if n < cap:
            return arr[:n]
        cap *= 4


class Analysis:
    """A finished analysis (a plain object): kernel, device, rows, problems,
    features (names: tuning parameters first, then problem fields), tuning,
    folds, reading_noise, repeats; per modelled target name, fit[t] (rows, r2,
    r2_log, mape, spearman, seconds, r2_sd), importance[t] [{feature, range, mean_abs, share,
    cost, cost_sd, worst}] (tuning parameters by cost, the held-out
    predictions' cost of their worst value), interactions[t] [(feature,
    feature, mean_abs)], dependence[t] {feature: [(value, mean)]}; ablation
    [{feature, worst, cost, sd}] in the time model's order, check ("agree",
    "tie" within the measurements' noise, "disagree", "none") and agrees
    (check == "agree")."""

    def __init__(self, h):
        info = _AnalysisInfo()
        _analysis_describe(h, _c.byref(info))
        for k, v in _struct_dict(info, skip=("features", "targets")).items():
            setattr(self, k, v)
        self.features = [_str(_analysis_feature(h, i)) for i in range(info.features)]
        names = targets()
        modelled = [i for i in range(len(names)) if info.targets & (1 << i)]
        self.fit, self.importance, self.interactions, self.dependence = {}, {}, {}, {}
        for t in modelled:
            fit = _Fit()
            _check(_analysis_fit(h, t, _c.byref(fit)), None)
            self.fit[names[t]] = _struct_dict(fit)
            imp = _array(_analysis_importance, _Importance, h, t)
            self.importance[names[t]] = [dict(_struct_dict(x), feature=self.features[
                x.feature], worst=_str(x.worst) if x.worst else None) for x in imp]
            self.interactions[names[t]] = [
                (self.features[x.a], self.features[x.b], x.mean_abs)
                for x in _array(_analysis_interactions, _Interaction, h, t)]
            dep = {}
            for x in imp:
                pts = _array(_analysis_dependence, _Dependence, h, t, x.feature)
                if pts:
                    dep[self.features[x.feature]] = [(_str(p.value), p.mean) for p in pts]
            self.dependence[names[t]] = dep
        agrees = _bool()
        abl = _array(lambda out, cap: _analysis_ablation(h, out, cap, _c.byref(agrees)),
                     _Ablation)
        self.ablation = [dict(feature=self.features[x.feature], worst=_str(x.worst),
                              cost=x.cost, sd=x.sd, check=_str(_check_name(x.check)))
                         for x in abl]
        self.agrees = agrees.value
        self.check = _str(_check_name(_analysis_check(h)))

    def __repr__(self):
        return "Analysis(%s on %s: %d rows, %d features)" % (
            self.kernel, self.device, self.rows, len(self.features))


# ---------------------------------------------------------------- report

class _ReportOpts(_c.Structure):
    _fields_ = [("size", _sz), ("kernel", _p), ("title", _p), ("source", _p),
                ("specs", _c.POINTER(_vp)), ("nspecs", _sz), ("max_runs", _sz),
                ("no_script", _bool), ("no_analysis", _bool)]


class _ReportInfo(_c.Structure):
    _fields_ = [("measurements", _u64), ("kernels", _sz), ("runs", _sz),
                ("figures", _sz)]


_report_opts_init = _fn("ktune_report_opts_init", None, _c.POINTER(_ReportOpts))
_report_write = _fn("ktune_report_write", _int, _vp, _c.POINTER(_ReportOpts), _vp,
                    _c.POINTER(_ReportInfo), _c.POINTER(_Diag))


# ------------------------------------------- benchmark of strategies

class _BenchOpts(_c.Structure):
    _fields_ = [("size", _sz), ("replay", _p), ("problem", _p), ("device", _p),
                ("kernel", _p), ("cache_dir", _p), ("strategies", _c.POINTER(_p)),
                ("nstrategies", _sz), ("budgets", _c.POINTER(_dbl)), ("nbudgets", _sz),
                ("seeds", _c.c_uint), ("warm", _sz), ("warn", _WARN), ("warn_user", _vp)]


class _BenchStat(_c.Structure):
    _fields_ = [("mean", _dbl), ("q1", _dbl), ("median", _dbl), ("q3", _dbl)]

    def as_dict(self):
        return _struct_dict(self)


class _BenchRow(_c.Structure):
    _fields_ = [("strategy", _p), ("budget", _u64), ("fraction", _BenchStat),
                ("found", _dbl), ("to95", _BenchStat), ("to99", _BenchStat),
                ("reached95", _c.c_uint), ("reached99", _c.c_uint), ("seconds", _dbl)]


class _BenchInfo(_c.Structure):
    _fields_ = [("kernel", _p), ("space", _u64), ("optimum_ms", _dbl),
                ("optimum_config", _p), ("seeds", _c.c_uint), ("nstrategies", _sz),
                ("nbudgets", _sz), ("nrows", _sz), ("curve_len", _sz)]


_bench_opts_init = _fn("ktune_bench_opts_init", None, _c.POINTER(_BenchOpts))
_benchmark = _fn("ktune_benchmark", _int, _vp, _c.POINTER(_BenchOpts), _c.POINTER(_vp),
                 _c.POINTER(_Diag))
_bench_free = _fn("ktune_bench_free", None, _vp)
_bench_summary = _fn("ktune_bench_summary", _c.POINTER(_BenchInfo), _vp)
_bench_row_at = _fn("ktune_bench_row_at", _c.POINTER(_BenchRow), _vp, _sz)
_bench_curve = _fn("ktune_bench_curve", _c.POINTER(_BenchStat), _vp, _sz)


def _bench_row(r):
    d = _struct_dict(r)
    for k in ("fraction", "to95", "to99"):
        d[k] = getattr(r, k).as_dict()
    return d


def benchmark(spec, replay, strategies=None, budgets=None, warn=None, **opts):
    """Compare search strategies on the recorded exhaustive run replay of
    spec (None: the recording alone), as `ktune benchmark` does.
    strategies: names (None: every one); budgets: ascending evaluation
    counts; opts: problem, device, kernel, cache_dir, seeds, warm.  Returns
    a SimpleNamespace: kernel, space, optimum_ms, optimum_config, seeds,
    rows [dict per strategy and budget, strategy-major] and curves
    {strategy: [mean fraction of the optimum after n + 1 evaluations]}."""
    o = _opts(_BenchOpts, _bench_opts_init)
    keep = []
    _set(o, dict(replay=replay, **opts), keep)
    if strategies is not None:
        o.strategies, o.nstrategies = _strings(strategies, keep)
    if budgets is not None:
        o.budgets, o.nbudgets = _doubles(budgets, keep)
    o.warn = cb = _warner(warn)
    h = _vp()
    d = _Diag()
    _check(_need(_benchmark, "ktune_benchmark")(spec.h if spec is not None else None,
                                                _c.byref(o), _c.byref(h), d), d)
    del cb
    try:
        info = _bench_summary(h).contents
        rows = [_bench_row(_bench_row_at(h, i).contents) for i in range(info.nrows)]
        names = [rows[s * info.nbudgets]["strategy"] for s in range(info.nstrategies)]
        curves = {n: [_bench_curve(h, s)[k].mean for k in range(info.curve_len)]
                  for s, n in enumerate(names)}
        return SimpleNamespace(rows=rows, curves=curves, **_struct_dict(info))
    finally:
        _bench_free(h)


# ------------------------------------------- transfer across devices

_transfer_open = _fn("ktune_transfer_open", _int, _c.POINTER(_p), _sz, _p,
                     _c.POINTER(_vp), _c.POINTER(_Diag))
_transfer_free = _fn("ktune_transfer_free", None, _vp)
_transfer_kernel = _fn("ktune_transfer_kernel", _p, _vp)
_transfer_ndevices = _fn("ktune_transfer_ndevices", _sz, _vp)
_transfer_device = _fn("ktune_transfer_device", _p, _vp, _sz)
_transfer_count = _fn("ktune_transfer_count", _sz, _vp)
_transfer_config = _fn("ktune_transfer_config", _int, _vp, _sz, _c.POINTER(_p),
                       _c.POINTER(_dbl))


class Transfer(_Handle):
    """What recordings of one kernel on other devices (paths: files that
    tune(replay=) takes, one device each) predict for a new device: give it
    to tune(transfer=) to measure its best configurations first."""

    def __init__(self, paths, cache_dir=None):
        self._h = None
        keep = []
        arr, n = _strings(paths, keep)
        h = _vp()
        d = _Diag()
        _check(_need(_transfer_open, "ktune_transfer_open")(
            arr, n, _s(cache_dir and os.fspath(cache_dir)), _c.byref(h), d), d)
        self._h = h.value

    @staticmethod
    def _free(h):
        _transfer_free(h)

    @property
    def kernel(self):
        return _str(_transfer_kernel(self.h))

    @property
    def devices(self):
        """The source devices' names."""
        return [_str(_transfer_device(self.h, i))
                for i in range(_transfer_ndevices(self.h))]

    @property
    def configs(self):
        """Every configuration a source recorded as (config, score 0..1),
        in the order a run measures them (the best score first, then a
        portfolio: ktune.h says why the scores need not descend)."""
        cfg, score = _p(), _dbl()
        out = []
        for i in range(_transfer_count(self.h)):
            _check(_transfer_config(self.h, i, _c.byref(cfg), _c.byref(score)), None)
            out.append((_str(cfg.value), score.value))
        return out


class _TransferBenchOpts(_c.Structure):
    _fields_ = [("size", _sz), ("paths", _c.POINTER(_p)), ("npaths", _sz),
                ("cache_dir", _p), ("budgets", _c.POINTER(_dbl)), ("nbudgets", _sz),
                ("seeds", _c.c_uint), ("top", _sz)]


class _TransferRow(_c.Structure):
    _fields_ = [("device", _p), ("measurements", _u64), ("optimum_ms", _dbl),
                ("transfer", _dbl), ("warm", _dbl), ("cold", _dbl)]


_tb_opts_init = _fn("ktune_transfer_bench_opts_init", None,
                    _c.POINTER(_TransferBenchOpts))
_tb_run = _fn("ktune_transfer_benchmark", _int, _c.POINTER(_TransferBenchOpts),
              _c.POINTER(_vp), _c.POINTER(_Diag))
_tb_free = _fn("ktune_transfer_bench_free", None, _vp)
_tb_kernel = _fn("ktune_transfer_bench_kernel", _p, _vp)
_tb_count = _fn("ktune_transfer_bench_count", _sz, _vp)
_tb_row = _fn("ktune_transfer_bench_row", _c.POINTER(_TransferRow), _vp, _sz)


def transfer_benchmark(paths, budgets=None, seeds=None, top=None, cache_dir=None):
    """Hold out each recording of paths in turn (`ktune benchmark
    --transfer`): a SimpleNamespace of kernel and rows, dicts of device
    (None: the median over the devices), measurements, optimum_ms and the
    fractions of the optimum that transfer, warm and cold reach."""
    o = _opts(_TransferBenchOpts, _tb_opts_init)
    keep = []
    o.paths, o.npaths = _strings(paths, keep)
    if budgets is not None:
        o.budgets, o.nbudgets = _doubles(budgets, keep)
    _set(o, dict(seeds=seeds, top=top, cache_dir=cache_dir), keep)
    h = _vp()
    d = _Diag()
    _check(_need(_tb_run, "ktune_transfer_benchmark")(_c.byref(o), _c.byref(h), d), d)
    try:
        return SimpleNamespace(kernel=_str(_tb_kernel(h)),
                               rows=[_struct_dict(_tb_row(h, i).contents)
                                     for i in range(_tb_count(h))])
    finally:
        _tb_free(h)


# ------------------------------------------------------ runtime selection


class _SelectorOpts(_c.Structure):
    _fields_ = [("size", _sz), ("refresh_ms", _c.c_uint), ("max_distance", _dbl),
                ("cache_size", _sz), ("beam_width", _sz), ("cache_dir", _p),
                ("warn", _WARN), ("warn_user", _vp), ("platform", _p)]


class _Choice(_c.Structure):
    _fields_ = [("source", _int), ("config", _c.c_char * 1024), ("nparams", _sz),
                ("values", _dbl * 64), ("time_ms", _dbl), ("distance", _dbl),
                ("from_", _c.c_char * 1024)]


class Choice:
    """One answer of a selector: source ("database", "nearest", "model",
    "default"), config (key), values, time_ms, distance, from_problem."""

    def __init__(self, c):
        self.source = _str(_source_name(c.source))
        self.config = c.config.decode()
        self.values = list(c.values[:min(c.nparams, 64)])
        self.time_ms = c.time_ms
        self.distance = c.distance
        self.from_problem = c.from_.decode()

    def __repr__(self):
        return "Choice(%s from %s)" % (self.config, self.source)


_source_name = _fn("ktune_source_name", _p, _int)
_sel_opts_init = _fn("ktune_selector_opts_init", None, _c.POINTER(_SelectorOpts))
_sel_open = _fn("ktune_selector_open", _int, _p, _p, _p, _p, _c.POINTER(_SelectorOpts),
                _c.POINTER(_vp), _c.POINTER(_Diag))
_sel_open_spec = _fn("ktune_selector_open_spec", _int, _p, _vp, _p, _p,
                     _c.POINTER(_SelectorOpts), _c.POINTER(_vp), _c.POINTER(_Diag))
_sel_close = _fn("ktune_selector_close", None, _vp)
_sel_nproblem = _fn("ktune_selector_nproblem", _sz, _vp)
_sel_problem_name = _fn("ktune_selector_problem_name", _p, _vp, _sz)
_sel_problem = _fn("ktune_selector_problem", _int, _vp, _p, _c.POINTER(_c.c_int64), _sz,
                   _c.POINTER(_Diag))
_select = _fn("ktune_select", _int, _vp, _p, _c.POINTER(_Choice), _c.POINTER(_Diag))
_select_values = _fn("ktune_select_values", _int, _vp, _c.POINTER(_c.c_int64), _sz,
                     _c.POINTER(_Choice), _c.POINTER(_Diag))
_sel_refresh = _fn("ktune_selector_refresh", _int, _vp, _c.POINTER(_bool),
                   _c.POINTER(_Diag))
_sel_size = _fn("ktune_selector_size", _sz, _vp)


class Selector(_Handle):
    """Runtime selection for one kernel on one device (None: this machine)
    from a database (None: none) and a model (a path, or None).  kernel: a
    loaded Spec (kept alive with the selector), a spec path or a stored
    kernel name.  opts: the fields of ktune_selector_opts (refresh_ms,
    max_distance, cache_size, beam_width, cache_dir, platform); warn gets the
    warnings of the spec a path names.  select() and select_values() may
    be called from several threads."""

    def __init__(self, db, kernel, device=None, model=None, warn=None, **opts):
        self._h = None
        o = _opts(_SelectorOpts, _sel_opts_init)
        keep = []
        _set(o, opts, keep)
        o.warn = cb = _warner(warn)
        h = _vp()
        d = _Diag()
        path = lambda x: None if x is None else _s(os.fspath(x))
        if isinstance(kernel, Spec):
            self.spec = kernel  # borrowed by the selector until it closes
            _check(_need(_sel_open_spec, "ktune_selector_open_spec")(
                path(db), kernel.h, _s(device), path(model), _c.byref(o), _c.byref(h),
                d), d)
        else:
            _check(_need(_sel_open, "ktune_selector_open")(
                path(db), path(kernel), _s(device), path(model), _c.byref(o),
                _c.byref(h), d), d)
        del cb  # warnings come at open only
        self._h = h.value

    @staticmethod
    def _free(h):
        _sel_close(h)

    @property
    def problem_names(self):
        """The problem parameters, in the order select_values() takes them."""
        return [_str(_sel_problem_name(self.h, i))
                for i in range(_sel_nproblem(self.h))]

    def problem(self, text):
        """text ("M=..,N=..") as the values select_values() takes: whole
        numbers as they are, text values as the selector's codes."""
        n = _sel_nproblem(self.h)
        v = (_c.c_int64 * max(n, 1))()
        d = _Diag()
        _check(_sel_problem(self.h, _s(text), v, n, d), d)
        return list(v[:n])

    def select(self, problem):
        """The configuration to use for problem ("M=..,N=..")."""
        c = _Choice()
        d = _Diag()
        _check(_select(self.h, _s(problem), _c.byref(c), d), d)
        return Choice(c)

    def select_values(self, values):
        """select() for a problem given as values (problem() makes them):
        the fast path, with no parsing."""
        v = (_c.c_int64 * max(len(values), 1))(*values)
        c = _Choice()
        d = _Diag()
        _check(_select_values(self.h, v, len(values), _c.byref(c), d), d)
        return Choice(c)

    def refresh(self):
        """Rebuild the index now if the database changed; whether it did."""
        changed = _bool()
        d = _Diag()
        _check(_sel_refresh(self.h, _c.byref(changed), d), d)
        return changed.value

    def __len__(self):
        """The problems the current index holds."""
        return _sel_size(self.h)


# ---------------------------------------------------------- online tuning

class _OnlineOpts(_c.Structure):
    _fields_ = [("size", _sz), ("db_path", _p), ("cache_dir", _p), ("compiler", _p),
                ("worker_path", _p), ("policy", _p), ("explore_share", _dbl),
                ("explore_overhead", _dbl), ("drop_factor", _dbl), ("candidates", _sz),
                ("seeds", _c.POINTER(_p)), ("nseeds", _sz), ("model", _p),
                ("model_k", _sz), ("warm", _sz), ("seed", _u64), ("verify", _int),
                ("stream", _vp), ("device", _int)]


class _OnlineCall(_c.Structure):
    _fields_ = [("config", _p), ("time_ms", _dbl), ("explored", _bool)]


class _OnlineState(_c.Structure):
    _fields_ = [("calls", _u64), ("explored", _u64), ("time_ms", _dbl),
                ("extra_ms", _dbl), ("candidates", _sz), ("live", _sz), ("failed", _sz),
                ("converged", _bool), ("best", _p), ("best_ms", _dbl)]


_on_opts_init = _fn("ktune_online_opts_init", None, _c.POINTER(_OnlineOpts))
_on_open = _fn("ktune_online_open", _int, _vp, _c.POINTER(_OnlineOpts), _c.POINTER(_vp),
               _c.POINTER(_Diag))
_on_close = _fn("ktune_online_close", None, _vp)
_on_run = _fn("ktune_online_run", _int, _vp, _vp, _c.POINTER(_vp),
              _c.POINTER(_OnlineCall), _c.POINTER(_Diag))
_on_report = _fn("ktune_online_report", _int, _vp, _vp, _c.POINTER(_OnlineState),
                 _c.POINTER(_Diag))
_on_wait = _fn("ktune_online_wait", None, _vp)
_on_hold = _fn("ktune_online_hold", _bool, _vp, _bool)


class Online(_Handle):
    """Online tuning of a C kernel: run(problem, args) runs it on the
    caller's own data with the configuration the policy chooses.  args
    follow the spec's arguments: a ctypes scalar (c_int(1024)) for a scalar,
    a ctypes array (or anything with a buffer address as an int) for a
    vector.  Options: the fields of ktune_online_opts (db_path, policy,
    explore_share, ...), seeds as a list of configuration keys."""

    def __init__(self, spec, **opts):
        self._h = None
        self.spec = spec
        o = _opts(_OnlineOpts, _on_opts_init)
        self._keep = []
        seeds = opts.pop("seeds", None)
        if seeds:
            arr = (_p * len(seeds))(*[_s(x) for x in seeds])
            self._keep.append(arr)
            o.seeds, o.nseeds = arr, len(seeds)
        if opts.get("verify") == "none":
            opts["verify"] = 1
        for k, v in opts.items():
            setattr(o, k, _s(os.fspath(v)) if isinstance(v, (str, os.PathLike)) else v)
        h = _vp()
        d = _Diag()
        _check(_need(_on_open, "ktune_online_open")(spec.h, _c.byref(o), _c.byref(h),
                                                    d), d)
        self._h = h.value

    @staticmethod
    def _free(h):
        _on_close(h)

    @staticmethod
    def _args(args):
        """void *args[]: a pointer to each scalar, and to a variable holding
        each buffer's address."""
        ptrs = (_vp * len(args))()
        keep = []
        for i, a in enumerate(args):
            if isinstance(a, _c._SimpleCData):
                ptrs[i] = _c.cast(_c.pointer(a), _vp)
            else:
                addr = _vp(a if isinstance(a, int) else _c.addressof(a))
                keep.append(addr)
                ptrs[i] = _c.cast(_c.pointer(addr), _vp)
        return ptrs, keep

    def run(self, problem, args):
        """Run once; returns (config, time_ms, explored)."""
        ptrs, keep = self._args(args)
        call = _OnlineCall()
        d = _Diag()
        _check(_on_run(self.h, problem.h, ptrs, _c.byref(call), d), d)
        del keep
        return _str(call.config), call.time_ms, call.explored

    def report(self, problem):
        """Where problem stands, as a dict."""
        s = _OnlineState()
        d = _Diag()
        _check(_on_report(self.h, problem.h, _c.byref(s), d), d)
        out = {k: getattr(s, k) for k, _ in s._fields_}
        out["best"] = _str(s.best)
        return out

    def wait(self):
        """Until every candidate called for so far is built and verified."""
        _on_wait(self.h)

    def hold(self, wait=False):
        """Hold the background thread once its job in progress ends, until
        the next run() or wait(), so that nothing of ktune's runs beside
        the application's own timed work; with wait, wait for that job.
        True when nothing of the handle's runs now."""
        return _on_hold(self.h, wait)
