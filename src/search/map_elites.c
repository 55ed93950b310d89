/* map_elites.c - MAP-Elites quality-diversity search (as in KernelFoundry,
 * the evolutionary GPU-kernel generator): an archive over the spec's
 * behaviour dimensions (archive.h: threads per block, shared memory bytes,
 * register tile, ...) keeps the fastest configuration of each cell, so a
 * run leaves a map of diverse good configurations, and the search keeps
 * exploring every kind of configuration it has found instead of converging
 * on one.
 *
 * A configuration's group (its bins along the predetermined dimensions,
 * archive.h) is known before it is measured, so the run starts by filling
 * the map: an unseen random configuration from each group that holds any,
 * in random order, skipping groups already filled (by the default, or
 * what else is known), a sample stratified over the behaviours.  Without
 * measured dimensions a group is a cell.  On the recorded CPU SGEMM spaces
 * that leaves a better map than random, local or genetic search at every
 * budget from 2% to 20% of the space, while its best configuration is
 * about as good as random search's (docs/PERFORMANCE.md); filling only as
 * many cells as half the budget before breeding left a worse map (0.39
 * against 0.51 of the cells' optima after 24 evaluations of a 256^3 space,
 * median of 20 seeds).  A measured dimension (energy, power, time) places
 * a configuration only once measured, and its bins are cut from the values
 * measured so far: while fewer results are placed than the measured
 * dimensions make cells (the product of their Bins), the fill goes on with
 * unseen random configurations (with every dimension measured, that is
 * the whole fill).  Stopping it as soon as each measured dimension had its
 * bins left a sparser time/energy map (median 8 cells against 10 of 16
 * after 24 evaluations of the H100 wgmma GEMM recording, 50 seeds;
 * bench/map_measured.sh).
 *
 * Then each child has a parent drawn uniformly among the occupied cells'
 * elites; half the time it is first crossed (uniformly, parameter by
 * parameter) with the elite of another occupied cell and repaired to the
 * nearest valid configuration, and when that is not new it moves to an
 * unseen valid neighbour (one parameter changed: kt_move_neighbours), one a
 * value away unless, one time in FAR, any value may be taken.  A parent
 * with nothing new around it is drawn again; after TRIES such draws an
 * unseen random configuration is taken instead.  Every observation, the
 * strategy's own or not, is offered to the archive.
 */
#include "search/archive.h"
#include "search/moves.h"
#include "search/strategy.h"

#include <stdlib.h>
#include <string.h>

#define TRIES 8
#define FAR 4

typedef struct me_state {
    kt_history hist;      /* what was observed and proposed */
    kt_rng rng;
    kt_space *space;
    kt_archive *arch;
    uint64_t *groups;     /* the groups that hold configurations, shuffled */
    uint64_t ngroups, next; /* how many; the next to fill */
    uint16_t *child;      /* scratch: one configuration */
    int rc;               /* an observation the archive could not keep */
} me_state;

static void me_free(void *state)
{
    me_state *s = state;
    if (!s)
        return;
    kt_history_clear(&s->hist);
    kt_archive_free(s->arch);
    free(s->groups);
    free(s->child);
    free(s);
}

/* The groups to fill first, in random order (see the top). */
static int plan_groups(me_state *s)
{
    uint64_t n = kt_archive_ngroups(s->arch);
    if (!(s->groups = malloc(n * sizeof *s->groups)))
        return KT_ENOMEM;
    for (uint64_t g = 0; g < n; g++)
        if (kt_archive_group_size(s->arch, g) > 0)
            s->groups[s->ngroups++] = g;
    for (uint64_t i = s->ngroups; i > 1; i--) {
        uint64_t j = kt_rng_below(&s->rng, i), t = s->groups[i - 1];
        s->groups[i - 1] = s->groups[j];
        s->groups[j] = t;
    }
    return KT_OK;
}

static int me_init(kt_space *space, const kt_strategy_opts *opts, void **state,
                   kt_diag *diag)
{
    me_state *s = calloc(1, sizeof *s);
    if (!s)
        return KT_ENOMEM;
    s->space = space;
    kt_rng_seed(&s->rng, opts->seed);
    int rc = kt_history_init(&s->hist, space, opts->objective);
    if (rc == KT_OK && !(s->child = calloc(kt_space_nparams(space) + 1, sizeof *s->child)))
        rc = KT_ENOMEM;
    if (rc == KT_OK)
        rc = kt_archive_new(space, &s->arch, diag);
    if (rc == KT_OK)
        rc = plan_groups(s);
    if (rc != KT_OK) {
        me_free(s);
        return rc;
    }
    *state = s;
    return KT_OK;
}

