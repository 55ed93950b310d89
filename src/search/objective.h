/* objective.h - what a run minimises: the time of a configuration, its
 * energy, their product, or the time/energy front (pareto), and the front
 * itself.
 *
 * Every strategy minimises one number per result, its cost (history.h):
 * the objective's value for a result that ran correctly, +inf otherwise.
 * pareto has no single number, so its strategies are guided by the energy-
 * delay product (its least value lies on the front, and it weighs both
 * axes alike on a log scale) while the tuner keeps the whole front of what
 * the run evaluated (kt_front below).
 *
 * A result that ran correctly but carries no energy (energy_j NaN: the
 * backend could not read it) has an infinite energy cost: the tuner
 * refuses such a row for an objective that needs energy instead of letting
 * the search treat it as a failure (tuner.c).
 */
#ifndef KT_OBJECTIVE_H
#define KT_OBJECTIVE_H

#include "core/base.h"

typedef ktune_objective kt_objective;

#define KT_OBJECTIVE_TIME KTUNE_OBJECTIVE_TIME
#define KT_OBJECTIVE_ENERGY KTUNE_OBJECTIVE_ENERGY
#define KT_OBJECTIVE_EDP KTUNE_OBJECTIVE_EDP
#define KT_OBJECTIVE_PARETO KTUNE_OBJECTIVE_PARETO
#define KT_OBJECTIVE_COUNT KTUNE_OBJECTIVE_COUNT

/* "time", "energy", "edp", "pareto"; NULL when out of range. */
const char *kt_objective_name(kt_objective o);
/* The objective called name into *out; KT_ENOTFOUND when none is. */
int kt_objective_parse(const char *name, kt_objective *out);
/* Whether the objective reads energy_j (all but time). */
bool kt_objective_needs_energy(kt_objective o);

/* The cost of r under o: ms (time), J (energy), J*ms (edp, pareto) per
 * kernel call when r succeeded with the values the objective reads, else
 * +inf. */
double kt_objective_cost(kt_objective o, const kt_result *r);

/* Whether a is at least as good as b in time and energy and better in
 * one (both successes with energy). */
bool kt_result_dominates(const kt_result *a, const kt_result *b);

/* ------------------------------------------------------------------ front */

/* One point of a front: a configuration and its result. */
typedef struct kt_front_point {
    char *config;             /* configuration key, owned */
    kt_result result;
} kt_front_point;

/* The non-dominated (time, energy) results offered so far; a point equal
 * in both to one kept is left out (the first stays). */
typedef struct kt_front {
    kt_front_point *pts;
    size_t n, cap;
} kt_front;

/* Offer a result (successes with energy only; others are ignored);
 * KT_ENOMEM when it cannot be kept. */
int kt_front_offer(kt_front *f, const char *config, const kt_result *r);
/* Order the points by time, fastest first (energy then falls along it). */
void kt_front_sort(kt_front *f);
void kt_front_clear(kt_front *f);

#endif /* KT_OBJECTIVE_H */
