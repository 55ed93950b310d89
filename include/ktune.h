/* ktune.h - the public API of ktune, a learned auto-tuner for compute kernels.
 *
 * This header is the whole contract; everything else in libktune is
 * internal.  Conventions (docs/ARCHITECTURE.md, "The api layer"):
 *   - names: functions ktune_<object>_<verb>, types ktune_<name>, macros and
 *     constants KTUNE_*; handles are opaque, made by _open/_load/_new and
 *     released by _close/_free, which accept NULL;
 *   - fallible functions return int: 0 on success or a negative KTUNE_E*
 *     code; results come back through out-parameters;
 *   - the one-line detail of a failure (file:line:col where there is one)
 *     is written to a caller-owned ktune_diag (NULL accepted), never
 *     printed: the library neither prints nor exits; warnings and progress
 *     go to caller-given callbacks (function pointer + void *user);
 *   - options come in structs whose first field is `size_t size`, filled
 *     with their defaults by an _init function, so that fields can be added
 *     without breaking callers;
 *   - strings the library returns belong to the handle they came from and
 *     live until it is freed, unless documented as caller-freed (ktune_free);
 *   - there is no global mutable state: a handle is used by one thread at a
 *     time unless its documentation says otherwise;
 *   - a NULL pointer where a handle, options or an output is expected never
 *     crashes: a fallible function returns KTUNE_EINVAL (diag says which
 *     argument), an accessor NULL or 0, an _init function nothing
 *     (tests/pkg/null_args.sh calls every function so).
 */
#ifndef KTUNE_H
#define KTUNE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* KTUNE_API marks what the shared library exports: it is built with
 * -fvisibility=hidden, so that every name not marked stays inside it. */
#if defined(__GNUC__)
#define KTUNE_API __attribute__((visibility("default")))
#else
#define KTUNE_API
#endif

/* --------------------------------------------------------------- version */

/* The release, as MAJOR.MINOR.PATCH; the minor part grows with each change
 * to this header's contract, the major part when it breaks. */
#define KTUNE_VERSION "0.5.0"

/* The version of the library linked (KTUNE_VERSION of its build): a program
 * can compare it with the header it was compiled against. */
KTUNE_API const char *ktune_version(void);

/* The path of name among the data ktune installs under PREFIX/share/ktune
 * (the kernels and their specs: "kernels/miopen",
 * "kernels/gemm/gemm-c.json") into out (size bytes): looked for from the
 * running program and from libktune.so as `make install` lays them out
 * (PREFIX/bin or PREFIX/lib -> PREFIX/share/ktune/name) and as a built
 * repository does (build/ktune -> name in the repository), then in the
 * current folder.  Returns 0; KTUNE_ENOTFOUND when it is nowhere (out then
 * gets name itself, for a message), KTUNE_EINVAL for NULL arguments,
 * KTUNE_ERANGE when the path does not fit.  Thread-safe. */
KTUNE_API int ktune_data_path(const char *name, char *out, size_t size);

/* The i-th library (i = 0, 1, ...) that this build of libktune uses, for
 * reports such as `ktune --version`: *name gets its name ("SQLite",
 * "json-c", "XGBoost", "OpenBLAS"; a static string) and version (size bytes, NUL
 * terminated) the version linked at run time.  Returns 0, or
 * KTUNE_ENOTFOUND past the last library (*name is then NULL).
 * Thread-safe. */
KTUNE_API int ktune_dependency(size_t i, const char **name, char *version,
                               size_t size);

/* ---------------------------------------------------------------- errors */

/* X(name, value, message): the one list of error codes. */
#define KTUNE_ERRORS(X)                                                          \
    X(OK, 0, "success")                                                       \
    X(ENOMEM, -1, "out of memory")                                            \
    X(EINVAL, -2, "invalid argument")                                         \
    X(ESYNTAX, -3, "syntax error")                                            \
    X(ESPEC, -4, "invalid tuning spec")                                       \
    X(EIO, -5, "input/output error")                                          \
    X(EDB, -6, "database error")                                              \
    X(ENOTFOUND, -7, "not found")                                             \
    X(EDOMAIN, -8, "arithmetic domain error (division by zero)")              \
    X(ECOMPILE, -9, "kernel failed to compile")                               \
    X(EWORKER, -10, "measurement worker failed")                              \
    X(EBACKEND, -11, "backend unavailable")                                   \
    X(EDONE, -12, "no more configurations")                                   \
    X(ERANGE, -13, "value out of range")                                      \
    X(EEMPTY, -14, "the search space has no valid configuration")             \
    X(EFORMAT, -15, "unsupported or corrupt file format")                   \
    X(ECANCELED, -16, "stopped on request")

enum ktune_error {
#define KTUNE_ERROR_ENUM(name, value, msg) KTUNE_##name = (value),
    KTUNE_ERRORS(KTUNE_ERROR_ENUM)
#undef KTUNE_ERROR_ENUM
};

/* The static message of an error code; never NULL. */
KTUNE_API const char *ktune_strerror(int code);

/* A caller-owned place for the detail of the last failure (one line, no
 * trailing newline).  Functions that take a ktune_diag * accept NULL. */
typedef struct ktune_diag {
    char msg[512];
} ktune_diag;

/* ------------------------------------------------------------ results */

/* X(name, text): how one configuration's evaluation ended.  The text is
 * what the results database and the exports store. */
#define KTUNE_STATUSES(X)                                                        \
    X(OK, "ok")                       /* verified and timed */                \
    X(COMPILE_ERROR, "compile_error") /* the compiler rejected it */          \
    X(CRASH, "crash")                 /* the worker died on a signal */       \
    X(TIMEOUT, "timeout")             /* it ran past the time limit */        \
    X(WRONG_RESULT, "wrong_result")   /* outputs differ from the reference */ \
    X(RUNTIME_ERROR, "runtime_error") /* it failed to load or launch */       \
    X(INVALID, "invalid")             /* exceeds the device's resources */

typedef enum ktune_status {
#define KTUNE_STATUS_ENUM(name, text) KTUNE_STATUS_##name,
    KTUNE_STATUSES(KTUNE_STATUS_ENUM)
#undef KTUNE_STATUS_ENUM
    KTUNE_STATUS_COUNT
} ktune_status;

/* The database text of a status; "unknown" when out of range. */
KTUNE_API const char *ktune_status_name(ktune_status s);
/* Parse a status text into *out; KTUNE_ENOTFOUND when it names none. */
KTUNE_API int ktune_status_parse(const char *text, ktune_status *out);

/* One evaluation of one configuration.  Times are per kernel call. */
typedef struct ktune_result {
    ktune_status status;
    int signal;          /* CRASH: the signal number; else 0 */
    char detail[256];    /* why it failed (compiler output excerpt, ...); OK: why
                          * energy_j is unknown, empty when it is known */
    double time_ms;      /* median of the timed repetitions */
    double min_ms;       /* fastest repetition */
    double spread;       /* (p75 - p25) / median of the repetitions */
    int reps;            /* timed repetitions */
    double compile_ms;   /* compile time, 0 when cached */
    double energy_j;     /* energy per call: power_w times the time per call
                          * of the calls it was read over (the energy
                          * window's, back to back, no cache flush); NAN
                          * when unknown */
    double power_w;      /* average power over the energy window; NAN when
                          * unknown */
    double sm_clock_mhz; /* GPU: mean SM clock while timing; 0 when unknown */
    double max_error;    /* largest error against the reference */
} ktune_result;

/* ------------------------------------------------------- spec and problem */

/* A tuning spec (T1 JSON) once loaded: the kernel, its tuning parameters
 * with their values and conditions, its problem parameters.  It does not
 * change after loading, so threads may share one for reading. */
typedef struct ktune_spec ktune_spec;

/* Receives a warning, one line without newline (a spec's default outside
 * its values, ...); msg lives for the call only. */
typedef void (*ktune_warn_fn)(void *user, const char *msg);

/* Load and check the spec at path into *out (released by ktune_spec_free).
 * warn (NULL: none) gets each warning, with user.  Returns 0; KTUNE_EIO
 * when the file cannot be read, KTUNE_ESYNTAX for malformed JSON,
 * KTUNE_ESPEC for a spec that breaks the schema (diag: "path:line:col: ..."
 * or "path: Key.Path: ..."), KTUNE_EINVAL for a NULL path or out,
 * KTUNE_ENOMEM.  Thread-safe. */
KTUNE_API int ktune_spec_load(const char *path, ktune_warn_fn warn, void *user,
                              ktune_spec **out, ktune_diag *diag);
/* ktune_spec_load for the space alone: a file without a kernel (no
 * KernelSpecification, as BAT writes for some benchmarks) is accepted, and
 * only its space may then be used (ktune_space_new). */
KTUNE_API int ktune_spec_load_space(const char *path, ktune_warn_fn warn, void *user,
                                    ktune_spec **out, ktune_diag *diag);
/* Release a spec (NULL: nothing). */
KTUNE_API void ktune_spec_free(ktune_spec *spec);

/* The kernel's name (General.BenchmarkName, else KernelName). */
KTUNE_API const char *ktune_spec_name(const ktune_spec *spec);
/* The tuning parameters: how many, and the name of the i-th in spec order
 * (NULL when i is out of range). */
KTUNE_API size_t ktune_spec_nparams(const ktune_spec *spec);
KTUNE_API const char *ktune_spec_param_name(const ktune_spec *spec, size_t i);
/* The problem parameters (the sizes a problem sets): how many, the i-th's
 * name (NULL out of range) and default value (NAN out of range). */
KTUNE_API size_t ktune_spec_nproblem(const ktune_spec *spec);
KTUNE_API const char *ktune_spec_problem_name(const ktune_spec *spec, size_t i);
KTUNE_API double ktune_spec_problem_default(const ktune_spec *spec, size_t i);

/* A problem of a spec: one value per problem parameter. */
typedef struct ktune_problem ktune_problem;

/* Flags of ktune_problem_parse. */
#define KTUNE_PROBLEM_PARTIAL 0x1u /* text may leave parameters at the spec's
                                      defaults */

/* Parse text ("M=1024,N=1024,K=512") as a problem of spec into *out
 * (released by ktune_problem_free).  NULL text gives the spec's defaults.
 * Unless flags has KTUNE_PROBLEM_PARTIAL, text must set every problem
 * parameter, since a default quietly filling a gap solves another problem
 * than the one meant.  Returns 0; KTUNE_EINVAL for a malformed setting or
 * an unknown name (diag names it), KTUNE_ERANGE for a value too large,
 * KTUNE_ENOTFOUND when text leaves a parameter unset (diag: "does not set
 * K: give every problem parameter of 'gemm' (its defaults: ...)"),
 * KTUNE_ENOMEM.  Thread-safe. */
KTUNE_API int ktune_problem_parse(const ktune_spec *spec, const char *text,
                                  unsigned flags, ktune_problem **out,
                                  ktune_diag *diag);
/* Release a problem (NULL: nothing). */
KTUNE_API void ktune_problem_free(ktune_problem *problem);
/* The canonical key ("M=1024,N=1024,K=512", spec order), as the results
 * database stores it; owned by the problem. */
KTUNE_API const char *ktune_problem_key(const ktune_problem *problem);

/* ----------------------------------------------------- space and validate */

/* Release a string or array the library documents as caller-freed (NULL:
 * nothing). */
KTUNE_API void ktune_free(void *p);

/* The valid configurations of a spec for one problem (the conditions
 * checked as soon as their parameters are bound; parameters that share no
 * condition counted apart). */
typedef struct ktune_space ktune_space;

/* Counters of one count or listing. */
typedef struct ktune_space_stats {
    uint64_t nodes;        /* partial assignments tried */
    uint64_t evals;        /* condition evaluations */
    uint64_t valid;        /* valid configurations found */
} ktune_space_stats;

/* Where a long count or listing stands; valid for the call only. */
typedef struct ktune_space_progress {
    ktune_space_stats st;  /* so far */
    uint64_t max_evals;    /* the bound on st.evals (UINT64_MAX: none) */
    size_t group, ngroups; /* counting: the group searched now (1-based) of
                              the groups with conditions; 0 otherwise */
    size_t group_params;   /* parameters in the tree searched now */
    double fraction;       /* share of that tree passed so far, 0..1 */
} ktune_space_progress;

/* The default bound on condition evaluations: a few seconds. */
#define KTUNE_SPACE_MAX_EVALS 50000000ull

typedef struct ktune_space_opts {
    size_t size;           /* sizeof(ktune_space_opts), set by _init */
    uint64_t max_evals;    /* stop with KTUNE_ERANGE past this many condition
                              evaluations in one operation
                              (KTUNE_SPACE_MAX_EVALS); UINT64_MAX: no bound */
    const volatile sig_atomic_t *cancel; /* stop with KTUNE_ECANCELED once
                              *cancel is nonzero; NULL: never */
    void (*progress)(void *user, const ktune_space_progress *p); /* every
                              65536 tree nodes or so; NULL: none */
    void *user;
} ktune_space_opts;

KTUNE_API void ktune_space_opts_init(ktune_space_opts *opts);

/* The space of spec for problem (from ktune_problem_parse; both must
 * outlive the space) into *out (ktune_space_free), with opts (NULL: the
 * defaults).  Nothing is listed yet.  Returns 0, KTUNE_EINVAL (NULL
 * arguments, opts of another size), KTUNE_ENOMEM. */
KTUNE_API int ktune_space_new(const ktune_spec *spec, const ktune_problem *problem,
                              const ktune_space_opts *opts, ktune_space **out,
                              ktune_diag *diag);
