/* map.c - the MAP-Elites map of a tuning run (ktune_run_map), as text and
 * as JSON: the best configuration (by the run's objective) of each filled
 * cell of the behaviour dimensions, with its time, GFLOP/s and energy;
 * which dimensions are measured, and the evaluations left unplaced. */
#include "cli.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static double map_gflops(double flops, double ms)
{
    return isfinite(flops) && ms > 0 ? flops / (ms * 1e-3) / 1e9 : NAN;
}

/* "lo" or "lo-hi": the values of dimension d in bin b. */
static const char *bin_text(const ktune_map *m, size_t d, size_t b, char *out, size_t n)
{
    double lo = NAN, hi = NAN;
    ktune_map_bin(m, d, b, &lo, &hi);
    if (lo == hi)
        snprintf(out, n, "%g", lo);
    else
        snprintf(out, n, "%g-%g", lo, hi);
    return out;
}

/* The unit of what a measured dimension measures. */
static const char *measured_unit(const char *what)
{
    return strcmp(what, "energy") == 0 ? "J per call"
           : strcmp(what, "power") == 0 ? "W" : "ms per call";
}

void cli_map_print(const ktune_map *m, double flops)
{
    ktune_map_info info;
    ktune_map_describe(m, &info);
    printf("map      %llu of %llu cells filled over", (unsigned long long)info.nfilled,
           (unsigned long long)info.ncells);
    for (size_t d = 0; d < info.ndims; d++) {
        const char *what = ktune_map_dim_measured(m, d);
        printf("%s %s (", d ? "," : "", ktune_map_dim_name(m, d));
        if (what)
            printf("measured: %s in %s, ", what, measured_unit(what));
        printf("%zu bins)", ktune_map_dim_bins(m, d));
    }
    printf("%s\n", info.fallback ? " (fallbacks: the spec names no BehaviourDimensions)"
                                 : "");
    if (info.unplaced)
        printf("         %zu correct evaluation%s not placed: no value of a measured "
               "dimension or of the objective\n", info.unplaced,
               info.unplaced == 1 ? "" : "s");
    ktune_map_elite e;
    for (size_t i = 0; ktune_map_elite_at(m, i, &e) == KTUNE_OK; i++) {
        printf("        ");
        for (size_t d = 0; d < info.ndims; d++) {
            char t[64];
            printf(" %s %s |", ktune_map_dim_name(m, d), bin_text(m, d, e.bins[d], t,
                                                                  sizeof t));
        }
        if (e.time_ms < 1)
            printf(" %.4g us", e.time_ms * 1e3);
        else
            printf(" %.4g ms", e.time_ms);
        double g = map_gflops(flops, e.time_ms);
        if (isfinite(g))
            printf(", %.1f GFLOP/s", g);
        if (isfinite(e.energy_j))
            printf(", %.4g J", e.energy_j);
        printf("  %s\n", e.config);
    }
}

static json_object *dims_json(const ktune_map *m, size_t ndims)
{
    json_object *dims = json_object_new_array();
    for (size_t d = 0; d < ndims; d++) {
        json_object *o = json_object_new_object(), *bins = json_object_new_array();
        double lo, hi;
        for (size_t b = 0; ktune_map_bin(m, d, b, &lo, &hi) == KTUNE_OK; b++) {
            json_object *range = json_object_new_array();
            json_object_array_add(range, json_object_new_double(lo));
            json_object_array_add(range, json_object_new_double(hi));
            json_object_array_add(bins, range);
        }
        const char *what = ktune_map_dim_measured(m, d);
        json_object_object_add(o, "name", json_object_new_string(ktune_map_dim_name(m, d)));
        if (what)
            json_object_object_add(o, "measured", json_object_new_string(what));
        json_object_object_add(o, "bins", bins);
        json_object_array_add(dims, o);
    }
    return dims;
}

json_object *cli_map_json(const ktune_map *m, double flops)
{
    ktune_map_info info;
    ktune_map_describe(m, &info);
    json_object *o = json_object_new_object(), *elites = json_object_new_array();
    ktune_map_elite c;
    for (size_t i = 0; ktune_map_elite_at(m, i, &c) == KTUNE_OK; i++) {
        json_object *e = json_object_new_object(), *bins = json_object_new_array();
        for (size_t d = 0; d < info.ndims; d++)
            json_object_array_add(bins, json_object_new_int64((int64_t)c.bins[d]));
        json_object_object_add(e, "cell", json_object_new_int64((int64_t)c.cell));
        json_object_object_add(e, "bins", bins);
        json_object_object_add(e, "config", cli_config_json(c.config));
        json_object_object_add(e, "key", json_object_new_string(c.config));
        json_object_object_add(e, "time_ms", json_object_new_double(c.time_ms));
        double g = map_gflops(flops, c.time_ms);
        if (isfinite(g))
            json_object_object_add(e, "gflops", json_object_new_double(g));
        if (isfinite(c.energy_j))
            json_object_object_add(e, "energy_j", json_object_new_double(c.energy_j));
        json_object_array_add(elites, e);
    }
    json_object_object_add(o, "dimensions", dims_json(m, info.ndims));
    json_object_object_add(o, "fallback", json_object_new_boolean(info.fallback));
    json_object_object_add(o, "cells", json_object_new_int64((int64_t)info.ncells));
    json_object_object_add(o, "filled", json_object_new_int64((int64_t)info.nfilled));
    json_object_object_add(o, "unplaced", json_object_new_int64((int64_t)info.unplaced));
    json_object_object_add(o, "elites", elites);
    return o;
}
