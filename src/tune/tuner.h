/* tuner.h - one tuning run: a spec, a problem, a strategy and a budget in;
 * measurements into the database and the best configuration out.
 *
 * Each proposed configuration is answered from the results database when
 * it was measured before on this device for this kernel source and problem
 * (so an interrupted run resumes); otherwise an executor (tune/exec.h)
 * compiles it (several at a time; where the backend streams builds, each
 * is measured as soon as it is built while the rest still compile) and
 * measures it in an isolated worker (one per device of opts.devices), and
 * each result is committed on the tuner's thread as it comes back.  The
 * default configuration is evaluated first, so the report can give the
 * speed-up over it.
 *
 * With a replay (store/replay.h) nothing is compiled, run or stored: every
 * evaluation is answered from the recording and counted as measured, and
 * no backend is needed (a GPU recording replays on any machine).  A
 * configuration the recording lacks stops the run with KT_ENOTFOUND
 * naming it: a partial recording would bias any comparison made on it.
 * A recording read with no spec (store/recording.h) also gives the space:
 * its recorded configurations are the valid ones (kt_replay_space).
 *
 * The objective (search/objective.h) is the strategy's cost and decides
 * the best; one that needs energy is refused up front when no energy will
 * be read (an energy window of 0), and otherwise when the first correct
 * result, measured, stored or replayed, carries none: the run then stops
 * with KT_EINVAL naming it, instead of optimising time unawares.  A later
 * correct result without energy (one reading failed) cannot be ranked: it
 * is counted (report.no_energy) and is neither best nor on the front.
 */
#ifndef KT_TUNER_H
#define KT_TUNER_H

#include "tune/exec.h"
#include "search/archive.h"
#include "search/objective.h"
#include "search/strategy.h"
#include "store/replay.h"
#include "store/winners.h"

#include <signal.h>

/* Other problems' winners a run starts from unless told otherwise: the
 * value the replayed strategy benchmark chose (docs/SEARCH.md). */
#define KT_WARM_DEFAULT KTUNE_WARM_DEFAULT

/* Progress after each evaluated configuration (the public struct). */
typedef ktune_progress kt_progress;
typedef ktune_progress_fn kt_progress_fn;

typedef struct kt_tune_opts {
    const char *problem;    /* "M=256,N=256" overrides, or NULL */
    const char *strategy;   /* registered name, or one of tune/model_start.h;
                               NULL: KT_STRATEGY_DEFAULT */
    kt_budget budget;       /* KT_BUDGET_NONE: the spec's, else unlimited */
    double time_limit_s;    /* > 0: no new measurement starts after this many
                               seconds, whatever the budget (both apply) */
    uint64_t seed;
    const char *db_path;
    kt_backend_opts backend;
    kt_measure_opts measure;
    kt_progress_fn progress;
    void *progress_user;
    bool no_overlap;        /* compile a whole batch before measuring any of it
                               (default: measure each configuration as soon as
                               it is built, where the backend streams builds) */
    const kt_replay *replay; /* answer from this recording; NULL: measure.
                                Budgets in seconds are refused with it. */
    const uint16_t *start;  /* nstart configurations (value indices in spec
                               order, e.g. a predictor's top k) evaluated
                               after the default and before the strategy's
                               proposals, which observes them; invalid ones
                               are skipped */
    size_t nstart;
    bool start_only;        /* evaluate the start configurations only: not
                               the default, no strategy proposals */
    size_t warm;            /* without start configurations, and unless the
                               strategy is exhaustive: evaluate first the
                               fastest configurations of up to this many other
                               problems of the kernel on this device, nearest
                               first (tune/warm.h; at most a quarter of the
                               budget); from the replay's database when
                               replaying.  0: none */
    bool map;               /* report the MAP-Elites map of what the run
                               evaluated (any strategy; see report.map);
                               implied by a strategy's .implies_map */
    kt_objective objective; /* what the strategy minimises and "best" means
                               (search/objective.h); all but time need
                               energy (see above) */
    const volatile sig_atomic_t *cancel; /* when set and *cancel turns nonzero
                               (a signal handler's flag), no new evaluation
                               starts and kt_tune returns KT_OK with what was
                               done, as if the budget were spent; a failure
                               seen after it is not stored (the signal may
                               have reached the compiler or the worker) */
    bool retry_failed;      /* measure again the configurations the database
                               holds as failures (a new result replaces the
                               stored one); default: a stored failure is
                               reused like any result */
    const char *model;      /* with a strategy of tune/model_start.h: the
                               trained model whose top predictions are the
                               start configurations (start is ignored) */
    size_t top;             /* how many predictions (default 10), or with
                               transfer how many of its configurations */
    const struct ktune_transfer *transfer; /* what other devices' recordings
                               of the kernel predict (tune/transfer.h): its top
                               configurations valid here are evaluated after
                               the default (instead of it with start_only) and
                               before the strategy's proposals, in place of
                               warm; NULL: none */
    kt_warn_fn warn;        /* each warning (a default the spec's conditions
                               exclude, a recording's rows not kept); NULL:
                               none */
    void *warn_user;
    uint32_t shard;         /* with nshards > 1: the run sees only the valid
                               configurations whose index in the space's
                               order is shard modulo nshards (0-based), so
                               nshards runs cover the space exactly once;
                               the budget is a share of that share */
    uint32_t nshards;       /* 0 or 1: the whole space */
    const int *devices;     /* one worker per device ordinal, each fed by a
                               thread of its own (tune/exec.h); NULL: one
                               worker on backend.device */
    size_t ndevices;
    kt_exec_open_fn exec_open; /* where configurations are measured (an MPI
                               executor); NULL: kt_exec_local_open */
    void *exec_user;        /* given to exec_open */
    int exec_jobs;          /* with exec_open: the compilers it runs at once
                               in all (an MPI executor: every rank's --jobs),
                               which size the batches, and batches go ahead
                               of the measurements as with streamed builds
                               (it hands work out as its ranks free up);
                               0: backend.jobs */
} kt_tune_opts;