KTUNE_API void ktune_space_free(ktune_space *space);

/* The number of valid configurations in decimal, exact at any size, into
 * *count (caller-freed: ktune_free); stats may be NULL.  Returns 0,
 * KTUNE_ERANGE past opts.max_evals, KTUNE_ECANCELED, KTUNE_ENOMEM (diag
 * says where it stopped). */
KTUNE_API int ktune_space_count(ktune_space *space, char **count,
                                ktune_space_stats *stats, ktune_diag *diag);

/* Receives one configuration key ("MC=64,NC=256,..."), valid for the call
 * only; nonzero stops the listing. */
typedef int (*ktune_config_fn)(void *user, const char *config);

/* Each valid configuration, in order, to fn; stats may be NULL.  Returns 0
 * (also when fn stopped it), KTUNE_ERANGE, KTUNE_ECANCELED, KTUNE_ENOMEM. */
KTUNE_API int ktune_space_list(ktune_space *space, ktune_config_fn fn, void *user,
                               ktune_space_stats *stats, ktune_diag *diag);
/* A uniform random sample of n distinct valid configurations (fewer when
 * the draws find fewer) drawn with seed, to fn, for spaces too large to
 * list.  Returns 0, KTUNE_EEMPTY (a group of parameters found no valid
 * assignment in a million draws), KTUNE_ENOMEM. */
KTUNE_API int ktune_space_sample(ktune_space *space, uint64_t n, uint64_t seed,
                                 ktune_config_fn fn, void *user, ktune_diag *diag);
/* The Cartesian size (every combination of values) in decimal into buf
 * (size bytes), exact below 2^64, else to three digits ("1.23e+21"). */
KTUNE_API void ktune_space_cartesian(const ktune_space *space, char *buf, size_t size);
/* The groups of parameters linked by conditions, counted apart. */
KTUNE_API size_t ktune_space_ngroups(const ktune_space *space);

/* What `ktune validate` finds in a spec: every problem, and the space's
 * size when its part of the spec is valid. */
typedef struct ktune_validation ktune_validation;

/* Check the spec at path completely (what ktune needs and the official T1
 * schema's rules), going on after each problem, into *out
 * (ktune_validation_free); warn (NULL: none) gets each warning.  Returns 0
 * whenever the file was examined, a readable spec or not (its problems are
 * in *out); KTUNE_EINVAL for NULL arguments, KTUNE_ENOMEM. */
KTUNE_API int ktune_spec_validate(const char *path, ktune_warn_fn warn, void *user,
                                  ktune_validation **out, ktune_diag *diag);
KTUNE_API void ktune_validation_free(ktune_validation *v);
/* The problems of the spec, in file order: how many, and the i-th, one line
 * "file:line:col: what" or "file: Key.Path: what" (NULL out of range). */
KTUNE_API size_t ktune_validation_count(const ktune_validation *v);
KTUNE_API const char *ktune_validation_problem(const ktune_validation *v, size_t i);
/* The number of valid configurations in decimal; NULL when not counted. */
KTUNE_API const char *ktune_validation_space(const ktune_validation *v);
/* Why a valid space was not counted (the bound on condition evaluations,
 * a domain error ...); NULL when it was, or when the space part is
 * invalid. */
KTUNE_API const char *ktune_validation_space_problem(const ktune_validation *v);

/* ----------------------------------------------------------------- devices */

/* One device a GPU backend can run kernels on here, or, with ordinal -1,
 * a backend that has none here and why (note). */
typedef struct ktune_device {
    char backend[16];        /* "cuda", "opencl" */
    char platform[128];      /* OpenCL: the platform's name (what --platform
                                and ktune_tune_opts.platform match); CUDA:
                                "CUDA" */
    char version[128];       /* the platform's version (OpenCL), the
                                driver's ("driver 13.0", CUDA) */
    int ordinal;             /* within its platform: what a device option
                                chooses; -1: none (see note) */
    char name[128];          /* the device's name */
    char note[192];          /* ordinal -1: why the backend has no device */
} ktune_device;

/* List the devices of every GPU backend (CUDA through its driver, OpenCL
 * through the ICD loader, each loaded at run time): out[0..cap) gets the
 * first of them, *n how many there are (more than cap when out was too
 * small: call again with a larger array).  A backend whose driver, loader
 * or platforms are absent is one entry with ordinal -1 and the reason in
 * note.  Returns 0, or KTUNE_EINVAL (n NULL, or out NULL with cap > 0).
 * Thread-safe; it initialises the drivers it loads. */
KTUNE_API int ktune_devices(ktune_device *out, size_t cap, size_t *n, ktune_diag *diag);

/* -------------------------------------------------------- distributed runs */

/* An MPI job this process is a rank of: `mpirun --enable-recovery -n N
 * ktune tune ...` runs one tuning over N processes, on one machine or
 * several.  Every rank runs the same program with the same options (the
 * spec's files must be readable at the same path on every node); rank 0
 * runs the strategy and alone opens the database; ranks 1..N-1 each
 * compile and measure, in an isolated worker of their own, what rank 0
 * hands them as they free up, on their own device: their place among the
 * measuring ranks of their node (on rank 0's node ranks 1, 2, ... use
 * devices 0, 1, ...).  Results come back in the order they complete and
 * are stored by rank 0, so an exhaustive run stores exactly the rows of
 * one process.  A rank that dies (OpenMPI keeps the job running only with
 * mpirun --enable-recovery) loses the configurations it held: rank 0 takes
 * a rank silent for ktune_tune_opts.rank_timeout_s as dead and hands them
 * to the others; a rank whose device's fingerprint differs from rank 0's
 * is left out with a warning.  Strategies that learn from results see them
 * in completion order, so their path may differ from one process's. */
typedef struct ktune_mpi ktune_mpi;

/* Seconds of silence after which a rank is taken as dead. */
#define KTUNE_RANK_TIMEOUT 30.0

/* Join the MPI job this process was started in: when the environment says
 * mpirun started it among more than one rank (OMPI_COMM_WORLD_SIZE or
 * PMI_SIZE above 1), MPI is initialised (MPI_Init_thread, serialised) and
 * *out is the job, for ktune_tune_opts.mpi; otherwise *out is NULL and MPI
 * is never touched.  Returns 0; KTUNE_EINVAL when started by mpirun but
 * built without MPI, or when MPI cannot serialise two threads' calls;
 * KTUNE_ENOMEM.  Call it once per process, from the main thread. */
KTUNE_API int ktune_mpi_open(ktune_mpi **out, ktune_diag *diag);
/* Finalise MPI and release the job (NULL: nothing). */
KTUNE_API void ktune_mpi_close(ktune_mpi *m);
/* This process's rank (0 for NULL) and the job's size (1 for NULL). */
KTUNE_API int ktune_mpi_rank(const ktune_mpi *m);
KTUNE_API int ktune_mpi_size(const ktune_mpi *m);

/* ------------------------------------------------------------------ tuning */

/* The strategy a run uses unless told otherwise (docs/SEARCH.md says why). */
#define KTUNE_STRATEGY_DEFAULT "local_search"
/* Other problems' winners a run starts from unless told otherwise. */
#define KTUNE_WARM_DEFAULT 4
/* ktune_tune_opts.energy_window_s unless told otherwise: 1 s where the
 * run's objective reads energy or its map (ktune_tune_opts.map, or a
 * strategy that implies one) has a dimension of measured energy or power,
 * 0.3 s where only time counts (a reading of the
 * SGEMM's power on an H200 retests at 1.1 % rms with 1 s against 2.3 %
 * with 0.3 s, for twice the time a configuration: docs/ANALYSIS.md, "The
 * energy window"). */
#define KTUNE_ENERGY_WINDOW_AUTO (-1.0)

/* What a strategy is, from the strategy table (no special case goes by
 * name).  Strings are static. */
typedef struct ktune_strategy_info {
    const char *name;
    const char *summary;  /* one line */
    bool exhaustive;      /* evaluates every valid configuration */
    bool implies_map;     /* keeps the map of behaviour cells: a run with it
                             reports the map (ktune_run_map) */
    bool needs_model;     /* starts from a trained model's predictions
                             (ktune_tune_opts.model) */
    bool searches;        /* proposes configurations of its own (false: it
                             evaluates the model's predictions only) */
} ktune_strategy_info;

/* The i-th strategy ktune_tune accepts (i = 0, 1, ...) into *out (NULL: a
 * check); 0, or KTUNE_ENOTFOUND past the last.  Thread-safe. */
KTUNE_API int ktune_strategy_at(size_t i, ktune_strategy_info *out);
/* The strategy called name into *out (out may be NULL: a check); 0, or
 * KTUNE_ENOTFOUND with "unknown strategy 'NAME'" in diag.  Thread-safe. */
KTUNE_API int ktune_strategy_find(const char *name, ktune_strategy_info *out,
                                  ktune_diag *diag);

/* How many configurations a run may evaluate. */
typedef enum ktune_budget_kind {
    KTUNE_BUDGET_SPEC,      /* the spec's Budget, else the whole space */
    KTUNE_BUDGET_COUNT,     /* budget configurations */
    KTUNE_BUDGET_FRACTION,  /* this share of the space, 0 < budget <= 1 */
    KTUNE_BUDGET_SECONDS    /* no new measurement after budget seconds */
} ktune_budget_kind;

/* What a run minimises, per kernel call of a configuration that ran
 * correctly.  Every strategy works on every objective.  All but TIME read
 * the energy per call (ktune_result.energy_j: NVML on NVIDIA GPUs, RAPL on
 * CPUs where readable): a run whose first correct result has no energy
 * stops with KTUNE_EINVAL rather than optimise something else (and with an
 * energy window of 0, before anything runs); later ones without it are
 * counted (ktune_run_info.no_energy) and not ranked. */
typedef enum ktune_objective {
    KTUNE_OBJECTIVE_TIME,   /* "time": the median time (ms) */
    KTUNE_OBJECTIVE_ENERGY, /* "energy": the energy (J) */
    KTUNE_OBJECTIVE_EDP,    /* "edp": energy-delay product, J times ms */
    KTUNE_OBJECTIVE_PARETO, /* "pareto": the time/energy front of what the run
                               evaluated (ktune_run_front), stored in the
                               database; the search is guided by the EDP and
                               the best is the front's least EDP */
    KTUNE_OBJECTIVE_COUNT
} ktune_objective;

/* The name of an objective ("time", ...); NULL when out of range.
 * Thread-safe. */
KTUNE_API const char *ktune_objective_name(ktune_objective o);
/* The objective called name into *out; 0, or KTUNE_ENOTFOUND.  Thread-safe. */
KTUNE_API int ktune_objective_parse(const char *name, ktune_objective *out);

/* Progress after each evaluated configuration (measured or answered from
 * the database); valid for the call only. */
typedef struct ktune_progress {
    uint64_t done;          /* evaluated so far */
    uint64_t total;         /* what the budget allows, or the space size */
    uint64_t measured, cached, failed;
    double best_ms;         /* the best's time (by the run's objective); NAN
                               until a configuration succeeded */
    double elapsed_s;
    double eta_s;           /* NAN when unknown */
    const char *config;     /* the configuration just evaluated */
    const ktune_result *result;
} ktune_progress;

typedef void (*ktune_progress_fn)(void *user, const ktune_progress *p);

/* The options of a run: every option of `ktune tune`.  Fill it with
 * ktune_tune_opts_init, then change what you need; strings are borrowed
 * for the duration of ktune_tune. */
