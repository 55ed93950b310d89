/* warm.c - start configurations from other problems' winners (warm.h). */
#include "tune/warm.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct ranked {
    double distance;
    size_t index;           /* into the winners */
} ranked;

static int by_distance(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->distance != y->distance)
        return x->distance < y->distance ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Squared distance between two problems' log-scaled values; INFINITY
 * when the key does not parse under this spec. */
static double distance(const kt_spec *spec, const kt_problem *prob, const char *key)
{
    kt_problem other = {0};
    kt_diag ignored = {{0}};
    if (kt_problem_parse(spec, key, &other, &ignored) != KT_OK)
        return INFINITY;
    double d = 0;
    for (size_t i = 0; i < prob->n && i < other.n; i++) {
        double e = log1p(fabs(prob->values[i])) - log1p(fabs(other.values[i]));
        d += e * e;
    }
    kt_problem_clear(&other);
    return d;
}

/* Whether cfg is among the first n configurations of out. */
static bool listed(const uint16_t *out, size_t n, const uint16_t *cfg, size_t np)
{
    for (size_t i = 0; i < n; i++)
        if (memcmp(out + i * np, cfg, np * sizeof *cfg) == 0)
            return true;
    return false;
}

int kt_warm_starts(const kt_spec *spec, const kt_problem *prob, kt_space *space,
                   const kt_winners *w, size_t max, uint16_t *out, size_t *n,
                   kt_diag *diag)
{
    *n = 0;
    if (w->n == 0 || max == 0)
        return KT_OK;
    ranked *order = malloc(w->n * sizeof *order);
    if (!order)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    for (size_t i = 0; i < w->n; i++)
        order[i] = (ranked){distance(spec, prob, w->problem[i]), i};
    qsort(order, w->n, sizeof *order, by_distance);
    size_t np = spec->nparams;
    kt_diag ignored = {{0}};
    for (size_t i = 0; i < w->n && *n < max && isfinite(order[i].distance); i++) {
        uint16_t *cfg = out + *n * np;
        if (kt_spec_config_parse(spec, w->config[order[i].index], cfg, &ignored) == KT_OK &&
            kt_space_is_valid(space, cfg) && !listed(out, *n, cfg, np))
            ++*n;
    }
    free(order);
    return KT_OK;
}