typedef struct kt_tune_report {
    char device[128];
    char *problem;          /* canonical problem key */
    uint64_t space_size;
    bool space_sampled;     /* space_size counts a uniform sample of a space
                               too large to list (random search) */
    uint64_t measured;      /* new measurements this run */
    uint64_t cached;        /* answered from the database */
    uint64_t by_status[KT_STATUS_COUNT];  /* this run's outcomes */
    uint64_t no_energy;     /* correct without energy under an objective that
                               needs it, after the first with: not ranked */
    double seconds;
    double compile_wait_s;  /* of which spent waiting for the compiler */
    double start_s;         /* compiling the reference, starting workers */
    double measure_s;       /* in the worker's evaluations, messages included
                               (these three: summed over the workers) */
    double record_s;        /* storing results */
    double phase_s[KT_PHASE_COUNT]; /* the worker's evaluations by phase
                               (measure/worker.h), inside measure_s */
    double flops;           /* per kernel call; NAN without FlopCount */
    char *best_config;      /* NULL when nothing succeeded */
    kt_result best;         /* of least cost by the objective */
    char *default_config;
    kt_result default_result; /* status tells whether it succeeded */
    bool default_skipped;   /* start_only: the default was not evaluated */
    size_t warm_starts;     /* other problems' winners evaluated first */
    kt_map *map;            /* with opts.map: the fastest configuration per
                               cell of the spec's behaviour dimensions
                               (search/archive.h) among all this run
                               evaluated, measured or from the database */
    kt_front front;         /* pareto: the time/energy front of what the run
                               evaluated, fastest first; stored in the
                               database (kt_db_front_mark) unless replayed */
} kt_tune_report;

kt_tune_opts kt_tune_defaults(void);
/* The energy window of a run minimising o: asked where it is 0 or more (0:
 * no energy), else 1 s where o reads energy or the run keeps a map along
 * measured energy or power (map_reads_energy), and the measure layer's
 * default (0.3 s) where only time counts.  On the H200's SGEMM a 1 s
 * window's reading retests at 1.1 % rms against 2.3 % at 0.3 s, for 1.35 s
 * a configuration against 0.70 s: less noise for the device time than a
 * second 0.3 s reading gives, worth it where energy is what is tuned or
 * what places a configuration in the map. */
double kt_tune_energy_window(double asked, kt_objective o, bool map_reads_energy);

int kt_tune(const kt_spec *spec, const kt_tune_opts *opts, kt_tune_report *out,
            kt_diag *diag);
void kt_tune_report_clear(kt_tune_report *r);

/* The configuration results are checked against, into ref (nparams
 * values): the default, unless the spec has no reference kernel and its
 * own conditions exclude the default (KTT's CoulombSum3d: a 16x1 work
 * group against "X * Y >= 64"), as it may compute something else; then
 * the first valid configuration of the built space, and true (warn). */
bool kt_tune_reference(kt_space *space, uint16_t *ref);

#endif /* KT_TUNER_H */