typedef struct ktune_tune_opts {
    size_t size;             /* sizeof(ktune_tune_opts), set by _init */
    const char *problem;     /* every problem parameter once ("M=..,N=.."),
                                or NULL: the spec's defaults (with a
                                recording and no spec: the problem key that
                                chooses among its problems) */
    const char *strategy;    /* a name of ktune_strategy_at; NULL: the spec's
                                Search.Name, else KTUNE_STRATEGY_DEFAULT */
    ktune_budget_kind budget_kind;  /* KTUNE_BUDGET_SPEC */
    double budget;
    double time_limit_s;     /* > 0: no new measurement after this many
                                seconds, whatever the budget (0) */
    uint64_t seed;           /* strategy and input data (1) */
    const char *db_path;     /* results database ("ktune.db") */
    const char *cache_dir;   /* compiled kernels (".ktune-cache"); with a
                                recording of JSON rows, where they are kept */
    int jobs;                /* parallel compilations; 0: the CPUs (0) */
    double timeout_s;        /* > 0: one configuration's evaluation may take
                                at most this long (0: only the hang rule) */
    uint64_t max_memory;     /* bytes the kernel's buffers may take; 0: half
                                of the machine's memory (0) */
    double energy_window_s;  /* run each configuration this long for its
                                energy, where readable; 0: no energy
                                (KTUNE_ENERGY_WINDOW_AUTO: by the objective
                                and the map) */
    bool retry_failed;       /* measure stored failures again (false) */
    bool no_overlap;         /* compile each batch whole before measuring it
                                (false: a GPU measures each build at once) */
    const char *replay;      /* answer every evaluation from this recording
                                (ktune database, CSV export, Kernel Tuner
                                cache, T4 file) instead of running; nothing
                                is stored.  NULL: measure */
    const char *device;      /* with replay: the recorded device to use */
    const char *kernel;      /* with replay and no spec: the recorded kernel */
    size_t warm;             /* first evaluate the winners of up to this many
                                other problems (KTUNE_WARM_DEFAULT) */
    const char *model;       /* a trained model (`ktune train`), for the
                                strategies with needs_model */
    size_t top;              /* with model: how many predictions (10) */
    bool map;                /* also report the map (ktune_run_map) */
    ktune_objective objective; /* what the run minimises (TIME) */
    ktune_progress_fn progress; /* after each evaluation; NULL: none */
    void *user;              /* given to progress */
    const volatile sig_atomic_t *cancel; /* when *cancel turns nonzero (a
                                signal handler's flag), no new evaluation
                                starts and the run ends with what it did */
    const struct ktune_transfer *transfer; /* other devices' recordings
                                (ktune_transfer_open): the top of its
                                configurations valid here (top of them,
                                default 10) are evaluated after the default
                                configuration and before the strategy's
                                proposals, instead of warm; NULL: none */
    ktune_warn_fn warn;      /* each warning of the run, one line "FILE:
                                warning: ...": a default configuration the
                                spec's conditions exclude (the first valid
                                one is the reference), a recording's rows
                                that cannot be kept in cache_dir; NULL:
                                none.  (The spec's own warnings come from
                                ktune_spec_load.) */
    void *warn_user;         /* given to warn */
    unsigned shard;          /* with shards > 1: evaluate only share number
                                shard (1 to shards) of the space: the valid
                                configurations whose 0-based index in the
                                space's order is shard - 1 modulo shards,
                                so that the runs of shard 1 to shards (a job
                                array) cover the space exactly once, each
                                storing into its own database for
                                ktune_db_merge.  The strategy, budget and
                                warm starts work within the share; the
                                default configuration is evaluated in its
                                own share only (0) */
    unsigned shards;         /* 0 or 1: the whole space (0) */
    const int *devices;      /* ndevices device ordinals (the backend's: CUDA's
                                cuDeviceGet numbering), no two alike: one
                                measurement worker per device, each fed by a
                                thread of its own with the configurations as
                                they are built, results stored in the order
                                they finish.  On the CPU backend the workers
                                share the machine (more configurations a
                                minute, noisier times).  NULL: one worker on
                                the first device */
    size_t ndevices;
    const char *platform;    /* an OpenCL kernel: run on the first platform
                                whose name contains this (any case: "NVIDIA",
                                "Portable" for PoCL); NULL: the first
                                platform with a device.  Other languages
                                ignore it */
    struct ktune_mpi *mpi;   /* the MPI job of ktune_mpi_open, or NULL: one
                                process.  With several ranks, rank 0 runs
                                the strategy and stores every result, ranks
                                1..N-1 compile and measure what it sends
                                them (ktune_mpi_open says how) */
    double rank_timeout_s;   /* with mpi: a rank silent this long is taken as
                                dead, its configurations handed to the
                                others (KTUNE_RANK_TIMEOUT); 0: that */
    double energy_warmup_s;  /* with energy_window_s: before the first energy
                                reading on each device, its configuration's
                                kernel runs back to back this long, so that
                                the first configurations' power is read at
                                the temperature the work brings the chip to,
                                as the later ones' is (15); 0: none */
    double hang_factor;      /* a batch of kernel calls counts as hung past
                                this many times the reference's time per call,
                                plus 1 s of the worker's processor time (100);
                                raise it under a profiler that replays each
                                kernel.  0: that default */
} ktune_tune_opts;

/* Fill *opts with the defaults above.  Thread-safe. */
KTUNE_API void ktune_tune_opts_init(ktune_tune_opts *opts);

/* A finished run: what was evaluated and the best configuration. */
typedef struct ktune_run ktune_run;

/* Tune spec (NULL with opts->replay: the recording's own spec and space)
 * as opts says: configurations already in the database (same device,
 * kernel source and problem) are answered from there, the others compiled
 * and measured in a separate worker process, each result stored as it
 * comes.  *out gets the run (ktune_run_free) even when no configuration ran
 * correctly.  Returns 0; KTUNE_EINVAL for a bad option (diag names it:
 * unknown strategy, a model without a strategy that takes one, a device
 * listed twice, opts of another size ...), the codes of ktune_problem_parse
 * for opts->problem,
 * KTUNE_ESPEC, KTUNE_EIO, KTUNE_EDB,
 * KTUNE_EBACKEND, KTUNE_EWORKER, KTUNE_ENOTFOUND (a replay lacking a
 * configuration), KTUNE_EEMPTY, KTUNE_ENOMEM.  Runs the kernel's compiler
 * and the worker as child processes; one run per spec at a time.  With
 * opts->mpi of several ranks, every rank calls it: on rank 0 it is the run
 * (KTUNE_EWORKER when no measuring rank is left); on the others it
 * measures until rank 0 is done, and the run holds only the device and
 * ktune_run_info.measured (KTUNE_EWORKER when rank 0 went silent). */
KTUNE_API int ktune_tune(const ktune_spec *spec, const ktune_tune_opts *opts,
                         ktune_run **out, ktune_diag *diag);
/* Release a run (NULL: nothing). */
KTUNE_API void ktune_run_free(ktune_run *run);

/* A run's figures (owned by the run). */
typedef struct ktune_run_info {
    const char *kernel;      /* the spec's name */
    const char *problem;     /* canonical problem key */
    const char *device;
    uint64_t space_size;     /* valid configurations */
    bool space_sampled;      /* space_size counts a uniform sample of a space
                                too large to list */
    uint64_t measured;       /* measured by this run (replayed, with one) */
    uint64_t cached;         /* answered from the database */
    uint64_t by_status[KTUNE_STATUS_COUNT]; /* this run's outcomes */
    size_t warm_starts;      /* other problems' winners evaluated first */
    bool default_skipped;    /* the default was not evaluated (a strategy
                                that only evaluates predictions) */
    double seconds;          /* the whole run */
    double flops;            /* per kernel call; NAN without FlopCount */
    uint64_t no_energy;      /* with an objective that needs energy: correct
                                results without it after the first with it
                                (a reading that failed), left out of the
                                ranking and the front */
    double energy_window_s;  /* the energy window the run measured with
                                (KTUNE_ENERGY_WINDOW_AUTO resolved); 0 for
                                none or a replay, which measures nothing.
                                A device without an energy counter reads
                                none whatever the window */
} ktune_run_info;

KTUNE_API const ktune_run_info *ktune_run_summary(const ktune_run *run);
/* The best configuration's key ("MC=64,NC=256,...") and result (its time
 * and energy), by the run's objective; 0, or KTUNE_ENOTFOUND when no
 * configuration ran correctly. */
KTUNE_API int ktune_run_best(const ktune_run *run, const char **config,
                             ktune_result *result);
/* The default configuration's key and result (its status says whether it
 * succeeded); KTUNE_ENOTFOUND when it was not evaluated (*config names it
 * all the same, NULL when the run did not get that far). */
KTUNE_API int ktune_run_default(const ktune_run *run, const char **config,
                                ktune_result *result);
/* The default's time over the best's; NAN unless both succeeded. */
KTUNE_API double ktune_run_speedup(const ktune_run *run);
/* Where the run's time went, phase i (i = 0, 1, ...): *name ("compile_wait",
 * "start", "measure", "record", then the worker's phases inside "measure")
 * and *seconds; 0, or KTUNE_ENOTFOUND past the last.  With several workers
 * (ktune_tune_opts.devices) "measure" and the worker's phases add up over
 * the workers, so they can exceed the run's own seconds; under MPI
 * "measure" is rank 0's wait for results and the ranks' phases are not
 * gathered. */
KTUNE_API int ktune_run_phase(const ktune_run *run, size_t i, const char **name,
                              double *seconds);
/* The configurations the run evaluated, in order: how many, and the i-th's
 * key and result; 0, or KTUNE_ENOTFOUND past the last. */
KTUNE_API size_t ktune_run_count(const ktune_run *run);
KTUNE_API int ktune_run_evaluated(const ktune_run *run, size_t i, const char **config,
                                  ktune_result *result);

/* With KTUNE_OBJECTIVE_PARETO: the time/energy front of what the run
 * evaluated (no other configuration evaluated is both as fast and as
 * frugal), fastest first: how many points (0 with another objective), and
 * the i-th's key and result; 0, or KTUNE_ENOTFOUND past the last.  Unless
 * replayed, the run also marks these rows in the database as the front of
 * their device and problem (replacing the marks of an earlier run). */
KTUNE_API size_t ktune_run_front_count(const ktune_run *run);
KTUNE_API int ktune_run_front(const ktune_run *run, size_t i, const char **config,
                              ktune_result *result);

/* The map of a run (opts.map, or a strategy with implies_map): the best
 * configuration by the run's objective (the fastest for time and pareto)
 * per cell of the spec's behaviour dimensions; NULL without.
 * Owned by the run. */
typedef struct ktune_map ktune_map;
KTUNE_API const ktune_map *ktune_run_map(const ktune_run *run);
/* ------------------------------------------------------- results database */

/* An open results database: one SQLite file holding every measurement of
 * ktune_tune and of the imports, by device, kernel (name and source hash),
 * problem and configuration.  A handle is used by one thread at a time;
 * several handles (threads, processes) may share a file. */
typedef struct ktune_db ktune_db;

/* Flags of ktune_db_open. */
#define KTUNE_DB_CREATE 0x1u /* create the database where there is none (no
                                file, or an empty one); without it such a
                                path is an error and nothing is created */

/* Open the database at path into *out (released by ktune_db_close).  A file
 * that is not a ktune database, or one of a schema version this library
 * does not read, is refused unchanged.  Returns 0; KTUNE_EINVAL for a NULL
 * path or out, KTUNE_EIO when there is no file (without KTUNE_DB_CREATE) or
 * it cannot be read, KTUNE_EFORMAT for another kind of file, an empty one
 * without KTUNE_DB_CREATE, or another schema version, KTUNE_EDB,
 * KTUNE_ENOMEM.  Thread-safe. */
KTUNE_API int ktune_db_open(const char *path, unsigned flags, ktune_db **out,
                            ktune_diag *diag);
/* Close a database (NULL: nothing). */
KTUNE_API void ktune_db_close(ktune_db *db);

/* One stored measurement.  The strings belong to the query that gives the
 * row and live until the row callback returns. */
typedef struct ktune_row {
    const char *device;      /* device name ("imported|NAME" for imports of
                                recordings) */
    const char *kernel;      /* kernel name */
    const char *source_hash; /* of the kernel's source when measured */
    const char *problem;     /* problem key "M=256,N=256,K=256" */
    const char *config;      /* configuration key "MC=64,NC=256,..." */
    const char *created;     /* when measured, ISO 8601 UTC */
    ktune_result result;
} ktune_row;

/* Which rows a query or an export covers.  Fill it with ktune_query_init,
 * then set what you need; strings are borrowed for the call. */
typedef struct ktune_query {
    size_t size;             /* sizeof(ktune_query), set by _init */
    const char *kernel;      /* only this kernel; NULL: every one */
    const char *problem;     /* only this problem key; NULL: every one */
    const char *device;      /* only this device; NULL: every one */
    bool ok_only;            /* only rows of status ok (false) */
    bool best;               /* only the fastest ok row of each device,
                                kernel and problem (false: every row, oldest
                                first) */
    bool front;              /* only the rows a pareto run marked as the
                                time/energy front of their device, kernel
                                and problem (KTUNE_OBJECTIVE_PARETO), by
                                device, kernel and problem, fastest first;
                                none in a database no such run wrote to.
                                Not with best (false) */
} ktune_query;

/* Fill *q with the defaults above: every row.  Thread-safe. */
KTUNE_API void ktune_query_init(ktune_query *q);

/* Receives one row; returns 0 to go on, nonzero to stop the query. */
typedef int (*ktune_row_fn)(void *user, const ktune_row *row);

/* Give each row q selects (NULL: every row) to fn with user, and their
 * number to *rows (NULL: not wanted).  Rows are streamed: a database of
 * millions is never held whole.  Returns 0 (also when fn stopped it);
 * KTUNE_EINVAL for a NULL db or fn, a q of another size or one that asks
 * for both best and front, KTUNE_EDB. */
KTUNE_API int ktune_db_query(ktune_db *db, const ktune_query *q, ktune_row_fn fn,
                             void *user, uint64_t *rows, ktune_diag *diag);

/* The formats ktune_db_export writes. */
typedef enum ktune_export_format {
    KTUNE_EXPORT_CSV,        /* "csv": a header line, then one line per row;
                                what ktune_db_import reads back */
    KTUNE_EXPORT_JSON,       /* "json": an array of objects, the CSV's columns
                                with the configuration also as an object */
    KTUNE_EXPORT_T4,         /* "t4": Kernel Tuner's T4 results, times in ms,
                                device and kernel named in each result */
    KTUNE_EXPORT_T4_METADATA,/* "t4-metadata": the T4 metadata of the rows:
                                devices, operating system, ktune's version */
    KTUNE_EXPORT_KERNELTUNER /* "kerneltuner": a Kernel Tuner cache file,
                                which its simulation mode replays; the rows
                                must be of one device, kernel and problem */
} ktune_export_format;

/* The export format called name (as in the comments above) into *out; 0,
 * or KTUNE_ENOTFOUND.  Thread-safe. */
KTUNE_API int ktune_export_format_parse(const char *name, ktune_export_format *out);

/* Write the rows q selects (NULL: every row) to out in format fmt, and
 * their number to *rows (NULL: not wanted).  JSON writes nothing when a
 * filter of q or its front matched no row (so that the caller can say so),
 * "[]" for an empty database.  Returns 0; KTUNE_EINVAL for NULL db or out, an unknown
 * format, a q as ktune_db_query refuses, or rows of several devices,
 * kernels or problems for a Kernel Tuner cache (diag says how to choose
 * one), KTUNE_EDB. */
