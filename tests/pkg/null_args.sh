# null_args.sh - bad input through the API never crashes or prints: every
# KTUNE_API function of include/ktune.h, called with NULL for each pointer
# (handles, options, outputs, strings; a real ktune_diag) and 0 for each
# number, in a process of its own, returns; one that returns int returns a
# negative KTUNE_E* code, with a message where it takes a diag.  The list
# of functions is read from the header, so a new one is checked at once.
# Run by `make test-pkg` with $BUILD the build folder.
. "$(dirname "$0")/../cli/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case ${BUILD:=build} in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
[ -e "$BUILD/rel/libktune.so" ] || fail "no $BUILD/rel/libktune.so: make all first"

python3 - "$ROOT/include/ktune.h" "$BUILD/rel/libktune.so" >"$TMP/out" 2>&1 <<'PY' ||
import ctypes, os, re, sys
header, lib = open(sys.argv[1]).read(), ctypes.CDLL(sys.argv[2])
decls = re.findall(r"KTUNE_API ([^;(]*?)\b(ktune_\w+)\s*\(([^)]*)\)\s*;", header)
assert len(decls) >= 134, "only %d declarations read" % len(decls)
# Returning 0 (or more) for these is right: index 0 exists (the table
# lookups take a NULL out as a check), or the result is no error code (a
# NULL MPI job is rank 0 of 1).
FINE = {"ktune_strerror", "ktune_status_name", "ktune_objective_name",
        "ktune_source_name", "ktune_target_name", "ktune_version",
        "ktune_strategy_at", "ktune_method_at", "ktune_mpi_rank", "ktune_mpi_size"}


class Diag(ctypes.Structure):
    _fields_ = [("msg", ctypes.c_char * 512)]


def call(ret, name, params):
    """In the child: the call, and its verdict as the exit status."""
    params = [p.strip() for p in params.split(",")] if params.strip() not in ("", "void") \
        else []
    diag = Diag()
    args = [ctypes.byref(diag) if "ktune_diag" in p else
            ctypes.c_void_p(None) if "*" in p or "_fn " in p else
            ctypes.c_double(0) if "double" in p else ctypes.c_uint64(0) for p in params]
    f = getattr(lib, name)
    f.restype = ctypes.c_int if ret.strip() == "int" else ctypes.c_void_p
    rc = f(*args)
    if ret.strip() != "int" or name in FINE:
        return 0
    if rc >= 0:
        return 3
    return 4 if any("ktune_diag" in p for p in params) and not diag.msg else 0


bad = []
for ret, name, params in decls:
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.dup2(w, 1)
        os.dup2(w, 2)
        os._exit(call(ret, name, params))
    os.close(w)
    printed = os.read(r, 200)
    os.close(r)
    _, status = os.waitpid(pid, 0)
    why = {3: "returned 0 or more", 4: "gave no message"}.get(os.WEXITSTATUS(status)) \
        if os.WIFEXITED(status) else "died on signal %d" % os.WTERMSIG(status)
    if why or printed:
        bad.append("%s: %s" % (name, why or "printed %r" % printed))
print("\n".join(bad) if bad else "%d functions" % len(decls))
sys.exit(1 if bad else 0)
PY
    fail "NULL arguments: $(cat "$TMP/out")"
pass "NULL arguments: $(cat "$TMP/out") return an error and print nothing"
