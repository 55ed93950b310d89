/* exec.h - executors: where a run's configurations are compiled and
 * measured, away from the tuner's loop.
 *
 * The tuner (tuner.c) decides what to evaluate, answers what the database
 * knows, and hands the misses of each batch to an executor; the executor
 * compiles and measures them wherever it measures (exec_local.c: the
 * isolated workers of this process, one per device; an MPI executor: other
 * ranks) and gives the results back in the order they complete.  Recording
 * them, the database and the strategy stay on the tuner's thread.
 *
 * Like backends and strategies, an executor is a versioned table of
 * function pointers (kt_exec_ops, which only grows at the end) over its own
 * state; the tuner reaches it only through the wrappers below.  An
 * executor lives for a whole run and evaluates one batch at a time:
 *
 *     start(cfgs, n)            begin cfgs[0..n)
 *     next(&i, &result) ...     until KT_EDONE, or the tuner stops early:
 *     end()                     stop what is left of the batch
 *
 * Threads: one thread (the tuner's) calls an executor's functions; the
 * executor may run threads of its own.
 */
#ifndef KT_EXEC_H
#define KT_EXEC_H

#include "measure/worker.h"

#define KT_EXEC_ABI 1

/* Where the run's time went, summed over everything the executor ran
 * (several workers at once: more than the run's wall-clock time). */
typedef struct kt_exec_stats {
    double start_s;          /* compiling the reference, starting workers */
    double compile_wait_s;   /* waiting for the compiler */
    double measure_s;        /* in the workers' evaluations, messages included */
    double phase_s[KT_PHASE_COUNT]; /* those evaluations by phase (worker.h) */
} kt_exec_stats;

typedef struct kt_exec_ops {
    int abi;                 /* KT_EXEC_ABI */
    const char *name;        /* "local", "mpi", ... */
    /* Begin evaluating cfgs[0..n) (value indices in spec order; the
     * pointers stay valid until end).  A batch started must be ended
     * before the next starts. */
    int (*start)(void *self, const uint16_t *const *cfgs, size_t n, kt_diag *diag);
    /* Block until some configuration of the batch has its result: *index
     * (into cfgs) and *result.  A configuration that does not compile is a
     * result (status COMPILE_ERROR, its compile_ms, the compiler's first
     * error line as detail).  KT_EDONE once all n were given back; another
     * negative code when the executor cannot go on (no worker starts). */
    int (*next)(void *self, size_t *index, kt_result *result, kt_diag *diag);
    /* Stop what is left of the batch (results not yet given back are
     * dropped) and wait for what is under way to end (the local executor:
     * at most one measurement per worker).  Called after each batch,
     * whether all was given back or not. */
    void (*end)(void *self);
    /* Add the accounting so far to *out (between batches). */
    void (*stats)(void *self, kt_exec_stats *out);
    void (*free)(void *self);
} kt_exec_ops;

/* An executor: its table and its state. */
typedef struct kt_exec {
    const kt_exec_ops *ops;
    void *self;
} kt_exec;

/* What a run tells the executor it opens (all borrowed for the run). */
typedef struct kt_exec_env {
    const kt_spec *spec;
    const kt_problem *prob;
    const kt_backend *be;        /* opened on the tuner's side: */
    void *be_ctx;
    const kt_backend_opts *be_opts;
    const kt_measure_opts *measure;
    bool no_overlap;             /* compile each batch whole before measuring */
    const int *devices;          /* one worker per device ordinal; NULL: one
                                    worker on be_opts->device */
    size_t ndevices;
    const uint16_t *reference;   /* the configuration the reference outputs
                                    come from (nparams values; with a
                                    reference kernel, its launch geometry):
                                    the default, or the first valid one in
                                    the whole space when the spec's
                                    conditions exclude the default (tuner.c,
                                    choose_reference) */
    bool reference_warn;         /* that second case: warn, once, when the
                                    reference is compiled */
    kt_warn_fn warn;             /* the run's warnings */
    void *warn_user;
} kt_exec_env;

/* Opens an executor for a run (kt_tune_opts.exec_open): NULL means the
 * local one, kt_exec_local_open. */
typedef int (*kt_exec_open_fn)(void *user, const kt_exec_env *env, kt_exec *out,
                               kt_diag *diag);

/* The local executor (exec_local.c): compiles through env->be on the
 * calling thread's backend context and measures in one isolated worker per
 * device, each worker fed by a thread of its own from the builds as they
 * finish.  Returns 0 or KT_ENOMEM; workers start when first needed. */
int kt_exec_local_open(void *user, const kt_exec_env *env, kt_exec *out, kt_diag *diag);

/* The thin wrappers the tuner calls. */
int kt_exec_start(kt_exec *e, const uint16_t *const *cfgs, size_t n, kt_diag *diag);
int kt_exec_next(kt_exec *e, size_t *index, kt_result *result, kt_diag *diag);
void kt_exec_end(kt_exec *e);
void kt_exec_stats_add(const kt_exec *e, kt_exec_stats *out);
/* Frees the executor's state and clears *e; accepts an empty one. */
void kt_exec_close(kt_exec *e);

#endif /* KT_EXEC_H */
