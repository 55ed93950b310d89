/* strategy.h - the interface every search strategy implements.
 *
 * A strategy is a table of function pointers (kt_strategy) in a registry
 * (strategy.c); adding one is adding one file.  The tuner asks it for
 * configurations (propose), evaluates them (from the database or by
 * measuring) and reports each outcome back (observe).  Strategies only
 * ever propose valid configurations, and are deterministic for a seed.
 * Budgets are enforced by the tuner, not by strategies.
 *
 * Observation contract: every configuration of a batch is observed before
 * the next propose call, except one the run evaluated before (it was
 * observed then, and is not evaluated or observed again) and except when
 * the budget runs out (the run then ends).  Configurations the strategy did
 * not propose are observed too (the default configuration, evaluated
 * first).
 */
#ifndef KT_STRATEGY_H
#define KT_STRATEGY_H

#include "core/space.h"
#include "search/objective.h"

#define KT_STRATEGY_ABI 1

/* The strategy a run uses unless told otherwise: the best performer of the
 * replayed strategy benchmark (bench/search_bench.sh, docs/SEARCH.md).  On
 * the four CPU SGEMM spaces recorded one shape at a time on an idle
 * machine (repeatable: rank correlation 0.95-0.98 between recordings),
 * local_search had the best median at 2% of the space on three, and needed
 * the fewest evaluations to reach 95% of the optimum on all four and 99% on
 * three (median of 50 seeds).  model_guided led on a noisier recording made
 * several shapes at a time, whose optimum did not repeat.  On the GPU
 * development recordings (KTT's CoulombSum3d, two H100 recordings,
 * bench/public_bench.sh dev) it had the best mean at 25 evaluations on all
 * seven spaces and was within 0.004 of the best at 50 to 400.  On the
 * held-out public recordings ensemble and genetic do better on average
 * (docs/SEARCH.md, "GPU recordings"). */
#define KT_STRATEGY_DEFAULT KTUNE_STRATEGY_DEFAULT

typedef struct kt_strategy_opts {
    uint64_t seed;
    /* Evaluations the run allows, the default configuration's included;
     * the space size when only time (or nothing) limits the run.  A hint
     * for schedules (annealing temperature): the tuner enforces it. */
    uint64_t budget;
    /* What the cost of a result is (history.h); 0 (zero-filled opts):
     * time. */
    kt_objective objective;
} kt_strategy_opts;

typedef struct kt_strategy {
    int abi;                 /* KT_STRATEGY_ABI */
    const char *name;
    const char *summary;     /* one line for --help */
    /* The space is built (kt_space_build, or kt_space_build_sample for a
     * uniform strategy) and outlives the state. */
    int (*init)(kt_space *space, const kt_strategy_opts *opts, void **state,
                kt_diag *diag);
    /* Write up to max configurations (n * nparams entries) into out; *n = 0
     * means the strategy has nothing more to propose. */
    int (*propose)(void *state, uint16_t *out, size_t max, size_t *n);
    /* The result of a proposed configuration; NULL when the strategy does
     * not learn from results. */
    void (*observe)(void *state, const uint16_t *cfg, const kt_result *r);
    void (*free)(void *state);
    /* Its proposals are uniform draws without replacement, so a uniform
     * random sample of a space too large to list serves it as well as the
     * whole space (kt_space_build_sample). */
    bool uniform;
    /* It proposes every valid configuration: other problems' winners
     * would only be evaluated twice, and a complete recording is one run
     * of it (tune/benchmark.c). */
    bool exhaustive;
    /* It keeps the best configuration per behaviour cell: a run with it
     * reports that map (kt_tune_opts.map implied). */
    bool implies_map;
} kt_strategy;

const kt_strategy *kt_strategy_find(const char *name);
/* The first registered strategy with .exhaustive. */
const kt_strategy *kt_strategy_exhaustive(void);
/* The registered strategies, for listing. */
size_t kt_strategy_count(void);
const kt_strategy *kt_strategy_at(size_t i);

#endif /* KT_STRATEGY_H */