KTUNE_API int ktune_db_export(ktune_db *db, ktune_export_format fmt,
                              const ktune_query *q, FILE *out, uint64_t *rows,
                              ktune_diag *diag);

/* The recordings ktune_db_import reads. */
typedef enum ktune_import_format {
    KTUNE_IMPORT_CSV,        /* "csv": ktune's own CSV export; devices are
                                stored as "imported|NAME", which a live run
                                never answers from */
    KTUNE_IMPORT_MIOPEN,     /* "miopen": an MIOpen performance database
                                (SQLite, or its .bz2); kernel = the solver */
    KTUNE_IMPORT_KERNELTUNER,/* "kerneltuner": a Kernel Tuner cache file */
    KTUNE_IMPORT_T4          /* "t4": a T4 results file */
} ktune_import_format;

/* The import format called name into *out; 0, or KTUNE_ENOTFOUND.
 * Thread-safe. */
KTUNE_API int ktune_import_format_parse(const char *name, ktune_import_format *out);

/* What an import may be told.  Fill it with ktune_import_opts_init. */
typedef struct ktune_import_opts {
    size_t size;             /* sizeof(ktune_import_opts), set by _init */
    const char *device;      /* miopen: the device to store (NULL: the file's
                                name without extensions); t4: for results
                                that name none */
    const char *kernel;      /* t4: for results that name none */
    const char *problem;     /* t4: a problem key, for results naming none */
    const char *spec_dir;    /* miopen: a folder of SOLVER.json space-only
                                specs the rows are checked against (NULL:
                                the parameter names ktune knows) */
    ktune_warn_fn warn;      /* miopen: each warning of those specs, as
                                ktune_spec_load gives them; NULL: none */
    void *warn_user;         /* given to warn */
} ktune_import_opts;

/* Fill *o with the defaults above (all NULL).  Thread-safe. */
KTUNE_API void ktune_import_opts_init(ktune_import_opts *o);

/* What an import read; the counts a format does not have stay 0, its
 * strings "". */
typedef struct ktune_import_stats {
    uint64_t rows;           /* rows (entries, results) read */
    uint64_t added;          /* of those, new to the database: importing the
                                same file twice adds nothing */
    uint64_t ok;             /* kerneltuner, t4: rows with a time */
    uint64_t solvers;        /* miopen: distinct solvers */
    uint64_t named;          /* miopen: rows whose solver's parameter names
                                are known */
    uint64_t rejected;       /* miopen: rows that are no configuration of
                                their solver, not stored */
    char rejects[400];       /* miopen: the first few, "id 7: why; ..." */
    char device[128];        /* miopen, kerneltuner: the device stored */
    char kernel[128];        /* kerneltuner: the kernel */
    char problem[256];       /* kerneltuner: the problem key */
} ktune_import_stats;

/* Store every row of the recording at path (format fmt) in db, in one
 * transaction: all of it, or on an error (one line naming the file, and
 * the line or entry where there is one) nothing; an MIOpen row that is not
 * a configuration is the exception, refused alone and counted.  A file
 * whose configurations name other parameters than the rows db holds for
 * the same kernel is refused, naming them.  o may be NULL (defaults),
 * stats NULL.  Returns 0; KTUNE_EINVAL for NULL db or path or an option
 * the format does not take, KTUNE_EIO, KTUNE_ESYNTAX, KTUNE_EFORMAT,
 * KTUNE_EDB, KTUNE_ENOMEM. */
KTUNE_API int ktune_db_import(ktune_db *db, ktune_import_format fmt, const char *path,
                              const ktune_import_opts *o, ktune_import_stats *stats,
                              ktune_diag *diag);

/* What ktune_db_merge did with one input database. */
typedef struct ktune_merge_stats {
    uint64_t rows;           /* measurements the input holds */
    uint64_t added;          /* of those, new to the output: merging the same
                                input twice adds nothing */
    uint64_t replaced;       /* failures the output held that the input's
                                success of the same keys replaced */
} ktune_merge_stats;

/* Merge the ktune database at path into db (the jobs of an array, each run
 * with ktune_tune_opts.shard into a database of its own; several machines'
 * files), in one transaction: all of it, or on an error nothing.  Devices
 * are matched by fingerprint, kernels by name and source hash, problems by
 * key, measurements by device, problem and configuration.  Where both hold
 * the same (device, kernel, problem, configuration), a success is kept and
 * replaces a failure; of two successes or two failures, what db holds is
 * kept (so the first input merged wins), and merging the same input again
 * adds nothing.  The inputs' time/energy fronts (KTUNE_OBJECTIVE_PARETO)
 * are merged as the front of their union.  The input is identified as
 * ktune_db_open does (a version-1 file is upgraded) and otherwise only
 * read.  stats may be NULL.  Returns 0; KTUNE_EINVAL for NULL db or path,
 * or path naming db's own file; the codes of ktune_db_open for path;
 * KTUNE_EDB, KTUNE_ENOMEM. */
KTUNE_API int ktune_db_merge(ktune_db *db, const char *path, ktune_merge_stats *stats,
                             ktune_diag *diag);

/* What ktune_db_merge_mean averaged. */
typedef struct ktune_mean_stats {
    uint64_t averaged;       /* configurations now stored as the mean of two
                                or more successful readings */
    uint64_t readings;       /* the readings those means were taken over */
    uint64_t versions;       /* configurations the output holds ok under two
                                or more source versions of their kernel
                                (same device, kernel name, problem):
                                measurements of different code, kept apart
                                and not averaged together */
} ktune_mean_stats;

/* Merge the n ktune databases at paths into db, each in turn as
 * ktune_db_merge merges it, then store each configuration's successful
 * readings as their mean: repeated measurements of the same space (NVML's
 * energy reading is noisy) become one row each.  A reading is one
 * database's ok row of the (device, kernel, problem, configuration): db's
 * own and each input's; a database that already holds means counts as one
 * reading.  The row kept (ktune_db_merge's) gets time_ms, energy_j, power_w
 * and sm_clock_mhz as the mean of the readings that have each (one without
 * energy does not count for energy) and min_ms as their least; its other
 * fields stay, and failures follow ktune_db_merge's rule.  Rows of another
 * source version of the kernel are readings of other code: they stay
 * apart, and mean->versions counts the configurations held under two or
 * more versions.  Stored time/energy fronts lose the marks that the means
 * leave dominated.
 *
 * Every path is checked first (ktune_db_merge's refusals, and a file given
 * twice, which would count twice), so a bad input changes nothing.  An
 * error later leaves the inputs before it merged as ktune_db_merge merges
 * them, nothing averaged (the averaging is one transaction; the message
 * ends "(K of N inputs merged, nothing averaged)"), and stats holding what
 * they did, zero for the rest; merging them into db again
 * would count their readings twice.  stats (n, one per input) and mean may
 * be NULL.  Returns 0; KTUNE_EINVAL for NULL db or paths, or a path naming
 * db's own file or given twice; the codes of ktune_db_open for a path;
 * KTUNE_EDB, KTUNE_ENOMEM. */
KTUNE_API int ktune_db_merge_mean(ktune_db *db, const char *const *paths, size_t n,
                                  ktune_merge_stats *stats, ktune_mean_stats *mean,
                                  ktune_diag *diag);

/* How one kind of reading agrees between two recordings (ktune_db_retest). */
typedef struct ktune_retest_stat {
    uint64_t pairs;          /* configurations with this reading in both */
    double rms;              /* root mean square of 2 (a - b) / (a + b) over
                                the pairs: one reading's relative noise is
                                rms / sqrt(2) */
    double offset;           /* median of a / b - 1: a level shift of a's
                                readings against b's (drift between runs) */
    double spread;           /* standard deviation over mean of the pairs'
                                readings, both recordings': how much the
                                configurations differ */
    double r2_ceiling;       /* 1 - (rms^2 / 2) / spread^2: the R-squared
                                that a perfect model of one reading would
                                reach on held-out configurations; NAN under
                                3 pairs */
} ktune_retest_stat;

/* Time, energy and power per call of ktune_db_retest's pairs. */
typedef struct ktune_retest {
    ktune_retest_stat time, energy, power;
} ktune_retest;

/* Two recordings of the same configurations, a and b (the same space tuned
 * twice, each run into a database of its own), read against each other:
 * the pairs are the (device name, kernel, problem, configuration) that
 * both hold with status ok among the rows q selects (ok_only implied; q
 * may be NULL).  The pairs must be of one device, kernel and problem, since
 * a spread over several problems says nothing of the noise: narrow q
 * otherwise.  What it tells: how noisy one reading is (energy on a GPU),
 * the ceiling that noise puts on ktune_analyze's R-squared, and
 * ktune_analyze_opts.reading_noise (time.rms / sqrt(2)).  Returns 0; KTUNE_EINVAL for
 * a NULL a, b or out, a q of another size or with best or front, pairs of
 * several devices, kernels or problems (the message names two);
 * KTUNE_ENOTFOUND when there is no pair; KTUNE_EDB, KTUNE_ENOMEM. */
KTUNE_API int ktune_db_retest(ktune_db *a, ktune_db *b, const ktune_query *q,
                              ktune_retest *out, ktune_diag *diag);

/* ------------------------------------------------------------------ models */

/* A trained predictor: from a problem's descriptor (its key's fields) to
 * the most likely best configurations of one kernel, after the paper
 * "Optimal Kernel Tuning Parameter Prediction using Deep Sequence Models"
 * (docs/PREDICTION.md).  It holds its held-out problems, so that
 * ktune_model_evaluate needs nothing else.  A model does not change once
 * trained or loaded: threads may share one for prediction and evaluation. */
typedef struct ktune_model ktune_model;

/* What a method is, from the method table (no special case goes by name).
 * Strings are static. */
typedef struct ktune_method_info {
    const char *name;        /* "knn", "encdec", "xgboost", "cost", ... */
    bool every_measurement;  /* learns from every measurement (its time
                                relative to its problem's best), not only
                                each problem's best configuration; it is
                                tested on other shapes: holdout must be 0 */
} ktune_method_info;

/* The i-th method (i = 0, 1, ...) into *out (NULL: a check); 0, or
 * KTUNE_ENOTFOUND past the last.  Thread-safe. */
KTUNE_API int ktune_method_at(size_t i, ktune_method_info *out);

/* Progress of iterative methods, once per epoch. */
typedef void (*ktune_train_progress_fn)(void *user, int epoch, double train_loss,
                                        double val_loss, double seconds);

/* How to train: every option of `ktune train`.  Fill it with
 * ktune_train_opts_init; strings are borrowed for the call. */
typedef struct ktune_train_opts {
    size_t size;             /* sizeof(ktune_train_opts), set by _init */
    const char *method;      /* a name of ktune_method_at, or NULL or
                                "auto": chosen by validation on the
                                training part (ktune_model_candidate_at)
                                (NULL) */
    const char *where;       /* only problems with these field values
                                ("data_type=FP32,direction=F"); NULL: all */
    double holdout;          /* share of problems held out for evaluation,
                                0 to below 1 (0.2) */
    uint64_t seed;           /* of the split and the training (1) */
    const char *split_ignore;/* hold out whole groups of problems equal but
                                for these fields ("batchsize,direction"),
                                each a field of the problems; NULL: each
                                problem on its own */
    int k;                   /* knn: neighbours that vote, 1 to 1000 (5) */
    /* Sequence models and xgboost (0: the method's default). */
    int hidden;              /* hidden width (128) */
    int epochs;              /* most epochs; xgboost, cost: boosting rounds */
    int patience;            /* epochs (rounds) without validation gain */
    int batch;               /* sequences per step (32) */
    double lr;               /* learning rate (xgboost: eta), above 0 to 1 */
    double dropout;          /* 0 to below 1 (0.2) */
    double seconds;          /* stop after the epoch past this; 0: no
                                limit (a chosen method: 25 for each
                                candidate and for the final training) */
    bool paper_decoder;      /* hybrids exactly as the paper: the decoder
                                does not read the tokens chosen before */
    ktune_train_progress_fn progress; /* NULL: silent */
    void *user;              /* given to progress */
} ktune_train_opts;

/* Fill *o with the defaults above.  Thread-safe. */
KTUNE_API void ktune_train_opts_init(ktune_train_opts *o);

/* Have the BLAS library behind the sequence models (OpenBLAS) use n
 * threads (n < 1: one).  The setting belongs to that library, so it holds
 * for the whole process, the application's own BLAS calls included, which
 * is why ktune leaves it alone unless asked.  The models' matrices are
 * small (a batch of 32 rows): more threads mostly spin (a third of the
 * training time on two cores), and one makes training bit-identical on any
 * machine; `ktune` sets one.  Call it while no BLAS call runs. */
KTUNE_API void ktune_blas_set_threads(int n);

