/* worker.h - evaluate configurations in an isolated worker process.
 *
 * The worker is a forked child that owns the kernel's buffers.  A kernel
 * that crashes, hangs, writes out of bounds or into its inputs takes down
 * only the worker: the tuner classifies the configuration (crash with its
 * signal, timeout, wrong result, runtime error), starts a fresh worker and
 * goes on.  Reference outputs are computed once, by the first worker, into
 * memory shared with all later ones.
 *
 * Threads: a kt_worker is used by one thread.  It forks: create it before
 * starting threads.
 */
#ifndef KT_WORKER_H
#define KT_WORKER_H

#include "backend/backend.h"

typedef struct kt_measure_opts {
    int min_reps;         /* timed repetitions at least (5) */
    int max_reps;         /* and at most (200) */
    double min_time_s;    /* keep repeating until this much was timed (0.2) */
    double max_time_s;    /* stop repeating after this much (3) */
    double max_spread;    /* repeat more while (p75-p25)/median exceeds it (0.05) */
    double energy_window_s; /* where energy is readable, the kernel also runs
                               back to back for at least this long, between two
                               steps of the energy counter, for its average
                               power (0.3); 0: no energy */
    double timeout_s;     /* one evaluation, all repetitions included (30) */
    uint64_t seed;        /* input data */
} kt_measure_opts;

/* The defaults above. */
kt_measure_opts kt_measure_defaults(void);

typedef struct kt_worker kt_worker;

/* Start a worker for spec/prob on backend (whose ctx is open).  The
 * reference outputs come from ref_artifact, which was compiled with the
 * reference kernel (or the default configuration, ref_cfg, whose values
 * also give the reference's launch geometry).  Fails when the reference
 * itself cannot produce outputs.  spec and prob must outlive the worker. */
int kt_worker_new(const kt_backend *be, void *be_ctx, const kt_spec *spec,
                  const kt_problem *prob, const char *ref_artifact,
                  const uint16_t *ref_cfg, const kt_measure_opts *opts,
                  kt_worker **out, kt_diag *diag);
void kt_worker_free(kt_worker *w);

/* Evaluate the compiled configuration cfg (value indices) at artifact; out
 * receives the classified result.  Returns an error only when no worker
 * can be run. */
int kt_worker_eval(kt_worker *w, const char *artifact, const uint16_t *cfg,
                   kt_result *out, kt_diag *diag);

#endif /* KT_WORKER_H */
