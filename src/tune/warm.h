/* warm.h - where a search starts when the database knows the kernel.
 *
 * The fastest configurations of other problems of the same kernel on the
 * same device are good guesses for a new problem: the winners of the
 * nearest problems go first (distance between the logarithms of the
 * problem values), each at most once, skipping those the new problem's
 * conditions reject.
 */
#ifndef KT_WARM_H
#define KT_WARM_H

#include "core/space.h"
#include "store/winners.h"

/* Up to max configurations (value indices, max * spec->nparams entries in
 * out) for a search of prob, from the winners w; *n tells how many. */
int kt_warm_starts(const kt_spec *spec, const kt_problem *prob, kt_space *space,
                   const kt_winners *w, size_t max, uint16_t *out, size_t *n,
                   kt_diag *diag);

#endif /* KT_WARM_H */