/* Train a model of kernel's results in db into *out (ktune_model_free):
 * each problem's best ok configuration, or every ok measurement for a
 * method with every_measurement.  Without a method (NULL or "auto") the
 * candidates knn, xgboost, encdec and ensemble (and below 2,000 training
 * problems mix) are trained on most of the training part and scored on
 * the rest of it (a seeded inner split, 10 to 25% of it; the held-out part
 * is never read); where where selects a cell of fewer than 2,000 training
 * problems and the kernel has problems with other values of where's
 * fields, all but knn are also
 * tried pooled: trained on those problems' training parts too (each
 * split as its own run would split it, so the cell's held-out problems
 * are the same and no sibling's held-out problem is trained on), the
 * fields as inputs.  The one that gives the validation problems' best
 * configurations the highest mean log-probability (the earlier on a tie)
 * is trained again on the whole training part, and the model keeps every
 * candidate's scores (ktune_model_candidate_at).  Returns 0; KTUNE_EINVAL for a NULL
 * argument, an option that does not fit (an unknown method, a holdout
 * with an every_measurement method, a split_ignore field the problems
 * lack, too few samples), KTUNE_ENOTFOUND when no ok row matches,
 * KTUNE_EFORMAT for rows of several parameter sets, KTUNE_ERANGE past a
 * method's limits, KTUNE_EDB, KTUNE_ENOMEM. */
KTUNE_API int ktune_model_train(ktune_db *db, const char *kernel,
                                const ktune_train_opts *o, ktune_model **out,
                                ktune_diag *diag);
/* Write m to path (a checksummed, versioned model file).  Returns 0;
 * KTUNE_EINVAL for NULL arguments, KTUNE_EIO. */
KTUNE_API int ktune_model_save(const ktune_model *m, const char *path, ktune_diag *diag);
/* Read the model file at path into *out (ktune_model_free).  The file is
 * checked in full: a truncated, corrupt or crafted one is KTUNE_EFORMAT
 * with the reason, never a crash.  Returns 0; KTUNE_EINVAL, KTUNE_EIO,
 * KTUNE_EFORMAT, KTUNE_ENOMEM.  Thread-safe. */
KTUNE_API int ktune_model_load(const char *path, ktune_model **out, ktune_diag *diag);
/* Release a model (NULL: nothing). */
KTUNE_API void ktune_model_free(ktune_model *m);

/* What a model is; strings owned by the model. */
typedef struct ktune_model_info {
    const char *method, *kernel;
    const char *where;       /* the training's filter; "" for none */
    size_t ninputs;          /* descriptor fields */
    size_t noutputs;         /* tuning parameters */
    size_t ntrain, ntest;    /* samples trained on, held out */
    size_t nvalidation;      /* training samples the method was chosen on
                                (ktune_model_candidate_at); 0: it was given */
} ktune_model_info;

/* Describe m into *out; KTUNE_EINVAL for NULL. */
KTUNE_API int ktune_model_describe(const ktune_model *m, ktune_model_info *out);
/* The i-th descriptor field's and tuning parameter's names; NULL out of
 * range.  Owned by the model. */
KTUNE_API const char *ktune_model_input_name(const ktune_model *m, size_t i);
KTUNE_API const char *ktune_model_output_name(const ktune_model *m, size_t i);

/* A method tried when training chose the method (ktune_train_opts.method
 * NULL or "auto"), with its scores on the validation samples. */
typedef struct ktune_model_candidate {
    const char *method;      /* a name of ktune_method_at; static */
    double top1, top10;      /* %: validation problems whose best
                                configuration was the first prediction,
                                among the first 10 (unconstrained beam) */
    bool chosen;             /* the model's method */
    bool pooled;             /* trained on the problems of the kernel that
                                differ from --where's in its fields too
                                (FP32 and BF16 for an FP16 model), the
                                fields being inputs; tried where the
                                training part is below 2,000 problems */
    double loglik;           /* mean log-probability (nats, <= 0) of the
                                validation problems' best configurations,
                                each position scored after the true
                                earlier values: the highest is chosen;
                                NAN in model files before format 4 */
} ktune_model_candidate;

/* The i-th candidate (i = 0, 1, ..., in the order tried) into *out; 0,
 * KTUNE_ENOTFOUND past the last (at once when the method was given),
 * KTUNE_EINVAL for NULL.  Thread-safe on a shared model. */
KTUNE_API int ktune_model_candidate_at(const ktune_model *m, size_t i,
                                       ktune_model_candidate *out);

/* The configurations a prediction found, best first. */
typedef struct ktune_predictions ktune_predictions;

/* The k (1 to 10000) most likely configurations of m for problem (a key
 * of the model's descriptor fields, each at most once; a field left out
 * counts as unknown) into *out (ktune_predictions_free).  With spec_path
 * (the kernel's spec; its tuning parameters must be the model's outputs)
 * the search keeps only prefixes that can still be completed validly, so
 * every one is a valid configuration; NULL: unconstrained.  The spec's
 * warnings are not reported here (ktune_spec_load or ktune_spec_validate
 * give them).  Fewer than k, even none, may be found.  Returns 0;
 * KTUNE_EINVAL for NULL arguments, k out of range or a problem field the
 * model does not have (diag names the fields), KTUNE_EIO, KTUNE_ESPEC for
 * the spec, KTUNE_ENOMEM.  Thread-safe on a shared model. */
KTUNE_API int ktune_model_predict(const ktune_model *m, const char *problem, size_t k,
                                  const char *spec_path, ktune_predictions **out,
                                  ktune_diag *diag);
/* Release predictions (NULL: nothing). */
KTUNE_API void ktune_predictions_free(ktune_predictions *p);
/* How many were found. */
KTUNE_API size_t ktune_predictions_count(const ktune_predictions *p);
/* The i-th's configuration key ("A=1,B=4"; owned by p) and natural
 * log-probability; NULL and NAN out of range. */
KTUNE_API const char *ktune_predictions_config(const ktune_predictions *p, size_t i);
KTUNE_API double ktune_predictions_log_prob(const ktune_predictions *p, size_t i);

/* The most beam widths one evaluation scores. */
#define KTUNE_EVAL_MAX_WIDTHS 16

/* How to evaluate: the options of `ktune evaluate`.  Fill it with
 * ktune_eval_opts_init. */
typedef struct ktune_eval_opts {
    size_t size;             /* sizeof(ktune_eval_opts), set by _init */
    size_t widths[KTUNE_EVAL_MAX_WIDTHS]; /* beam widths, each 1 to 10000
                                (1, 10, 30, 50, 100) */
    size_t nwidths;          /* 1 to KTUNE_EVAL_MAX_WIDTHS (5) */
    size_t limit;            /* only the first held-out problems; 0: all */
    bool unconstrained;      /* plain beam search (false) */
    const char *spec_path;   /* the kernel's spec: the constrained search
                                needs it, and the valid share comes from it
                                (NULL) */
    ktune_warn_fn warn;      /* each warning of loading spec_path, as
                                ktune_spec_load gives them; NULL: none */
    void *warn_user;         /* given to warn */
} ktune_eval_opts;

/* Fill *o with the defaults above.  Thread-safe. */
KTUNE_API void ktune_eval_opts_init(ktune_eval_opts *o);

/* The metrics of the paper, on the held-out problems. */
typedef struct ktune_eval_report {
    size_t samples;          /* held-out problems scored */
    size_t kmax;             /* the largest width: each query's beam */
    double avg_accuracy;     /* %: parameters right in the top-1 prediction,
                                mean over the parameters */
    double perfect[KTUNE_EVAL_MAX_WIDTHS]; /* %: the whole configuration
                                among the top widths[w] */
    double valid;            /* %: top-1 predictions that are valid
                                configurations; NAN without a spec */
    double ms_per_query;     /* mean time of one prediction */
} ktune_eval_report;

/* Predict each held-out problem of m and score it into *out.  Returns 0;
 * KTUNE_EINVAL for NULL arguments, widths out of range, a model that holds
 * nothing out (trained with holdout 0), or a constrained search without a
 * spec; KTUNE_EIO, KTUNE_ESPEC for the spec, KTUNE_ENOMEM.  Thread-safe on
 * a shared model. */
KTUNE_API int ktune_model_evaluate(const ktune_model *m, const ktune_eval_opts *o,
                                   ktune_eval_report *out, ktune_diag *diag);
/* ------------------------------------------------------------ map of a run */

/* What a run's map (ktune_run_map) holds: the best configuration found (by
 * the run's objective) in each filled cell of the grid that the spec's
 * behaviour dimensions make (MAP-Elites; docs/SPEC.md).  A dimension is
 * either computed from the configuration or measured (its energy, power or
 * time: ktune_map_dim_measured); a measured one's bins are cut from the
 * values the run measured, as they stood at its end.  A map does not
 * change: threads may read one together. */
typedef struct ktune_map_info {
    size_t ndims;            /* behaviour dimensions */
    uint64_t ncells;         /* cells of the grid */
    size_t nfilled;          /* cells holding an elite */
    bool fallback;           /* the spec names no dimensions: the map uses
                                ktune's fallback dimensions */
    size_t unplaced;         /* correct evaluations the map could not place:
                                a measured dimension's value (energy, power)
                                was not read, or the objective's was not */
} ktune_map_info;

/* Describe m into *out; KTUNE_EINVAL for NULL. */
KTUNE_API int ktune_map_describe(const ktune_map *m, ktune_map_info *out);
/* Dimension d's name (owned by the map; NULL out of range) and number of
 * bins (0 out of range). */
KTUNE_API const char *ktune_map_dim_name(const ktune_map *m, size_t d);
KTUNE_API size_t ktune_map_dim_bins(const ktune_map *m, size_t d);
/* What dimension d measures: "energy" (joules per call), "power" (watts)
 * or "time" (ms per call); NULL for a dimension computed from the
 * configuration, or out of range. */
KTUNE_API const char *ktune_map_dim_measured(const ktune_map *m, size_t d);
/* The least and greatest value of bin b of dimension d (of a measured
 * one: of the values measured in it); 0, or KTUNE_ENOTFOUND out of
 * range. */
KTUNE_API int ktune_map_bin(const ktune_map *m, size_t d, size_t b, double *lo,
                            double *hi);

/* One filled cell; pointers owned by the map. */
typedef struct ktune_map_elite {
    uint64_t cell;           /* index in the grid */
    const size_t *bins;      /* [ndims]: its bin in each dimension */
    const char *config;      /* its best configuration's key, by the run's
                                objective (the fastest for time and pareto,
                                the least energy per call for energy) */
    double time_ms;          /* that configuration's time */
    double energy_j;         /* and energy per call (NAN: not read) */
} ktune_map_elite;

/* The i-th filled cell (i < nfilled, in cell order) into *out; 0, or
 * KTUNE_ENOTFOUND out of range. */
KTUNE_API int ktune_map_elite_at(const ktune_map *m, size_t i, ktune_map_elite *out);

/* ------------------------------------------------------------------ report */

/* ktune_report_write draws what a results database holds as one
 * self-contained HTML page: inline SVG figures and a style sheet, nothing
 * fetched from the network, readable without JavaScript.  Per kernel: its
 * failure classes (the rows of each status); a roofline of its best
 * configurations, for a device whose ceilings ktune knows (the NVIDIA
 * H100, measured: docs/PERFORMANCE.md) and a spec given with a FlopCount;
 * per device, the parameters' importance for time (and energy) and the
 * partial dependence of the time on the top ones (ktune_analyze's models).
 * Per run (the rows of one device and problem, in the order measured): its
 * convergence (each measurement and the best so far), its time/energy
 * front (the one ktune stored, else the one the rows make) and its
 * MAP-Elites map (with the spec, the cells `ktune tune --map` makes; else
 * the values of its two tuning parameters with the most values).  Every
 * string from the database is escaped.  The page ends with a small inline
 * script that counts each figure's drawn points into the page (a headless
 * browser's check: tests/cli/report.sh); docs/ANALYSIS.md, "Report". */
typedef struct ktune_report_opts {
    size_t size;             /* sizeof(ktune_report_opts), set by _init */
    const char *kernel;      /* only this kernel; NULL: every kernel */
    const char *title;       /* the page's title (NULL: "ktune report") */
    const char *source;      /* what the page says it was made from, e.g.
                                the database's path (NULL: not said) */
    const ktune_spec *const *specs; /* [nspecs] borrowed: specs of kernels
                                the database holds (matched by
                                ktune_spec_name), for the roofline's FLOP
                                count and bytes and the map's cells; NULL:
                                none */
    size_t nspecs;
    size_t max_runs;         /* per kernel, the runs drawn (most measured
                                first; the others are listed); 0: 8 */
    bool no_script;          /* leave the checking script out (false) */
    bool no_analysis;        /* leave out parameter importance and partial
                                dependence, which fit models (ktune_analyze)
                                and take about a second per kernel (false) */
} ktune_report_opts;

/* Fill *o with the defaults above.  Thread-safe. */
KTUNE_API void ktune_report_opts_init(ktune_report_opts *o);

/* What a report holds. */
typedef struct ktune_report_info {
    uint64_t measurements;   /* rows read */
    size_t kernels;          /* sections */
    size_t runs;             /* runs of those kernels, drawn or listed */
    size_t figures;          /* figures drawn (each has data points) */
} ktune_report_info;

/* Write the report of db (the kernel o names, or all) to out, which the
 * caller opened and closes (open_memstream gives a buffer), and what it
 * holds to *info (NULL: not wanted).  The library writes nothing else
 * anywhere.  Returns 0; KTUNE_EINVAL for a NULL db or
 * out or an o of another size, KTUNE_ENOTFOUND when o->kernel names no
 * kernel of db (or db holds no rows), KTUNE_EIO when writing to out failed,
 * KTUNE_EDB, KTUNE_ENOMEM.  Uses db as every call does: one thread at a
 * time. */
KTUNE_API int ktune_report_write(ktune_db *db, const ktune_report_opts *o, FILE *out,
                                 ktune_report_info *info, ktune_diag *diag);

