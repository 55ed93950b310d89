/* map.c - the MAP-Elites map of a tuning run (search/archive.h), as text
 * and as JSON: the fastest configuration of each filled cell of the
 * behaviour dimensions, with its time and GFLOP/s. */
#include "cli/cli.h"
#include "search/archive.h"

#include <math.h>
#include <stdio.h>

static double map_gflops(double flops, double ms)
{
    return isfinite(flops) && ms > 0 ? flops / (ms * 1e-3) / 1e9 : NAN;
}

/* "lo" or "lo-hi": the values of dimension d in bin b. */
static const char *bin_text(const kt_map *m, size_t d, size_t b, char *out, size_t n)
{
    const kt_map_dim *x = &m->dims[d];
    if (x->lo[b] == x->hi[b])
        snprintf(out, n, "%g", x->lo[b]);
    else
        snprintf(out, n, "%g-%g", x->lo[b], x->hi[b]);
    return out;
}

void cli_map_print(const kt_map *m, double flops)
{
    printf("map      %llu of %llu cells filled over", (unsigned long long)m->nfilled,
           (unsigned long long)m->ncells);
    for (size_t d = 0; d < m->ndims; d++)
        printf("%s %s (%zu bins)", d ? "," : "", m->dims[d].name, m->dims[d].nbins);
    printf("%s\n", m->fallback ? " (fallbacks: the spec names no BehaviourDimensions)"
                               : "");
    for (size_t i = 0; i < m->nfilled; i++) {
        const kt_map_cell *c = &m->filled[i];
        printf("        ");
        for (size_t d = 0; d < m->ndims; d++) {
            char t[64];
            printf(" %s %s |", m->dims[d].name, bin_text(m, d, c->bin[d], t, sizeof t));
        }
        double ms = c->time_ms;
        if (ms < 1)
            printf(" %.4g us", ms * 1e3);
        else
            printf(" %.4g ms", ms);
        double g = map_gflops(flops, c->time_ms);
        if (isfinite(g))
            printf(", %.1f GFLOP/s", g);
        printf("  %s\n", c->config);
    }
}

static json_object *dims_json(const kt_map *m)
{
    json_object *dims = json_object_new_array();
    for (size_t d = 0; d < m->ndims; d++) {
        json_object *o = json_object_new_object(), *bins = json_object_new_array();
        for (size_t b = 0; b < m->dims[d].nbins; b++) {
            json_object *range = json_object_new_array();
            json_object_array_add(range, json_object_new_double(m->dims[d].lo[b]));
            json_object_array_add(range, json_object_new_double(m->dims[d].hi[b]));
            json_object_array_add(bins, range);
        }
        json_object_object_add(o, "name", json_object_new_string(m->dims[d].name));
        json_object_object_add(o, "bins", bins);
        json_object_array_add(dims, o);
    }
    return dims;
}

json_object *cli_map_json(const kt_map *m, double flops)
{
    json_object *o = json_object_new_object(), *elites = json_object_new_array();
    for (size_t i = 0; i < m->nfilled; i++) {
        const kt_map_cell *c = &m->filled[i];
        json_object *e = json_object_new_object(), *bins = json_object_new_array();
        for (size_t d = 0; d < m->ndims; d++)
            json_object_array_add(bins, json_object_new_int64((int64_t)c->bin[d]));
        json_object_object_add(e, "cell", json_object_new_int64((int64_t)c->cell));
        json_object_object_add(e, "bins", bins);
        json_object_object_add(e, "config", cli_config_json(c->config));
        json_object_object_add(e, "key", json_object_new_string(c->config));
        json_object_object_add(e, "time_ms", json_object_new_double(c->time_ms));
        double g = map_gflops(flops, c->time_ms);
        if (isfinite(g))
            json_object_object_add(e, "gflops", json_object_new_double(g));
        json_object_array_add(elites, e);
    }
    json_object_object_add(o, "dimensions", dims_json(m));
    json_object_object_add(o, "fallback", json_object_new_boolean(m->fallback));
    json_object_object_add(o, "cells", json_object_new_int64((int64_t)m->ncells));
    json_object_object_add(o, "filled", json_object_new_int64((int64_t)m->nfilled));
    json_object_object_add(o, "elites", elites);
    return o;
}
