/* walk.h - a position that moves through the space, shared by the
 * trajectory strategies (local search, simulated annealing): the current
 * configuration, its valid neighbours in the order to try them, and
 * restarts.
 *
 * The first start is the best of at least `samples` observed
 * configurations (set by the strategy): a kernel's default is often far
 * from good, so unseen random ones make up the shortfall of what is known
 * (the default, a predictor's picks, an ensemble's other results).  Later
 * starts are unseen random configurations.  All are proposed into the
 * batch.
 */
#ifndef KT_WALK_H
#define KT_WALK_H

#include "search/moves.h"

typedef struct kt_walk {
    kt_space *space;
    const kt_history *hist;
    kt_rng *rng;
    size_t np;
    uint16_t *cur;        /* the position */
    bool active;          /* false: restart next */
    bool started;         /* the first start has been made */
    uint64_t samples;     /* observations the first start needs */
    uint16_t *nbrs;       /* cur's valid neighbours (kt_move_neighbours order) */
    size_t nnbrs, next;   /* how many; the next one a strategy looks at */
} kt_walk;

int kt_walk_init(kt_walk *w, kt_space *space, const kt_history *h, kt_rng *rng);
void kt_walk_clear(kt_walk *w);

/* Move to cfg (which may alias w->cur) and list its neighbours. */
int kt_walk_move(kt_walk *w, const uint16_t *cfg);

/* Before the first start, propose the random samples still due (as many
 * as fit in b); true when it proposed some (or b failed). */
bool kt_walk_sample(kt_walk *w, kt_batch *b);

/* Start again (see above).  False when every configuration has been seen;
 * b->rc carries a failure. */
bool kt_walk_restart(kt_walk *w, kt_batch *b);

/* The observations a first start needs in a run of budget evaluations: a
 * twentieth of it, within [3, 9]. */
size_t kt_walk_samples(uint64_t budget);

/* The cost of the position, when known and finite (a start that failed
 * is not a place to walk from). */
bool kt_walk_cost(const kt_walk *w, double *cost);

#endif /* KT_WALK_H */