/* ---------------------------------------------- benchmark of strategies */

/* Search strategies compared on a recorded exhaustive run (the job of
 * Kernel Tuner's methodology tool): every strategy runs at every budget for
 * seeds 1 to seeds, each evaluation answered by the recording, so that one
 * run costs well under a millisecond.  A run's quality after n evaluations
 * is the fraction of the optimum it reached: the optimum's time over the
 * best time found so far (0 before any success). */

/* The options: those of `ktune benchmark`.  Fill it with
 * ktune_bench_opts_init; strings and arrays are borrowed for the call. */
typedef struct ktune_bench_opts {
    size_t size;             /* sizeof(ktune_bench_opts), set by _init */
    const char *replay;      /* the recording (required): a ktune database,
                                its CSV export, a Kernel Tuner cache or a T4
                                file */
    const char *problem;     /* with a spec: every problem parameter once
                                (NULL: the spec's defaults); without: the
                                recorded problem key that chooses one */
    const char *device;      /* the recorded device; NULL: the only one */
    const char *kernel;      /* without a spec: the recorded kernel; NULL:
                                the only one */
    const char *cache_dir;   /* where a JSON recording's rows are kept for
                                its next replay; NULL: not kept */
    const char *const *strategies; /* names of ktune_strategy_at; NULL:
                                every one */
    size_t nstrategies;
    const double *budgets;   /* ascending evaluation counts, each a whole
                                number from 1; NULL: 25, 50, 100, 200, 400 */
    size_t nbudgets;
    unsigned seeds;          /* runs per strategy and budget (20) */
    size_t warm;             /* first evaluate the winners of up to this many
                                other recorded problems (0: from scratch) */
    ktune_warn_fn warn;      /* each warning, one line "FILE: warning: ...":
                                a recording's rows that cannot be kept in
                                cache_dir; NULL: none */
    void *warn_user;         /* given to warn */
} ktune_bench_opts;

/* Fill *o with the defaults above.  Thread-safe. */
KTUNE_API void ktune_bench_opts_init(ktune_bench_opts *o);

/* A finished comparison. */
typedef struct ktune_bench ktune_bench;

/* Quartiles and mean of one quantity over the seeds; evaluations to a
 * target are INFINITY for a run that did not reach it. */
typedef struct ktune_bench_stat {
    double mean, q1, median, q3;
} ktune_bench_stat;

/* One strategy at one budget. */
typedef struct ktune_bench_row {
    const char *strategy;    /* a name of ktune_strategy_at (static) */
    uint64_t budget;         /* evaluations */
    ktune_bench_stat fraction; /* of the optimum, at the end of the runs */
    double found;            /* share of runs that found the optimum */
    ktune_bench_stat to95, to99; /* evaluations to 95% and 99% of it */
    unsigned reached95, reached99; /* runs that got there */
    double seconds;          /* the runs' time, all seeds */
} ktune_bench_row;

/* The comparison's figures; strings owned by it. */
typedef struct ktune_bench_info {
    const char *kernel;      /* the spec's (or the recording's) name */
    uint64_t space;          /* valid configurations recorded */
    double optimum_ms;
    const char *optimum_config;
    unsigned seeds;
    size_t nstrategies, nbudgets;
    size_t nrows;            /* nstrategies x nbudgets */
    size_t curve_len;        /* points of each strategy's curve */
} ktune_bench_info;

/* Compare the strategies on the recording o->replay of spec (NULL: the
 * recording alone, its configurations being the space) into *out
 * (ktune_bench_free).  Returns 0; KTUNE_EINVAL for a NULL o or out, no
 * replay, an unknown strategy, budgets that are not ascending whole
 * numbers, a kernel with a spec, or a problem that does not set every
 * parameter; KTUNE_EIO, KTUNE_EFORMAT for the recording, KTUNE_ENOTFOUND
 * when it lacks the problem or a configuration, KTUNE_ENOMEM. */
KTUNE_API int ktune_benchmark(const ktune_spec *spec, const ktune_bench_opts *o,
                              ktune_bench **out, ktune_diag *diag);
/* Release a comparison (NULL: nothing). */
KTUNE_API void ktune_bench_free(ktune_bench *b);
/* Its figures (owned by b; NULL for NULL). */
KTUNE_API const ktune_bench_info *ktune_bench_summary(const ktune_bench *b);
/* Row i (i < nrows: strategy-major, budgets ascending); NULL out of range. */
KTUNE_API const ktune_bench_row *ktune_bench_row_at(const ktune_bench *b, size_t i);
/* Strategy s's mean curve at the largest budget: curve_len points, point n
 * after n + 1 evaluations (a run that stopped early keeps its last value);
 * NULL out of range. */
KTUNE_API const ktune_bench_stat *ktune_bench_curve(const ktune_bench *b, size_t s);

/* ------------------------------------------------ transfer across devices */

/* What recordings of one kernel on other devices predict for a device none
 * of them is (issue 14).  Each configuration's score is its mean, over the
 * source devices, fraction of that device's optimum (the optimum's time
 * over its time; 0 for a failure, or where a device did not record it);
 * the best scores are the prediction, and a run measures them first
 * (ktune_tune_opts.transfer) before its strategy searches on.
 * docs/ANALYSIS.md measures it, each device held out in turn. */
typedef struct ktune_transfer ktune_transfer;

/* Read the n recordings at paths (files ktune_tune_opts.replay takes,
 * each of one kernel, problem and device; cache_dir as there, NULL: none)
 * and learn from them into *out (ktune_transfer_free).  Returns 0;
 * KTUNE_EINVAL for no path or a NULL out; for a recording, the errors of a
 * replay (KTUNE_EIO, KTUNE_EFORMAT, KTUNE_ENOTFOUND, KTUNE_EINVAL); and
 * KTUNE_EFORMAT for recordings of different kernels or tuning parameters,
 * or a device recorded twice, KTUNE_EEMPTY for one where nothing ran
 * correctly, KTUNE_ENOMEM; diag names the file.  Thread-safe; the result
 * never changes, so threads may share it. */
KTUNE_API int ktune_transfer_open(const char *const *paths, size_t n,
                                  const char *cache_dir, ktune_transfer **out,
                                  ktune_diag *diag);
/* Release a transfer (NULL: nothing). */
KTUNE_API void ktune_transfer_free(ktune_transfer *t);
/* The kernel it learnt (owned by t). */
KTUNE_API const char *ktune_transfer_kernel(const ktune_transfer *t);
/* The source devices: how many, the i-th's name (owned by t; NULL out of
 * range). */
KTUNE_API size_t ktune_transfer_ndevices(const ktune_transfer *t);
KTUNE_API const char *ktune_transfer_device(const ktune_transfer *t, size_t i);
/* The configurations any source recorded, in the order a run measures
 * them: the best score first, then each next one the one that raises most
 * the mean over the sources of the best fraction so far (a portfolio that
 * covers the sources' different optima; ties by score, then key), so the
 * scores need not descend: how many, and the i-th's key (owned by t) and
 * score, 0 to 1.  Returns 0, KTUNE_EINVAL out of range. */
KTUNE_API size_t ktune_transfer_count(const ktune_transfer *t);
KTUNE_API int ktune_transfer_config(const ktune_transfer *t, size_t i,
                                    const char **config, double *score);

/* The options of the leave-one-device-out comparison (`ktune benchmark
 * --transfer`).  Fill it with ktune_transfer_bench_opts_init; strings and
 * arrays are borrowed for the call. */
typedef struct ktune_transfer_bench_opts {
    size_t size;             /* sizeof(ktune_transfer_bench_opts), by _init */
    const char *const *paths; /* recordings of one kernel, a device each */
    size_t npaths;
    const char *cache_dir;   /* as ktune_transfer_open's (NULL) */
    const double *budgets;   /* measurements on the held-out device,
                                ascending whole numbers; NULL: 10, 20 */
    size_t nbudgets;
    unsigned seeds;          /* searches per budget and device (20) */
    size_t top;              /* configurations of the transfer a warm search
                                measures first (10) */
} ktune_transfer_bench_opts;

/* Fill *o with the defaults above.  Thread-safe. */
KTUNE_API void ktune_transfer_bench_opts_init(ktune_transfer_bench_opts *o);

/* One held-out device after a number of measurements on it, each figure a
 * fraction of its optimum (the optimum's time over the best time found; 0
 * when nothing found ran correctly).  With 0 measurements, transfer and
 * warm are the transfer's best-scored configuration and cold the default
 * configuration, as they would run unmeasured. */
typedef struct ktune_transfer_row {
    const char *device;      /* held out (owned by the comparison); NULL:
                                the median over the held-out devices */
    uint64_t measurements;
    double optimum_ms;       /* the device's (NAN in a median row) */
    double transfer;         /* the transfer's top `measurements` alone */
    double warm;             /* the transfer's top (opts.top) configurations,
                                then the default strategy: mean over seeds */
    double cold;             /* the default strategy from scratch, its first
                                evaluation the default configuration: mean
                                over seeds */
} ktune_transfer_row;

/* A finished comparison. */
typedef struct ktune_transfer_bench ktune_transfer_bench;

/* Hold out each recording of o->paths in turn, learn a transfer from the
 * others and replay on it the transfer alone, the warm search and a cold
 * one; the held-out recording answers only the measurements the runs make.
 * Into *out (ktune_transfer_bench_free).  Returns 0; KTUNE_EINVAL for a
 * NULL o or out, options of another size, fewer than two recordings,
 * budgets that are not ascending whole numbers, no seeds; the errors of
 * ktune_transfer_open; KTUNE_ENOMEM.  Thread-safe. */
KTUNE_API int ktune_transfer_benchmark(const ktune_transfer_bench_opts *o,
                                       ktune_transfer_bench **out, ktune_diag *diag);
/* Release a comparison (NULL: nothing). */
KTUNE_API void ktune_transfer_bench_free(ktune_transfer_bench *b);
/* The kernel (owned by b). */
KTUNE_API const char *ktune_transfer_bench_kernel(const ktune_transfer_bench *b);
/* Its rows: device by device in the order given, 0 measurements then each
 * budget, then the median rows in the same order; NULL out of range. */
KTUNE_API size_t ktune_transfer_bench_count(const ktune_transfer_bench *b);
KTUNE_API const ktune_transfer_row *ktune_transfer_bench_row(const ktune_transfer_bench *b,
                                                              size_t i);

/* --------------------------------------------------------- online tuning */

/* Online tuning: the application runs its kernel through ktune, and ktune
 * explores while the application works.  Per problem, a list of candidate
 * configurations (the database's best for the problem, the caller's seeds,
 * the spec's default, a model's top k, the winners of the nearest problems
 * the database holds, random valid ones) is compiled and verified by one
 * background thread, while each ktune_online_run runs a ready one
 * in-process on the application's own buffers and times it.  A policy
 * chooses which candidate explores; a call explores only while both bounds
 * allow it (a share of the calls, and the time spent over the best known
 * relative to all calls' time), else the best known serves.  Candidates
 * slower than drop_factor times the best are dropped after two calls.
 *
 * Measurement: a call's time counts in a candidate's statistics only when
 * no compilation or verification of ktune's ran during it, and not on the
 * configuration's first call in the process (its cold start), which
 * counts in the stream's time but not against the time bound.  A call that would explore while the background thread works
 * serves the best known instead, and the thread pauses after its job (at
 * most 1 s) until the caller has explored: candidates are timed on a
 * machine no compiler of ktune's shares.  Halving measures the candidates
 * within 5 % of its cut again (as many calls as the round's quota) before
 * it drops any.  When one is left, its neighbours (each parameter one
 * value either way; the first time also halving's runner-up and its
 * neighbours) race against it in one round, then the winner's neighbours,
 * up to 4 steps, until none is faster: a few random candidates rarely
 * hold the best.  Compilations run on half the cores (1 to 8 at once).
 *
 * Policies: "halving" (the default): successive halving, round r asking
 * 2^(r+1) calls of every candidate still in, keeping the faster half, until
 * one is left, which then serves every call (no more exploration; a UCB
 * bandit would keep paying for its confidence bounds forever, and one
 * kernel's production times are steady enough for a fixed schedule);
 * "none": no exploration, the database's best (else the first seed, else
 * the default) serves.
 *
 * Correctness: with KTUNE_ONLINE_VERIFY_WORKER (the default) a new
 * configuration serves only after it ran once in the isolated worker
 * process on the spec's own generated data (not the application's) and
 * its outputs matched the reference kernel: a wrong or crashing candidate
 * is stored as such and never runs in the application.  The first
 * candidate (the database's best, else the first seed, else the spec's
 * default) serves from the first call while its own verification runs,
 * since nothing else is built yet; a configuration the
 * database holds as a success was verified when it was measured.  With
 * KTUNE_ONLINE_VERIFY_NONE candidates serve once compiled: in-process, a
 * crashing one crashes the application.
 *
 * The database: each candidate's production time (median of its last 64
 * calls) is stored once, when it is dropped, when it wins, or at close, in
 * the tables `ktune tune` fills (ktune db list shows them) with a detail
 * starting "online:"; failures as they are found.
 *
 * Kernels: C specs (the C backend's shared objects, loaded with dlopen,
 * each call one call of the function, timed by the clock) and CUDA specs
 * (compiled by NVRTC in the background thread; each call one launch on
 * opts.stream in the calling thread's current context, which must be the
 * device's primary context, the one the CUDA runtime API uses (a thread
 * with no current context gets it); timed by a pair of CUDA events around
 * the launch, without the L2 flush and repetitions of `ktune tune`'s
 * timing, and the call waits for the kernel to end).  KTUNE_EBACKEND for
 * other languages, and for CUDA where no device or driver is.  The
 * arguments are generic, as the spec declares them: args[i] points to
 * argument i's value (a scalar's bytes, or the variable holding a buffer's
 * pointer: a host pointer for C, a device pointer from cudaMalloc or
 * cuMemAlloc for CUDA). */
