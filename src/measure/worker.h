/* worker.h - evaluate configurations in an isolated worker process.
 *
 * The worker is a separate program (ktune-worker, worker_proto.h says why
 * not a fork) that owns the kernel's buffers.  A kernel that crashes, hangs,
 * writes out of bounds or into its inputs takes down only the worker: the
 * tuner classifies the configuration (crash with its signal, timeout, wrong
 * result, runtime error), starts a fresh worker and goes on.  A worker that
 * dies is replaced and the configuration measured once more before it is
 * called a crash, since something outside (the OOM killer, a user's kill)
 * may have ended it.  Reference outputs are computed once, by the first
 * worker, into memory shared with all later ones.
 *
 * Hangs: the worker announces each batch of kernel calls; a batch may take
 * hang_factor (WORKER_HANG_FACTOR) times the reference's own time per call, plus
 * WORKER_HANG_SLACK_S, counted in the worker's processor time (a loaded
 * machine slows a kernel without making it hang, while a hung kernel keeps
 * burning its share) and at most WORKER_HANG_WALL times that in wall-clock
 * time (a kernel that hangs without spinning).  An explicit timeout_s also
 * caps a whole evaluation.
 *
 * Threads: a kt_worker is used by one thread; it may be created whatever
 * threads the process runs.
 */
#ifndef KT_WORKER_H
#define KT_WORKER_H

#include "backend/backend.h"

/* A batch of kernel calls may take this many times the reference's time
 * per call, plus the slack, before it counts as hung. */
#define WORKER_HANG_FACTOR 100.0
#define WORKER_HANG_SLACK_S 1.0
#define WORKER_HANG_WALL 10.0
/* Host-side work between batches (loading, verifying) may take this long. */
#define WORKER_HOST_LIMIT_S 60.0
/* Without an explicit limit, the first worker's start (the reference run,
 * unoptimised and of unknown length) may take this long. */
#define WORKER_START_LIMIT_S 300.0
/* Share of physical memory the kernel's buffers may take by default. */
#define WORKER_MEMORY_SHARE 0.5

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
    double energy_warmup_s; /* before the first energy reading on the device,
                               the kernel runs back to back this long, so that
                               every configuration's power is read at the
                               temperature the work brings the chip to, not the
                               first ones cold (15); 0: none */
    double hang_factor;   /* a batch of calls may take this many times the
                             reference's time per call, plus the slack (above),
                             before it counts as hung (WORKER_HANG_FACTOR);
                             raise it where calls run far slower than measured,
                             as under a profiler that replays each kernel */
    double timeout_s;     /* > 0: one evaluation, all repetitions included, may
                             take at most this long; 0 (the default): bounded
                             by the hang rule above alone */
    uint64_t seed;        /* input data */
    uint64_t max_memory;  /* bytes the kernel's buffers may take; 0: the share
                             WORKER_MEMORY_SHARE of physical memory */
    const char *worker_path; /* the worker program; NULL: $KTUNE_WORKER, else
                                ktune-worker beside the running executable,
                                else ktune-worker on PATH */
} kt_measure_opts;

/* The defaults above. */
kt_measure_opts kt_measure_defaults(void);

typedef struct kt_worker kt_worker;

/* Start a worker for spec/prob on backend be (opened in the worker with
 * be_opts).  The reference outputs come from ref_artifact, which was
 * compiled with the reference kernel (or the default configuration,
 * ref_cfg, whose values also give the reference's launch geometry).  Fails
 * when the buffers would pass the memory limit, or when the reference
 * itself cannot produce outputs.  spec and prob must outlive the worker,
 * and spec must still be at spec->path (the worker loads it again). */
int kt_worker_new(const kt_backend *be, const kt_backend_opts *be_opts,
                  const kt_spec *spec, const kt_problem *prob, const char *ref_artifact,
                  const uint16_t *ref_cfg, const kt_measure_opts *opts,
                  kt_worker **out, kt_diag *diag);
void kt_worker_free(kt_worker *w);

/* Evaluate the compiled configuration cfg (value indices) at artifact; out
 * receives the classified result.  Returns an error only when no worker
 * can be run. */
int kt_worker_eval(kt_worker *w, const char *artifact, const uint16_t *cfg,
                   kt_result *out, kt_diag *diag);

/* The phases of one evaluation in the worker program (worker_child.c),
 * in order.  Their wall-clock seconds, summed over a run, say what limits
 * how many configurations a minute the tuner measures. */
#define KT_WORKER_PHASES(X)                                                   \
    X(load)      /* read the artifact, load the module, fit the launch */    \
    X(prepare)   /* poison the outputs */                                     \
    X(first_run) /* the one run whose outputs are verified */                 \
    X(read)      /* read the outputs back */                                  \
    X(verify)    /* compare them with the reference */                        \
    X(time)      /* the timed repetitions and the energy window */            \
    X(unload)

#define KT_PHASE_ENUM(name) KT_PHASE_##name,
typedef enum kt_worker_phase { KT_WORKER_PHASES(KT_PHASE_ENUM) KT_PHASE_COUNT } kt_worker_phase;
#undef KT_PHASE_ENUM

/* The phase's name ("load", ...). */
const char *kt_worker_phase_name(kt_worker_phase p);
/* Adds to phase_s[0..KT_PHASE_COUNT) the seconds each phase took in all
 * of w's evaluations so far, whichever worker process ran them. */
void kt_worker_phases_add(const kt_worker *w, double *phase_s);

/* The worker program's whole life (its main calls this): serve the tuner
 * that started it, then return the exit status.  be, when not NULL,
 * replaces the backend the tuner names (tests use a stand-in).  Returns 2
 * without doing anything when argv is not a worker's. */
int kt_worker_serve(int argc, char **argv, const kt_backend *be);

/* The argument that marks a worker's argv[1]. */
#define KT_WORKER_ARG "--ktune-worker"

#endif /* KT_WORKER_H */
