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

#ifdef __cplusplus
}
#endif
#endif /* KTUNE_H */