typedef struct ktune_online ktune_online;

typedef enum ktune_online_verify {
    KTUNE_ONLINE_VERIFY_WORKER, /* once in the isolated worker before serving */
    KTUNE_ONLINE_VERIFY_NONE    /* serve once compiled (trust every candidate) */
} ktune_online_verify;

/* Options of ktune_online_open; ktune_online_opts_init sets the defaults
 * given with each field.  Strings and seeds are copied at open. */
typedef struct ktune_online_opts {
    size_t size;             /* sizeof(ktune_online_opts), set by _init */
    const char *db_path;     /* results database, read and written (NULL: none:
                                nothing read or stored) */
    const char *cache_dir;   /* compiled kernels (".ktune-cache") */
    const char *compiler;    /* the C compiler ("cc") */
    const char *worker_path; /* the worker program; NULL: $KTUNE_WORKER, else
                                found beside the program or the library */
    const char *policy;      /* "halving" or "none" (NULL: "halving") */
    double explore_share;    /* at most this share of calls explore (0.1) */
    double explore_overhead; /* and their time over the best known's is at
                                most this share of all calls' time (0.1);
                                <= 0: no time bound */
    double drop_factor;      /* drop a candidate this many times slower than
                                the best (2.0) */
    size_t candidates;       /* per problem (16), before refinement's
                                neighbours */
    const char *const *seeds; /* nseeds configuration keys tried first
                                (invalid ones skipped) */
    size_t nseeds;
    const char *model;       /* a model trained on the kernel (`ktune
                                train`): its model_k best predictions per
                                problem are candidates; NULL: none */
    size_t model_k;          /* (8) */
    size_t warm;             /* nearest problems' winners taken (4) */
    uint64_t seed;           /* random candidates (1) */
    ktune_online_verify verify; /* KTUNE_ONLINE_VERIFY_WORKER */
    void *stream;            /* CUDA: the stream the kernels launch on (a
                                cudaStream_t or CUstream; NULL: the default
                                stream) */
    int device;              /* CUDA: the device's ordinal (0), whose primary
                                context holds the application's buffers */
} ktune_online_opts;

/* Fill *opts with the defaults above.  Thread-safe. */
KTUNE_API void ktune_online_opts_init(ktune_online_opts *opts);

/* Start online tuning of spec (which must outlive the handle; the worker
 * reads its file again, so it must stay where it was loaded from) into
 * *out (ktune_online_close).  Starts one background thread.  Returns 0;
 * KTUNE_EINVAL (NULL arguments, opts of another size, a bound out of
 * range, a seed that is not a configuration of spec), KTUNE_ENOTFOUND (an
 * unknown policy), KTUNE_EBACKEND (neither a C nor a CUDA kernel, no
 * compiler, a CUDA kernel where no CUDA device or driver is),
 * KTUNE_EIO / KTUNE_EFORMAT / KTUNE_EDB (the database), the codes of
 * loading the model, KTUNE_ENOMEM. */
KTUNE_API int ktune_online_open(const ktune_spec *spec, const ktune_online_opts *opts,
                                ktune_online **out, ktune_diag *diag);

/* Stop the background thread (waiting for a compilation in progress),
 * store the calls not stored yet, unload every kernel.  NULL: nothing. */
KTUNE_API void ktune_online_close(ktune_online *on);

/* What one call did. */
typedef struct ktune_online_call {
    const char *config;      /* the configuration that ran (owned by the
                                handle) */
    double time_ms;          /* its time */
    bool explored;           /* it was not the best known */
} ktune_online_call;

/* Run the kernel once for problem (of the spec) on args, with the
 * configuration the policy chooses, and time it; call (NULL: not wanted)
 * says which and how long.  The first call of a problem waits until its
 * first candidate is compiled.  Returns 0; KTUNE_EINVAL (NULL arguments, a
 * problem of another spec), KTUNE_EEMPTY (no candidate compiles and
 * passes verification), the candidates' listing errors (KTUNE_EDB ...),
 * KTUNE_EBACKEND (the launch failed, or the calling thread's current CUDA
 * context is not the device's primary one), KTUNE_ENOMEM.  One thread at
 * a time per handle. */
KTUNE_API int ktune_online_run(ktune_online *on, const ktune_problem *problem,
                               void **args, ktune_online_call *call, ktune_diag *diag);

/* Where one problem stands. */
typedef struct ktune_online_state {
    uint64_t calls;          /* served */
    uint64_t explored;       /* of which exploring */
    double time_ms;          /* all calls' time */
    double extra_ms;         /* exploring calls' time over the best known */
    size_t candidates;       /* listed */
    size_t live;             /* still in the race */
    size_t failed;           /* failed to compile or verify */
    bool converged;          /* the policy explores no more */
    const char *best;        /* the configuration that serves (owned by the
                                handle); NULL before the first call */
    double best_ms;          /* its median time */
} ktune_online_state;

/* Where problem stands into *out.  Returns 0, KTUNE_EINVAL,
 * KTUNE_ENOTFOUND before the problem's first call. */
KTUNE_API int ktune_online_report(ktune_online *on, const ktune_problem *problem,
                                  ktune_online_state *out, ktune_diag *diag);

/* Wait until every candidate of the problems called so far is compiled and
 * verified (or failed): for tests, and for an application that prefers to
 * pay compilation up front. */
KTUNE_API void ktune_online_wait(ktune_online *on);

/* Hold the background thread once its job in progress (a batch of
 * compilations, a verification, storing a row) ends, so that nothing of
 * ktune's runs beside the application, until the next ktune_online_run
 * or ktune_online_wait on this handle: for a benchmark that times
 * something else between the calls (examples/online_gemm.c times the
 * offline optimum in blocks between the online stream's).  With wait,
 * wait for that job to end.  Returns true when nothing of the handle's
 * runs now (held, idle); false while the job still runs (then more calls
 * can be made, which also overlap it, and the hold asked again).  NULL:
 * true.  Same thread as ktune_online_run. */
KTUNE_API bool ktune_online_hold(ktune_online *on, bool wait);

/* ----------------------------------------------------- runtime selection */

/* An application asks, per call, which configuration of a kernel to use for
 * a problem on this device.  The answer comes, in this order, from:
 *   KTUNE_FROM_DATABASE  the problem was tuned: its fastest stored
 *                        configuration;
 *   KTUNE_FROM_NEAREST   the tuned problem nearest to it (distance below),
 *                        when within opts.max_distance, or at any distance
 *                        when there is no model;
 *   KTUNE_FROM_MODEL     the trained model's most likely configuration
 *                        (valid under the spec's conditions when there is
 *                        a spec);
 *   KTUNE_FROM_DEFAULT   the spec's default configuration.
 * Distance between two problems: the Euclidean distance of the vectors of
 * log2(1 + |v|) over the problem's numeric parameters; a problem whose text
 * parameters (layout, data type) differ is never near.  1.0 is one
 * parameter off by a factor of about 2.
 *
 * The selector reads the database once at open into a read-only in-memory
 * index (a hash table over the problem's values), so that a lookup touches
 * no SQL and takes no lock.  It notices new rows through SQLite's
 * data_version on its own connection, checked at most every
 * opts.refresh_ms by the lookup that finds the time has come (that one
 * call rebuilds the index; the others go on with the old one), or when the
 * application calls ktune_selector_refresh.  A new index is published with
 * an atomic pointer swap and the old one freed once the lookups that held
 * it have left (a two-phase reader count); no lookup waits for a rebuild.
 * Answers from the nearest shape or the model are kept in a bounded cache
 * per problem (opts.cache_size entries; full, it is emptied), so the same
 * miss asked again is answered at hit speed until the next refresh. */

typedef struct ktune_selector ktune_selector;

/* Where a choice came from (see above). */
typedef enum ktune_source {
    KTUNE_FROM_DATABASE = 1,
    KTUNE_FROM_NEAREST,
    KTUNE_FROM_MODEL,
    KTUNE_FROM_DEFAULT
} ktune_source;

/* "database", "nearest", "model", "default"; "unknown" out of range. */
KTUNE_API const char *ktune_source_name(ktune_source s);

#define KTUNE_CHOICE_KEY_MAX 1024  /* bytes of a key, NUL included */
#define KTUNE_CHOICE_MAX_PARAMS 64 /* tuning values a choice holds */

/* One answer: plain data the caller owns. */
typedef struct ktune_choice {
    ktune_source source;
    char config[KTUNE_CHOICE_KEY_MAX]; /* configuration key "MC=64,NC=256,..." */
    size_t nparams;                    /* tuning parameters (at most
                                          KTUNE_CHOICE_MAX_PARAMS given) */
    double values[KTUNE_CHOICE_MAX_PARAMS]; /* value of tuning parameter i
                                          (spec order, or the stored keys'
                                          order); NAN where it is text */
    double time_ms;     /* DATABASE: the stored median time per call;
                           NEAREST: the time measured on the problem it came
                           from; NAN otherwise */
    double distance;    /* NEAREST: the distance to that problem; DATABASE: 0;
                           NAN otherwise */
    char from[KTUNE_CHOICE_KEY_MAX]; /* NEAREST: that problem's key; else "" */
} ktune_choice;

/* Options of ktune_selector_open; ktune_selector_opts_init sets the
 * defaults given with each field. */
typedef struct ktune_selector_opts {
    size_t size;            /* sizeof(ktune_selector_opts), set by _init */
    unsigned refresh_ms;    /* check the database for changes at most this
                               often during lookups (100); 0: only on
                               ktune_selector_refresh */
    double max_distance;    /* a nearest shape farther than this goes to the
                               model when there is one (1.0) */
    size_t cache_size;      /* nearest and model answers kept (4096); 0:
                               none */
    size_t beam_width;      /* the model's beam search width (4) */
    const char *cache_dir;  /* device == NULL: the backend's cache, as
                               `ktune tune --cache` (".ktune-cache") */
    ktune_warn_fn warn;     /* each warning of the spec a kernel path names,
                               as ktune_spec_load gives them (a spec given to
                               ktune_selector_open_spec warned at its load);
                               NULL: none */
    void *warn_user;        /* given to warn */
    const char *platform;   /* device == NULL and an OpenCL kernel: this
                               machine's device on the platform whose name
                               contains this, as `ktune tune --platform`
                               (NULL: the first platform with a device) */
} ktune_selector_opts;

KTUNE_API void ktune_selector_opts_init(ktune_selector_opts *opts);

/* Open a selector for one kernel on one device.
 *   db_path  a ktune results database (read only; it must exist), or NULL
 *            for none (model and default only);
 *   kernel   a spec file (a path ending in ".json": its problem
 *            parameters, default configuration and conditions, and only the
 *            rows of this version of its source), or a kernel name as the
 *            database stores it (an imported MIOpen solver: the problem and
 *            tuning parameters are those of its stored keys, and there is
 *            no default);
 *   device   the device's name or fingerprint as the database stores them;
 *            NULL: this machine's, as `ktune tune` records it (needs a
 *            spec: the backend of its language computes it);
 *   model    a model file trained on this kernel (`ktune train`), or NULL;
 *   opts     NULL for the defaults.
 * *out gets the selector (close it with ktune_selector_close).  Errors:
 * KTUNE_EINVAL (NULL arguments, a kernel name with no rows, no spec and no
 * model to name its problem parameters, device NULL without a spec, a model
 * of another kernel), KTUNE_EIO / KTUNE_EFORMAT / KTUNE_EDB (the database:
 * missing, not a ktune database, another schema version), KTUNE_ESPEC (the
 * spec), KTUNE_ERANGE (a stored key longer than KTUNE_CHOICE_KEY_MAX),
 * KTUNE_EBACKEND / KTUNE_ENOTFOUND (device NULL: no backend or device of
 * the spec's language here, or no platform named as opts->platform says),
 * with the detail in diag. */
KTUNE_API int ktune_selector_open(const char *db_path, const char *kernel,
                                  const char *device, const char *model,
                                  const ktune_selector_opts *opts,
                                  ktune_selector **out, ktune_diag *diag);

/* ktune_selector_open for a spec the application has loaded
 * (ktune_spec_load, which gives it the spec's warnings), instead of a
 * path: the same selector, arguments and errors (KTUNE_EINVAL for a NULL
 * spec).  spec is borrowed: it must stay loaded, and unchanged, until
 * ktune_selector_close; lookups only read it, so the application may go
 * on reading it (and tuning with it) meanwhile. */
KTUNE_API int ktune_selector_open_spec(const char *db_path, const ktune_spec *spec,
                                       const char *device, const char *model,
                                       const ktune_selector_opts *opts,
                                       ktune_selector **out, ktune_diag *diag);

/* Free the selector (NULL accepted); no lookup may be running. */
KTUNE_API void ktune_selector_close(ktune_selector *sel);

/* The problem parameters, in the order ktune_select_values takes them:
 * ktune_selector_nproblem of them, names owned by the selector. */
KTUNE_API size_t ktune_selector_nproblem(const ktune_selector *sel);
KTUNE_API const char *ktune_selector_problem_name(const ktune_selector *sel,
                                                  size_t i);

