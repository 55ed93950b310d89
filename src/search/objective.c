/* objective.c - the objectives' names and costs, and the time/energy
 * front (objective.h). */
#include "search/objective.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const NAMES[KT_OBJECTIVE_COUNT] = {
    [KT_OBJECTIVE_TIME] = "time",
    [KT_OBJECTIVE_ENERGY] = "energy",
    [KT_OBJECTIVE_EDP] = "edp",
    [KT_OBJECTIVE_PARETO] = "pareto",
};

const char *kt_objective_name(kt_objective o)
{
    return (unsigned)o < KT_OBJECTIVE_COUNT ? NAMES[o] : NULL;
}

int kt_objective_parse(const char *name, kt_objective *out)
{
    for (int i = 0; name && i < KT_OBJECTIVE_COUNT; i++)
        if (strcmp(NAMES[i], name) == 0) {
            *out = (kt_objective)i;
            return KT_OK;
        }
    return KT_ENOTFOUND;
}

bool kt_objective_needs_energy(kt_objective o) { return o != KT_OBJECTIVE_TIME; }

/* A success's time and energy, each +inf when unknown or negative. */
static double ok_time(const kt_result *r)
{
    return r->status == KT_STATUS_OK && r->time_ms >= 0 ? r->time_ms : INFINITY;
}

static double ok_energy(const kt_result *r)
{
    return r->status == KT_STATUS_OK && r->energy_j >= 0 ? r->energy_j : INFINITY;
}

double kt_objective_cost(kt_objective o, const kt_result *r)
{
    switch (o) {
    case KT_OBJECTIVE_ENERGY: return ok_energy(r);
    case KT_OBJECTIVE_EDP:
    case KT_OBJECTIVE_PARETO: return ok_time(r) * ok_energy(r);
    default: return ok_time(r);
    }
}

bool kt_result_dominates(const kt_result *a, const kt_result *b)
{
    double ta = ok_time(a), ea = ok_energy(a), tb = ok_time(b), eb = ok_energy(b);
    return isfinite(ta) && isfinite(ea) && ta <= tb && ea <= eb && (ta < tb || ea < eb);
}

/* ------------------------------------------------------------------ front */

/* Whether r adds nothing: a kept point dominates it or equals it. */
static bool covered(const kt_front *f, const kt_result *r)
{
    for (size_t i = 0; i < f->n; i++) {
        const kt_result *p = &f->pts[i].result;
        if (kt_result_dominates(p, r) ||
            (p->time_ms == r->time_ms && p->energy_j == r->energy_j))
            return true;
    }
    return false;
}

/* Drop the points r dominates. */
static void drop_dominated(kt_front *f, const kt_result *r)
{
    size_t k = 0;
    for (size_t i = 0; i < f->n; i++) {
        if (kt_result_dominates(r, &f->pts[i].result))
            free(f->pts[i].config);
        else
            f->pts[k++] = f->pts[i];
    }
    f->n = k;
}

int kt_front_offer(kt_front *f, const char *config, const kt_result *r)
{
    if (!isfinite(kt_objective_cost(KT_OBJECTIVE_PARETO, r)) || covered(f, r))
        return KT_OK;
    drop_dominated(f, r);
    if (f->n == f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 8;
        kt_front_point *p = realloc(f->pts, cap * sizeof *p);
        if (!p)
            return KT_ENOMEM;
        f->pts = p;
        f->cap = cap;
    }
    char *key = kt_strdup(config);
    if (!key)
        return KT_ENOMEM;
    f->pts[f->n++] = (kt_front_point){.config = key, .result = *r};
    return KT_OK;
}

static int by_time(const void *a, const void *b)
{
    const kt_result *x = &((const kt_front_point *)a)->result;
    const kt_result *y = &((const kt_front_point *)b)->result;
    return (x->time_ms > y->time_ms) - (x->time_ms < y->time_ms);
}

void kt_front_sort(kt_front *f)
{
    if (f->n > 1)
        qsort(f->pts, f->n, sizeof *f->pts, by_time);
}

void kt_front_clear(kt_front *f)
{
    for (size_t i = 0; i < f->n; i++)
        free(f->pts[i].config);
    free(f->pts);
    *f = (kt_front){0};
}
