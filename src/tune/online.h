/* online.h - online tuning: the application runs its kernel through ktune,
 * and ktune explores while the application works.
 *
 * Per problem, a list of candidate configurations (the database's best for
 * this problem, the caller's seeds, the spec's default, a model's top k,
 * the winners of the nearest problems the database holds, random
 * valid ones) is compiled and verified by one background thread, while the
 * caller's thread runs whichever is ready on the application's own buffers,
 * in-process, and times it (the backend's production call: a C kernel's
 * function; a CUDA kernel's one launch in the device's primary context on
 * the application's stream, between CUDA events, without the tuning
 * path's L2 flush and repetitions).  A policy (a table, online.c) chooses which
 * candidate explores; a call explores only while the exploration bounds
 * allow it (a share of the calls, and extra time over the best known
 * relative to all calls' time), and otherwise serves the best known.
 *
 * Verification: a new configuration serves only after it was run once in
 * the isolated worker on the spec's own generated data and its outputs
 * matched the reference (KT_ONLINE_VERIFY_WORKER, the default): a wrong or
 * crashing candidate is dropped there and never runs in the application.
 * The first candidate (the database's best, else the first seed, else the
 * spec's default) serves
 * from the first call, while its own verification runs: nothing else is
 * compiled yet.  With KT_ONLINE_VERIFY_NONE candidates serve once built: a
 * crashing one crashes the application (it runs in-process).
 *
 * Measurement: a sample counts in a candidate's statistics only if it was
 * quiet, no compilation or verification of ours having run at any moment
 * of the call, and not the configuration's first call in this
 * process (its cold start: OpenMP starting its threads, first touches),
 * which counts in the stream's time but neither in its statistics nor in
 * the exploration's time bound.  A call that wants to explore while the
 * background thread works serves the best known instead, and the thread
 * pauses before its next job until the caller has explored (at most
 * KT_ONLINE_PAUSE_S), so candidates are timed on a machine the compiler
 * does not share.
 *
 * The database: each candidate's production time (median of its calls) is
 * stored once, when the policy drops it, when it wins, or at close, in the
 * same tables as `ktune tune` with its detail starting "online:"; failures
 * are stored as they are found.  Only the background thread uses the
 * database and the worker.
 */
#ifndef KT_ONLINE_H
#define KT_ONLINE_H

#include "measure/worker.h"
#include "ml/model.h"

typedef enum kt_online_verify {
    KT_ONLINE_VERIFY_WORKER, /* once in the isolated worker before serving */
    KT_ONLINE_VERIFY_NONE    /* serve once built (trust the kernel) */
} kt_online_verify;

typedef struct kt_online_opts {
    const char *db_path;      /* NULL: nothing read or stored */
    kt_backend_opts backend;
    kt_measure_opts measure;  /* the worker verification's */
    const char *policy;       /* NULL: KT_ONLINE_POLICY_DEFAULT */
    double explore_share;     /* at most this share of calls explore (0..1] */
    double explore_overhead;  /* and exploring costs at most this much time
                                 over the best known, relative to all calls'
                                 time; <= 0: no time bound */
    double drop_factor;       /* a candidate slower than this times the best
                                 (medians of >= 2 calls) is dropped */
    size_t candidates;        /* at most this many per problem */
    const uint16_t *seeds;    /* nseeds configurations (value indices in
                                 spec order) explored first, e.g. a model's
                                 top k; invalid ones skipped */
    size_t nseeds;
    const kt_model *model;    /* NULL, or a model of the kernel whose
                                 model_k most likely configurations for each
                                 problem are candidates (after the seeds);
                                 used by the background thread only */
    size_t model_k;
    size_t warm;              /* nearest problems' winners taken */
    uint64_t seed;            /* random candidates */
    kt_online_verify verify;
    void *stream;             /* the application's stream (CUDA: a CUstream,
                                 as cudaStream_t is); NULL: the default */
    /* NULL: the backend of the spec's language, opened and closed here;
     * else this one with its context, already open, owned by the caller
     * (the tests give a fake one with a fake clock). */
    const kt_backend *backend_impl;
    void *backend_ctx;
} kt_online_opts;

/* The longest the background thread waits for the caller to explore. */
#define KT_ONLINE_PAUSE_S 1.0

#define KT_ONLINE_POLICY_DEFAULT "halving"

kt_online_opts kt_online_defaults(void);

/* What one call did, and where one problem stands: the public structs
 * (include/ktune.h documents their fields). */
typedef ktune_online_call kt_online_call;
typedef ktune_online_state kt_online_info;

typedef struct kt_online kt_online;

/* Open online tuning of spec (which must outlive the handle and stay at
 * spec->path: the worker loads it again).  Kernels of a backend with a
 * production call (backend.h: C and CUDA; KT_EBACKEND otherwise, and for
 * CUDA where no device is).  Starts the background thread. */
int kt_online_open(const kt_spec *spec, const kt_online_opts *opts, kt_online **out,
                   kt_diag *diag);
/* Stop the background thread, store what was not stored, unload. */
void kt_online_close(kt_online *on);

/* Run the kernel once for prob on args (the CUDA driver convention:
 * args[i] points to argument i's value: a scalar's bytes, or the pointer
 * variable of a buffer), with the configuration the policy chooses.  The
 * first call of a problem waits until its first candidate is built.
 * call may be NULL.  One thread at a time. */
int kt_online_run(kt_online *on, const kt_problem *prob, void **args,
                  kt_online_call *call, kt_diag *diag);

/* Where prob stands (KT_ENOTFOUND before its first call). */
int kt_online_info_get(kt_online *on, const kt_problem *prob, kt_online_info *out,
                       kt_diag *diag);

/* Wait until every candidate listed so far, and the neighbours the policy
 * asked for, are built (or failed), for tests and for a caller that
 * prefers to pay compilation up front. */
void kt_online_wait(kt_online *on);

/* Hold the background thread after its job in progress (no compilation,
 * verification or storing) until the next kt_online_run or
 * kt_online_wait, so that a benchmark can time something else meanwhile
 * on a machine our compilers do not share.  With wait, wait for that job
 * first.  True when nothing of ours runs now (NULL: true). */
bool kt_online_hold(kt_online *on, bool wait);

#endif /* KT_ONLINE_H */