/* Parse a problem "NAME=VALUE,..." (every problem parameter once, in any
 * order) into values[0..n), n = ktune_selector_nproblem, for
 * ktune_select_values: a whole number is itself, other text gets a code
 * that stays valid for the selector's life.  KTUNE_EINVAL (a parameter
 * missing, unknown or given twice, n too small).  Thread-safe. */
KTUNE_API int ktune_selector_problem(const ktune_selector *sel, const char *problem,
                                     int64_t *values, size_t n, ktune_diag *diag);

/* The configuration to use for a problem given as text (parsed as by
 * ktune_selector_problem) or as values (n of them; the fast path, with no
 * parsing and no allocation on a hit).  0 with *out filled, or
 * KTUNE_EINVAL (bad arguments or problem), KTUNE_ENOTFOUND (nothing to
 * answer from: no tuned problem, no model, no spec default), KTUNE_ENOMEM,
 * or the model's error.  A failed automatic refresh is not an error of the
 * lookup: the previous index answers, and ktune_selector_refresh reports
 * why.  Thread-safe: any number of threads may select at once, alongside
 * one ktune_selector_refresh. */
KTUNE_API int ktune_select(ktune_selector *sel, const char *problem,
                           ktune_choice *out, ktune_diag *diag);
KTUNE_API int ktune_select_values(ktune_selector *sel, const int64_t *values,
                                  size_t n, ktune_choice *out, ktune_diag *diag);

/* Rebuild the index now if the database changed since the last build
 * (*changed, may be NULL, tells whether it did).  Errors as
 * ktune_selector_open; the previous index stays in use after one.
 * Thread-safe alongside lookups; refreshes are serialised. */
KTUNE_API int ktune_selector_refresh(ktune_selector *sel, bool *changed,
                                     ktune_diag *diag);

/* Problems the current index holds (for reports and tests). */
KTUNE_API size_t ktune_selector_size(ktune_selector *sel);

/* -------------------------------------------------------------- analysis */

/* What makes a kernel fast and frugal (issue 14, docs/ANALYSIS.md): over
 * the stored ok measurements of one kernel on one device, gradient-boosted
 * trees (XGBoost) learn the time, the energy and the power per call from
 * the tuning parameters and the problem's fields, cross-validated k-fold
 * over configurations (rows of one configuration at one problem, such as
 * two source versions' measurements, in one fold); the contributions of
 * each feature to each prediction (TreeSHAP, exact) rank the parameters
 * and their pairwise interactions; partial dependence shows how the top
 * parameters move the prediction; an ablation on the measurements checks
 * the ranking. */

/* What a model learns. */
typedef enum ktune_target {
    KTUNE_TARGET_TIME,       /* "time": time_ms per call */
    KTUNE_TARGET_ENERGY,     /* "energy": energy_j per call */
    KTUNE_TARGET_POWER,      /* "power": power_w while timing */
    KTUNE_TARGET_COUNT
} ktune_target;

/* The name of a target ("time", "energy", "power"; "unknown" out of
 * range), and the target called name into *out (0, or KTUNE_ENOTFOUND).
 * Thread-safe. */
KTUNE_API const char *ktune_target_name(ktune_target t);
KTUNE_API int ktune_target_parse(const char *name, ktune_target *out);

/* What an analysis may be told.  Fill it with ktune_analyze_opts_init. */
typedef struct ktune_analyze_opts {
    size_t size;             /* sizeof(ktune_analyze_opts), set by _init */
    const char *kernel;      /* the kernel (required) */
    const char *device;      /* its device (NULL: the one device the kernel's
                                rows have; several are an error naming them) */
    const char *problem;     /* one problem key (NULL: every problem of the
                                kernel, whose varying fields are features) */
    unsigned targets;        /* bits 1u << KTUNE_TARGET_*: these must be
                                modelled (a target without readings is an
                                error); 0 (default): time, and energy and
                                power where enough rows have them */
    unsigned folds;          /* cross-validation folds, 2 to 20 (5) */
    unsigned rounds;         /* boosting rounds (300) */
    unsigned depth;          /* greatest tree depth (6) */
    size_t shap_rows;        /* rows (a seeded sample) whose contributions
                                rank the features and that partial dependence
                                averages over (1000) */
    size_t interaction_rows; /* of those, rows whose pairwise interactions
                                are computed, which costs about 2 x features
                                times as much per row (200) */
    size_t top;              /* features with a partial dependence (3) */
    uint64_t seed;           /* folds and samples (1) */
    unsigned threads;        /* XGBoost's threads (1: results that do not
                                depend on the machine) */
    size_t derived;          /* derived features each model may use (16):
                                products of two or three numeric tuning
                                parameters, ratios of two and the odd part
                                of an integer one (1: a power of two), the
                                ones a model of the training rows with all
                                of them leans on most, where an inner
                                cross-validation finds they help clearly
                                (by more than its noise).  They
                                feed the fit's figures and the ranking by
                                held-out cost; SHAP, interactions and
                                partial dependence use the parameters
                                alone.  0: none */
    bool weights;            /* whether the inner cross-validation may also
                                weight each row by its target over their
                                geometric mean (true): a model of the log
                                then counts a row's error by its size in
                                the target's units, which R-squared scores,
                                where the far-slow few carry the variance.
                                It costs another inner cross-validation per
                                fold; false: every row weighs the same */
    double reading_noise;    /* the relative standard deviation of one time
                                reading between runs (0.01: 1%), beyond its
                                repetitions' spread: repetitions share the
                                device's state, which a run minutes later
                                may not (docs/ANALYSIS.md measures it).  The
                                ablation adds it to each time's noise, in
                                quadrature, before it calls two costs a tie.
                                0 (default): the repetitions' spread alone;
                                at most 0.5 */
    unsigned repeats;        /* cross-validations, 1 to 20 (1), each with
                                its own folds (fold seeds seed, seed + 1,
                                ...): the fit's figures are their means and
                                r2_sd the spread of R-squared, which on a
                                few hundred rows moves by hundredths with
                                the folds; the ranking reads the first's
                                held-out predictions, so repeats change the
                                figures alone */
} ktune_analyze_opts;

/* Fill *o with the defaults above.  Thread-safe. */
KTUNE_API void ktune_analyze_opts_init(ktune_analyze_opts *o);

/* A finished analysis; it does not change, so threads may read it at once. */
typedef struct ktune_analysis ktune_analysis;

/* Analyse the kernel o names (o required) in db into *out (caller frees
 * with ktune_analysis_free).  Each target is learnt in log space (times
 * span orders of magnitude); predictions are scored back in the target's
 * own units.  Returns 0; KTUNE_EINVAL (NULL arguments, an o of another
 * size or with options out of range, rows of several devices and no
 * o->device, too few rows for the folds: at least max(10, 2 x folds)),
 * KTUNE_ENOTFOUND (no ok row of that kernel, device or problem; a target
 * asked for that too few rows have), KTUNE_EDB, KTUNE_ENOMEM, or
 * XGBoost's failure; diag says which in one line. */
KTUNE_API int ktune_analyze(ktune_db *db, const ktune_analyze_opts *o,
                            ktune_analysis **out, ktune_diag *diag);
KTUNE_API void ktune_analysis_free(ktune_analysis *a);

/* What was analysed; strings belong to a. */
typedef struct ktune_analysis_info {
    const char *kernel, *device;
    size_t rows;             /* ok configurations with a time */
    size_t problems;         /* distinct problems among them */
    size_t features;         /* features that vary (others are left out):
                                tuning parameters first, then problem
                                fields */
    size_t tuning;           /* of which tuning parameters */
    unsigned targets;        /* bits 1u << KTUNE_TARGET_* modelled */
    unsigned folds;
    double reading_noise;    /* the options' reading_noise */
    unsigned repeats;        /* the options' repeats */
} ktune_analysis_info;

KTUNE_API void ktune_analysis_describe(const ktune_analysis *a, ktune_analysis_info *out);
/* The name of feature i (< features), or NULL. */
KTUNE_API const char *ktune_analysis_feature(const ktune_analysis *a, size_t i);

/* How well a target's model predicts configurations it was not trained
 * on: every row predicted by the model of the folds that left it out. */
typedef struct ktune_fit {
    size_t rows;             /* rows with this target */
    double r2;               /* coefficient of determination, target units */
    double r2_log;           /* the same on the log of the target */
    double mape;             /* mean absolute percentage error, % */
    double spearman;         /* rank correlation of prediction and truth */
    double seconds;          /* cross-validation and final fit */
    double r2_sd;            /* standard deviation of r2 over the repeated
                                cross-validations (0 with one) */
} ktune_fit;

/* Target t's fit into *out: 0, or KTUNE_ENOTFOUND when t was not
 * modelled. */
KTUNE_API int ktune_analysis_fit(const ktune_analysis *a, ktune_target t, ktune_fit *out);

/* A feature's importance for one target.  Tuning parameters are ranked by
 * cost: what fixing the parameter at its worst value costs the best
 * configuration by the model's held-out predictions (each configuration
 * predicted by the cross-validation model that did not see it: for each
 * value, the least predicted among the rows with it, over the least
 * overall; the largest over the values), the question the ablation
 * asks of the measurements; problem fields, not a choice, come after
 * them by mean_abs.  range and mean_abs are from the TreeSHAP
 * contributions of each sampled row to the predicted log of the target. */
typedef struct ktune_importance {
    size_t feature;
    double range;            /* the largest minus the smallest, over the
                                feature's values, of its mean contribution to
                                the three fastest sampled rows of that
                                value: exp(range) is how much worse its
                                worst value makes a good configuration than
                                its best, where the parameters act apart */
    double mean_abs;         /* the mean absolute contribution (0.1: the
                                feature moves a typical prediction by about
                                10 %): what moves the target on average */
    double share;            /* of mean_abs's sum over features */
    double cost;             /* the predicted cost described above, a
                                factor >= 1 (NAN for a problem field) */
    double cost_sd;          /* the uncertainty of log(cost): the held-out
                                errors (log) at the rows it comes from,
                                root mean square, times sqrt(2) */
    const char *worst;       /* the value the cost is of; belongs to the
                                analysis (NULL for a problem field) */
} ktune_importance;

/* Target t's features, most important first, into out (up to cap); the
 * number there is (0 when t was not modelled).  Likewise the pairs of
 * features by the mean absolute TreeSHAP interaction value (each pair
 * once, both halves summed), and the partial dependence of feature f
 * (one of the top ones; others have none): for each value of f (at most
 * 32, spread over its range), the mean prediction over the sampled rows
 * with f set to it, in the target's units. */
KTUNE_API size_t ktune_analysis_importance(const ktune_analysis *a, ktune_target t,
                                           ktune_importance *out, size_t cap);

typedef struct ktune_interaction {
    size_t a, b;             /* features, a < b */
    double mean_abs;
} ktune_interaction;

KTUNE_API size_t ktune_analysis_interactions(const ktune_analysis *a, ktune_target t,
                                             ktune_interaction *out, size_t cap);

typedef struct ktune_dependence {
    const char *value;       /* the feature's value as stored; belongs to a */
    double mean;             /* mean prediction with the feature at it */
} ktune_dependence;

KTUNE_API size_t ktune_analysis_dependence(const ktune_analysis *a, ktune_target t,
                                           size_t f, ktune_dependence *out, size_t cap);

/* The ablation's verdict on the ranking: the top-ranked parameter costs
 * more than every lower-ranked one by more than twice the sd of the
 * difference (AGREE); some lower-ranked one costs more by more than that
 * (DISAGREE); else at least one costs the same within that noise (TIE).
 * Where the noise is unknown, it is taken as 0.  NONE: no ablation (no
 * time model, or a NULL analysis). */
typedef enum ktune_check {
    KTUNE_CHECK_NONE,
    KTUNE_CHECK_AGREE,
    KTUNE_CHECK_TIE,
    KTUNE_CHECK_DISAGREE
} ktune_check;

/* The ablation of one tuning parameter, from the measurements alone: the
 * best time measured with the parameter held at each of its values; the
 * worst of those over the best time overall is the cost of fixing the
 * parameter at its worst value (1: it does not matter; with several
 * problems, the geometric mean of the problems' ratios). */
typedef struct ktune_ablation {
    size_t feature;
    const char *worst;       /* that value; belongs to a */
    double cost;
    double sd;               /* the standard deviation of log(cost / the
                                first's cost) from the measurement noise of
                                the two times each cost is made of (a
                                time's relative noise: its repetitions'
                                (p75 - p25) / median / 1.349, with
                                reading_noise added in quadrature); 0 for
                                the first; NAN where a time has no
                                repetitions and reading_noise is 0 */
    ktune_check check;       /* this parameter against the first, by the
                                rule above: AGREE (it costs less), TIE or
                                DISAGREE (it costs more); NONE for the
                                first */
} ktune_ablation;

/* The tuning parameters in the order of the time model's importance,
 * with their ablation, into out (up to cap); the number there.  *agrees
 * (NULL: not wanted) is whether the verdict is KTUNE_CHECK_AGREE. */
KTUNE_API size_t ktune_analysis_ablation(const ktune_analysis *a, ktune_ablation *out,
                                         size_t cap, bool *agrees);
/* The verdict (above).  Thread-safe. */
KTUNE_API ktune_check ktune_analysis_check(const ktune_analysis *a);
/* Its name: "none", "agree", "tie", "disagree" ("unknown" out of range). */
KTUNE_API const char *ktune_check_name(ktune_check c);

#ifdef __cplusplus
}
#endif
#endif /* KTUNE_H */