static void me_observe(void *state, const uint16_t *cfg, const kt_result *r)
{
    me_state *s = state;
    uint64_t idx;
    kt_history_observe(&s->hist, cfg, r);
    if (kt_space_index_of(s->space, cfg, &idx) != KT_OK)
        return;
    int rc = kt_archive_offer(s->arch, idx, kt_objective_cost(s->hist.objective, r), r);
    if (s->rc == KT_OK)
        s->rc = rc;
}

/* Propose an unseen configuration of the next group to fill unless that
 * group is filled or has none left; the group is passed either way. */
static void add_to_next_group(me_state *s, kt_batch *b)
{
    uint64_t g = s->groups[s->next++];
    if (kt_archive_group_filled(s->arch, g))
        return;
    uint64_t n = kt_archive_group_size(s->arch, g), at = kt_rng_below(&s->rng, n);
    for (uint64_t k = 0; k < n; k++) {
        uint64_t idx = kt_archive_group_member(s->arch, g, (at + k) % n);
        if (!kt_history_seen(&s->hist, idx)) {
            kt_batch_add(b, kt_space_at(s->space, idx));
            return;
        }
    }
}

/* The elite of an occupied cell drawn uniformly. */
static const uint16_t *random_elite(me_state *s)
{
    uint64_t cell = kt_archive_nth(s->arch, kt_rng_below(&s->rng, kt_archive_occupied(s->arch)));
    uint64_t idx = 0;
    double cost;
    kt_archive_elite(s->arch, cell, &idx, &cost);
    return kt_space_at(s->space, idx);
}

/* Propose a random unseen valid neighbour of cfg; false when it has none. */
static bool add_neighbour(me_state *s, const uint16_t *cfg, kt_batch *b)
{
    uint16_t *nbrs = NULL;
    size_t n = 0, np = kt_space_nparams(s->space);
    int rc = kt_move_neighbours(s->space, cfg, &s->rng, &nbrs, &n);
    bool added = false;
    if (rc != KT_OK)
        b->rc = rc;
    size_t at = n && kt_rng_below(&s->rng, FAR) == 0 ? kt_rng_below(&s->rng, n) : 0;
    for (size_t k = 0; rc == KT_OK && k < n && !added; k++)
        added = kt_batch_add(b, nbrs + ((at + k) % n) * np);
    free(nbrs);
    return added;
}

/* One child of a random elite (see the top); false when TRIES parents gave
 * nothing new. */
static bool add_child(me_state *s, kt_batch *b)
{
    size_t np = kt_space_nparams(s->space);
    for (int t = 0; t < TRIES && b->rc == KT_OK; t++) {
        const uint16_t *parent = random_elite(s);
        memcpy(s->child, parent, np * sizeof *s->child);
        if (kt_archive_occupied(s->arch) > 1 && kt_rng_below(&s->rng, 2)) {
            const uint16_t *mate = random_elite(s);
            for (size_t d = 0; d < np; d++)
                if (kt_rng_below(&s->rng, 2))
                    s->child[d] = mate[d];
            kt_move_repair_cfg(s->space, s->child, s->child);
            if (kt_batch_add(b, s->child))
                return true;
        }
        if (add_neighbour(s, s->child, b))
            return true;
    }
    return false;
}

static int me_propose(void *state, uint16_t *out, size_t max, size_t *n)
{
    me_state *s = state;
    if (s->rc != KT_OK) {
        *n = 0;
        return s->rc;
    }
    kt_archive_refresh(s->arch);
    bool fill = kt_archive_few_placed(s->arch);
    kt_batch b = kt_batch_begin(&s->hist, out, max);
    while (!kt_batch_full(&b)) {
        if (s->next < s->ngroups) {
            add_to_next_group(s, &b);
            continue;
        }
        if (!fill && kt_archive_occupied(s->arch) > 0 && add_child(s, &b))
            continue;
        if (b.rc != KT_OK || !kt_move_fresh(&s->hist, &s->rng, s->child) ||
            !kt_batch_add(&b, s->child))
            break;
    }
    return kt_batch_end(&b, n);
}

const kt_strategy kt_strategy_map_elites = {
    .abi = KT_STRATEGY_ABI,
    .name = "map_elites",
    .summary = "MAP-Elites: the fastest configuration per behaviour cell, bred "
               "from random cells",
    .init = me_init,
    .propose = me_propose,
    .observe = me_observe,
    .free = me_free,
    .implies_map = true,
};
