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
 *     time unless its documentation says otherwise.
 */
#ifndef KTUNE_H
#define KTUNE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* The i-th library (i = 0, 1, ...) that this build of libktune uses, for
 * reports such as `ktune --version`: *name gets its name ("SQLite",
 * "json-c", "XGBoost"; a static string) and version (size bytes, NUL
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
    double energy_j;     /* energy per call; NAN when unknown */
    double power_w;      /* average power while timing; NAN when unknown */
    double sm_clock_mhz; /* GPU: mean SM clock while timing; 0 when unknown */
    double max_error;    /* largest error against the reference */
} ktune_result;

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
 * spec), KTUNE_ERANGE (a stored key longer than KTUNE_CHOICE_KEY_MAX), with
 * the detail in diag. */
KTUNE_API int ktune_selector_open(const char *db_path, const char *kernel,
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

#ifdef __cplusplus
}
#endif
#endif /* KTUNE_H */
