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
    with ktune.Selector("k.db", "kernels/gemm/gemm-c.json") as sel:
        print(sel.select("M=256,N=256,K=256").config)
"""

import ctypes
import ctypes.util
import os

__all__ = ["KtuneError", "version", "Spec", "Problem", "tune", "Run", "Database",
           "Model", "Selector", "Choice", "Online"]

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
        raise KtuneError(rc, msg or _lib.ktune_strerror(rc).decode())
    return rc


def _s(text):
    return None if text is None else str(text).encode()


def _str(b):
    return None if b is None else b.decode(errors="replace")


_lib.ktune_strerror.restype = _p
_lib.ktune_strerror.argtypes = [_int]
_lib.ktune_version.restype = _p
_lib.ktune_version.argtypes = []


def version():
    """The version of the library loaded ("0.5.0")."""
    return _lib.ktune_version().decode()


def _opts(struct_type, init):
    o = struct_type()
    _need(init, struct_type.__name__ + " init")(_c.byref(o))
    return o


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

_spec_load = _fn("ktune_spec_load", _int, _p, _vp, _vp, _c.POINTER(_vp), _c.POINTER(_Diag))
_spec_free = _fn("ktune_spec_free", None, _vp)
_spec_name = _fn("ktune_spec_name", _p, _vp)
_spec_nparams = _fn("ktune_spec_nparams", _sz, _vp)
_spec_param_name = _fn("ktune_spec_param_name", _p, _vp, _sz)
_spec_nproblem = _fn("ktune_spec_nproblem", _sz, _vp)
_spec_problem_name = _fn("ktune_spec_problem_name", _p, _vp, _sz)
_problem_parse = _fn("ktune_problem_parse", _int, _vp, _p, _c.c_uint,
                     _c.POINTER(_vp), _c.POINTER(_Diag))
_problem_free = _fn("ktune_problem_free", None, _vp)
_problem_key = _fn("ktune_problem_key", _p, _vp)


class _Handle:
    """An owned library handle, released by close() or at the end of with."""

    _free = None

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
    """A tuning spec (T1 JSON) loaded from path."""

    def __init__(self, path):
        self._h = None
        self.path = os.fspath(path)
        h = _vp()
        d = _Diag()
        _check(_need(_spec_load, "ktune_spec_load")(_s(self.path), None, None,
                                                    _c.byref(h), d), d)
        self._h = h.value

    @staticmethod
    def _free(h):
        _spec_free(h)

    @property
    def name(self):
        return _str(_spec_name(self._h))

    @property
    def params(self):
        return [_str(_spec_param_name(self._h, i)) for i in range(_spec_nparams(self._h))]

    @property
    def problem_names(self):
        return [_str(_spec_problem_name(self._h, i))
                for i in range(_spec_nproblem(self._h))]


class Problem(_Handle):
    """A problem of a spec: "M=1024,N=1024,K=512" (every problem parameter,
    unless partial=True, which leaves the others at the spec's defaults)."""

    def __init__(self, spec, text=None, partial=False):
        self._h = None
        self.spec = spec  # kept alive: the problem belongs to it
        h = _vp()
        d = _Diag()
        _check(_need(_problem_parse, "ktune_problem_parse")(
            spec._h, _s(text), 1 if partial else 0, _c.byref(h), d), d)
        self._h = h.value

    @staticmethod
    def _free(h):
        _problem_free(h)

    @property
    def key(self):
        return _str(_problem_key(self._h))


# ---------------------------------------------------------------- tuning

_PROGRESS = _c.CFUNCTYPE(None, _vp, _vp)


class _TuneOpts(_c.Structure):
    _fields_ = [("size", _sz), ("problem", _p), ("strategy", _p), ("budget_kind", _int),
                ("budget", _dbl), ("time_limit_s", _dbl), ("seed", _u64),
                ("db_path", _p), ("cache_dir", _p), ("jobs", _int), ("timeout_s", _dbl),
                ("max_memory", _u64), ("energy_window_s", _dbl),
                ("retry_failed", _bool), ("no_overlap", _bool), ("replay", _p),
                ("device", _p), ("kernel", _p), ("warm", _sz), ("model", _p),
                ("top", _sz), ("map", _bool), ("objective", _int), ("progress", _vp),
                ("user", _vp), ("cancel", _vp), ("transfer", _vp), ("warn", _vp),
                ("warn_user", _vp)]


class _RunInfo(_c.Structure):
    _fields_ = [("kernel", _p), ("problem", _p), ("device", _p), ("space_size", _u64),
                ("space_sampled", _bool), ("measured", _u64), ("cached", _u64),
                ("by_status", _u64 * len(_STATUSES)), ("warm_starts", _sz),
                ("default_skipped", _bool), ("seconds", _dbl), ("flops", _dbl),
                ("no_energy", _u64)]


_tune_opts_init = _fn("ktune_tune_opts_init", None, _c.POINTER(_TuneOpts))
_tune = _fn("ktune_tune", _int, _vp, _c.POINTER(_TuneOpts), _c.POINTER(_vp),
            _c.POINTER(_Diag))
_run_free = _fn("ktune_run_free", None, _vp)
_run_summary = _fn("ktune_run_summary", _c.POINTER(_RunInfo), _vp)
_run_best = _fn("ktune_run_best", _int, _vp, _c.POINTER(_p), _c.POINTER(_Result))
_run_speedup = _fn("ktune_run_speedup", _dbl, _vp)

_BUDGETS = {"spec": 0, "count": 1, "fraction": 2, "seconds": 3}


class Run:
    """A finished tuning run's figures (a plain object; nothing to free)."""

    def __init__(self, h):
        info = _run_summary(h).contents
        self.kernel = _str(info.kernel)
        self.problem = _str(info.problem)
        self.device = _str(info.device)
        self.space_size = info.space_size
        self.measured = info.measured
        self.cached = info.cached
        self.seconds = info.seconds
        self.by_status = {s: info.by_status[i] for i, s in enumerate(_STATUSES)}
        cfg = _p()
        res = _Result()
        found = _run_best(h, _c.byref(cfg), _c.byref(res)) == 0
        self.best_config = _str(cfg.value) if found else None
        self.best = res.as_dict() if found else None
        self.best_ms = res.time_ms if found else None
        self.speedup = _run_speedup(h)

    def __repr__(self):
        return "Run(%s %s: best %s in %s ms)" % (self.kernel, self.problem,
                                                  self.best_config, self.best_ms)


def tune(spec, problem=None, strategy=None, budget=None, budget_kind="count",
         db=None, cache_dir=None, seed=None, time_limit_s=None, model=None, top=None,
         **extra):
    """Tune spec for problem ("M=..,N=..") and return the Run.  Every field
    of ktune_tune_opts may be given by name (extra); None keeps the
    library's default."""
    o = _opts(_TuneOpts, _tune_opts_init)
    fields = dict(problem=problem, strategy=strategy, db_path=db, cache_dir=cache_dir,
                  seed=seed, time_limit_s=time_limit_s, model=model, top=top, **extra)
    if budget is not None:
        fields.update(budget=float(budget), budget_kind=_BUDGETS[budget_kind])
    keep = []  # the encoded strings must live through the call
    for k, v in fields.items():
        if v is None:
            continue
        if isinstance(v, str):
            v = _s(v)
            keep.append(v)
        setattr(o, k, v)
    h = _vp()
    d = _Diag()
    _check(_need(_tune, "ktune_tune")(spec._h, _c.byref(o), _c.byref(h), d), d)
    try:
        return Run(h.value)
    finally:
        _run_free(h.value)


# ------------------------------------------------------ results database

class _Query(_c.Structure):
    _fields_ = [("size", _sz), ("kernel", _p), ("problem", _p), ("device", _p),
                ("ok_only", _bool), ("best", _bool)]


class _Row(_c.Structure):
    _fields_ = [("device", _p), ("kernel", _p), ("source_hash", _p), ("problem", _p),
                ("config", _p), ("created", _p), ("result", _Result)]


_ROW_FN = _c.CFUNCTYPE(_int, _vp, _c.POINTER(_Row))
_db_open = _fn("ktune_db_open", _int, _p, _c.c_uint, _c.POINTER(_vp), _c.POINTER(_Diag))
_db_close = _fn("ktune_db_close", None, _vp)
_query_init = _fn("ktune_query_init", None, _c.POINTER(_Query))
_db_query = _fn("ktune_db_query", _int, _vp, _c.POINTER(_Query), _ROW_FN, _vp,
                _c.POINTER(_u64), _c.POINTER(_Diag))


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

    def query(self, kernel=None, problem=None, device=None, ok_only=False, best=False):
        """Rows as dicts (device, kernel, source_hash, problem, config, created,
        and the result's fields), oldest first; best=True: the fastest ok row
        of each device, kernel and problem."""
        q = _opts(_Query, _query_init)
        keep = [_s(kernel), _s(problem), _s(device)]
        q.kernel, q.problem, q.device = keep
        q.ok_only, q.best = ok_only, best
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
        _check(_need(_db_query, "ktune_db_query")(self._h, _c.byref(q), _ROW_FN(take),
                                                  None, _c.byref(n), d), d)
        return rows


# ----------------------------------------------------------------- models

_model_load = _fn("ktune_model_load", _int, _p, _c.POINTER(_vp), _c.POINTER(_Diag))
_model_free = _fn("ktune_model_free", None, _vp)
_model_predict = _fn("ktune_model_predict", _int, _vp, _p, _sz, _p, _c.POINTER(_vp),
                     _c.POINTER(_Diag))
_pred_free = _fn("ktune_predictions_free", None, _vp)
_pred_count = _fn("ktune_predictions_count", _sz, _vp)
_pred_config = _fn("ktune_predictions_config", _p, _vp, _sz)
_pred_logp = _fn("ktune_predictions_log_prob", _dbl, _vp, _sz)


class Model(_Handle):
    """A trained model (`ktune train`) loaded from path."""

    def __init__(self, path):
        self._h = None
        h = _vp()
        d = _Diag()
        _check(_need(_model_load, "ktune_model_load")(_s(os.fspath(path)), _c.byref(h),
                                                      d), d)
        self._h = h.value

    @staticmethod
    def _free(h):
        _model_free(h)

    def predict(self, problem, k=1, spec=None):
        """The k most likely configurations for problem (a key) as
        [(config, log_prob)], best first; with spec (a path), valid ones
        of that spec only."""
        h = _vp()
        d = _Diag()
        _check(_need(_model_predict, "ktune_model_predict")(
            self._h, _s(problem), k, _s(spec and os.fspath(spec)), _c.byref(h), d), d)
        try:
            return [(_str(_pred_config(h, i)), _pred_logp(h, i))
                    for i in range(_pred_count(h))]
        finally:
            _pred_free(h)


# ------------------------------------------------------ runtime selection

_SOURCES = {1: "database", 2: "nearest", 3: "model", 4: "default"}


class _SelectorOpts(_c.Structure):
    _fields_ = [("size", _sz), ("refresh_ms", _c.c_uint), ("max_distance", _dbl),
                ("cache_size", _sz), ("beam_width", _sz), ("cache_dir", _p)]


class _Choice(_c.Structure):
    _fields_ = [("source", _int), ("config", _c.c_char * 1024), ("nparams", _sz),
                ("values", _dbl * 64), ("time_ms", _dbl), ("distance", _dbl),
                ("from_", _c.c_char * 1024)]


class Choice:
    """One answer of a selector: source ("database", "nearest", "model",
    "default"), config (key), values, time_ms, distance, from_problem."""

    def __init__(self, c):
        self.source = _SOURCES.get(c.source, "unknown")
        self.config = c.config.decode()
        self.values = list(c.values[:min(c.nparams, 64)])
        self.time_ms = c.time_ms
        self.distance = c.distance
        self.from_problem = c.from_.decode()

    def __repr__(self):
        return "Choice(%s from %s)" % (self.config, self.source)


_sel_opts_init = _fn("ktune_selector_opts_init", None, _c.POINTER(_SelectorOpts))
_sel_open = _fn("ktune_selector_open", _int, _p, _p, _p, _p, _c.POINTER(_SelectorOpts),
                _c.POINTER(_vp), _c.POINTER(_Diag))
_sel_close = _fn("ktune_selector_close", None, _vp)
_select = _fn("ktune_select", _int, _vp, _p, _c.POINTER(_Choice), _c.POINTER(_Diag))


class Selector(_Handle):
    """Runtime selection for one kernel (a spec path or a stored kernel
    name) on one device (None: this machine) from a database (None: none)
    and a model (a path, or None).  select() may be called from several
    threads."""

    def __init__(self, db, kernel, device=None, model=None, **opts):
        self._h = None
        o = _opts(_SelectorOpts, _sel_opts_init)
        for k, v in opts.items():
            setattr(o, k, _s(v) if isinstance(v, str) else v)
        h = _vp()
        d = _Diag()
        path = lambda x: None if x is None else _s(os.fspath(x))
        _check(_need(_sel_open, "ktune_selector_open")(
            path(db), path(kernel), _s(device), path(model), _c.byref(o), _c.byref(h),
            d), d)
        self._h = h.value

    @staticmethod
    def _free(h):
        _sel_close(h)

    def select(self, problem):
        """The configuration to use for problem ("M=..,N=..")."""
        c = _Choice()
        d = _Diag()
        _check(_select(self._h, _s(problem), _c.byref(c), d), d)
        return Choice(c)


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
        _check(_need(_on_open, "ktune_online_open")(spec._h, _c.byref(o), _c.byref(h),
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
        _check(_on_run(self._h, problem._h, ptrs, _c.byref(call), d), d)
        del keep
        return _str(call.config), call.time_ms, call.explored

    def report(self, problem):
        """Where problem stands, as a dict."""
        s = _OnlineState()
        d = _Diag()
        _check(_on_report(self._h, problem._h, _c.byref(s), d), d)
        out = {k: getattr(s, k) for k, _ in s._fields_}
        out["best"] = _str(s.best)
        return out

    def wait(self):
        """Until every candidate called for so far is built and verified."""
        _on_wait(self._h)
