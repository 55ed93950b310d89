/* moves.h - constraint-aware moves that strategies share: a fresh unseen
 * configuration, the valid configuration nearest to any point of the
 * parameter grid, and the valid neighbours of a configuration.
 *
 * Population methods (differential evolution, particle swarm) work on
 * points in index coordinates: one real number per parameter, the position
 * among that parameter's values.  kt_move_repair maps such a point (or a
 * crossed-over or mutated, possibly invalid, configuration) back to a valid
 * configuration, so every strategy proposes only valid ones.
 */
#ifndef KT_MOVES_H
#define KT_MOVES_H

#include "search/history.h"

/* An unseen valid configuration, uniform while most are unseen (random
 * draws, then a scan from a random start); false when all were seen. */
bool kt_move_fresh(const kt_history *h, kt_rng *rng, uint16_t *cfg);

/* Add unseen valid configurations to b until the history knows `known`
 * with those b holds, b is full or none is left (scratch: one
 * configuration): the random samples a strategy starts from. */
void kt_move_sample(kt_batch *b, kt_rng *rng, uint64_t known, uint16_t *scratch);

/* The valid configuration nearest to target (index coordinates, one per
 * parameter), chosen parameter by parameter in spec order: each takes the
 * value closest to its target for which the choices so far can still be
 * completed (a prefix search in the built space).  The space must be
 * built and not empty. */
void kt_move_repair(const kt_space *s, const double *target, uint16_t *cfg);

/* The same for a configuration whose values may violate the conditions. */
void kt_move_repair_cfg(const kt_space *s, const uint16_t *cand, uint16_t *cfg);

/* The valid Hamming neighbours of cfg (one parameter changed), those one
 * value away first, each group in random order: *out (n * nparams entries)
 * is allocated here and freed by the caller. */
int kt_move_neighbours(kt_space *s, const uint16_t *cfg, kt_rng *rng,
                       uint16_t **out, size_t *n);

/* Index coordinates of a configuration. */
void kt_move_coords(const uint16_t *cfg, size_t np, double *x);

/* The largest index of parameter d (its value count minus one). */
double kt_move_top(const kt_space *s, size_t d);

#endif /* KT_MOVES_H */
