/* history.h - what a strategy knows of its run: the cost of every observed
 * configuration, the configurations it proposed and has not seen observed
 * yet, the best so far, and the batch one propose call fills.
 *
 * Configurations are keyed by their index in the built space.  The cost is
 * the run's objective (objective.h: by default the median time in ms) of a
 * configuration that ran correctly and +inf for one that failed: every
 * strategy minimises it.  Strategies ask the history
 * before proposing, so a configuration is never proposed twice, and one
 * whose cost is known (from any source: the default, another strategy of
 * an ensemble, the database) is answered without a measurement.
 *
 * A proposal that is still unobserved when the next batch begins is settled
 * as failed (strategy.h: the tuner observes every proposal before the next
 * propose call unless the run ends).  That keeps every strategy moving: each
 * propose call either adds unseen configurations or reports the end.
 */
#ifndef KT_HISTORY_H
#define KT_HISTORY_H

#include "core/space.h"
#include "search/objective.h"

typedef struct kt_history_slot kt_history_slot;

typedef struct kt_history {
    kt_space *space;
    kt_objective objective;    /* what the cost of a result is */
    size_t np;                 /* parameters per configuration */
    kt_history_slot *slots;    /* open addressing by built index */
    size_t cap, used;          /* slots allocated (power of two), occupied */
    uint64_t *pending;         /* proposed, not yet observed */
    size_t npending, pending_cap;
    uint64_t nknown;           /* configurations with a known cost */
    uint64_t best;             /* index of the best, UINT64_MAX before one */
    double best_cost;          /* +inf before a success */
    bool oom;                  /* an allocation failed in observe */
} kt_history;

/* The space must be built (kt_space_build), not empty (KT_EEMPTY) and
 * outlive the history; costs are objective's (kt_objective_cost). */
int kt_history_init(kt_history *h, kt_space *space, kt_objective objective);
void kt_history_clear(kt_history *h);

/* Record an observation (configurations outside the space are ignored).
 * An allocation failure sets h->oom; the next batch reports KT_ENOMEM. */
void kt_history_observe(kt_history *h, const uint16_t *cfg, const kt_result *r);

/* A strategy's observe when its state begins with its kt_history. */
void kt_history_observe_state(void *state, const uint16_t *cfg, const kt_result *r);

/* The cost of configuration idx when it was observed. */
bool kt_history_cost(const kt_history *h, uint64_t idx, double *cost);
/* The same, by configuration; false also for one outside the space. */
bool kt_history_cost_of(const kt_history *h, const uint16_t *cfg, double *cost);
/* The indices of up to k observed configurations of least (finite) cost,
 * best first, into idx; returns how many. */
size_t kt_history_top(const kt_history *h, size_t k, uint64_t *idx);
/* Observed or proposed. */
bool kt_history_seen(const kt_history *h, uint64_t idx);
/* Every configuration of the space observed or proposed. */
bool kt_history_exhausted(const kt_history *h);

/* ---------------------------------------------------------------- batch */

/* The configurations one propose call writes (max of them into out). */
typedef struct kt_batch {
    kt_history *h;
    uint16_t *out;
    size_t max, n;
    int rc;                    /* first failure; the batch then takes nothing */
} kt_batch;

/* Settle the previous batch's unobserved proposals (as failed) and start an
 * empty one. */
kt_batch kt_batch_begin(kt_history *h, uint16_t *out, size_t max);
bool kt_batch_full(const kt_batch *b);
/* Append cfg (valid) unless it was seen or the batch is full; true when
 * appended. */
bool kt_batch_add(kt_batch *b, const uint16_t *cfg);
/* Append every unseen configuration of cfgs (n of them) that fits; true
 * when all n have known costs, i.e. nothing is left to measure. */
bool kt_batch_add_all(kt_batch *b, const uint16_t *cfgs, size_t n);
/* The propose call's result: *n configurations, or the failure. */
int kt_batch_end(const kt_batch *b, size_t *n);

#endif /* KT_HISTORY_H */
