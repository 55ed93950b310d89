/* population.h - a set of configurations that a population strategy
 * (genetic algorithm, differential evolution, particle swarm) measures
 * together, and the propose loop they share.
 *
 * kt_pop_propose proposes the members whose cost is unknown; when every
 * member's cost is known it calls the strategy's advance function (breed
 * the next generation, move the swarm) and proposes again.  A population
 * that keeps producing only configurations already known has converged:
 * after STUCK_ROUNDS such rounds its worst members are replaced by unseen
 * random configurations (immigrants), so every propose call measures
 * something new until the space is exhausted.
 *
 * Before the first generation a population measures unseen random
 * configurations until twice its size is known (kt_pop_sample), and starts from the
 * best half of what is then known: on the recorded GPU and CPU spaces of
 * docs/SEARCH.md a first generation of random members, bred at budgets of
 * 25 evaluations, did worse than the same budget of random samples
 * (CoulombSum3d: 0.95-0.985 of the optimum against 0.989).
 */
#ifndef KT_POPULATION_H
#define KT_POPULATION_H

#include "search/moves.h"

typedef struct kt_pop {
    size_t size, np;
    uint16_t *cfg;        /* size * np value indices */
    uint64_t *top;        /* scratch for seeding: size built indices */
} kt_pop;

int kt_pop_init(kt_pop *p, size_t size, size_t np);
void kt_pop_clear(kt_pop *p);

/* A population size for a run of budget evaluations: budget / 8, within
 * [lo, hi], so that a small budget is not spent on the first generation. */
size_t kt_pop_size_for(uint64_t budget, size_t lo, size_t hi);

/* Member i. */
uint16_t *kt_pop_at(const kt_pop *p, size_t i);

/* Before seeding: propose the unseen random configurations still due (as
 * many as fit in out) until twice the population is known; true when it
 * proposed some (*n of them) or failed (*rc). */
bool kt_pop_sample(kt_pop *p, kt_history *h, kt_rng *rng, uint16_t *out, size_t max,
                   size_t *n, int *rc);

/* Fill the members: the best configurations observed first (half of what
 * is known, at least half the population and at most all of it: after
 * kt_pop_sample, in an ensemble or after a predictor's picks, a new
 * population starts from what is known), then unseen random ones (the
 * first member again when none is left). */
void kt_pop_seed(kt_pop *p, const kt_history *h, kt_rng *rng);

/* Member i's cost: +inf while unknown or failed. */
double kt_pop_cost(const kt_pop *p, const kt_history *h, size_t i);

/* The member of least cost. */
size_t kt_pop_best(const kt_pop *p, const kt_history *h);

/* Advance a population whose members' costs are all known; a KT_E* code on
 * failure. */
typedef int (*kt_pop_advance)(void *state);

/* A strategy's propose for the population p (see above). */
int kt_pop_propose(kt_pop *p, kt_history *h, kt_rng *rng, kt_pop_advance advance,
                   void *state, uint16_t *out, size_t max, size_t *n);

#endif /* KT_POPULATION_H */
