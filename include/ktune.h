/* ktune.h - the public API of ktune, a learned auto-tuner for compute kernels.
 *
 * Conventions (see docs/ARCHITECTURE.md):
 *   - fallible functions return int: 0 on success or a negative KT_E* code;
 *     results come back through out-parameters;
 *   - the human-readable detail of a failure is written to a caller-owned
 *     kt_diag (message buffer), never printed: the library neither prints
 *     nor exits;
 *   - heap objects come in _new/_free pairs and every _free accepts NULL;
 *   - there is no global mutable state: every handle is independent, and a
 *     handle may be used by one thread at a time.
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
KTUNE_API const char *kt_version(void);

/* ---------------------------------------------------------------- errors */

/* X(name, value, message): the one list of error codes. */
#define KT_ERRORS(X)                                                          \
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

enum kt_error {
#define KT_ERROR_ENUM(name, value, msg) KT_##name = (value),
    KT_ERRORS(KT_ERROR_ENUM)
#undef KT_ERROR_ENUM
};

/* The static message of an error code; never NULL. */
KTUNE_API const char *kt_strerror(int code);

/* A caller-owned place for the detail of the last failure (one line, no
 * trailing newline).  Functions that take a kt_diag * accept NULL. */
typedef struct kt_diag {
    char msg[512];
} kt_diag;

/* ------------------------------------------------------------ results */

/* X(name, text): how one configuration's evaluation ended.  The text is
 * what the results database and the exports store. */
#define KT_STATUSES(X)                                                        \
    X(OK, "ok")                       /* verified and timed */                \
    X(COMPILE_ERROR, "compile_error") /* the compiler rejected it */          \
    X(CRASH, "crash")                 /* the worker died on a signal */       \
    X(TIMEOUT, "timeout")             /* it ran past the time limit */        \
    X(WRONG_RESULT, "wrong_result")   /* outputs differ from the reference */ \
    X(RUNTIME_ERROR, "runtime_error") /* it failed to load or launch */       \
    X(INVALID, "invalid")             /* exceeds the device's resources */

typedef enum kt_status {
#define KT_STATUS_ENUM(name, text) KT_STATUS_##name,
    KT_STATUSES(KT_STATUS_ENUM)
#undef KT_STATUS_ENUM
    KT_STATUS_COUNT
} kt_status;

/* The database text of a status; "unknown" when out of range. */
KTUNE_API const char *kt_status_name(kt_status s);
/* Parse a status text; KT_ENOTFOUND when it names none. */
KTUNE_API int kt_status_parse(const char *text, kt_status *out);

/* One evaluation of one configuration.  Times are per kernel call. */
typedef struct kt_result {
    kt_status status;
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
} kt_result;

/* ------------------------------------------------------------------ rng */

/* Deterministic pseudo-random numbers (xoshiro256**), seeded explicitly. */
typedef struct kt_rng {
    uint64_t s[4];
} kt_rng;

KTUNE_API void kt_rng_seed(kt_rng *rng, uint64_t seed);
KTUNE_API uint64_t kt_rng_next(kt_rng *rng);
/* Uniform integer in [0, n); n > 0. */
KTUNE_API uint64_t kt_rng_below(kt_rng *rng, uint64_t n);
/* Uniform double in [0, 1). */
KTUNE_API double kt_rng_unit(kt_rng *rng);

#ifdef __cplusplus
}
#endif
#endif /* KTUNE_H */
